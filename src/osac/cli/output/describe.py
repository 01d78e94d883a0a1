"""``osac describe``: one object as readable sections, the same way for every kind.

Identity first (kind, id, name, tenant, creator, age, version), then state and its message, the
kind's key facts (``DETAILS``: a subnet's gateway and VIP range, an external IP's address and
consumer) and a flat kind's scalar fields, then every other top-level part of the object
(``spec``, ``status``, a flat kind's nested fields) as an indented tree, security rules in it
as sentences (``tcp 443 from 0.0.0.0/0``), then labels and annotations, the objects it
references and the objects referring to it (each with its state and ``SUMMARIES`` field), the
objects the service auto-provisioned for it (an instance's automatic external IP, with its
address, and that IP's attachment), and its lifecycle events. What is shown per kind is data in
this module.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import yaml
from google.protobuf.message import Message
from google.protobuf.timestamp_pb2 import Timestamp

from osac.api.public.v1.lifecycle_event_type_pb2 import LifecycleEvent
from osac.cli.connection.client import Link, field_text
from osac.cli.connection.shape import id_of
from osac.cli.objects.kinds import display_name
from osac.cli.objects.rules import rule_text
from osac.cli.output.fields import (
    ABSENT,
    descriptor_of,
    enum_label,
    enum_type_of,
    is_map,
    is_message,
    message_type_of,
    value_at,
)
from osac.cli.output.render import EMPTY, age, state_label, table_lines, to_dict
from osac.model import registry
from osac.model.kinds import Kind

INDENT = "  "
#: Top-level fields shown in the identity section rather than as trees.
IDENTITY_FIELDS = ("id", "metadata")
LABEL_WIDTH = 16
#: The message type whose lists are shown as sentences.
RULE_TYPE = "SecurityRule"


@dataclass(frozen=True)
class Detail:
    """A key fact shown under the state: a label and a field path (a bool reads yes / no, an
    empty value ``-``, or nothing when ``optional``)."""

    label: str
    path: str
    optional: bool = False


DETAILS: dict[str, tuple[Detail, ...]] = {
    "network_class": (
        Detail("Default", "is_default"),
        Detail("Fabric manager", "fabric_manager"),
        Detail("K8s manager", "k8s_manager"),
        Detail("VIP prefix", "spec.vip_prefix_length", optional=True),
    ),
    "virtual_network": (Detail("CIDR", "spec.ipv4_cidr"), Detail("IPv6 CIDR", "spec.ipv6_cidr", optional=True)),
    "subnet": (
        Detail("CIDR", "spec.ipv4_cidr"),
        Detail("IPv6 CIDR", "spec.ipv6_cidr", optional=True),
        Detail("Gateway", "status.gateway"),
        Detail("VIP range", "status.vip_range"),
        Detail("Available", "status.available_addresses"),
    ),
    "external_ip_pool": (
        Detail("CIDRs", "spec.cidrs"),
        Detail("Total", "status.total"),
        Detail("Allocated", "status.allocated"),
        Detail("Available", "status.available"),
    ),
    "external_ip": (Detail("Address", "status.address"), Detail("Attached", "status.attached")),
    "external_ip_attachment": (
        Detail("External IP", "status.external_ip_address"),
        Detail("Target address", "status.target_address"),
        Detail("Reason", "status.reason"),
    ),
    "compute_instance": (
        Detail("Internal IP", "status.internal_ip_address"),
        Detail("External IP", "status.external_ip_address", optional=True),
    ),
}

#: Kinds whose describe lists what the service auto-provisioned for them (networking.md §8; a
#: cluster's view is ``cluster_describe``).
AUTO_PARENTS = ("compute_instance", "bare_metal_instance")

#: Kinds whose external address is not a status field (a bare-metal status has none): it is shown
#: as ``External IP`` from the READY external IP attachments targeting the object, which carry it.
EXTERNAL_FROM_ATTACHMENTS = ("bare_metal_instance",)

#: An instance's interfaces (status, one entry per attachment), shown as a table under the
#: details: interface (bare metal), subnet by name, address, primary.
INTERFACES: dict[str, str] = {
    "compute_instance": "status.compute_network_attachment_statuses",
    "bare_metal_instance": "status.network_attachment_statuses",
}

#: A row naming the objects referring to this one (the kinds whose descriptors reference it): an
#: external IP's one consumer, an external IP attachment or a NAT gateway.
REFERRER_ROWS: dict[str, str] = {"external_ip": "Consumer"}

#: The field that says most about an object in a list of references (beside its state).
SUMMARIES: dict[str, str] = {
    "virtual_network": "spec.ipv4_cidr",
    "subnet": "spec.ipv4_cidr",
    "external_ip": "status.address",
    "external_ip_attachment": "status.target_address",
    "compute_instance": "status.internal_ip_address",
    "cluster": "status.api_url",
    "network_class": "title",
    "external_ip_pool": "spec.ip_family",
}


@dataclass(frozen=True)
class Related:
    """What ``describe`` shows besides the object itself."""

    referrers: Sequence[Link] = ()
    events: Sequence[LifecycleEvent] = ()
    now: datetime = field(default_factory=lambda: datetime.now(UTC))
    references: Sequence[Link] = ()
    #: The objects auto-provisioned for this one (``client.auto_provisioned``).
    auto_provisioned: Sequence[Link] = ()


def describe_lines(kind: Kind, obj: Message, related: Related | None = None) -> list[str]:
    related = related or Related()
    lines = _identity(kind, obj, related.now)
    lines += _state(obj)
    lines += _details(kind, obj, related.referrers)
    lines += _interfaces(kind, obj, related.references)
    data = readable_dict(obj)
    shown = [name for name in (f.name for f in descriptor_of(obj).fields) if name in data]
    in_details = {detail.path for detail in DETAILS.get(kind.name, ())}
    parts = [name for name in shown if name not in IDENTITY_FIELDS and name not in in_details]
    lines += [_row(_title(name), _scalar(data[name])) for name in parts if not isinstance(data[name], dict | list)]
    for name in parts:
        if isinstance(data[name], dict | list):
            lines += ["", f"{_title(name)}:", *_tree(data[name])]
    lines += _mapping("Labels", value_at(obj, "metadata.labels"))
    lines += _mapping("Annotations", value_at(obj, "metadata.annotations"))
    if related.references:
        lines += ["", "References:", *_links(related.references, outgoing=True)]
    if related.referrers:
        lines += ["", "Referenced by:", *_links(related.referrers, outgoing=False)]
    if related.auto_provisioned:
        lines += ["", "Auto-provisioned:", *_links(related.auto_provisioned, outgoing=None)]
    if related.events:
        lines += ["", "Events:", *_events(related.events, related.now)]
    return lines


def _interfaces(kind: Kind, obj: Message, references: Sequence[Link]) -> list[str]:
    path = INTERFACES.get(kind.name)
    entries: Sequence[Any] = value_at(obj, path) if path else ()
    if not entries:
        return []
    subnets = {link.object_id: display_name(link.obj) for link in references
               if link.kind.name == "subnet" and link.obj is not None}
    named = "interface" in entries[0].DESCRIPTOR.fields_by_name
    headers = [*(["INTERFACE"] if named else []), "SUBNET", "IP", "PRIMARY"]
    rows = [[*([entry.interface] if named else []), subnets.get(entry.subnet, entry.subnet or EMPTY),
             entry.ip_address or EMPTY, "yes" if entry.primary else "no"] for entry in entries]
    lines, _ = table_lines(headers, rows)
    return ["", "Interfaces:", *(f"{INDENT}{line}" for line in lines)]


def _details(kind: Kind, obj: Message, referrers: Sequence[Link]) -> list[str]:
    rows = []
    for detail in DETAILS.get(kind.name, ()):
        value = value_at(obj, detail.path)
        if value is ABSENT or (detail.optional and not value):
            continue
        if isinstance(value, bool):
            text = "yes" if value else "no"
        elif isinstance(value, str | int):
            text = str(value) if value != "" else EMPTY
        else:
            text = ", ".join(str(item) for item in value) or EMPTY
        rows.append(_row(detail.label, text))
    if kind.name in EXTERNAL_FROM_ATTACHMENTS:
        attachments = [link.obj for link in referrers if link.kind.name == "external_ip_attachment" and link.obj]
        addresses = external_addresses(attachments)
        if addresses:
            rows.append(_row("External IP", ", ".join(addresses)))
    if kind.name in REFERRER_ROWS:
        kinds = {other.name for other, _ in registry.referring(kind.name)}
        users = [link for link in referrers if link.kind.name in kinds]
        label = REFERRER_ROWS[kind.name]
        rows.append(_row(label, ", ".join(_link_name(link) + f" ({_link_state(link)})" for link in users) or "none"))
    return rows


def external_addresses(attachments: Sequence[Message]) -> list[str]:
    """The external addresses of the READY ones among ``attachments`` (external IP attachments):
    the addresses that reach their target now."""
    ready = [attachment for attachment in attachments if state_label(attachment) == "READY"]
    return [address for address in (field_text(a, "status.external_ip_address") for a in ready) if address]


def _links(links: Sequence[Link], *, outgoing: bool | None) -> list[str]:
    """Aligned rows: the other object, its state and summary, its id, and the reference field
    first (``outgoing``), last (incoming: ``(via path)``) or not at all (None: the link is a
    label, the same for every row)."""
    table = []
    for link in links:
        summary = field_text(link.obj, SUMMARIES[link.kind.name]) if link.obj and link.kind.name in SUMMARIES else ""
        row = [_link_name(link), _link_state(link), summary or EMPTY, link.object_id]
        if outgoing is None:
            table.append(row)
        else:
            table.append([link.path, *row] if outgoing else [*row, f"(via {link.path})"])
    lines, _ = table_lines([""] * len(table[0]), table)
    return [f"{INDENT}{line}" for line in lines[1:]]


def _link_name(link: Link) -> str:
    if link.obj is None:
        return f"{link.kind.message} {link.object_id}"
    return f"{link.kind.message} '{display_name(link.obj)}'"


def _link_state(link: Link) -> str:
    return "not found" if link.obj is None else state_label(link.obj)


def readable_dict(obj: Message) -> dict[str, Any]:
    """The object in the API's JSON shape, with lists of security rules as sentences."""
    data = to_dict(obj)
    _rules_as_text(obj, data)
    return data


