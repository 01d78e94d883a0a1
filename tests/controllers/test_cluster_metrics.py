"""cluster-status.md §16 gauges and counters, from stored clusters (scenario 21)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from prometheus_client import REGISTRY

from osac.api.private.v1 import cluster_type_pb2 as pb
from osac.controllers.clusters import metrics

NOW = datetime(2026, 3, 4, 11, 0, tzinfo=UTC)
TRUE, FALSE = 1, 2


def cluster(cluster_id: str, name: str, tenant: str, state: int, stage: str, progressing: tuple[int, str],
            extra: tuple[tuple[int, int, str], ...] = ()) -> pb.Cluster:
    obj = pb.Cluster(id=cluster_id)
    obj.metadata.name, obj.metadata.tenant = name, tenant
    obj.metadata.creation_timestamp.FromDatetime(NOW - timedelta(hours=1))
    obj.status.state, obj.status.stage = state, stage
    obj.status.stage_entered_at.FromDatetime(NOW - timedelta(minutes=23))
    obj.status.conditions.add(type=pb.CLUSTER_CONDITION_TYPE_PROGRESSING, status=progressing[0], reason=progressing[1])
    for condition_type, status, reason in extra:
        obj.status.conditions.add(type=condition_type, status=status, reason=reason)
    return obj


def sample(name: str, labels: dict[str, str]) -> float | None:
    return REGISTRY.get_sample_value(name, labels)


def test_gauges_report_stalled_unknown_and_degraded_clusters() -> None:
    clusters = [
        cluster("c-1", "gpu-lab", "acme", pb.CLUSTER_STATE_PROGRESSING, "WorkersJoining", (TRUE, "Stalled")),
        cluster("c-2", "edge-2", "acme", pb.CLUSTER_STATE_PROGRESSING, "ControlPlaneStarting", (TRUE, "StageUnknown")),
        cluster("c-3", "prod", "beta", pb.CLUSTER_STATE_READY, "", (FALSE, "AsExpected"),
                ((pb.CLUSTER_CONDITION_TYPE_DEGRADED, TRUE, "NodeSetDegraded:gpu"),)),
        cluster("c-4", "new", "beta", 9, "", (FALSE, "AsExpected")),
    ]
    metrics.refresh_cluster_gauges(clusters, NOW)
    assert sample("osac_cluster_stalled_info", {"cluster_id": "c-1", "cluster_name": "gpu-lab", "tenant": "acme",
                                                 "stage": "WorkersJoining"}) == 1
    assert sample("osac_clusters_stalled", {"stage": "WorkersJoining", "tenant": "acme"}) == 1
    assert sample("osac_clusters_stage_unknown", {"tenant": "acme"}) == 1
    assert sample("osac_cluster_conditions", {"type": "DEGRADED", "status": "TRUE", "tenant": "beta"}) == 1
    assert sample("osac_clusters", {"state": "READY", "stage": "none", "tenant": "beta"}) == 1
    assert sample("osac_clusters", {"state": "9", "stage": "none", "tenant": "beta"}) == 1
    assert sample("osac_cluster_stage_age_seconds", {"cluster_id": "c-1", "tenant": "acme",
                                                      "stage": "WorkersJoining"}) == 23 * 60

    # Recomputed, not accumulated: a cluster that is no longer stalled disappears.
    metrics.refresh_cluster_gauges(clusters[1:], NOW)
    assert sample("osac_cluster_stalled_info", {"cluster_id": "c-1", "cluster_name": "gpu-lab", "tenant": "acme",
                                                 "stage": "WorkersJoining"}) is None


def test_transition_counters() -> None:
    before = cluster("c-9", "x", "acme", pb.CLUSTER_STATE_PROGRESSING, "WorkersJoining", (TRUE, "WorkersJoining"))
    after = cluster("c-9", "x", "acme", pb.CLUSTER_STATE_READY, "", (FALSE, "AsExpected"))
    labels = {"from": "PROGRESSING", "to": "READY"}
    start = sample("osac_cluster_state_transitions_total", labels) or 0
    exits = sample("osac_cluster_stage_duration_seconds_count", {"stage": "WorkersJoining", "outcome": "advanced"}) or 0
    metrics.observe_transition(before, after, NOW)
    assert sample("osac_cluster_state_transitions_total", labels) == start + 1
    assert sample("osac_cluster_stage_duration_seconds_count", {"stage": "WorkersJoining", "outcome": "advanced"}) == exits + 1
