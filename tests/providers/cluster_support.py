"""Builders and drivers for the simulated HyperShift tests: specs, a fabric with the cluster's
subnet, node-port attachment the way the service does it, and loops that follow a cluster along
the fake clock."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import asdict
from datetime import datetime
from typing import Any

from osac.clock import FakeClock
from osac.providers.clusters import ClusterObservation, HostedClusterSpec, NodeAssignment, NodePoolSpec
from osac.providers.interfaces import NetworkAttachmentSpec
from osac.providers.simulator.clusters.provider import SimulatedClusterProvider
from osac.providers.simulator.fabric.provider import SimulatedFabric
from osac.providers.simulator.runtime.context import SimulatorRuntime, Speed
from osac.store.engine import Engines
from tests.providers.conftest import network, subnet

VN = "vn-clusters"
SUBNET = "subnet-clusters"
OTHER_SUBNET = "subnet-other"
CIDR = "10.0.1.0/24"
API_VIP = "10.0.1.240"
INGRESS_VIP = "10.0.1.241"
INTERFACE = "nic-0"


def make_runtime(
    engines: Engines, clock: FakeClock, speed: object = "instant", seed: int = 42, **settings: Any
) -> SimulatorRuntime:
    return SimulatorRuntime(engines.writer, clock, Speed.of(speed), reader=engines.reader, seed=seed,
                            settings=settings)


def cluster_spec(name: str = "c-0001", **changes: Any) -> HostedClusterSpec:
    values: dict[str, Any] = {
        "name": name,
        "release_image": "quay.io/openshift-release-dev/ocp-release:4.17.3-x86_64",
        "pull_secret": '{"auths": {"quay.io": {"auth": "c2VjcmV0"}}}',
        "ssh_public_key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIB0 admin@example.net",
        "base_domain": "example.net",
        "pod_cidr": "10.128.0.0/14",
        "service_cidr": "172.30.0.0/16",
        "api_vip": API_VIP,
        "ingress_vip": INGRESS_VIP,
        "subnet_segment": SUBNET,
        "labels": {},
    }
    values.update(changes)
    return HostedClusterSpec(**values)


def pool_spec(replicas: int = 2, hosts: tuple[str, ...] = (), host_type: str = "small") -> NodePoolSpec:
    addresses = tuple(f"10.0.1.{10 + i}" for i in range(replicas))
    return NodePoolSpec(host_type, replicas, INTERFACE, addresses, hosts)


async def cluster_fabric(fabric: SimulatedFabric) -> None:
    """The cluster's VN with its subnet, and a second subnet (a wrong place for node ports)."""
    await network(fabric, VN, "10.0.0.0/16")
    await fabric.create_subnet(subnet(SUBNET, VN, CIDR))
    await fabric.create_subnet(subnet(OTHER_SUBNET, VN, "10.0.2.0/24"))


def node_address(node: NodeAssignment, subnet_cidr: str = CIDR) -> str:
    """The address the service reserved for a node: one block of 50 per node set key letter."""
    base = subnet_cidr.rsplit(".", 1)[0]
    block = 10 + 50 * (sum(node.node_set_key.encode()) % 4)
    return f"{base}.{block + node.ordinal}"


async def attach(fabric: SimulatedFabric, node: NodeAssignment, subnet_id: str = SUBNET, mac: str | None = None) -> None:
    """What the service does for a reported node: put its port on the cluster subnet."""
    assert node.host_name is not None
    cidr = CIDR if subnet_id == SUBNET else "10.0.2.0/24"
    await fabric.create_network_attachment(NetworkAttachmentSpec(
        node.host_name, INTERFACE, mac or node.mac, subnet_id, node_address(node, cidr), (), "cluster"))


async def attach_all(fabric: SimulatedFabric, observation: ClusterObservation) -> None:
    for node in observation.nodes:
        await attach(fabric, node)


