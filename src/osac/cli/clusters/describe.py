"""``osac describe cluster``: the fixed layout of cluster-status.md §14, never YAML or JSON.

Everything here is rendering of what the API returned; the CLI derives nothing beyond the two
cell rules (``osac.status.clusters.cells`` via ``cluster_columns``) and the display rules the web
console shares (``osac.status.clusters.summary``: the stage line, the health breakdown, ages).
Names of referenced objects (host types, subnet, security groups) and the events are looked up by
``cluster_lookups`` and handed in as ``ClusterLookups``, so the same object always prints the
same way for a given ``now``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from google.protobuf.message import Message
from google.protobuf.timestamp_pb2 import Timestamp

from osac.api.public.v1.cluster_type_pb2 import Cluster, ClusterStatus
from osac.api.public.v1.lifecycle_event_type_pb2 import LifecycleEvent
from osac.cli.clusters.columns import health_cell
from osac.cli.clusters.events import EVENT_HEADERS, event_rows
from osac.cli.output.fields import descriptor_of, enum_label
from osac.cli.output.render import EMPTY
from osac.model.protos import enum_type_of
from osac.status.clusters.summary import (
    age_of,
    control_plane_text,
    node_set_views,
    stage_text,
    status_text,
    workers_text,
)

LABEL_WIDTH = 18
SUB_INDENT = "  "
#: Columns of the tables in this view are two spaces apart (the §14 layout).
GAP = "  "
NONE_LINE = "(none)"

NODE_SET_HEADERS = ("NODE SET", "HOST TYPE", "SIZE", "DESIRED", "CURRENT", "READY", "STATE", "FABRIC IF")
CONDITION_HEADERS = ("TYPE", "STATUS", "REASON", "SINCE", "MESSAGE")


@dataclass(frozen=True)
class ClusterLookups:
    """What the view shows besides the cluster: names of referenced objects and its events."""

    now: datetime
    #: Host type names by id (an id not in here prints as it is).
    host_types: Mapping[str, str] = field(default_factory=dict)
    #: The Network line: ``subnet default (10.0.2.0/24), security groups default``.
    network: str = EMPTY
    #: The cluster's most recent lifecycle events, newest first.
    events: Sequence[LifecycleEvent] = ()
    #: External addresses by endpoint (``API``, ``INGRESS``), from its external IP attachments.
    external_ips: Mapping[str, str] = field(default_factory=dict)


def cluster_lines(cluster: Cluster, lookups: ClusterLookups) -> list[str]:
    """The whole view, line by line."""
    now = lookups.now
    meta = cluster.metadata
    spec = cluster.spec
    status = cluster.status
    lines = [
        _row("ID", cluster.id or EMPTY),
        _row("Name", meta.name or EMPTY),
        _row("Tenant", meta.tenant or EMPTY),
        _row("Catalog Item", spec.catalog_item or EMPTY),
        _row("State", state_text(status, now)),
        _row("Stage", stage_text(status, now)),
        _row("Health", health_cell(status)),
        _row(f"{SUB_INDENT}Control plane", control_plane_text(status)),
        _row(f"{SUB_INDENT}Workers", workers_text(status)),
        _row("API URL", status.api_url or EMPTY),
        _row("Console URL", status.console_url or EMPTY),
        _row("API Endpoint", status.api_endpoint or EMPTY),
        _row("Ingress Endpoint", status.ingress_endpoint or EMPTY),
        _row("External API", lookups.external_ips.get("API", EMPTY)),
        _row("External Ingress", lookups.external_ips.get("INGRESS", EMPTY)),
        _row("Network", lookups.network),
    ]
    lines += ["", *_table(NODE_SET_HEADERS, node_set_rows(cluster, lookups.host_types))]
    lines += ["", "CONDITIONS", *_table(CONDITION_HEADERS, condition_rows(status, now))]
    lines += ["", "EVENTS", *_table(EVENT_HEADERS, event_rows(lookups.events, now))]
    return lines


# -- the header rows -------------------------------------------------------------------------------


def state_text(status: ClusterStatus, now: datetime) -> str:
    """``PROGRESSING (since 2026-03-04 10:02:11Z, 41m ago)``."""
    state = _enum_text(status, "state")
    if not status.HasField("state_transition_time"):
        return state
    since = status.state_transition_time
    return f"{state} (since {_moment(since)}, {age_of(since, now)} ago)"


# -- the tables ------------------------------------------------------------------------------------


def node_set_rows(cluster: Cluster, host_types: Mapping[str, str]) -> list[list[str]]:
    """One row per node set of the spec or the status (a removed one drains in the status only),
    by key: sizes from the spec, counts and state from the status."""
    rows = []
    for view in node_set_views(cluster):
        key, host_type, size, fabric, seen = view.key, view.host_type, view.size, view.fabric_interface, view.observed
        rows.append([
            key,
            host_types.get(host_type, host_type) or EMPTY,
            EMPTY if size is None else str(size),
            EMPTY if seen is None else str(seen.desired_replicas),
            EMPTY if seen is None else str(seen.current_replicas),
            EMPTY if seen is None else str(seen.ready_replicas),
            EMPTY if seen is None else _enum_text(seen, "state"),
            fabric or EMPTY,
        ])
    return rows


def condition_rows(status: ClusterStatus, now: datetime) -> list[list[str]]:
    """TYPE STATUS REASON SINCE MESSAGE per condition, in the stored order."""
    rows = []
    for item in status.conditions:
        rows.append([
            condition_type_text(item),
            status_text(item.status),
            item.reason or EMPTY,
            age_of(item.last_transition_time, now) if item.HasField("last_transition_time") else EMPTY,
            item.message,
        ])
    return rows


def condition_type_text(item: Message) -> str:
    """``ControlPlaneAvailable`` for CLUSTER_CONDITION_TYPE_CONTROL_PLANE_AVAILABLE; an unknown
    number raw."""
    label = _enum_text(item, "type")
    if label == EMPTY or label.lstrip("-").isdigit():
        return label
    return "".join(word.capitalize() for word in label.split("_"))


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    if not rows:
        return [GAP.join(headers), NONE_LINE]
    widths = [max(len(headers[i]), *(len(row[i]) for row in rows)) for i in range(len(headers))]
    return [
        GAP.join(text.ljust(width) for text, width in zip(line, widths, strict=True)).rstrip()
        for line in (headers, *rows)
    ]


# -- small helpers ---------------------------------------------------------------------------------


def _row(label: str, text: str) -> str:
    return f"{label + ':':<{LABEL_WIDTH}}{text}"


def _enum_text(message: Message, name: str) -> str:
    """An enum field without its prefix; an unknown number raw, 0 (not set) ``-``."""
    number = getattr(message, name)
    if not number:
        return EMPTY
    return enum_label(enum_type_of(descriptor_of(message).fields_by_name[name]), number)


def _moment(stamp: Timestamp) -> str:
    return stamp.ToDatetime(tzinfo=UTC).strftime("%Y-%m-%d %H:%M:%SZ")
