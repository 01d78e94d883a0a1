"""Determinism and restarts (simulator.md §4, §6, §9.3-9.4): the observation is a function of
the stored plan, the faults and the clock, so the same script gives byte-identical histories on
any database, and a process that restarts later sees exactly what an uninterrupted one sees."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import pytest

from osac.clock import FakeClock
from osac.providers.clusters import ClusterObservation
from osac.providers.interfaces import ChangeNotice
from osac.providers.simulator.fabric.provider import SimulatedFabric
from osac.providers.simulator.runtime.context import SimulatorRuntime
from osac.providers.simulator.runtime.faults import validate_fault
from osac.store.engine import Engines, create_engines
from tests.providers.cluster_support import (
    INTERFACE,
    cluster_fabric,
    cluster_spec,
    document,
    follow,
    make_runtime,
    pool_spec,
    settle_instant,
)
from tests.providers.conftest import START
from tests.support.schema import migrate_with_simulator_async


@pytest.fixture
async def other_engines(tmp_path: Path) -> AsyncIterator[Engines]:
    """A second database (SQLite), for runs that must not share state with ``engines``."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'other.sqlite'}"
    await migrate_with_simulator_async(url)
    engines = create_engines(url)
    try:
        yield engines
    finally:
        await engines.dispose()


async def _prepared(engines: Engines, clock: FakeClock, speed: object) -> tuple[SimulatorRuntime, SimulatedFabric]:
    runtime = make_runtime(engines, clock, speed=speed)
    fabric = SimulatedFabric("sim-fabric", {}, runtime)
    await cluster_fabric(fabric)
    await runtime.fabric_store.register_host_ports("bm-1", [(INTERFACE, "fabric", "0c:c4:7a:00:00:01")])
    return runtime, fabric


async def _script(engines: Engines) -> list[str]:
    """A cluster's whole life at speed 60: two pools (one bare metal), a fault, a scale-up, a pool
    removed, the teardown."""
    clock = FakeClock(START)
    runtime, fabric = await _prepared(engines, clock, 60)
    provider = runtime.clusters
    await provider.apply_hosted_cluster("c1", cluster_spec())
    await provider.apply_node_pool("c1", "workers", pool_spec(2))
    await provider.apply_node_pool("c1", "gpu", pool_spec(1, hosts=("bm-1",), host_type="bm"))
    history = await follow(provider, clock, "c1", START + timedelta(seconds=30), fabric)
    fault = await runtime.faults.create(
        validate_fault("hc_degraded", "cluster", "c1", {"message": "etcd is slow"}, now=clock.now()))
    await provider.apply_node_pool("c1", "workers", pool_spec(3))
    history += await follow(provider, clock, "c1", START + timedelta(seconds=45), fabric)
    await runtime.faults.delete(fault.id)
    await provider.delete_node_pool("c1", "gpu")
    history += await follow(provider, clock, "c1", START + timedelta(seconds=60), fabric)
    await provider.delete_hosted_cluster("c1")
    history += await follow(provider, clock, "c1", START + timedelta(minutes=2), fabric)
    return [document(o) for o in history]


async def test_the_same_script_gives_identical_histories(engines: Engines, other_engines: Engines) -> None:
    first = await _script(engines)
    second = await _script(other_engines)
    assert first == second
    assert len(first) > 20
    assert '"hosted_cluster": null' in first[-1]


async def test_a_restart_later_sees_what_an_uninterrupted_run_sees(engines: Engines, other_engines: Engines) -> None:
    killed_at, back_at, end = (START + timedelta(minutes=m) for m in (3, 13, 40))

    steady_clock = FakeClock(START)
    steady, steady_fabric = await _prepared(other_engines, steady_clock, 1)
    await steady.clusters.apply_hosted_cluster("c1", cluster_spec())
    await steady.clusters.apply_node_pool("c1", "workers", pool_spec(2))
    steady_history = await follow(steady.clusters, steady_clock, "c1", back_at)  # nobody attaches ports
    steady_then = await steady.clusters.observe_cluster("c1")

    clock = FakeClock(START)
    before, _fabric = await _prepared(engines, clock, 1)
    await before.clusters.apply_hosted_cluster("c1", cluster_spec())
    await before.clusters.apply_node_pool("c1", "workers", pool_spec(2))
    await follow(before.clusters, clock, "c1", killed_at)
    clock.set(back_at)
    after = make_runtime(engines, clock, speed=1)  # a new process: new objects, same database
    notices = after.clusters.subscribe()
    caught_up = await asyncio.wait_for(anext(notices), 10)
    await notices.aclose()
    restarted_then = await after.clusters.observe_cluster("c1")

    assert document(restarted_then) == document(steady_then)
    assert len(restarted_then.nodes) == 2  # machines started while the process was down
    # one notice for the cluster that changed meanwhile, at the time of its last change
    changes = [b.observed_at for a, b in zip(steady_history, steady_history[1:], strict=False)
               if _content(a) != _content(b)]
    assert killed_at < changes[-1] < back_at
    assert caught_up == ChangeNotice("cluster", "c1", changes[-1])

    fabric = SimulatedFabric("sim-fabric", {}, after)
    steady_rest = await follow(steady.clusters, steady_clock, "c1", end, steady_fabric)
    restarted_rest = await follow(after.clusters, clock, "c1", end, fabric)
    assert [document(o) for o in restarted_rest] == [document(o) for o in steady_rest]


def _content(observation: ClusterObservation) -> tuple[object, ...]:
    """What an observation says, without when it was taken."""
    return (observation.hosted_cluster, observation.node_pools, observation.nodes)


async def test_applying_twice_is_applying_once(runtime: SimulatorRuntime, other_engines: Engines) -> None:
    once = runtime.clusters
    twice = make_runtime(other_engines, runtime.clock, speed="instant").clusters  # type: ignore[arg-type]
    for provider, repeat in ((once, 1), (twice, 2)):
        for _ in range(repeat):
            await provider.apply_hosted_cluster("c1", cluster_spec())
            await provider.apply_node_pool("c1", "workers", pool_spec(2))
    assert (await twice.store.load("c1")).version == (await once.store.load("c1")).version  # type: ignore[union-attr]
    first = [document(o) for o in await settle_instant(once, "c1")]
    second = [document(o) for o in await settle_instant(twice, "c1")]
    assert first == second
    for _ in range(2):  # and again once it runs: nothing changes
        await twice.apply_hosted_cluster("c1", cluster_spec())
        await twice.apply_node_pool("c1", "workers", pool_spec(2))
        assert document(await twice.observe_cluster("c1")) == second[-1]
