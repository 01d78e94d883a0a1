"""Counters and histograms of cluster status changes (cluster-status.md §16), observed with
each committed change by whoever writes it: the cluster reconciler, and the Delete transaction
that writes DELETING (``ClusterBehaviour.begin_teardown``). The population gauges live with the
controller (``osac.controllers.clusters.metrics``)."""

from __future__ import annotations

from datetime import UTC, datetime

from google.protobuf.message import Message
from prometheus_client import Counter, Histogram

from osac.api.private.v1.cluster_type_pb2 import Cluster, ClusterStatus
from osac.model import registry
from osac.model.shape import as_kind
from osac.status.clusters.terms import stage_rank

_STAGE_BUCKETS = (30, 60, 120, 300, 600, 900, 1200, 1800, 2700, 3600, 5400, 7200, 10800, 14400)

PROGRESSING = 1
STALLED_REASON = "Stalled"

STAGE_DURATION = Histogram(
    "osac_cluster_stage_duration_seconds",
    "Time spent in a stage, observed when the stage is left.",
    ["stage", "outcome"],
    buckets=_STAGE_BUCKETS,
)
PROVISIONING_DURATION = Histogram(
    "osac_cluster_provisioning_duration_seconds",
    "Time from creation to the first READY.",
    buckets=_STAGE_BUCKETS,
)
STALLS = Counter("osac_cluster_stalls_total", "Stall episodes.", ["stage"])
STATE_TRANSITIONS = Counter("osac_cluster_state_transitions_total", "Cluster state changes.", ["from", "to"])

def state_name(number: int) -> str:
    """``READY`` for 2; the raw number for a state this build does not know."""
    full = registry.get("cluster").state_name(number)
    return full.removeprefix("CLUSTER_STATE_") if full and not full.isdigit() else str(number)



def observe_transition(
    before: Message, after: Message, now: datetime, outcome_on_exit: str | None = None
) -> None:
    """Counters and histograms for one committed status change of a cluster."""
    cluster = as_kind(after, Cluster)
    old, new = as_kind(before, Cluster).status, cluster.status
    if old.state != new.state:
        STATE_TRANSITIONS.labels(state_name(old.state), state_name(new.state)).inc()
        if new.state == registry.get("cluster").state_value("READY"):
            created = cluster.metadata.creation_timestamp.ToDatetime(tzinfo=UTC)
            PROVISIONING_DURATION.observe(max(0.0, (now - created).total_seconds()))
    if old.stage and old.stage != new.stage and old.HasField("stage_entered_at"):
        entered = old.stage_entered_at.ToDatetime(tzinfo=UTC)
        STAGE_DURATION.labels(old.stage, outcome_on_exit or _exit_outcome(old, new)).observe(
            max(0.0, (now - entered).total_seconds())
        )
    if reason_of(new, PROGRESSING) == STALLED_REASON and reason_of(old, PROGRESSING) != STALLED_REASON:
        STALLS.labels(new.stage or "none").inc()


def _exit_outcome(old: ClusterStatus, new: ClusterStatus) -> str:
    deleting = registry.get("cluster").state_value("DELETING")
    failed = {registry.get("cluster").state_value("FAILED"), registry.get("cluster").state_value("DELETE_FAILED")}
    if new.state in failed:
        return "failed"
    if new.state == deleting and old.state != deleting:
        return "deleted"
    regressed = new.stage and stage_rank(new.stage) < stage_rank(old.stage)
    return "regressed" if regressed else "advanced"


def reason_of(status: ClusterStatus, condition_type: int) -> str:
    for entry in status.conditions:
        if entry.type == condition_type:
            return entry.reason
    return ""


