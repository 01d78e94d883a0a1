"""HostedCluster and NodePool dicts of a simulated cluster (``cluster-status.md`` §6.1).

Rendering folds the plan's done steps in the order they happened and, after each one, computes
every condition; a condition's ``lastTransitionTime`` is the time of the step at which its status
last changed, so reason or message changes alone never move it. Faults that only change what is
seen (``cluster_faults.RENDER_FAULTS``) are applied last, stamped with the time they took effect.
Timestamps are RFC 3339 UTC with microseconds.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from osac.providers.clusters import API_PORT, CLUSTER_UUID_LABEL, NODE_SET_LABEL, NodeAssignment
from osac.providers.simulator.clusters.faults import UNHEALTHY, active, join_mode
from osac.providers.simulator.clusters.nodes import node_host_name, node_mac
from osac.providers.simulator.clusters.plan import ClusterPlan, PoolRecord, Surroundings
from osac.providers.simulator.clusters.world import (
    TEARDOWN_CLOUD_RESOURCES_DESTROYED,
    TEARDOWN_CONTROL_PLANE_DESTROYED,
    TEARDOWN_STARTED,
    Pool,
    World,
    history,
)
from osac.providers.simulator.runtime.faults import FaultRecord
from osac.providers.simulator.runtime.times import iso

API_VERSION = "hypershift.openshift.io/v1beta1"
NAMESPACE = "clusters"
TRUE, FALSE, UNKNOWN = "True", "False", "Unknown"
ABSENT = "absent"
AS_EXPECTED = "AsExpected"

#: HostedCluster condition types in the order they are listed.
HC_CONDITION_TYPES = (
    "InfrastructureReady", "KubeAPIServerAvailable", "Available", "Degraded", "ClusterVersionSucceeding",
    "CloudResourcesDestroyed", "HostedClusterDestroyed",
)
DEGRADED_REASON = "UnavailableReplicas"
DEFAULT_DEGRADED_MESSAGE = "the hosted control plane is degraded (simulated fault)"
OVERRIDE_REASON = "SimulatedOverride"


@dataclass(frozen=True)
class Value:
    """A condition before stamping."""

    type: str
    status: str
    reason: str
    message: str = ""


@dataclass
class Condition:
    type: str
    status: str
    reason: str
    message: str
    last_transition: datetime

    def as_dict(self) -> dict[str, Any]:
        return {
            "type": self.type, "status": self.status, "reason": self.reason, "message": self.message,
            "lastTransitionTime": iso(self.last_transition),
        }


@dataclass
class Stamps:
    """The conditions of one object as they evolve through the fold."""

    current: dict[str, Condition] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)

    def update(self, values: Sequence[Value], at: datetime) -> None:
        fresh: dict[str, Condition] = {}
        for value in values:
            previous = self.current.get(value.type)
            since = previous.last_transition if previous and previous.status == value.status else at
            fresh[value.type] = Condition(value.type, value.status, value.reason, value.message, since)
        self.current = fresh
        self.order = [v.type for v in values]

    def put(self, value: Value, at: datetime) -> None:
        """Override one condition from outside the fold (a fault in force since ``at``)."""
        previous = self.current.get(value.type)
        if previous is not None and previous.status == value.status:
            since = previous.last_transition
        else:
            since = at if previous is None else max(at, previous.last_transition)
        self.current[value.type] = Condition(value.type, value.status, value.reason, value.message, since)
        if value.type not in self.order:
            self.order.append(value.type)

    def remove(self, condition_type: str) -> None:
        self.current.pop(condition_type, None)
        if condition_type in self.order:
            self.order.remove(condition_type)

    def as_list(self) -> list[dict[str, Any]]:
        return [self.current[t].as_dict() for t in self.order if t in self.current]


@dataclass(frozen=True)
class Rendered:
    hosted_cluster: dict[str, Any] | None
    node_pools: list[dict[str, Any]]
    nodes: list[NodeAssignment]


def render(plan: ClusterPlan, around: Surroundings, now: datetime, seed: int) -> Rendered:
    world = World()
    hc_stamps = Stamps()
    pool_stamps: dict[str, Stamps] = {}
    for step in history(plan.steps):
        world.apply(step)
        at = step.done_at
        assert at is not None
        if world.exists:
            hc_stamps.update(hc_values(world), at)
        for key in [k for k in pool_stamps if k not in world.pools]:
            del pool_stamps[key]
        for key, pool in world.pools.items():
            pool_stamps.setdefault(key, Stamps()).update(pool_values(pool, _machine_prefix(plan, key)), at)
    node_pools = [
        _node_pool(plan, world, key, pool_stamps[key], around.faults, now) for key in sorted(world.pools)
    ]
    return Rendered(
        hosted_cluster=_hosted_cluster(plan, world, hc_stamps, around.faults, now),
        node_pools=node_pools,
        nodes=_nodes(plan, world, around, seed),
    )


# -- HostedCluster --------------------------------------------------------------------------------


def hc_values(world: World) -> list[Value]:
    """The HostedCluster's conditions as the steps so far make them."""
    values = [
        Value("InfrastructureReady", TRUE, AS_EXPECTED, "All is well") if world.infrastructure_ready_at
        else Value("InfrastructureReady", FALSE, "WaitingOnInfrastructureReady",
                   "Cluster infrastructure is still provisioning"),
        Value("KubeAPIServerAvailable", TRUE, AS_EXPECTED, "Kube APIServer deployment is available")
        if world.api_available_at else Value("KubeAPIServerAvailable", UNKNOWN, "StatusUnknown", ""),
        Value("Available", TRUE, AS_EXPECTED, "The hosted control plane is available") if world.available_at
        else Value("Available", FALSE, "WaitingForAvailable", "Waiting for hosted control plane to be healthy"),
        Value("Degraded", FALSE, AS_EXPECTED, "The hosted cluster is not degraded"),
        Value("ClusterVersionSucceeding", TRUE, "FromClusterVersion", "Cluster version rollout succeeded")
        if world.version_succeeding_at else Value("ClusterVersionSucceeding", UNKNOWN, "StatusUnknown", ""),
    ]
    if TEARDOWN_STARTED in world.teardown:
        values.append(
            Value("CloudResourcesDestroyed", TRUE, AS_EXPECTED, "All cloud resources have been destroyed")
            if TEARDOWN_CLOUD_RESOURCES_DESTROYED in world.teardown
            else Value("CloudResourcesDestroyed", FALSE, "RemovingCloudResources", "Destroying cloud resources"))
    if TEARDOWN_CONTROL_PLANE_DESTROYED in world.teardown:
        values.append(Value("HostedClusterDestroyed", TRUE, "WaitingForGracePeriod",
                            "Waiting for the grace period before removing the HostedCluster"))
    return values


