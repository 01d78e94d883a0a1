"""The status a cluster is created with: the first derivation (cluster-status.md §3, §5, §8.1),
and the status its Delete writes: the first teardown derivation (§10 step 1, scenario 9).

Only the derivation writes a cluster's status, and the Create transaction is its first run: the
pure ``derive_cluster_status`` with no HostedCluster, no NodePools and an empty previous status.
It yields state PROGRESSING, stage ``PreparingInfrastructure``, the six conditions at their
initial values, every node set PROVISIONING with ``desired_replicas = size``, all stamped with
the same instant (the cluster's ``creation_timestamp``), and one event, ``StageChanged "" →
PreparingInfrastructure`` (scenario 1 counts it among the four stage changes).

Stall thresholds only decide when a stage has stalled; at age zero none has, so this run uses
the defaults and the reconciler's configured thresholds apply from its first run on.
"""

from __future__ import annotations

from datetime import datetime

from osac.api.private.v1.cluster_type_pb2 import Cluster
from osac.status.clusters.derivation import (
    ClusterContext,
    ClusterStatusView,
    NodeSetSpec,
    StallThresholds,
    apply_view_to_status,
    begin_teardown,
    derive_cluster_status,
    view_from_status,
)


def first_derivation(cluster: Cluster, now: datetime, reserved_vips: tuple[str, str]) -> list[tuple[int, str, str]]:
    """Write the first derivation's status into ``cluster.status``, from its stored
    ``spec.node_sets``; returns the lifecycle events to record with the Create (type, reason,
    message)."""
    node_sets = {
        key: NodeSetSpec(entry.host_type, entry.size, entry.fabric_interface)
        for key, entry in cluster.spec.node_sets.items()
    }
    derivation = derive_cluster_status(
        None, (), ClusterStatusView(), now, StallThresholds.DEFAULT,
        ClusterContext(node_sets=node_sets, reserved_vips=reserved_vips),
    )
    apply_view_to_status(derivation.status, cluster.status)
    return [(event.type, event.reason, event.message) for event in derivation.events]


def teardown_start(cluster: Cluster, stored: Cluster, now: datetime) -> list[tuple[int, str, str]]:
    """Write the first teardown status, derived from the ``stored`` one, into ``cluster.status``
    (the Delete transaction, §10 step 1: DELETING, ``DestroyingCloudResources``); returns the
    events to record with the Delete."""
    derivation = begin_teardown(view_from_status(stored.status), now)
    apply_view_to_status(derivation.status, cluster.status)
    return [(event.type, event.reason, event.message) for event in derivation.events]