async def settle_instant(
    provider: SimulatedClusterProvider, cluster_id: str, fabric: SimulatedFabric | None = None, limit: int = 60
) -> list[ClusterObservation]:
    """Observe (attaching reported nodes when ``fabric`` is given) until nothing changes any
    more at this instant; every distinct observation, in order."""
    seen: list[ClusterObservation] = []
    for _ in range(limit):
        observation = await provider.observe_cluster(cluster_id)
        if seen and document(seen[-1]) == document(observation):
            return seen
        seen.append(observation)
        if fabric is not None:
            await attach_all(fabric, observation)
    raise AssertionError(f"cluster {cluster_id} still changing after {limit} reads")


async def follow(
    provider: SimulatedClusterProvider,
    clock: FakeClock,
    cluster_id: str,
    until: datetime,
    fabric: SimulatedFabric | None = None,
) -> list[ClusterObservation]:
    """Observe at every time the cluster says it changes next, up to ``until``, attaching newly
    reported nodes at once when ``fabric`` is given; then move the clock to ``until``. Every
    distinct observation, in order."""
    history: list[ClusterObservation] = []
    attached: set[tuple[str, int, str | None, str]] = set()
    while True:
        observation = await provider.observe_cluster(cluster_id)
        if not history or document(history[-1]) != document(observation):
            history.append(observation)
        if fabric is not None:
            new = [n for n in observation.nodes if (n.node_set_key, n.ordinal, n.host_name, n.mac) not in attached]
            for node in new:
                await attach(fabric, node)
                attached.add((node.node_set_key, node.ordinal, node.host_name, node.mac))
            if new:
                continue
        upcoming = observation.next_change_at
        if upcoming is None or upcoming > until:
            break
        if upcoming > clock.now():
            clock.set(upcoming)
    if clock.now() < until:
        clock.set(until)
    return history


def document(observation: ClusterObservation) -> str:
    """The observation as canonical JSON (what 'identical' means in these tests)."""
    return json.dumps({
        "readable": observation.readable,
        "error": observation.error,
        "observed_at": observation.observed_at.isoformat(),
        "hosted_cluster": observation.hosted_cluster,
        "node_pools": observation.node_pools,
        "nodes": [asdict(n) for n in observation.nodes],
        "next_change_at": observation.next_change_at.isoformat() if observation.next_change_at else None,
    }, sort_keys=True)


def condition(obj: Mapping[str, Any] | None, condition_type: str) -> dict[str, Any] | None:
    if obj is None:
        return None
    return next((c for c in obj.get("status", {}).get("conditions", []) if c["type"] == condition_type), None)


def status_of(obj: Mapping[str, Any] | None, condition_type: str) -> str:
    found = condition(obj, condition_type)
    return "absent" if found is None else str(found["status"])


def reason_of(obj: Mapping[str, Any] | None, condition_type: str) -> str:
    found = condition(obj, condition_type)
    return "absent" if found is None else str(found["reason"])


def pool(observation: ClusterObservation, key: str) -> dict[str, Any] | None:
    return next((p for p in observation.node_pools if p["metadata"]["labels"]["osac.openshift.io/node-set"] == key),
                None)


HC_SIGNALS = ("InfrastructureReady", "KubeAPIServerAvailable", "Available", "Degraded", "ClusterVersionSucceeding")
POOL_SIGNALS = ("Ready", "AllMachinesReady", "AllNodesHealthy")


def milestones(observation: ClusterObservation, keys: Iterable[str] = ("workers",)) -> tuple[Any, ...]:
    """A compact picture of what a status derivation reads."""
    hc = observation.hosted_cluster
    picture: list[Any] = [None if hc is None else tuple(status_of(hc, t) for t in HC_SIGNALS)]
    picture.append(None if hc is None else "controlPlaneEndpoint" in hc["status"])
    for key in keys:
        found = pool(observation, key)
        if found is None:
            picture.append(None)
            continue
        picture.append((found["status"]["replicas"],
                        *(f"{status_of(found, t)}/{reason_of(found, t)}" for t in POOL_SIGNALS)))
    picture.append(len(observation.nodes))
    return tuple(picture)