def _hosted_cluster(
    plan: ClusterPlan, world: World, stamps: Stamps, faults: Sequence[FaultRecord], now: datetime
) -> dict[str, Any] | None:
    if not world.exists or active(faults, now, "vanish"):
        return None
    spec = plan.spec
    assert world.created_at is not None
    for record in active(faults, now, "hc_degraded"):
        message = str(record.params.get("message") or DEFAULT_DEGRADED_MESSAGE)
        stamps.put(Value("Degraded", TRUE, DEGRADED_REASON, message), max(record.created_at, world.created_at))
    for record in active(faults, now, "signal_override"):
        condition, pinned = str(record.params["condition"]), str(record.params["status"])
        if pinned == ABSENT:
            stamps.remove(condition)
        else:
            stamps.put(Value(condition, pinned, OVERRIDE_REASON, "pinned by a simulator fault"),
                       max(record.created_at, world.created_at))
    metadata: dict[str, Any] = {
        "name": spec.name,
        "namespace": NAMESPACE,
        "labels": {**dict(spec.labels), CLUSTER_UUID_LABEL: plan.cluster_id},
        "creationTimestamp": iso(world.created_at),
    }
    if TEARDOWN_STARTED in world.teardown:
        metadata["deletionTimestamp"] = iso(world.teardown[TEARDOWN_STARTED])
    status: dict[str, Any] = {}
    if not active(faults, now, "conditions_absent"):
        status["conditions"] = stamps.as_list()
    if world.api_available_at is not None:
        status["controlPlaneEndpoint"] = {"host": spec.api_vip, "port": API_PORT}
        status["kubeconfig"] = {"name": f"{spec.name}-admin-kubeconfig"}
        status["kubeadminPassword"] = {"name": f"{spec.name}-kubeadmin-password"}
    return {
        "apiVersion": API_VERSION,
        "kind": "HostedCluster",
        "metadata": metadata,
        "spec": {
            "release": {"image": spec.release_image},
            "dns": {"baseDomain": spec.base_domain},
            "networking": {
                "clusterNetwork": [{"cidr": spec.pod_cidr}],
                "serviceNetwork": [{"cidr": spec.service_cidr}],
            },
            "pullSecret": {"name": f"{spec.name}-pull-secret"},
            "sshKey": {"name": f"{spec.name}-ssh-key"},
        },
        "status": status,
    }


# -- NodePools ------------------------------------------------------------------------------------


def _machine_prefix(plan: ClusterPlan, key: str) -> str:
    record = plan.pools.get(key)
    return record.name if record else f"{plan.spec.name}-{key}"


def _machines_text(prefix: str, ordinals: Iterable[int], reason: str) -> str:
    return "; ".join(f"Machine {prefix}-{o}: {reason}" for o in ordinals)


