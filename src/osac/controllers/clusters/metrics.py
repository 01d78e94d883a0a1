"""Prometheus metrics of clusters (cluster-status.md §16).

Counters and histograms are observed with each committed status change: by the cluster
reconciler, and by the Delete that writes DELETING (``osac.services.clusters.transition_metrics``).
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

from osac.api.private.v1.cluster_type_pb2 import Cluster, ClusterStatus
from osac.model.shape import as_kind
from osac.services.clusters.transition_metrics import (
    PROGRESSING,
    STAGE_DURATION,
    STALLED_REASON,
    STALLS,
    STATE_TRANSITIONS,
    observe_transition,
    reason_of,
    state_name,
)

__all__ = ["STAGE_DURATION", "STALLS", "STATE_TRANSITIONS", "observe_transition", "refresh_cluster_gauges", "state_name"]

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

AVAILABLE = 2
UNKNOWN_REASON = "StageUnknown"
_STATUS_NAMES = {1: "TRUE", 2: "FALSE"}


def _condition_type_name(number: int) -> str:
    from osac.api.private.v1 import cluster_type_pb2

    try:
        return str(cluster_type_pb2.ClusterConditionType.Name(number)).removeprefix("CLUSTER_CONDITION_TYPE_")
    except ValueError:
        return str(number)


def _is_true(status: ClusterStatus, condition_type: int) -> bool:
    return any(c.type == condition_type and c.status == 1 for c in status.conditions)


def refresh_cluster_gauges(clusters: Iterable[Message], now: datetime) -> None:
    """Recompute every gauge from the stored clusters (all tenants)."""
    by_state: Tally[tuple[str, str, str]] = Tally()
    by_condition: Tally[tuple[str, str, str]] = Tally()
    stalled: Tally[tuple[str, str]] = Tally()
    unknown: Tally[str] = Tally()
    stalled_info: list[tuple[str, str, str, str]] = []
    ages: list[tuple[str, str, str, float]] = []
    for cluster in (as_kind(c, Cluster) for c in clusters):
        status, tenant = cluster.status, cluster.metadata.tenant
        stage = status.stage or "none"
        by_state[(state_name(status.state), stage, tenant)] += 1
        for entry in status.conditions:
            by_condition[(_condition_type_name(entry.type), _STATUS_NAMES.get(entry.status, str(entry.status)), tenant)] += 1
        reason = reason_of(status, PROGRESSING)
        if reason == STALLED_REASON:
            stalled[(stage, tenant)] += 1
            stalled_info.append((cluster.id, cluster.metadata.name, tenant, stage))
        elif reason == UNKNOWN_REASON:
            unknown[tenant] += 1
        if _is_true(status, PROGRESSING) and status.stage and status.HasField("stage_entered_at"):
            age = (now - status.stage_entered_at.ToDatetime(tzinfo=UTC)).total_seconds()
            ages.append((cluster.id, tenant, status.stage, max(0.0, age)))
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
