"""Prometheus metrics of clusters (cluster-status.md §16).

Counters and histograms are observed by the cluster reconciler when it commits a status change.
Gauges describe the current population; they are recomputed from the database (never from
in-memory guesses) by `refresh_cluster_gauges`, which the process holding the cluster
controller runs every ``GAUGE_INTERVAL``. Labels never carry free text: ``stage`` is a stage
token or ``none``, condition types and states are their short names (raw numbers when unknown).
"""

from __future__ import annotations

from collections import Counter as Tally
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta

from google.protobuf.message import Message
from prometheus_client import Counter, Gauge, Histogram

from osac.model import registry
from osac.status.clusters.terms import stage_rank

GAUGE_INTERVAL = timedelta(seconds=15)

_STAGE_BUCKETS = (30, 60, 120, 300, 600, 900, 1200, 1800, 2700, 3600, 5400, 7200, 10800, 14400)

CLUSTERS = Gauge("osac_clusters", "Clusters per state and stage.", ["state", "stage", "tenant"])
CONDITIONS = Gauge("osac_cluster_conditions", "Clusters per condition value.", ["type", "status", "tenant"])
STALLED = Gauge("osac_clusters_stalled", "Clusters stalled now.", ["stage", "tenant"])
STALLED_INFO = Gauge(
    "osac_cluster_stalled_info",
    "One series (value 1) per stalled cluster, for alerts.",
    ["cluster_id", "cluster_name", "tenant", "stage"],
)
STAGE_UNKNOWN = Gauge("osac_clusters_stage_unknown", "Clusters whose stage is unknown now.", ["tenant"])
STAGE_AGE = Gauge(
    "osac_cluster_stage_age_seconds",
    "Age of the current stage while PROGRESSING is TRUE.",
    ["cluster_id", "tenant", "stage"],
)
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
PROPAGATION = Histogram(
    "osac_status_propagation_seconds",
    "From an infrastructure change (the provider's change time) to the committed status write "
    "that reflects it, which is what every Watch stream delivers next.",
    ["object_type"],
    buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 0.75, 1, 1.5, 2, 3, 5, 10, 30),
)
OBSERVATION_ERRORS = Counter(
    "osac_provider_observation_errors_total", "Provider reads that failed.", ["provider", "kind"]
)
UNATTRIBUTED_NODE_POOLS = Counter(
    "osac_cluster_unattributed_node_pools_total", "NodePools ignored for lack of a node-set label."
)

PROGRESSING, AVAILABLE = 1, 2
STALLED_REASON, UNKNOWN_REASON = "Stalled", "StageUnknown"
_STATUS_NAMES = {1: "TRUE", 2: "FALSE"}


def state_name(number: int) -> str:
    """``READY`` for 2; the raw number for a state this build does not know."""
    full = registry.get("cluster").state_name(number)
    return full.removeprefix("CLUSTER_STATE_") if full and not full.isdigit() else str(number)


def _condition_type_name(number: int) -> str:
    from osac.api.private.v1 import cluster_type_pb2

    try:
        return str(cluster_type_pb2.ClusterConditionType.Name(number)).removeprefix("CLUSTER_CONDITION_TYPE_")
    except ValueError:
        return str(number)


def observe_transition(
    before: Message, after: Message, now: datetime, outcome_on_exit: str | None = None
) -> None:
    """Counters and histograms for one committed status change of a cluster."""
    old, new = before.status, after.status  # type: ignore[attr-defined]
    if old.state != new.state:
        STATE_TRANSITIONS.labels(state_name(old.state), state_name(new.state)).inc()
        if new.state == registry.get("cluster").state_value("READY"):
            created = after.metadata.creation_timestamp.ToDatetime(tzinfo=UTC)  # type: ignore[attr-defined]
            PROVISIONING_DURATION.observe(max(0.0, (now - created).total_seconds()))
    if old.stage and old.stage != new.stage and old.HasField("stage_entered_at"):
        entered = old.stage_entered_at.ToDatetime(tzinfo=UTC)
        STAGE_DURATION.labels(old.stage, outcome_on_exit or _exit_outcome(old, new)).observe(
            max(0.0, (now - entered).total_seconds())
        )
    if _reason(new, PROGRESSING) == STALLED_REASON and _reason(old, PROGRESSING) != STALLED_REASON:
        STALLS.labels(new.stage or "none").inc()


