"""The simulated HyperShift follows simulator.md §3.1 step by step, and a node joins only once
the service has put its port on the cluster subnet."""

from __future__ import annotations

from datetime import timedelta

import pytest

from osac.clock import FakeClock
from osac.providers.clusters import CLUSTER_UUID_LABEL, NODE_SET_LABEL
from osac.providers.interfaces import TerminalProviderError, TransientProviderError
from osac.providers.simulator.clusters.provider import SimulatedClusterProvider
from osac.providers.simulator.fabric.provider import SimulatedFabric
from osac.providers.simulator.runtime.context import SimulatorRuntime
from osac.store.engine import Engines
from tests.providers.cluster_support import (
    API_VIP,
    INTERFACE,
    OTHER_SUBNET,
    attach,
    cluster_fabric,
    cluster_spec,
    condition,
    make_runtime,
    milestones,
    pool,
    pool_spec,
    reason_of,
    settle_instant,
    status_of,
)
from tests.providers.conftest import START


@pytest.fixture
def provider(runtime: SimulatorRuntime) -> SimulatedClusterProvider:
    return runtime.clusters


WAITING = ("False/WaitingForAvailableMachines", "False/WaitingForInfrastructure", "False/WaitingForNodeRef")
CREATED = ("False", "Unknown", "False", "False", "Unknown")
INFRA = ("True", "Unknown", "False", "False", "Unknown")
API = ("True", "True", "False", "False", "Unknown")
AVAILABLE = ("True", "True", "True", "False", "Unknown")
DONE = ("True", "True", "True", "False", "True")
READY_POOL = ("True/AsExpected", "True/AsExpected", "True/AsExpected")
NEW_POOL = ("False/WaitingForAvailableMachines", "False/NotFound", "False/NotFound")

#: Each read at speed instant shows the next level of the table (§3.1): the HostedCluster rows
#: 1-4, machines starting (row 5, 20 s apart = one after the other), their infrastructure (row 6),
#: nodes joining once their ports are attached (row 7), the pool (row 8), the version (row 9).
EXPECTED = [
    (CREATED, False, (0, *NEW_POOL), 0),
    (INFRA, False, (0, *NEW_POOL), 0),
    (API, True, (0, *NEW_POOL), 0),
    (AVAILABLE, True, (0, *NEW_POOL), 0),
    (AVAILABLE, True, (0, *WAITING), 1),     # machine 0 started
    (AVAILABLE, True, (0, *WAITING), 2),     # machine 0 infrastructure ready, machine 1 started
    (AVAILABLE, True, (1, *WAITING), 2),     # node 0 joined, machine 1 infrastructure ready
    (AVAILABLE, True, (2, *WAITING), 2),     # node 1 joined
    (AVAILABLE, True, (2, *READY_POOL), 2),  # the pool is ready
    (DONE, True, (2, *READY_POOL), 2),       # ClusterVersionSucceeding
]


async def test_every_step_of_the_table_is_a_separate_observation_at_instant(
    provider: SimulatedClusterProvider, fabric: SimulatedFabric
) -> None:
    await cluster_fabric(fabric)
    assert (await provider.observe_cluster("c1")).hosted_cluster is None
    await provider.apply_hosted_cluster("c1", cluster_spec())
    await provider.apply_node_pool("c1", "workers", pool_spec(2))

    history = await settle_instant(provider, "c1", fabric)

    assert [milestones(o) for o in history] == EXPECTED
    assert all(o.readable and o.observed_at == START for o in history)
    assert [o.next_change_at for o in history] == [START] * (len(EXPECTED) - 1) + [None]


async def test_shapes_are_those_the_status_derivation_reads(
    provider: SimulatedClusterProvider, fabric: SimulatedFabric
) -> None:
    await cluster_fabric(fabric)
    await provider.apply_hosted_cluster("c1", cluster_spec(labels={"team": "blue"}))
    await provider.apply_node_pool("c1", "workers", pool_spec(2))
    first = await provider.observe_cluster("c1")
    hc = first.hosted_cluster
    assert hc is not None
    assert hc["metadata"]["name"] == "c-0001"
    assert hc["metadata"]["labels"] == {"team": "blue", CLUSTER_UUID_LABEL: "c1"}
    assert "deletionTimestamp" not in hc["metadata"]
    assert hc["spec"]["dns"] == {"baseDomain": "example.net"}
    assert "controlPlaneEndpoint" not in hc["status"]
    assert [(c["type"], c["status"], c["reason"]) for c in hc["status"]["conditions"]] == [
        ("InfrastructureReady", "False", "WaitingOnInfrastructureReady"),
        ("KubeAPIServerAvailable", "Unknown", "StatusUnknown"),
        ("Available", "False", "WaitingForAvailable"),
        ("Degraded", "False", "AsExpected"),
        ("ClusterVersionSucceeding", "Unknown", "StatusUnknown"),
    ]
    assert all(c["lastTransitionTime"] == "2026-12-01T09:00:00.000000Z" for c in hc["status"]["conditions"])
    node_pool = pool(first, "workers")
    assert node_pool is not None
    assert node_pool["metadata"]["name"] == "c-0001-workers"
    assert node_pool["metadata"]["labels"] == {CLUSTER_UUID_LABEL: "c1", NODE_SET_LABEL: "workers"}
    assert (node_pool["spec"]["replicas"], node_pool["status"]["replicas"]) == (2, 0)
    # the pull secret never leaves the provider
    assert "auths" not in str(hc)

    history = await settle_instant(provider, "c1", fabric)
    last = history[-1].hosted_cluster
    assert last is not None
    assert last["status"]["controlPlaneEndpoint"] == {"host": API_VIP, "port": 6443}
    assert reason_of(last, "ClusterVersionSucceeding") == "FromClusterVersion"
    assert [(n.node_set_key, n.ordinal, n.host_name) for n in history[-1].nodes] == [
        ("workers", 0, "node/c1/workers/0"), ("workers", 1, "node/c1/workers/1")]
    assert all(n.mac.startswith("02:") and len(n.mac) == 17 for n in history[-1].nodes)


