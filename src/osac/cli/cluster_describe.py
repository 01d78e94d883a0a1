"""``osac describe cluster``: the fixed layout of cluster-status.md §14, never YAML or JSON.

Everything here is rendering of what the API returned; the CLI derives nothing beyond the two
cell rules (``osac.status.clusters.cells`` via ``cluster_columns``). Names of referenced objects
(host types, subnet, security groups) and the events are looked up by ``cluster_lookups`` and
handed in as ``ClusterLookups``, so the same object always prints the same way for a given
``now``.

Choices the spec leaves open:

- **Stall threshold.** The threshold in force is ``status.stage_threshold``, which the
  reconciler writes with the stage (configured, host-type override or default). A status
  without it (an older server, or a Delete not yet followed by a reconciler pass) falls back to
  the threshold the PROGRESSING message states (``(threshold 60m)``, after a stall) and
  otherwise the §9.1 default of the stage; a stage without one shows no threshold.
- **Stage markers.** ``STALLED`` when PROGRESSING's reason is ``Stalled``; ``UNKNOWN`` when it is
  ``StageUnknown`` (the stage shown is the last known one and no stall timing runs). A threshold
  is shown only while PROGRESSING is TRUE, the only time a stage can stall.
- **Health breakdown.** Control plane: ``Available`` when CONTROL_PLANE_AVAILABLE is TRUE, else
  its reason; ``(degraded)`` is added when DEGRADED says ``ControlPlaneDegraded``. Workers:
  ``Ready`` when WORKERS_READY is TRUE, ``Degraded (node set gpu)`` naming the DEGRADED node
  sets, ``Scaling (node set workers)`` naming those scaling or provisioning, else its reason.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from google.protobuf.message import Message
from google.protobuf.timestamp_pb2 import Timestamp

from osac.cli.cluster_columns import health_cell
from osac.cli.cluster_events import EVENT_HEADERS, event_rows
from osac.cli.fields import descriptor_of, enum_label, enum_type_of
from osac.cli.render import EMPTY, age
from osac.status.clusters.terms import (
    CONTROL_PLANE_AVAILABLE,
    DEGRADED,
    NODE_SET_DEGRADED,
    NODE_SET_PROVISIONING,
    NODE_SET_SCALING,
    PROGRESSING,
    STAGE_UNKNOWN,
    STALLED,
    WORKERS_READY,
)
from osac.status.clusters.thresholds import DEFAULT_STALL_THRESHOLDS, parse_threshold

LABEL_WIDTH = 18
SUB_INDENT = "  "
#: Columns of the tables in this view are two spaces apart (the §14 layout).
GAP = "  "
TRUE = 1
FALSE = 2
CONTROL_PLANE_DEGRADED = "ControlPlaneDegraded"
WORKERS_DEGRADED = "WorkersDegraded"
WORKERS_SCALING = "Scaling"
NONE_LINE = "(none)"

NODE_SET_HEADERS = ("NODE SET", "HOST TYPE", "SIZE", "DESIRED", "CURRENT", "READY", "STATE", "FABRIC IF")
CONDITION_HEADERS = ("TYPE", "STATUS", "REASON", "SINCE", "MESSAGE")

_THRESHOLD = re.compile(r"\(threshold ([0-9][0-9.hms]*)\)")


@dataclass(frozen=True)
class ClusterLookups:
    """What the view shows besides the cluster: names of referenced objects and its events."""

    now: datetime
    #: Host type names by id (an id not in here prints as it is).
    host_types: Mapping[str, str] = field(default_factory=dict)
    #: The Network line: ``subnet default (10.0.2.0/24), security groups default``.
    network: str = EMPTY
    #: The cluster's most recent lifecycle events, newest first.
    events: Sequence[Message] = ()


def cluster_lines(cluster: Message, lookups: ClusterLookups) -> list[str]:
    """The whole view, line by line."""
    now = lookups.now
    meta = cluster.metadata  # type: ignore[attr-defined]
    spec = cluster.spec  # type: ignore[attr-defined]
    status = cluster.status  # type: ignore[attr-defined]
    lines = [
        _row("ID", cluster.id or EMPTY),  # type: ignore[attr-defined]
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
        _row("Network", lookups.network),
    ]
    lines += ["", *_table(NODE_SET_HEADERS, node_set_rows(cluster, lookups.host_types))]
    lines += ["", "CONDITIONS", *_table(CONDITION_HEADERS, condition_rows(status, now))]
    lines += ["", "EVENTS", *_table(EVENT_HEADERS, event_rows(lookups.events, now))]
    return lines


# -- the header rows -------------------------------------------------------------------------------


def state_text(status: Message, now: datetime) -> str:
    """``PROGRESSING (since 2026-03-04 10:02:11Z, 41m ago)``."""
    state = _enum_text(status, "state")
    if not status.HasField("state_transition_time"):
        return state
    since = status.state_transition_time  # type: ignore[attr-defined]
    return f"{state} (since {_moment(since)}, {_age(since, now)} ago)"


def stage_text(status: Message, now: datetime) -> str:
    """``WorkersJoining for 23m  STALLED (threshold 20m)``; ``-`` when no stage is under way."""
    progressing = _condition(status, PROGRESSING)
    reason = progressing.reason if progressing is not None else ""  # type: ignore[attr-defined]
    stage = status.stage  # type: ignore[attr-defined]
    text = stage or EMPTY
    if stage and status.HasField("stage_entered_at"):
        text += f" for {_age(status.stage_entered_at, now)}"  # type: ignore[attr-defined]
    if reason == STAGE_UNKNOWN:
        return f"{text}  UNKNOWN (last known stage; signals unavailable)"
    if not stage or progressing is None or progressing.status != TRUE:  # type: ignore[attr-defined]
        return text
    threshold = stall_threshold(status, progressing.message)  # type: ignore[attr-defined]
    limit = f"(threshold {duration_text(threshold)})" if threshold is not None else ""
    if reason == STALLED:
        return f"{text}  STALLED {limit}".rstrip()
    return f"{text} {limit}".rstrip()


def stall_threshold(status: Message, message: str) -> timedelta | None:
    """The status's ``stage_threshold``; without it the threshold the PROGRESSING message
    states, else the §9.1 default of the stage."""
    if status.HasField("stage_threshold"):
        return status.stage_threshold.ToTimedelta()  # type: ignore[attr-defined,no-any-return]
    stage = status.stage  # type: ignore[attr-defined]
    match = _THRESHOLD.search(message or "")
    if match:
        try:
            return parse_threshold(match.group(1), "threshold")
        except ValueError:
            pass
    return DEFAULT_STALL_THRESHOLDS.get(stage)


def duration_text(delta: timedelta) -> str:
    """``20m``, ``1h``, ``1h30m``, ``45s``: a threshold as an operator configures one."""
    seconds = int(delta.total_seconds())
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    parts = [f"{value}{unit}" for value, unit in ((hours, "h"), (minutes, "m"), (seconds, "s")) if value]
    return "".join(parts) or "0s"


def control_plane_text(status: Message) -> str:
    cp = _condition(status, CONTROL_PLANE_AVAILABLE)
    if cp is None:
        return EMPTY
    text = "Available" if cp.status == TRUE else (cp.reason or _status_text(cp.status))  # type: ignore[attr-defined]
    degraded = _condition(status, DEGRADED)
    if degraded is not None and degraded.status == TRUE and degraded.reason == CONTROL_PLANE_DEGRADED:  # type: ignore[attr-defined]
        text += " (degraded)"
    return text


def workers_text(status: Message) -> str:
    wr = _condition(status, WORKERS_READY)
    if wr is None:
        return EMPTY
    if wr.status == TRUE:  # type: ignore[attr-defined]
        return "Ready"
    reason = wr.reason  # type: ignore[attr-defined]
    if reason == WORKERS_DEGRADED:
        return "Degraded" + _naming(_node_sets_in(status, {NODE_SET_DEGRADED}))
    if reason == WORKERS_SCALING:
        return "Scaling" + _naming(_node_sets_in(status, {NODE_SET_SCALING, NODE_SET_PROVISIONING}))
    return reason or _status_text(wr.status)  # type: ignore[attr-defined]


def _node_sets_in(status: Message, states: set[int]) -> list[str]:
    return sorted(key for key, node_set in status.node_sets.items() if node_set.state in states)  # type: ignore[attr-defined]


def _naming(keys: list[str]) -> str:
    if not keys:
        return ""
    return f" (node set{'s' if len(keys) > 1 else ''} {', '.join(keys)})"


# -- the tables ------------------------------------------------------------------------------------


def node_set_rows(cluster: Message, host_types: Mapping[str, str]) -> list[list[str]]:
    """One row per node set of the spec or the status (a removed one drains in the status only),
    by key: sizes from the spec, counts and state from the status."""
    wanted = cluster.spec.node_sets  # type: ignore[attr-defined]
    observed = cluster.status.node_sets  # type: ignore[attr-defined]
    rows = []
    for key in sorted(set(wanted) | set(observed)):
        asked = wanted.get(key)
        seen = observed.get(key)
        host_type = (asked.host_type if asked is not None else "") or (seen.host_type if seen is not None else "")
        size = asked.size if asked is not None else (seen.size if seen is not None else None)
        fabric = (seen.fabric_interface if seen is not None else "") or (
            asked.fabric_interface if asked is not None else ""
        )
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


def condition_rows(status: Message, now: datetime) -> list[list[str]]:
    """TYPE STATUS REASON SINCE MESSAGE per condition, in the stored order."""
    rows = []
    for item in status.conditions:  # type: ignore[attr-defined]
        rows.append([
            condition_type_text(item),
            _status_text(item.status),
            item.reason or EMPTY,
            _age(item.last_transition_time, now) if item.HasField("last_transition_time") else EMPTY,
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


def _status_text(number: int) -> str:
    return {TRUE: "True", FALSE: "False", 0: EMPTY}.get(number, str(number))


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


def _condition(status: Message, condition_type: int) -> Message | None:
    return next((c for c in status.conditions if c.type == condition_type), None)  # type: ignore[attr-defined]


def _enum_text(message: Message, name: str) -> str:
    """An enum field without its prefix; an unknown number raw, 0 (not set) ``-``."""
    number = getattr(message, name)
    if not number:
        return EMPTY
    return enum_label(enum_type_of(descriptor_of(message).fields_by_name[name]), number)


def _moment(stamp: Timestamp) -> str:
    return stamp.ToDatetime(tzinfo=UTC).strftime("%Y-%m-%d %H:%M:%SZ")


def _age(stamp: Timestamp, now: datetime) -> str:
    return age(now - stamp.ToDatetime(tzinfo=UTC))