def _exit_outcome(old: Message, new: Message) -> str:
    deleting = registry.get("cluster").state_value("DELETING")
    failed = {registry.get("cluster").state_value("FAILED"), registry.get("cluster").state_value("DELETE_FAILED")}
    if new.state in failed:  # type: ignore[attr-defined]
        return "failed"
    if new.state == deleting and old.state != deleting:  # type: ignore[attr-defined]
        return "deleted"
    regressed = new.stage and stage_rank(new.stage) < stage_rank(old.stage)  # type: ignore[attr-defined]
    return "regressed" if regressed else "advanced"


def _reason(status: Message, condition_type: int) -> str:
    for entry in status.conditions:  # type: ignore[attr-defined]
        if entry.type == condition_type:
            return str(entry.reason)
    return ""


def _is_true(status: Message, condition_type: int) -> bool:
    return any(c.type == condition_type and c.status == 1 for c in status.conditions)  # type: ignore[attr-defined]


def refresh_cluster_gauges(clusters: Iterable[Message], now: datetime) -> None:
    """Recompute every gauge from the stored clusters (all tenants)."""
    by_state: Tally[tuple[str, str, str]] = Tally()
    by_condition: Tally[tuple[str, str, str]] = Tally()
    stalled: Tally[tuple[str, str]] = Tally()
    unknown: Tally[str] = Tally()
    stalled_info: list[tuple[str, str, str, str]] = []
    ages: list[tuple[str, str, str, float]] = []
    for cluster in clusters:
        status, tenant = cluster.status, cluster.metadata.tenant  # type: ignore[attr-defined]
        stage = status.stage or "none"
        by_state[(state_name(status.state), stage, tenant)] += 1
        for entry in status.conditions:
            by_condition[(_condition_type_name(entry.type), _STATUS_NAMES.get(entry.status, str(entry.status)), tenant)] += 1
        reason = _reason(status, PROGRESSING)
        if reason == STALLED_REASON:
            stalled[(stage, tenant)] += 1
            stalled_info.append((cluster.id, cluster.metadata.name, tenant, stage))  # type: ignore[attr-defined]
        elif reason == UNKNOWN_REASON:
            unknown[tenant] += 1
        if _is_true(status, PROGRESSING) and status.stage and status.HasField("stage_entered_at"):
            age = (now - status.stage_entered_at.ToDatetime(tzinfo=UTC)).total_seconds()
            ages.append((cluster.id, tenant, status.stage, max(0.0, age)))  # type: ignore[attr-defined]
    for gauge in (CLUSTERS, CONDITIONS, STALLED, STALLED_INFO, STAGE_UNKNOWN, STAGE_AGE):
        gauge.clear()
    for (state, stage, tenant), count in by_state.items():
        CLUSTERS.labels(state, stage, tenant).set(count)
    for (condition_type, value, tenant), count in by_condition.items():
        CONDITIONS.labels(condition_type, value, tenant).set(count)
    for (stage, tenant), count in stalled.items():
        STALLED.labels(stage, tenant).set(count)
    for cluster_id, name, tenant, stage in stalled_info:
        STALLED_INFO.labels(cluster_id, name, tenant, stage).set(1)
    for tenant, count in unknown.items():
        STAGE_UNKNOWN.labels(tenant).set(count)
    for cluster_id, tenant, stage, age in ages:
        STAGE_AGE.labels(cluster_id, tenant, stage).set(age)
