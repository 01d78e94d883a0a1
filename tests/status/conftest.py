"""Builders of HostedCluster and NodePool dicts shaped as the simulator emits them
(simulator.md §3.1, cluster-status.md §6.1), and a driver that feeds them to the derivation in
sequence the way the reconciler does (each result becomes the next ``previous``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any

from osac.status.clusters.derivation import (
    ClusterContext,
    ClusterDerivation,
    ClusterStatusView,
    NodeSetSpec,
    StallThresholds,
    derive_cluster_status,
)
from osac.status.conditions.views import ConditionView, condition

T0 = datetime(2026, 3, 4, 10, 0, tzinfo=UTC)
CLUSTER_ID = "0192f3a4-7c1e-7b2a-9d51-3f0e8c6a2c10"
HC_NAME = "c-0192f3a4"
API_VIP, INGRESS_VIP = "10.0.1.240", "10.0.1.241"

#: A signal given to the builders: a status text, (status, reason[, message]), or None = absent.
SignalSpec = str | tuple[str, ...] | None


def hc_condition(kind: str, spec: SignalSpec, default_reason: str = "AsExpected") -> dict[str, Any] | None:
    if spec is None:
        return None
    if isinstance(spec, str):
        status, reason, message = spec, default_reason, ""
    else:
        status, reason, message = (*spec, "", "")[:3]
    return {"type": kind, "status": status, "reason": reason, "message": message,
            "lastTransitionTime": "2026-03-04T10:00:00Z"}


def hosted_cluster(
    *,
    infrastructure: SignalSpec = ("False", "WaitingOnInfrastructureReady"),
    kube_api: SignalSpec = ("Unknown", "StatusUnknown"),
    available: SignalSpec = ("False", "WaitingForAvailable"),
    degraded: SignalSpec = ("False", "AsExpected"),
    version: SignalSpec = ("Unknown", "StatusUnknown"),
    cloud_destroyed: SignalSpec = None,
    hc_destroyed: SignalSpec = None,
    endpoint: tuple[str, int] | None = None,
    deleting: bool = False,
    name: str = HC_NAME,
    base_domain: str = "example.net",
    extra_conditions: Sequence[dict[str, Any]] = (),
) -> dict[str, Any]:
    """A HostedCluster; the defaults are the simulator's first step (§3.1 row 1)."""
    conditions = [
        hc_condition("InfrastructureReady", infrastructure),
        hc_condition("KubeAPIServerAvailable", kube_api),
        hc_condition("Available", available),
        hc_condition("Degraded", degraded),
        hc_condition("ClusterVersionSucceeding", version, "FromClusterVersion"),
        hc_condition("CloudResourcesDestroyed", cloud_destroyed),
        hc_condition("HostedClusterDestroyed", hc_destroyed, "WaitingForGracePeriod"),
    ]
    metadata: dict[str, Any] = {"name": name, "labels": {"osac.openshift.io/cluster-uuid": CLUSTER_ID}}
    if deleting:
        metadata["deletionTimestamp"] = "2026-03-04T12:00:00Z"
    status: dict[str, Any] = {"conditions": [c for c in conditions if c is not None] + list(extra_conditions)}
    if endpoint is not None:
        status["controlPlaneEndpoint"] = {"host": endpoint[0], "port": endpoint[1]}
    return {"metadata": metadata, "spec": {"dns": {"baseDomain": base_domain}}, "status": status}


def hc_at(step: int, **overrides: Any) -> dict[str, Any]:
    """The HostedCluster after row ``step`` of simulator.md §3.1 (1 = created … 9 = version)."""
    fields: dict[str, Any] = {}
    if step >= 2:
        fields["infrastructure"] = "True"
    if step >= 3:
        fields["kube_api"] = "True"
        fields["endpoint"] = (API_VIP, 6443)
    if step >= 4:
        fields["available"] = "True"
    if step >= 9:
        fields["version"] = "True"
    fields.update(overrides)
    return hosted_cluster(**fields)