async def test_a_node_joins_only_when_its_port_is_active_on_the_cluster_segment(
    provider: SimulatedClusterProvider, fabric: SimulatedFabric
) -> None:
    await cluster_fabric(fabric)
    await provider.apply_hosted_cluster("c1", cluster_spec())
    await provider.apply_node_pool("c1", "workers", pool_spec(2))
    history = await settle_instant(provider, "c1")
    waiting = history[-1]
    assert milestones(waiting) == (AVAILABLE, True, (0, *WAITING), 2)
    assert waiting.next_change_at is None  # only an attachment can move it now
    node0, node1 = waiting.nodes

    await attach(fabric, node0, subnet_id=OTHER_SUBNET)  # the wrong segment
    await attach(fabric, node1, mac="02:00:00:00:00:99")  # the wrong MAC
    for _ in range(3):
        assert milestones(await provider.observe_cluster("c1"))[2][0] == 0

    await attach(fabric, node1)
    joined = (await settle_instant(provider, "c1"))[-1]
    assert milestones(joined)[2][0] == 1
    found = pool(joined, "workers")
    assert condition(found, "AllNodesHealthy")["message"] == "Machine c-0001-workers-0: WaitingForNodeRef"  # type: ignore[index]

    await attach(fabric, node0)
    assert milestones((await settle_instant(provider, "c1"))[-1]) == (DONE, True, (2, *READY_POOL), 2)


async def test_bare_metal_nodes_run_on_the_claimed_hosts(
    runtime: SimulatorRuntime, fabric: SimulatedFabric, clock: FakeClock
) -> None:
    provider = runtime.clusters
    await cluster_fabric(fabric)
    await runtime.fabric_store.register_host_ports("bm-07", [("eno1", "lifecycle", "0c:c4:7a:00:00:71"),
                                                            (INTERFACE, "fabric", "0c:c4:7a:00:00:72")])
    await provider.apply_hosted_cluster("c1", cluster_spec())
    await provider.apply_node_pool("c1", "gpu", pool_spec(1, hosts=("bm-07",), host_type="bm-h100"))
    history = await settle_instant(provider, "c1", fabric)
    (node,) = history[-1].nodes
    assert (node.node_set_key, node.ordinal, node.host_name, node.mac) == ("gpu", 0, "bm-07", "0c:c4:7a:00:00:72")
    found = pool(history[-1], "gpu")
    assert found is not None and found["spec"]["platform"]["type"] == "Agent"
    assert found["status"]["replicas"] == 1 and status_of(found, "Ready") == "True"
    assert status_of(history[-1].hosted_cluster, "ClusterVersionSucceeding") == "True"


async def test_nodepools_wait_for_their_cluster_and_specs_are_checked(provider: SimulatedClusterProvider) -> None:
    with pytest.raises(TransientProviderError) as caught:
        await provider.apply_node_pool("c1", "workers", pool_spec(1))
    assert caught.value.reason == "HostedClusterNotFound"
    with pytest.raises(TerminalProviderError) as bad_vip:
        await provider.apply_hosted_cluster("c1", cluster_spec(api_vip="not-an-address"))
    assert bad_vip.value.reason == "InvalidSpec" and "api_vip" in bad_vip.value.message
    await provider.apply_hosted_cluster("c1", cluster_spec())
    with pytest.raises(TerminalProviderError) as short:
        await provider.apply_node_pool("c1", "gpu", pool_spec(2, hosts=("bm-1",)))
    assert short.value.reason == "InvalidSpec" and "2 bare-metal replicas need as many hosts" in short.value.message
    await provider.apply_node_pool("c1", "workers", pool_spec(1))
    with pytest.raises(TerminalProviderError) as changed:
        await provider.apply_hosted_cluster("c1", cluster_spec(base_domain="other.net"))
    assert changed.value.reason == "ImmutableFieldChanged"
    with pytest.raises(TerminalProviderError) as host_type:
        await provider.apply_node_pool("c1", "workers", pool_spec(1, host_type="large"))
    assert host_type.value.reason == "ImmutableFieldChanged"


async def test_kubeconfig_and_password_once_the_api_server_is_available(engines: Engines, clock: FakeClock) -> None:
    provider = make_runtime(engines, clock, speed=1).clusters
    await provider.apply_hosted_cluster("c1", cluster_spec())
    clock.advance(timedelta(minutes=5))
    assert status_of((await provider.observe_cluster("c1")).hosted_cluster, "InfrastructureReady") == "True"
    for call in (provider.get_kubeconfig, provider.get_admin_password):
        with pytest.raises(TransientProviderError) as caught:
            await call("c1")
        assert caught.value.reason == "APIServerNotAvailable"
    clock.advance(timedelta(minutes=7))
    kubeconfig = (await provider.get_kubeconfig("c1")).decode()
    assert f"server: https://{API_VIP}:6443" in kubeconfig
    assert "certificate-authority-data:" in kubeconfig and "current-context: admin@c-0001" in kubeconfig
    password = await provider.get_admin_password("c1")
    assert len(password) == 23 and password.count("-") == 3
    assert await provider.get_admin_password("c1") == password
    clock.advance(timedelta(hours=1))
    assert await provider.get_kubeconfig("c1") == kubeconfig.encode()