def _rules_as_text(message: Message, data: dict[str, Any]) -> None:
    for field_descriptor in descriptor_of(message).fields:
        name = field_descriptor.name
        if name not in data or not is_message(field_descriptor):
            continue
        value = getattr(message, name)
        if is_map(field_descriptor):
            entries = data[name]
            for key, item in value.items():
                if isinstance(item, Message) and isinstance(entries.get(str(key)), dict):
                    _rules_as_text(item, entries[str(key)])
        elif field_descriptor.is_repeated:
            if message_type_of(field_descriptor).name == RULE_TYPE:
                data[name] = [rule_text(rule, egress="egress" in name) for rule in value]
            else:
                for item, item_data in zip(value, data[name], strict=False):
                    if isinstance(item_data, dict):
                        _rules_as_text(item, item_data)
        elif isinstance(data[name], dict):
            _rules_as_text(value, data[name])


def _identity(kind: Kind, obj: Message, now: datetime) -> list[str]:
    rows: list[tuple[str, str]] = [("Kind", kind.message), ("ID", id_of(obj) or "-")]
    metadata = value_at(obj, "metadata")
    if metadata is not ABSENT:
        rows += [("Name", metadata.name or "-"), ("Tenant", metadata.tenant or "-")]
        if metadata.project:
            rows.append(("Project", metadata.project))
        rows.append(("Creator", metadata.creator or "-"))
        if metadata.HasField("creation_timestamp"):
            rows.append(("Created", _when(metadata.creation_timestamp, now)))
        if metadata.HasField("deletion_timestamp"):
            rows.append(("Deleting since", _when(metadata.deletion_timestamp, now)))
        finalizers = list(getattr(metadata, "finalizers", []))
        if finalizers:
            rows.append(("Finalizers", ", ".join(finalizers)))
        rows.append(("Version", str(metadata.version)))
    return [_row(label, text) for label, text in rows]