def node_pool(
    key: str | None,
    *,
    replicas: int,
    available: int = 0,
    ready: SignalSpec = ("False", "WaitingForAvailableMachines"),
    machines: SignalSpec = ("False", "NotFound"),
    nodes: SignalSpec = ("False", "NotFound"),
    deleting: bool = False,
    name: str | None = None,
) -> dict[str, Any]:
    """A NodePool; the defaults are a pool just created (§3.1 row 1)."""
    labels = {"osac.openshift.io/cluster-uuid": CLUSTER_ID}
    if key is not None:
        labels["osac.openshift.io/node-set"] = key
    metadata: dict[str, Any] = {"name": name or f"{HC_NAME}-{key or 'unlabelled'}", "labels": labels}
    if deleting:
        metadata["deletionTimestamp"] = "2026-03-04T12:00:00Z"
    conditions = [
        hc_condition("Ready", ready),
        hc_condition("AllMachinesReady", machines),
        hc_condition("AllNodesHealthy", nodes),
    ]
    status: dict[str, Any] = {"conditions": [c for c in conditions if c is not None]}
    if available:
        status["replicas"] = available
    return {"metadata": metadata, "spec": {"replicas": replicas}, "status": status}


def joining_pool(key: str, replicas: int, available: int) -> dict[str, Any]:
    """Machines started (§3.1 row 5), ``available`` of them joined."""
    return node_pool(key, replicas=replicas, available=available,
                     machines=("False", "WaitingForInfrastructure"), nodes=("False", "WaitingForNodeRef"))


def ready_pool(key: str, replicas: int) -> dict[str, Any]:
    """Every node joined and healthy (§3.1 row 8)."""
    return node_pool(key, replicas=replicas, available=replicas, ready="True", machines="True", nodes="True")


def context(sizes: Mapping[str, int | tuple[str, int]] | None = None, **fields: Any) -> ClusterContext:
    """A context with node sets ``{key: size}`` or ``{key: (host_type, size)}``."""
    specs = {}
    for key, value in (sizes if sizes is not None else {"workers": 3}).items():
        host_type, size = value if isinstance(value, tuple) else ("bm-standard", value)
        specs[key] = NodeSetSpec(host_type=host_type, size=size, fabric_interface="ens1f0")
    fields.setdefault("reserved_vips", (API_VIP, INGRESS_VIP))
    return ClusterContext(node_sets=specs, **fields)


def cond(status: ClusterStatusView, condition_type: int) -> ConditionView:
    found = condition(status.conditions, condition_type)
    assert found is not None, f"condition {condition_type} missing"
    return found


def reasons(derivation: ClusterDerivation) -> list[str]:
    return [event.reason for event in derivation.events]


@dataclass
class Cluster:
    """One cluster reconciled over time: each ``observe`` derives from the last committed status."""

    ctx: ClusterContext = field(default_factory=context)
    thresholds: StallThresholds = StallThresholds.DEFAULT
    now: datetime = T0
    status: ClusterStatusView = field(default_factory=ClusterStatusView)
    history: list[ClusterDerivation] = field(default_factory=list)

    def observe(
        self, hc: Mapping[str, Any] | None = None, pools: Sequence[Mapping[str, Any]] = (),
        *, at: timedelta | None = None, **context_changes: Any,
    ) -> ClusterDerivation:
        if at is not None:
            self.now = T0 + at
        if context_changes:
            self.ctx = replace(self.ctx, **context_changes)
        result = derive_cluster_status(hc, list(pools), self.status, self.now, self.thresholds, self.ctx)
        self.status = result.status
        self.history.append(result)
        return result

    def advance(self, delta: timedelta) -> None:
        self.now += delta

    @property
    def events(self) -> list[str]:
        return [event.reason for result in self.history for event in result.events]


def fixpoint(
    hc: Mapping[str, Any] | None, pools: Sequence[Mapping[str, Any]], result: ClusterDerivation, now: datetime,
    ctx: ClusterContext, thresholds: StallThresholds = StallThresholds.DEFAULT,
) -> ClusterDerivation:
    """The derivation fed its own result."""
    return derive_cluster_status(hc, list(pools), result.status, now, thresholds, ctx)