def pool_values(pool: Pool, prefix: str) -> list[Value]:
    """The NodePool's conditions as the steps so far make them."""
    if pool.replicas == 0 and not pool.machines:
        message = "NodePool has no replicas"
        return [Value("Ready", FALSE, AS_EXPECTED, message), Value("AllMachinesReady", FALSE, AS_EXPECTED, message),
                Value("AllNodesHealthy", FALSE, AS_EXPECTED, message)]
    extras = pool.extra_ordinals()
    not_joined = [o for o in range(pool.replicas) if o not in pool.machines or pool.machines[o].joined_at is None]
    if pool.ready_at is not None and not extras:
        ready = Value("Ready", TRUE, AS_EXPECTED, "")
    elif extras or pool.scaling == "down" or pool.deleting_at is not None:
        ready = Value("Ready", FALSE, "ScalingDown", f"Scaling down to {pool.replicas} replicas")
    elif pool.scaling == "up":
        ready = Value("Ready", FALSE, "ScalingUp", f"Scaling up to {pool.replicas} replicas")
    else:
        available = pool.replicas - len(not_joined)
        ready = Value("Ready", FALSE, "WaitingForAvailableMachines",
                      f"Minimum availability requires {pool.replicas} replicas, current {available} available")
    if pool.ready_at is not None or (pool.ever_ready and not not_joined):
        return [ready, Value("AllMachinesReady", TRUE, AS_EXPECTED, "All is well"),
                Value("AllNodesHealthy", TRUE, AS_EXPECTED, "All is well")]
    started = [o for o in range(pool.replicas) if o in pool.machines]
    if not started:
        return [ready, Value("AllMachinesReady", FALSE, "NotFound", "No Machines are created"),
                Value("AllNodesHealthy", FALSE, "NotFound", "No Machines are created")]
    phases = "; ".join(
        f"Machine {prefix}-{o}: "
        + ("WaitingForNodeRef" if o in pool.machines and pool.machines[o].infrastructure_ready_at is not None
           else "WaitingForInfrastructure")
        for o in not_joined)
    machines = Value("AllMachinesReady", FALSE, "WaitingForInfrastructure", phases)
    nodes = Value("AllNodesHealthy", FALSE, "WaitingForNodeRef", _machines_text(prefix, not_joined, "WaitingForNodeRef"))
    return [ready, machines, nodes]


def _node_pool(
    plan: ClusterPlan, world: World, key: str, stamps: Stamps, faults: Sequence[FaultRecord], now: datetime
) -> dict[str, Any]:
    pool = world.pools[key]
    record = plan.pools.get(key)
    prefix = _machine_prefix(plan, key)
    joined = sorted(o for o, m in pool.machines.items() if m.joined_at is not None)
    unhealthy: set[int] = set()
    for fault in active(faults, now, "node_pool_failure"):
        if fault.params.get("node_set") != key or join_mode(fault) != UNHEALTHY:
            continue
        hit = [o for o in joined if o not in unhealthy][-int(fault.params.get("count", 0)):]
        if not hit:
            continue
        unhealthy.update(hit)
        at = max(fault.created_at, pool.created_at)
        stamps.put(Value("Ready", FALSE, "WaitingForAvailableMachines",
                         f"{len(unhealthy)} of {len(joined)} nodes are unhealthy"), at)
        stamps.put(Value("AllNodesHealthy", FALSE, "NodeConditionsFailed",
                         _machines_text(prefix, sorted(unhealthy), "NodeConditionsFailed")), at)
    held = [s for s in plan.held_steps("node_pool_failure") if s.node_set_key == key and s.due_at is not None]
    if held:
        failed = sorted(s.ordinal for s in held)
        since = min(s.due_at for s in held if s.due_at is not None)
        stamps.put(Value("AllMachinesReady", FALSE, "InstanceProvisionFailed",
                         _machines_text(prefix, failed, "InstanceProvisionFailed")), since)
    metadata: dict[str, Any] = {
        "name": prefix,
        "namespace": NAMESPACE,
        "labels": {CLUSTER_UUID_LABEL: plan.cluster_id, NODE_SET_LABEL: key},
        "creationTimestamp": iso(pool.created_at),
    }
    if pool.deleting_at is not None:
        metadata["deletionTimestamp"] = iso(pool.deleting_at)
    return {
        "apiVersion": API_VERSION,
        "kind": "NodePool",
        "metadata": metadata,
        "spec": {
            "clusterName": plan.spec.name,
            "replicas": pool.replicas,
            "platform": {"type": _platform(record)},
            "release": {"image": plan.spec.release_image},
        },
        "status": {
            "replicas": len([o for o in joined if o not in unhealthy]),
            "conditions": stamps.as_list(),
        },
    }


def _platform(record: PoolRecord | None) -> str:
    return "Agent" if record is not None and record.spec.hosts else "KubeVirt"


def _nodes(plan: ClusterPlan, world: World, around: Surroundings, seed: int) -> list[NodeAssignment]:
    nodes = []
    for key in sorted(world.pools):
        record = plan.pools.get(key)
        if record is None:
            continue
        for ordinal, machine in sorted(world.pools[key].machines.items()):
            host = node_host_name(plan.cluster_id, key, ordinal, machine.host)
            mac = node_mac(seed, host, record.spec.fabric_interface, machine.host is not None, around.ports)
            nodes.append(NodeAssignment(key, ordinal, host, mac))
    return nodes
