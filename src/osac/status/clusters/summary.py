"""What the cluster views show beside the two cells: the stage line, the health breakdown and ages.

``osac describe cluster`` and the web console both print these, so they live here once, pure
(``now`` is an argument), next to ``cells`` (cluster-status.md §14, §15). Everything is read from
the committed status; nothing is derived beyond these display rules. The messages are typed as
the public classes: a private message (``--private``, a provider admin's console) has every
field of them, under the same names.

Choices the spec leaves open:

- **Stall threshold.** A client cannot read the server's configuration (host-type overrides,
  changed defaults). It shows the threshold the PROGRESSING message states (``(threshold 60m)``,
  written by the derivation with the override applied) and otherwise the §9.1 default of the
  stage. A stage without a default (a token a newer server added) shows no threshold.
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
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from google.protobuf.timestamp_pb2 import Timestamp

from osac.api.public.v1.cluster_type_pb2 import Cluster, ClusterCondition, ClusterNodeSet, ClusterStatus
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

#: What a view shows for a missing value.
EMPTY = "-"
TRUE = 1
FALSE = 2
CONTROL_PLANE_DEGRADED = "ControlPlaneDegraded"
WORKERS_DEGRADED = "WorkersDegraded"
WORKERS_SCALING = "Scaling"

_THRESHOLD = re.compile(r"\(threshold ([0-9][0-9.hms]*)\)")


def age(delta: Any) -> str:
    """``45s``, ``12m``, ``3h``, ``2d`` (kubectl's AGE)."""
    seconds = max(0, int(delta.total_seconds()))
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size * (2 if unit != "m" else 1):
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


def age_of(stamp: Timestamp, now: datetime) -> str:
    """The age of a stored timestamp at ``now``."""
    return age(now - stamp.ToDatetime(tzinfo=UTC))


def condition_of(status: ClusterStatus, condition_type: int) -> ClusterCondition | None:
    """The condition of ``condition_type``, or None."""
    return next((c for c in status.conditions if c.type == condition_type), None)


def status_text(number: int) -> str:
    """A condition status: ``True``, ``False``, ``-`` when not set, an unknown number raw."""
    return {TRUE: "True", FALSE: "False", 0: EMPTY}.get(number, str(number))


def stage_text(status: ClusterStatus, now: datetime) -> str:
    """``WorkersJoining for 23m  STALLED (threshold 20m)``; ``-`` when no stage is under way."""
    progressing = condition_of(status, PROGRESSING)
    reason = progressing.reason if progressing is not None else ""
    stage = status.stage
    text = stage or EMPTY
    if stage and status.HasField("stage_entered_at"):
        text += f" for {age_of(status.stage_entered_at, now)}"
    if reason == STAGE_UNKNOWN:
        return f"{text}  UNKNOWN (last known stage; signals unavailable)"
    if not stage or progressing is None or progressing.status != TRUE:
        return text
    threshold = current_threshold(status)
    limit = f"(threshold {duration_text(threshold)})" if threshold is not None else ""
    if reason == STALLED:
        return f"{text}  STALLED {limit}".rstrip()
    return f"{text} {limit}".rstrip()


def current_threshold(status: ClusterStatus) -> timedelta | None:
    """The stall threshold of the stage under way: None unless PROGRESSING is TRUE with a stage."""
    progressing = condition_of(status, PROGRESSING)
    stage = status.stage
    if not stage or progressing is None or progressing.status != TRUE:
        return None
    if progressing.reason == STAGE_UNKNOWN:
        return None
    return stall_threshold(status, progressing.message)


def stall_threshold(status: ClusterStatus, message: str) -> timedelta | None:
    """The threshold in force: the status's ``stage_threshold``, which the reconciler writes with
    the stage (configured, host-type override or default); without it (an older server, a Delete
    not yet followed by a pass) the threshold the PROGRESSING message states, else the §9.1
    default of the stage."""
    if status.HasField("stage_threshold"):
        return status.stage_threshold.ToTimedelta()
    stage = status.stage
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


def control_plane_text(status: ClusterStatus) -> str:
    cp = condition_of(status, CONTROL_PLANE_AVAILABLE)
    if cp is None:
        return EMPTY
    text = "Available" if cp.status == TRUE else (cp.reason or status_text(cp.status))
    degraded = condition_of(status, DEGRADED)
    if degraded is not None and degraded.status == TRUE and degraded.reason == CONTROL_PLANE_DEGRADED:
        text += " (degraded)"
    return text


def workers_text(status: ClusterStatus) -> str:
    wr = condition_of(status, WORKERS_READY)
    if wr is None:
        return EMPTY
    if wr.status == TRUE:
        return "Ready"
    reason = wr.reason
    if reason == WORKERS_DEGRADED:
        return "Degraded" + _naming(_node_sets_in(status, {NODE_SET_DEGRADED}))
    if reason == WORKERS_SCALING:
        return "Scaling" + _naming(_node_sets_in(status, {NODE_SET_SCALING, NODE_SET_PROVISIONING}))
    return reason or status_text(wr.status)


def degraded_message(status: ClusterStatus) -> str:
    """DEGRADED's message while it is TRUE, else empty."""
    degraded = condition_of(status, DEGRADED)
    if degraded is None or degraded.status != TRUE:
        return ""
    return str(degraded.message or degraded.reason)


def _node_sets_in(status: ClusterStatus, states: set[int]) -> list[str]:
    return sorted(key for key, node_set in status.node_sets.items() if node_set.state in states)


def _naming(keys: list[str]) -> str:
    if not keys:
        return ""
    return f" (node set{'s' if len(keys) > 1 else ''} {', '.join(keys)})"


@dataclass(frozen=True)
class NodeSetView:
    """One node set as ``osac describe cluster`` and the console show it: every key of the spec
    or the status (a removed one drains in the status only), its host type and size from the
    spec (the status when the spec no longer names it), the fabric interface from the status
    (the spec before the status has one), ``observed`` the status entry or None."""

    key: str
    host_type: str
    size: int | None
    fabric_interface: str
    observed: ClusterNodeSet | None


def node_set_views(cluster: Cluster) -> list[NodeSetView]:
    """The node sets of ``cluster``, by key."""
    wanted = cluster.spec.node_sets
    observed = cluster.status.node_sets
    views = []
    for key in sorted(set(wanted) | set(observed)):
        asked = wanted.get(key)
        seen = observed.get(key)
        host_type = (asked.host_type if asked is not None else "") or (seen.host_type if seen is not None else "")
        size = asked.size if asked is not None else (seen.size if seen is not None else None)
        fabric = (seen.fabric_interface if seen is not None else "") or (
            asked.fabric_interface if asked is not None else "")
        views.append(NodeSetView(key, host_type, size, fabric, seen))
    return views
