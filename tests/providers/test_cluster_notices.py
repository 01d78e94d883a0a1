"""``subscribe()`` of the simulated HyperShift (simulator.md §2, §4): one notice per step as its
due time passes, with the exact time of the step, in order; on the system clock it sleeps until
the next due time and wakes at once when a plan is stored."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from datetime import timedelta

from osac.clock import FakeClock, SystemClock
from osac.providers.interfaces import ChangeNotice
from osac.providers.simulator.clusters.provider import SimulatedClusterProvider
from osac.store.engine import Engines
from tests.providers.cluster_support import cluster_spec, make_runtime, pool_spec, settle_instant
from tests.providers.conftest import START


class Collector:
    """Runs ``subscribe()`` in the background and keeps every notice."""

    def __init__(self, provider: SimulatedClusterProvider) -> None:
        self.notices: list[ChangeNotice] = []
        self._provider = provider
        self._stream: AsyncIterator[ChangeNotice] = provider.subscribe()
        self._task = asyncio.create_task(self._run())

    async def caught_up(self, timeout: float = 10.0) -> None:
        """Wait for the subscription's first pass (the catch-up), so that a clock moved next
        gives each step its own notice."""
        async with asyncio.timeout(timeout):
            while self._provider.subscription_passes == 0:
                await asyncio.sleep(0.005)

    async def _run(self) -> None:
        async for notice in self._stream:
            self.notices.append(notice)

    async def until(self, count: int, timeout: float = 10.0) -> list[ChangeNotice]:
        async with asyncio.timeout(timeout):
            while len(self.notices) < count:
                await asyncio.sleep(0.005)
        return self.notices

    async def stop(self) -> None:
        """Cancel the subscription; it must end within seconds (a lost cancellation fails here)."""
        self._task.cancel()
        done, _ = await asyncio.wait({self._task}, timeout=10)
        assert done, "the subscription went on after it was cancelled"
        with contextlib.suppress(asyncio.CancelledError):
            await self._task


async def test_one_notice_per_step_with_its_exact_time(engines: Engines, clock: FakeClock) -> None:
    provider = make_runtime(engines, clock, speed=1, jitter=0).clusters
    collector = Collector(provider)
    await collector.caught_up()
    await provider.apply_hosted_cluster("c1", cluster_spec())
    await provider.apply_node_pool("c1", "workers", pool_spec(2))
    clock.advance(timedelta(seconds=4))
    await asyncio.sleep(0.1)
    assert collector.notices == []  # nothing is due yet
    clock.advance(timedelta(minutes=20))  # one jump: every step still gets its own notice and time
    # created (HC, pool), infrastructure, API, available, machine 0 (and 1) started, their
    # infrastructure ready; the joins wait for ports nobody attaches here
    seconds = [5, 5, 185, 545, 605, 605, 625, 725, 745]
    notices = await collector.until(len(seconds))
    await asyncio.sleep(0.1)
    await collector.stop()
    assert notices == [ChangeNotice("cluster", "c1", START + timedelta(seconds=s)) for s in seconds]


async def test_notices_of_several_clusters_come_in_time_order(engines: Engines, clock: FakeClock) -> None:
    provider = make_runtime(engines, clock, speed=1, jitter=0).clusters
    await provider.apply_hosted_cluster("early", cluster_spec("c-early"))
    clock.advance(timedelta(minutes=1))
    await provider.apply_hosted_cluster("late", cluster_spec("c-late"))
    collector = Collector(provider)
    await collector.caught_up()
    clock.advance(timedelta(minutes=4))
    notices = await collector.until(4)
    await collector.stop()
    assert [(n.key, n.changed_at - START) for n in notices] == [
        ("early", timedelta(seconds=5)), ("late", timedelta(seconds=65)),
        ("early", timedelta(seconds=185)), ("late", timedelta(seconds=245))]


async def test_steps_that_a_read_made_happen_are_announced_too(engines: Engines, clock: FakeClock) -> None:
    provider = make_runtime(engines, clock, speed="instant").clusters
    collector = Collector(provider)
    await collector.caught_up()
    await provider.apply_hosted_cluster("c1", cluster_spec())
    await provider.apply_node_pool("c1", "workers", pool_spec(1))
    await settle_instant(provider, "c1")  # reads make steps happen, racing the scheduler
    # HC and pool created, infrastructure, API, available, machine started, its infrastructure
    notices = await collector.until(7)
    await asyncio.sleep(0.2)
    await collector.stop()
    assert len(notices) == 7
    assert {n.changed_at for n in notices} == {START} and {n.key for n in notices} == {"c1"}


async def test_on_the_system_clock_a_stored_plan_wakes_the_scheduler(engines: Engines) -> None:
    clock = SystemClock()
    provider = make_runtime(engines, clock, speed=600).clusters  # 5 s of the table take 8 ms
    collector = Collector(provider)
    await asyncio.sleep(1.2)  # the scheduler is now asleep, with nothing due
    loop = asyncio.get_running_loop()
    started = loop.time()
    applied_at = clock.now()
    await provider.apply_hosted_cluster("c1", cluster_spec())
    (notice,) = await collector.until(1)
    elapsed = loop.time() - started
    await collector.stop()
    assert notice.key == "c1" and notice.changed_at > applied_at
    assert elapsed < 0.9  # well before its idle poll would have found it


async def test_changes_are_read_from_the_clusters_saved_since_a_moment(engines: Engines, clock: FakeClock) -> None:
    provider = make_runtime(engines, clock, speed=1, jitter=0).clusters
    store = provider.store
    await provider.apply_hosted_cluster("old", cluster_spec("c-old"))
    clock.advance(timedelta(minutes=2))
    await provider.process_due()  # old: created (its next step is due at 3m05s)
    seen = await store.versions()
    clock.advance(timedelta(seconds=1))
    moment = clock.now()
    await provider.apply_hosted_cluster("new", cluster_spec("c-new"))
    clock.advance(timedelta(seconds=10))
    await provider.process_due()  # new: created
    # only the cluster saved since the moment is read; the others keep their remembered versions
    assert set(await store.versions(changed_since=moment)) == {"new"}
    happened, latest = await store.happened_since(seen, changed_since=moment)
    assert {cluster_id for cluster_id, _, _ in happened} == {"new"}
    assert latest == {**seen, "new": (await store.versions())["new"]}
    # without a moment every cluster is read
    _, everything = await store.happened_since(seen)
    assert set(everything) == {"old", "new"}


async def test_a_subscription_reports_what_changed_in_time_even_among_idle_clusters(
    engines: Engines, clock: FakeClock
) -> None:
    # A change after hours of running (partial reads in between, full ones every FULL_RESCAN)
    # is reported once, with its time.
    provider = make_runtime(engines, clock, speed=1, jitter=0).clusters
    for index in range(5):
        await provider.apply_hosted_cluster(f"idle{index}", cluster_spec(f"c-idle{index}"))
    collector = Collector(provider)
    await collector.caught_up()
    for _ in range(14):
        clock.advance(timedelta(minutes=13))
        await asyncio.sleep(0.05)
    created_at = clock.now()
    await provider.apply_hosted_cluster("late", cluster_spec("c-late"))
    clock.advance(timedelta(seconds=10))
    async with asyncio.timeout(10):
        while not [n for n in collector.notices if n.key == "late"]:
            await asyncio.sleep(0.005)
    await asyncio.sleep(0.1)
    await collector.stop()
    assert [n for n in collector.notices if n.key == "late"] == [
        ChangeNotice("cluster", "late", created_at + timedelta(seconds=5))]