def _state(obj: Message) -> list[str]:
    state = state_label(obj)
    if state == "-":
        return []
    lines = [_row("State", state)]
    message = value_at(obj, "status.message")
    if isinstance(message, str) and message:
        lines.append(_row("Message", message))
    return lines


def _when(stamp: Timestamp, now: datetime) -> str:
    moment = stamp.ToDatetime(tzinfo=UTC)
    return f"{stamp.ToJsonString()} ({age(now - moment)} ago)"


def _row(label: str, text: str) -> str:
    return f"{label + ':':<{LABEL_WIDTH}}{text}"


def _scalar(value: Any) -> str:
    return json.dumps(value) if isinstance(value, bool) else str(value)


def _title(name: str) -> str:
    return name.replace("_", " ").capitalize()


def _tree(value: dict[str, Any] | list[Any]) -> list[str]:
    """A value as indented YAML: nested messages become nested blocks."""
    text = yaml.safe_dump(value, sort_keys=False, allow_unicode=True, default_flow_style=False)
    return [f"{INDENT}{line}" for line in text.rstrip("\n").splitlines()]


def _mapping(title: str, value: Any) -> list[str]:
    if value is ABSENT or not value:
        return ["", f"{title}:", f"{INDENT}-"] if title == "Labels" else []
    return ["", f"{title}:", *(f"{INDENT}{key}={value[key]}" for key in sorted(value))]


def _events(events: Sequence[LifecycleEvent], now: datetime) -> list[str]:
    lines = []
    for event in events:
        type_field = descriptor_of(event).fields_by_name["type"]
        kind = enum_label(enum_type_of(type_field), event.type)
        stamp = event.timestamp
        when = age(now - stamp.ToDatetime(tzinfo=UTC)) if event.HasField("timestamp") else "-"
        lines.append(f"{INDENT}{when:<6} {kind:<8} {event.reason:<28} {event.message}")
    return lines
