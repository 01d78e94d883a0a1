"""Every cluster fault of simulator.md §5: its effect, and a clean recovery once it is cleared.
Speed 1 without jitter, so the times are the table's."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from osac.clock import FakeClock
from osac.providers.interfaces import TerminalProviderError, TransientProviderError
from osac.providers.simulator.clusters.faults import FAULT_LABEL, fault_from_label
from osac.providers.simulator.clusters.provider import SimulatedClusterProvider
from osac.providers.simulator.fabric.provider import SimulatedFabric
from osac.providers.simulator.runtime.context import SimulatorRuntime
from osac.providers.simulator.runtime.faults import FaultRecord, InvalidFault, validate_fault
from osac.store.engine import Engines
from tests.providers.cluster_support import (
    cluster_fabric,
    cluster_spec,
    condition,
    follow,
    make_runtime,
    pool,
    pool_spec,
    reason_of,
    status_of,
)
from tests.providers.conftest import START

MINUTE = timedelta(minutes=1)


@pytest.fixture
def sim(engines: Engines, clock: FakeClock) -> SimulatorRuntime:
    return make_runtime(engines, clock, speed=1, jitter=0)


@pytest.fixture
async def wired(sim: SimulatorRuntime) -> SimulatedFabric:
    fabric = SimulatedFabric("sim-fabric", {}, sim)
    await cluster_fabric(fabric)
    return fabric


async def inject(sim: SimulatorRuntime, fault: str, target: str = "c1", **params: Any) -> FaultRecord:
    return await sim.faults.create(validate_fault(fault, "cluster", target, params, now=sim.clock.now()))


async def create(provider: SimulatedClusterProvider, replicas: int = 2) -> None:
    await provider.apply_hosted_cluster("c1", cluster_spec())
    await provider.apply_node_pool("c1", "workers", pool_spec(replicas))


async def make_ready(sim: SimulatorRuntime, fabric: SimulatedFabric, clock: FakeClock) -> None:
    await create(sim.clusters)
    await follow(sim.clusters, clock, "c1", START + 20 * MINUTE, fabric)


async def test_stall_freezes_before_the_step_leaving_the_stage_and_resumes_when_cleared(
    sim: SimulatorRuntime, clock: FakeClock
) -> None:
    provider = sim.clusters
    stall = await inject(sim, "stall", stage="PreparingInfrastructure")
    await create(provider)
    await follow(provider, clock, "c1", START + 30 * MINUTE)
    stalled = await provider.observe_cluster("c1")
    assert stalled.hosted_cluster is not None and stalled.next_change_at is None
    assert status_of(stalled.hosted_cluster, "InfrastructureReady") == "False"

    await sim.faults.delete(stall.id)
    resumed = await provider.observe_cluster("c1")
    infrastructure = condition(resumed.hosted_cluster, "InfrastructureReady")
    assert infrastructure is not None and infrastructure["status"] == "True"
    assert infrastructure["lastTransitionTime"] == "2026-12-01T09:30:00.000000Z"  # when it was cleared
    assert resumed.next_change_at == START + 36 * MINUTE  # the next step after its table time


async def test_a_stall_created_after_the_step_fell_due_does_not_undo_it(sim: SimulatorRuntime, clock: FakeClock) -> None:
    await create(sim.clusters)
    await sim.clusters.observe_cluster("c1")
    clock.advance(4 * MINUTE)  # InfrastructureReady fell due at 3:05, nobody has looked since
    await inject(sim, "stall", stage="PreparingInfrastructure")
    observed = await sim.clusters.observe_cluster("c1")
    assert status_of(observed.hosted_cluster, "InfrastructureReady") == "True"


@pytest.mark.parametrize(
    ("stage", "frozen"),
    [("ControlPlaneStarting", "Available"), ("WorkersJoining", "ClusterVersionSucceeding")],
)
async def test_stall_of_later_provisioning_stages(
    sim: SimulatorRuntime, clock: FakeClock, wired: SimulatedFabric, stage: str, frozen: str
) -> None:
    await inject(sim, "stall", stage=stage)
    await create(sim.clusters)
    await follow(sim.clusters, clock, "c1", START + 40 * MINUTE, wired)
    assert status_of((await sim.clusters.observe_cluster("c1")).hosted_cluster, frozen) != "True"
    for fault in await sim.faults.all():
        await sim.faults.delete(fault.id)
    await follow(sim.clusters, clock, "c1", START + 60 * MINUTE, wired)
    assert status_of((await sim.clusters.observe_cluster("c1")).hosted_cluster, "ClusterVersionSucceeding") == "True"


async def test_stall_of_scaling_holds_the_resized_pool(
    sim: SimulatorRuntime, clock: FakeClock, wired: SimulatedFabric
) -> None:
    await make_ready(sim, wired, clock)
    stall = await inject(sim, "stall", stage="Scaling")
    await sim.clusters.apply_node_pool("c1", "workers", pool_spec(3))
    await follow(sim.clusters, clock, "c1", START + 40 * MINUTE, wired)
    scaled = pool(await sim.clusters.observe_cluster("c1"), "workers")
    assert scaled is not None and scaled["status"]["replicas"] == 3
    assert reason_of(scaled, "Ready") == "ScalingUp"
    await sim.faults.delete(stall.id)
    assert status_of(pool(await sim.clusters.observe_cluster("c1"), "workers"), "Ready") == "True"


async def test_node_pool_failure_join_keeps_machines_from_joining(
    sim: SimulatorRuntime, clock: FakeClock, wired: SimulatedFabric
) -> None:
    fault = await inject(sim, "node_pool_failure", node_set="workers", count=1, mode="join")
    await create(sim.clusters)
    await follow(sim.clusters, clock, "c1", START + 30 * MINUTE, wired)
    failing = await sim.clusters.observe_cluster("c1")
    workers = pool(failing, "workers")
    assert workers is not None and workers["status"]["replicas"] == 1
    machines = condition(workers, "AllMachinesReady")
    assert machines is not None and (machines["status"], machines["reason"]) == ("False", "InstanceProvisionFailed")
    assert machines["message"] == "Machine c-0001-workers-1: InstanceProvisionFailed"
    assert status_of(failing.hosted_cluster, "ClusterVersionSucceeding") == "Unknown"

    await sim.faults.delete(fault.id)
    await follow(sim.clusters, clock, "c1", START + 40 * MINUTE, wired)
    recovered = await sim.clusters.observe_cluster("c1")
    assert status_of(pool(recovered, "workers"), "AllMachinesReady") == "True"
    assert status_of(recovered.hosted_cluster, "ClusterVersionSucceeding") == "True"


async def test_node_pool_failure_unhealthy_turns_nodes_unhealthy(
    sim: SimulatorRuntime, clock: FakeClock, wired: SimulatedFabric
) -> None:
    await make_ready(sim, wired, clock)
    before = pool(await sim.clusters.observe_cluster("c1"), "workers")
    fault = await inject(sim, "node_pool_failure", node_set="workers", count=1, mode="unhealthy")
    workers = pool(await sim.clusters.observe_cluster("c1"), "workers")
    assert workers is not None and workers["status"]["replicas"] == 1
    health = condition(workers, "AllNodesHealthy")
    assert health is not None and (health["status"], health["reason"]) == ("False", "NodeConditionsFailed")
    assert health["lastTransitionTime"] == "2026-12-01T09:20:00.000000Z"
    assert status_of(workers, "Ready") == "False"
    await sim.faults.delete(fault.id)
    assert pool(await sim.clusters.observe_cluster("c1"), "workers") == before


@pytest.mark.parametrize(
    ("fault", "params", "check"),
    [
        ("hc_degraded", {"message": "etcd is slow"},
         lambda hc: (condition(hc, "Degraded")["status"], condition(hc, "Degraded")["message"]) == (  # type: ignore[index]
             "True", "etcd is slow")),
        ("signal_override", {"condition": "Available", "status": "False"},
         lambda hc: (status_of(hc, "Available"), reason_of(hc, "Available")) == ("False", "SimulatedOverride")),
        ("signal_override", {"condition": "KubeAPIServerAvailable", "status": "absent"},
         lambda hc: status_of(hc, "KubeAPIServerAvailable") == "absent"),
        ("conditions_absent", {}, lambda hc: "conditions" not in hc["status"]),
        ("vanish", {}, lambda hc: hc is None),
    ],
)
async def test_faults_on_the_hosted_cluster_show_and_clear(
    sim: SimulatorRuntime, clock: FakeClock, wired: SimulatedFabric, fault: str, params: dict[str, Any], check: Any
) -> None:
    await make_ready(sim, wired, clock)
    healthy = await sim.clusters.observe_cluster("c1")
    record = await inject(sim, fault, **params)
    await inject(sim, fault, target="other-cluster", **params)
    faulty = await sim.clusters.observe_cluster("c1")
    assert check(faulty.hosted_cluster)
    assert faulty.node_pools == healthy.node_pools and faulty.nodes == healthy.nodes
    await sim.faults.delete(record.id)
    assert (await sim.clusters.observe_cluster("c1")).hosted_cluster == healthy.hosted_cluster


async def test_unreadable_hides_everything_while_progress_goes_on(sim: SimulatorRuntime, clock: FakeClock) -> None:
    await create(sim.clusters)
    fault = await inject(sim, "unreadable")
    observation = await sim.clusters.observe_cluster("c1")
    assert (observation.readable, observation.hosted_cluster, observation.node_pools, observation.nodes) == (
        False, None, [], [])
    assert observation.error and observation.next_change_at == START + timedelta(seconds=5)
    clock.advance(10 * MINUTE)
    assert not (await sim.clusters.observe_cluster("c1")).readable
    await sim.faults.delete(fault.id)
    recovered = await sim.clusters.observe_cluster("c1")
    assert recovered.readable and status_of(recovered.hosted_cluster, "KubeAPIServerAvailable") == "True"


async def test_provision_fail_raises_exactly_times_times(sim: SimulatorRuntime) -> None:
    await inject(sim, "provision_fail", times=2, reason="ReleaseImageUnreachable")
    for _ in range(2):
        with pytest.raises(TransientProviderError) as caught:
            await sim.clusters.apply_hosted_cluster("c1", cluster_spec())
        assert caught.value.reason == "ReleaseImageUnreachable"
    assert (await sim.clusters.observe_cluster("c1")).hosted_cluster is None
    await sim.clusters.apply_hosted_cluster("c1", cluster_spec())
    await sim.clusters.apply_hosted_cluster("c1", cluster_spec())
    assert await sim.faults.all() == []
    await sim.clusters.apply_hosted_cluster("c2", cluster_spec("c-0002"))


async def test_terminal_provision_fail_until_cleared(sim: SimulatorRuntime) -> None:
    fault = await inject(sim, "provision_fail", terminal=True, reason="InvalidReleaseImage")
    for call in (lambda: sim.clusters.apply_hosted_cluster("c1", cluster_spec()),
                 lambda: sim.clusters.apply_node_pool("c1", "workers", pool_spec(1))):
        with pytest.raises(TerminalProviderError) as caught:
            await call()
        assert caught.value.reason == "InvalidReleaseImage" and "c1" in caught.value.message
    await sim.clusters.apply_hosted_cluster("c2", cluster_spec("c-0002"))  # other clusters are fine
    await sim.faults.delete(fault.id)
    await sim.clusters.apply_hosted_cluster("c1", cluster_spec())


@pytest.mark.parametrize(
    ("stage", "halted", "signal"),
    [("DestroyingCloudResources", 3, "CloudResourcesDestroyed"),
     ("DestroyingControlPlane", 7, "HostedClusterDestroyed")],
)
async def test_teardown_fail_halts_the_teardown_and_every_later_delete_raises(
    sim: SimulatorRuntime, clock: FakeClock, wired: SimulatedFabric, stage: str, halted: int, signal: str
) -> None:
    await make_ready(sim, wired, clock)
    fault = await inject(sim, "teardown_fail", stage=stage, terminal=True)
    start = clock.now()
    await sim.clusters.delete_hosted_cluster("c1")  # starting the teardown works
    await follow(sim.clusters, clock, "c1", start + 30 * MINUTE, wired)
    halted_at = await sim.clusters.observe_cluster("c1")
    assert halted_at.hosted_cluster is not None and status_of(halted_at.hosted_cluster, signal) != "True"
    with pytest.raises(TerminalProviderError) as caught:
        await sim.clusters.delete_hosted_cluster("c1")
    assert caught.value.reason == "SimulatedFailure" and "teardown" in caught.value.message

    await sim.faults.delete(fault.id)
    await sim.clusters.delete_hosted_cluster("c1")
    resumed = await sim.clusters.observe_cluster("c1")
    assert status_of(resumed.hosted_cluster, signal) == "True"
    await follow(sim.clusters, clock, "c1", clock.now() + 10 * MINUTE, wired)
    assert (await sim.clusters.observe_cluster("c1")).hosted_cluster is None


async def test_a_fault_that_expires_releases_the_step_at_its_expiry(sim: SimulatorRuntime, clock: FakeClock) -> None:
    expiry = START + 10 * MINUTE
    await sim.faults.create(validate_fault("stall", "cluster", "c1", {"stage": "PreparingInfrastructure"},
                                           expires_at=expiry, now=clock.now()))
    await create(sim.clusters)
    clock.advance(4 * MINUTE)
    held = await sim.clusters.observe_cluster("c1")
    assert status_of(held.hosted_cluster, "InfrastructureReady") == "False"
    assert held.next_change_at == expiry
    clock.set(expiry + 2 * MINUTE)
    released = condition((await sim.clusters.observe_cluster("c1")).hosted_cluster, "InfrastructureReady")
    assert released is not None and released["lastTransitionTime"] == "2026-12-01T09:10:00.000000Z"


@pytest.mark.parametrize(
    ("label", "fault", "params"),
    [
        ("stall.ControlPlaneStarting", "stall", {"stage": "ControlPlaneStarting"}),
        ("unreadable", "unreadable", {}),
        ("degraded", "hc_degraded", {"message": f"degraded by label {FAULT_LABEL}"}),
        ("provision-fail", "provision_fail", {"terminal": True}),
        ("teardown-fail", "teardown_fail", {"terminal": True, "stage": "DestroyingCloudResources"}),
        ("nodes-fail.gpu.2", "node_pool_failure", {"node_set": "gpu", "count": 2, "mode": "join"}),
    ],
)
def test_label_shortcut(label: str, fault: str, params: dict[str, Any]) -> None:
    record = fault_from_label(label, "c1", now=START)
    assert (record.fault, record.target_kind, record.target_id, dict(record.params)) == (fault, "cluster", "c1", params)


@pytest.mark.parametrize("label", ["stall.Soon", "nodes-fail.gpu", "nodes-fail.gpu.0", "vm.Paused", "broken", ""])
def test_label_shortcut_rejects_other_values(label: str) -> None:
    with pytest.raises(InvalidFault) as caught:
        fault_from_label(label, "c1", now=START)
    assert caught.value.field == "labels"


async def test_a_label_fault_takes_effect(sim: SimulatorRuntime, clock: FakeClock) -> None:
    await sim.faults.create(fault_from_label("nodes-fail.workers.1", "c1", now=clock.now()))
    await sim.faults.create(fault_from_label("degraded", "c1", now=clock.now()))
    await create(sim.clusters)
    clock.advance(timedelta(seconds=5))
    observed = await sim.clusters.observe_cluster("c1")
    assert status_of(observed.hosted_cluster, "Degraded") == "True"
