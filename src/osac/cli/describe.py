"""``osac describe``: one object as readable sections, the same way for every kind.

Identity first (kind, id, name, tenant, creator, age, version), then state and its message and
a flat kind's scalar fields, then every other top-level part of the object (``spec``,
``status``, a flat kind's nested fields) as an indented tree, then labels and annotations, the
objects referring to it and its lifecycle events.
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

from osac.cli.fields import ABSENT, descriptor_of, enum_label, enum_type_of, value_at
from osac.cli.kinds import display_name
from osac.cli.render import age, state_label, to_dict
from osac.model.kinds import Kind

INDENT = "  "
#: Top-level fields shown in the identity section rather than as trees.
IDENTITY_FIELDS = ("id", "metadata")
LABEL_WIDTH = 16


@dataclass(frozen=True)
class Related:
    """What ``describe`` shows besides the object itself."""

    referrers: Sequence[tuple[Kind, Message]] = ()
    events: Sequence[Message] = ()
    now: datetime = field(default_factory=lambda: datetime.now(UTC))


def describe_lines(kind: Kind, obj: Message, related: Related | None = None) -> list[str]:
    related = related or Related()
    lines = _identity(kind, obj, related.now)
    lines += _state(obj)
    data = to_dict(obj)
    shown = [name for name in (f.name for f in descriptor_of(obj).fields) if name in data]
    parts = [name for name in shown if name not in IDENTITY_FIELDS]
    lines += [_row(_title(name), _scalar(data[name])) for name in parts if not isinstance(data[name], dict | list)]
    for name in parts:
        if isinstance(data[name], dict | list):
            lines += ["", f"{_title(name)}:", *_tree(data[name])]
    lines += _mapping("Labels", value_at(obj, "metadata.labels"))
    lines += _mapping("Annotations", value_at(obj, "metadata.annotations"))
    if related.referrers:
        lines += ["", "Referenced by:"]
        lines += [f"{INDENT}{other.message} '{display_name(item)}' ({item.id})"  # type: ignore[attr-defined]
                  for other, item in related.referrers]
    if related.events:
        lines += ["", "Events:", *_events(related.events, related.now)]
    return lines


def _identity(kind: Kind, obj: Message, now: datetime) -> list[str]:
    rows: list[tuple[str, str]] = [("Kind", kind.message), ("ID", obj.id or "-")]  # type: ignore[attr-defined]
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


def _events(events: Sequence[Message], now: datetime) -> list[str]:
    lines = []
    for event in events:
        type_field = descriptor_of(event).fields_by_name["type"]
        kind = enum_label(enum_type_of(type_field), event.type)  # type: ignore[attr-defined]
        stamp = event.timestamp  # type: ignore[attr-defined]
        when = age(now - stamp.ToDatetime(tzinfo=UTC)) if event.HasField("timestamp") else "-"
        lines.append(f"{INDENT}{when:<6} {kind:<8} {event.reason:<28} {event.message}")  # type: ignore[attr-defined]
    return lines
