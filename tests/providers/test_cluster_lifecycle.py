"""Scaling and teardown of a simulated cluster (simulator.md §3.1), at speed 1 without jitter so
every time is the table's."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from osac.clock import FakeClock
from osac.providers.interfaces import TransientProviderError
from osac.providers.simulator.clusters.provider import SimulatedClusterProvider
from osac.providers.simulator.fabric.provider import SimulatedFabric
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

READY_AT = START + timedelta(minutes=20)


@pytest.fixture
async def ready(engines: Engines, clock: FakeClock, fabric: SimulatedFabric) -> SimulatedClusterProvider:
    """A READY cluster with two virtual workers, at ``READY_AT``."""
    provider = make_runtime(engines, clock, speed=1, jitter=0).clusters
    await cluster_fabric(fabric)
    await provider.apply_hosted_cluster("c1", cluster_spec())
    await provider.apply_node_pool("c1", "workers", pool_spec(2))
    await follow(provider, clock, "c1", READY_AT, fabric)
    observation = await provider.observe_cluster("c1")
    assert status_of(observation.hosted_cluster, "ClusterVersionSucceeding") == "True"
    return provider


def _workers(o: object) -> tuple[object, ...]:
    found = pool(o, "workers")  # type: ignore[arg-type]
    assert found is not None
    return (found["spec"]["replicas"], found["status"]["replicas"],
            *(f"{status_of(found, t)}/{reason_of(found, t)}" for t in ("Ready", "AllMachinesReady", "AllNodesHealthy")))


def _at(history: list[object], when: datetime) -> object:
    """The observation in force at ``when``."""
    return [o for o in history if o.observed_at <= when][-1]  # type: ignore[attr-defined]


async def test_scaling_up_runs_the_machine_steps_for_the_added_machines(
    ready: SimulatedClusterProvider, clock: FakeClock, fabric: SimulatedFabric
) -> None:
    await ready.apply_node_pool("c1", "workers", pool_spec(3))
    history = await follow(ready, clock, "c1", READY_AT + timedelta(minutes=10), fabric)
    minute = timedelta(minutes=1)
    assert _workers(history[0]) == (3, 2, "False/ScalingUp", "False/WaitingForInfrastructure", "False/WaitingForNodeRef")
    assert len(_at(history, READY_AT).nodes) == 3  # type: ignore[attr-defined]
    assert _workers(_at(history, READY_AT + 4 * minute - timedelta(microseconds=1)))[1] == 2
    assert _workers(_at(history, READY_AT + 4 * minute)) == (
        3, 3, "True/AsExpected", "True/AsExpected", "True/AsExpected")
    hc = history[-1].hosted_cluster
    assert status_of(hc, "ClusterVersionSucceeding") == "True"
    ready_condition = condition(pool(history[-1], "workers"), "Ready")
    assert ready_condition is not None and ready_condition["lastTransitionTime"] == "2026-12-01T09:24:00.000000Z"


async def test_scaling_down_removes_one_machine_per_minute(
    ready: SimulatedClusterProvider, clock: FakeClock, fabric: SimulatedFabric
) -> None:
    await ready.apply_node_pool("c1", "workers", pool_spec(3))
    await follow(ready, clock, "c1", READY_AT + timedelta(minutes=10), fabric)
    start = clock.now()
    await ready.apply_node_pool("c1", "workers", pool_spec(1))
    history = await follow(ready, clock, "c1", start + timedelta(minutes=5), fabric)
    minute = timedelta(minutes=1)
    assert _workers(history[0]) == (1, 3, "False/ScalingDown", "True/AsExpected", "True/AsExpected")
    assert [len(_at(history, start + k * minute).nodes) for k in range(4)] == [3, 2, 1, 1]  # type: ignore[attr-defined]
    assert [_workers(_at(history, start + k * minute))[1] for k in range(3)] == [3, 2, 1]
    assert _workers(history[-1]) == (1, 1, "True/AsExpected", "True/AsExpected", "True/AsExpected")
    assert [n.ordinal for n in history[-1].nodes] == [0]


async def test_a_deleted_node_pool_drains_then_disappears(
    ready: SimulatedClusterProvider, clock: FakeClock, fabric: SimulatedFabric
) -> None:
    await ready.apply_node_pool("c1", "gpu", pool_spec(1, host_type="large"))
    await follow(ready, clock, "c1", READY_AT + timedelta(minutes=10), fabric)
    assert status_of(pool(await ready.observe_cluster("c1"), "gpu"), "Ready") == "True"
    start = clock.now()
    await ready.delete_node_pool("c1", "gpu")
    await ready.delete_node_pool("c1", "gpu")
    deleting = await ready.observe_cluster("c1")
    found = pool(deleting, "gpu")
    assert found is not None and found["metadata"]["deletionTimestamp"] == "2026-12-01T09:30:00.000000Z"
    with pytest.raises(TransientProviderError) as caught:
        await ready.apply_node_pool("c1", "gpu", pool_spec(1, host_type="large"))
    assert caught.value.reason == "NodePoolDeleting"
    history = await follow(ready, clock, "c1", start + timedelta(minutes=2), fabric)
    assert pool(_at(history, start + timedelta(seconds=59)), "gpu") is not None  # type: ignore[arg-type]
    gone = _at(history, start + timedelta(minutes=1))
    assert pool(gone, "gpu") is None  # type: ignore[arg-type]
    assert [n.node_set_key for n in gone.nodes] == ["workers", "workers"]  # type: ignore[attr-defined]
    await ready.apply_node_pool("c1", "gpu", pool_spec(1, host_type="gpu-large"))  # a new pool of that key
    clock.advance(timedelta(seconds=5))
    assert pool(await ready.observe_cluster("c1"), "gpu") is not None


async def test_teardown_follows_its_timeline(
    ready: SimulatedClusterProvider, clock: FakeClock, fabric: SimulatedFabric
) -> None:
    start = clock.now()
    await ready.delete_hosted_cluster("c1")
    await ready.delete_hosted_cluster("c1")  # repeating it changes nothing
    history = await follow(ready, clock, "c1", start + timedelta(minutes=10), fabric)

    def at(seconds: float) -> object:
        return _at(history, start + timedelta(seconds=seconds))

    assert "deletionTimestamp" not in at(4.9).hosted_cluster["metadata"]  # type: ignore[attr-defined]
    deleting = at(5).hosted_cluster  # type: ignore[attr-defined]
    assert deleting["metadata"]["deletionTimestamp"] == "2026-12-01T09:20:05.000000Z"
    assert (status_of(deleting, "CloudResourcesDestroyed"), len(at(5).nodes)) == ("False", 2)  # type: ignore[attr-defined]
    assert pool(at(5), "workers")["metadata"]["deletionTimestamp"] == "2026-12-01T09:20:05.000000Z"  # type: ignore[index, arg-type]
    destroyed = at(180).hosted_cluster  # type: ignore[attr-defined]
    assert (status_of(destroyed, "CloudResourcesDestroyed"), reason_of(destroyed, "CloudResourcesDestroyed")) == (
        "True", "AsExpected")
    assert status_of(at(179.9).hosted_cluster, "CloudResourcesDestroyed") == "False"  # type: ignore[attr-defined]
    assert at(299.9).node_pools and not at(300).node_pools and not at(300).nodes  # type: ignore[attr-defined]
    assert status_of(at(419.9).hosted_cluster, "HostedClusterDestroyed") == "absent"  # type: ignore[attr-defined]
    assert (status_of(at(420).hosted_cluster, "HostedClusterDestroyed"),  # type: ignore[attr-defined]
            reason_of(at(420).hosted_cluster, "HostedClusterDestroyed")) == ("True", "WaitingForGracePeriod")  # type: ignore[attr-defined]
    assert at(449.9).hosted_cluster is not None and at(450).hosted_cluster is None  # type: ignore[attr-defined]
    final = history[-1]
    assert final.readable and final.next_change_at is None
    await ready.delete_hosted_cluster("c1")
    await ready.delete_node_pool("c1", "workers")
    assert (await ready.observe_cluster("c1")).hosted_cluster is None


async def test_a_cluster_deleted_before_it_appeared_is_gone_at_once(engines: Engines, clock: FakeClock) -> None:
    provider = make_runtime(engines, clock, speed=1).clusters
    await provider.apply_hosted_cluster("c1", cluster_spec())
    await provider.delete_hosted_cluster("c1")
    clock.advance(timedelta(minutes=1))
    observation = await provider.observe_cluster("c1")
    assert observation.readable and observation.hosted_cluster is None and observation.next_change_at is None
    await provider.apply_hosted_cluster("c1", cluster_spec())  # the id can be used again
    clock.advance(timedelta(seconds=6))
    assert (await provider.observe_cluster("c1")).hosted_cluster is not None
