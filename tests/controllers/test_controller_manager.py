"""ControllerManager: following the change feed, routing by kind, resyncs and recovery."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from osac.controllers.runtime.manager import Change, ObjectKey, Result
from osac.controllers.runtime.testing import InMemoryChangeFeed, InMemoryChangeLog, InMemoryLeaseStore


async def test_changes_are_routed_to_the_controller_of_their_kind(
    clock, make_manager, make_reconciler
) -> None:
    log = InMemoryChangeLog()
    widgets, gadgets = make_reconciler("widget"), make_reconciler("gadget")
    manager = await make_manager([widgets, gadgets], feed=log.feed(), leases=InMemoryLeaseStore(clock))

    log.append("widget", "w1")
    log.append("gadget", "g1")
    log.append("widget", "w2")
    log.append("sprocket", "s1")  # nobody reconciles this kind
    await asyncio.wait_for(manager.wait_idle(), 0.5)

    assert sorted(widgets.calls) == ["w1", "w2"]
    assert gadgets.calls == ["g1"]
    assert manager.revision == 4


async def test_a_change_queues_the_objects_it_refers_to_with_their_own_controller(
    clock, make_manager, make_reconciler
) -> None:
    log = InMemoryChangeLog()
    widgets, gadgets = make_reconciler("widget"), make_reconciler("gadget")
    manager = await make_manager([widgets, gadgets], feed=log.feed(), leases=InMemoryLeaseStore(clock))

    log.append("widget", "w1", refers_to=(("gadget", "g7"), ("sprocket", "s1")))
    await asyncio.wait_for(manager.wait_idle(), 0.5)

    assert widgets.calls == ["w1"]
    assert gadgets.calls == ["g7"]  # the sprocket has no controller here: ignored


async def test_start_resyncs_instead_of_replaying_history(
    clock, make_manager, make_reconciler, objects
) -> None:
    log = InMemoryChangeLog()
    for _ in range(50):  # many changes while no manager ran...
        log.append("widget", "w1")
    log.append("widget", "deleted")
    objects.add("widget", "w1", "w2")  # ...and what exists now
    widgets = make_reconciler("widget")
    manager = await make_manager([widgets], feed=log.feed(), leases=InMemoryLeaseStore(clock))
    await asyncio.wait_for(manager.wait_idle(), 0.5)
    assert sorted(widgets.calls) == ["w1", "w2"]


async def test_wait_idle_waits_for_changes_that_reconciles_write(
    clock, make_manager, make_reconciler
) -> None:
    log = InMemoryChangeLog()

    def create_child(key: ObjectKey, runs: int) -> Result:
        log.append("gadget", f"child-of-{key.id}")  # like a reconciler auto-provisioning a child
        return Result()

    widgets, gadgets = make_reconciler("widget", create_child), make_reconciler("gadget")
    manager = await make_manager([widgets, gadgets], feed=log.feed(), leases=InMemoryLeaseStore(clock))
    log.append("widget", "w1")
    await asyncio.wait_for(manager.wait_idle(), 0.5)
    assert gadgets.calls == ["child-of-w1"]


async def test_manager_enqueue_and_wake_reach_the_controllers(clock, make_manager, make_reconciler) -> None:
    log = InMemoryChangeLog()
    widgets = make_reconciler("widget", lambda key, runs: Result(requeue_after=timedelta(seconds=10)))
    manager = await make_manager([widgets], feed=log.feed(), leases=InMemoryLeaseStore(clock))
    manager.enqueue(ObjectKey("widget", "w1"))
    manager.enqueue(ObjectKey("sprocket", "s1"))
    await asyncio.wait_for(manager.wait_idle(), 0.5)
    assert widgets.calls == ["w1"]

    clock.advance(timedelta(seconds=10))
    manager.wake()
    await asyncio.wait_for(manager.wait_idle(), 0.5)
    assert widgets.calls == ["w1", "w1"]


class FlakyFeed:
    """A feed whose reads fail while ``failing`` is set (the database went away)."""

    def __init__(self, feed: InMemoryChangeFeed) -> None:
        self.feed = feed
        self.failing = False
        self.failures = 0

    async def changes_after(self, revision: int, limit: int) -> list[Change]:
        if self.failing:
            self.failures += 1
            raise ConnectionError("connection to the database lost")
        return await self.feed.changes_after(revision, limit)

    async def wait(self, timeout: float) -> None:
        await self.feed.wait(timeout)

    async def current_revision(self) -> int:
        return await self.feed.current_revision()

    def known_committed(self) -> int:
        return self.feed.known_committed()


async def test_a_feed_failure_is_repaired_by_a_resync(
    clock, make_manager, make_reconciler, objects, eventually
) -> None:
    log = InMemoryChangeLog()
    feed = FlakyFeed(log.feed())
    widgets = make_reconciler("widget")
    manager = await make_manager([widgets], feed=feed, leases=InMemoryLeaseStore(clock))
    await asyncio.wait_for(manager.wait_idle(), 0.5)

    feed.failing = True
    log.append("widget", "w1")
    objects.add("widget", "w1")
    await eventually(lambda: feed.failures == 1)
    feed.failing = False

    clock.advance(timedelta(seconds=0.5))  # the feed's first backoff step
    manager.wake()
    await eventually(lambda: widgets.calls == ["w1"])
    log.append("widget", "w2")
    await asyncio.wait_for(manager.wait_idle(), 0.5)
    assert widgets.calls == ["w1", "w2"]


async def test_stop_waits_for_in_flight_work_and_releases_the_leases(
    clock, make_manager, make_reconciler
) -> None:
    log = InMemoryChangeLog()
    leases = InMemoryLeaseStore(clock)
    widgets = make_reconciler("widget")
    manager = await make_manager([widgets], feed=log.feed(), leases=leases, holder="a")
    assert await leases.holder_of("controllers/shard/0") == "a"

    widgets.hold()
    log.append("widget", "w1")
    await asyncio.wait_for(widgets.entered.wait(), 0.5)
    stopping = asyncio.create_task(manager.stop())
    for _ in range(10):
        await asyncio.sleep(0)
    assert not stopping.done()
    widgets.release()
    await asyncio.wait_for(stopping, 0.5)

    assert widgets.finished == ["w1"]
    assert await leases.live("controllers/") == {}
    assert not manager.controllers["widget"].is_running
    log.append("widget", "w2")
    await asyncio.sleep(0.01)
    assert widgets.calls == ["w1"]
