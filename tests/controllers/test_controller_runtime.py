"""One kind's Controller: queue, dedup, concurrency, backoff, timers, resync, shutdown, metrics."""

from __future__ import annotations

import asyncio
import logging
import random
from datetime import timedelta

import pytest

from osac.controllers.networking.provisioning import NetworkingContext
from osac.controllers.runtime.manager import (
    ObjectKey,
    OwnWrites,
    Result,
    TerminalError,
    TransientError,
)
from osac.controllers.runtime.metrics import Outcome
from osac.controllers.runtime.retry import Attempts, RetryPolicy
from osac.controllers.runtime.spread import until_slot
from osac.providers.registry import ManagerRegistry
from osac.store.errors import Conflict, WriteContention

TICK = timedelta(milliseconds=1)


def fail(_key: ObjectKey, _runs: int) -> Result:
    raise RuntimeError("provider exploded")


async def step(clock, controller, delta: timedelta) -> None:
    """Move the fake clock, wake the controller and let what became due run."""
    clock.advance(delta)
    controller.wake()
    await asyncio.wait_for(controller.wait_idle(), 0.5)


# -- backoff arithmetic ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("failures", "expected"),
    [(1, 0.5), (2, 1), (3, 2), (4, 4), (5, 8), (9, 128), (10, 256), (11, 300), (12, 300), (10_000, 300)],
    ids=lambda value: str(value),
)
def test_default_backoff_doubles_from_half_a_second_up_to_five_minutes(
    failures: int, expected: float
) -> None:
    assert RetryPolicy().delay(failures) == timedelta(seconds=expected)


@pytest.mark.parametrize(
    "arguments",
    [
        {"base": timedelta(0)},
        {"base": timedelta(seconds=10), "cap": timedelta(seconds=1)},
        {"factor": 0.5},
    ],
    ids=["zero base", "cap below base", "shrinking factor"],
)
def test_backoff_rejects_nonsense(arguments: dict) -> None:
    with pytest.raises(ValueError):
        RetryPolicy(**arguments)


@pytest.mark.parametrize(
    ("limit", "failures", "exhausted"),
    [(None, 1, False), (None, 10_000, False), (3, 1, False), (3, 2, False), (3, 3, True), (3, 4, True)],
    ids=lambda value: str(value),
)
def test_a_retry_limit_gives_up_at_that_many_failures(limit: int | None, failures: int, exhausted: bool) -> None:
    assert RetryPolicy(limit=limit).is_exhausted(failures) is exhausted


def test_attempts_count_per_key_and_start_over() -> None:
    attempts: Attempts[tuple[str, str]] = Attempts()
    assert [attempts.failed(("a", "teardown")) for _ in range(3)] == [1, 2, 3]
    assert attempts.failed(("a", "provision")) == 1
    assert attempts.failed(("b", "teardown")) == 1
    attempts.succeeded(("a", "teardown"))
    assert attempts.count(("a", "teardown")) == 0
    attempts.forget(lambda key: key[0] == "a")
    assert (attempts.count(("a", "provision")), attempts.count(("b", "teardown"))) == (0, 1)


def test_the_networking_backoff_must_be_above_zero() -> None:
    with pytest.raises(ValueError, match=r"networking.retry_backoff_seconds must be above 0, got 0.0"):
        NetworkingContext(ManagerRegistry([], {}), backoff_base_seconds=0.0)


@pytest.mark.parametrize(("attempt", "seconds"), [(1, 0.05), (2, 0.1), (3, 0.2), (12, 60), (40, 60)])
def test_the_networking_policies_double_to_a_minute_with_their_limits(attempt: int, seconds: float) -> None:
    networking = NetworkingContext(ManagerRegistry([], {}), retry_limit=5, cleanup_retry_limit=3,
                                   backoff_base_seconds=0.05)
    assert networking.provider_retry.delay(attempt) == timedelta(seconds=seconds)
    assert networking.cleanup_retry.delay(attempt) == timedelta(seconds=seconds)
    assert (networking.provider_retry.limit, networking.cleanup_retry.limit) == (5, 3)


# -- queue ----------------------------------------------------------------------------------------


async def test_start_reconciles_every_existing_key_once(make_controller, make_reconciler, objects) -> None:
    objects.add("widget", "a", "b", "c")
    reconciler = make_reconciler()
    controller = await make_controller(reconciler)
    await controller.wait_idle()
    assert sorted(reconciler.calls) == ["a", "b", "c"]


async def test_changes_to_a_queued_key_merge(make_controller, make_reconciler) -> None:
    reconciler = make_reconciler()
    controller = await make_controller(reconciler)
    for _ in range(100):
        controller.enqueue("a")
    await controller.wait_idle()
    assert reconciler.calls == ["a"]


async def test_changes_to_a_busy_key_give_exactly_one_rerun_after_it(
    make_controller, make_reconciler
) -> None:
    reconciler = make_reconciler()
    controller = await make_controller(reconciler)
    reconciler.hold()
    controller.enqueue("a")
    await asyncio.wait_for(reconciler.entered.wait(), 0.5)
    for _ in range(100):
        controller.enqueue("a")
    reconciler.release()
    await controller.wait_idle()
    assert reconciler.calls == ["a", "a"]
    assert reconciler.overlaps == 0


async def test_a_key_never_runs_twice_at_once_while_workers_run_in_parallel(
    make_controller, make_reconciler
) -> None:
    reconciler = make_reconciler()
    reconciler.yields = 3
    controller = await make_controller(reconciler, workers=4)
    keys = [f"k{number}" for number in range(20)]
    shuffle = random.Random(7)
    for _ in range(300):
        for key in shuffle.sample(keys, 5):
            controller.enqueue(key)
        await asyncio.sleep(0)
    await controller.wait_idle()
    assert reconciler.overlaps == 0
    assert 1 < reconciler.max_parallel <= 4
    assert set(reconciler.calls) == set(keys)


async def test_workers_bound_the_parallel_runs(make_controller, make_reconciler) -> None:
    reconciler = make_reconciler()
    controller = await make_controller(reconciler, workers=2)
    reconciler.hold()
    for key in "abcde":
        controller.enqueue(key)
    for _ in range(10):
        await asyncio.sleep(0)
    assert reconciler.parallel == 2
    reconciler.release()
    await controller.wait_idle()
    assert sorted(reconciler.calls) == list("abcde")


# -- errors and backoff ---------------------------------------------------------------------------


async def test_failures_back_off_exponentially_up_to_the_cap_and_success_resets(
    clock, make_controller, make_reconciler, sample
) -> None:
    outcomes = {"fail": True}

    def script(key: ObjectKey, runs: int) -> Result:
        if outcomes["fail"]:
            raise RuntimeError("provider exploded")
        return Result()

    reconciler = make_reconciler(script=script)
    controller = await make_controller(reconciler)
    controller.enqueue("a")
    await controller.wait_idle()
    assert reconciler.runs("a") == 1

    for expected in [0.5, 1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300]:
        delay = timedelta(seconds=expected)
        assert controller.scheduled_at("a") == clock.now() + delay
        await step(clock, controller, delay - TICK)
        runs = reconciler.runs("a")
        await step(clock, controller, TICK)
        assert reconciler.runs("a") == runs + 1, f"retry after {expected} s"

    outcomes["fail"] = False
    await step(clock, controller, timedelta(seconds=300))
    assert controller.scheduled_at("a") is None

    outcomes["fail"] = True
    controller.enqueue("a")
    await controller.wait_idle()
    assert controller.scheduled_at("a") == clock.now() + timedelta(seconds=0.5)
    assert sample("osac_reconcile_total", kind="widget", outcome="error") == 14
    assert sample("osac_reconcile_total", kind="widget", outcome="success") == 1


async def test_transient_error_retries_after_its_delay(
    clock, make_controller, make_reconciler, sample
) -> None:
    def script(key: ObjectKey, runs: int) -> Result:
        if runs == 0:
            raise TransientError("waiting for the host to power on", delay=timedelta(seconds=30))
        if runs == 1:
            raise TransientError("still waiting")
        return Result()

    reconciler = make_reconciler(script=script)
    controller = await make_controller(reconciler)
    controller.enqueue("a")
    await controller.wait_idle()
    assert controller.scheduled_at("a") == clock.now() + timedelta(seconds=30)
    await step(clock, controller, timedelta(seconds=30))
    # The second failure of the streak, without an explicit delay: the backoff's second step.
    assert controller.scheduled_at("a") == clock.now() + timedelta(seconds=1)
    await step(clock, controller, timedelta(seconds=1))
    assert reconciler.runs("a") == 3
    assert sample("osac_reconcile_total", kind="widget", outcome="transient_error") == 2


async def test_the_change_of_a_reconcilers_own_write_does_not_queue_the_key(make_controller, make_reconciler) -> None:
    reconciler = make_reconciler()
    own = reconciler.own_writes = OwnWrites()
    controller = await make_controller(reconciler)
    own.writing("a")
    own.committed("a", 7)
    controller.enqueue_change("a", 7)  # its own write: nothing to do
    await controller.wait_idle()
    assert reconciler.calls == []
    controller.enqueue_change("a", 6)  # someone else's change before it
    await controller.wait_idle()
    controller.enqueue_change("a", 7)  # a revision is the reconciler's own once
    await controller.wait_idle()
    own.writing("b")
    own.committed("b", 9)
    controller.enqueue_change("b", 10)  # a later change of someone else
    await controller.wait_idle()
    assert reconciler.calls == ["a", "a", "b"]


async def test_every_write_of_one_pass_is_the_reconcilers_own(make_controller, make_reconciler) -> None:
    """A pass that writes its object twice (a finalizer, then its status) is not queued again
    by either change, in whatever order the feed reads them; an earlier recorded write is dropped
    once a later one is delivered, and at most ``KEPT`` are kept per object."""
    reconciler = make_reconciler()
    own = reconciler.own_writes = OwnWrites()
    controller = await make_controller(reconciler)
    for revision in (7, 8):
        own.writing("a")
        own.committed("a", revision)
    controller.enqueue_change("a", 7)
    controller.enqueue_change("a", 8)
    await controller.wait_idle()
    assert reconciler.calls == []
    for revision in (10, 11):
        own.writing("b")
        own.committed("b", revision)
    controller.enqueue_change("b", 11)  # the later one first: the earlier one is no longer kept
    controller.enqueue_change("b", 10)
    await controller.wait_idle()
    assert reconciler.calls == ["b"]
    for revision in range(20, 20 + OwnWrites.KEPT + 1):
        own.writing("c")
        own.committed("c", revision)
    controller.enqueue_change("c", 20)  # past the bound: forgotten, so it queues
    await controller.wait_idle()
    controller.enqueue_change("c", 20 + OwnWrites.KEPT)
    await controller.wait_idle()
    assert reconciler.calls == ["b", "c"]


async def test_a_change_read_while_the_reconcilers_write_is_in_flight_waits_for_its_outcome(
    make_controller, make_reconciler
) -> None:
    """The feed can deliver a commit before the writer's coroutine learns of it: its own
    revision then queues nothing once the commit is known, another one queues the key once, and
    every held change queues it after a rollback."""
    reconciler = make_reconciler()
    own = reconciler.own_writes = OwnWrites()
    controller = await make_controller(reconciler)
    own.writing("a")
    controller.enqueue_change("a", 7)  # read before the writer resumed from its commit
    await controller.wait_idle()
    own.committed("a", 7)
    await controller.wait_idle()
    assert reconciler.calls == []
    controller.enqueue_change("a", 7)  # not recorded twice: a second delivery queues it
    await controller.wait_idle()
    assert reconciler.calls == ["a"]
    own.writing("b")
    controller.enqueue_change("b", 8)  # someone else's, held while b's write is in flight
    controller.enqueue_change("b", 9)
    await controller.wait_idle()
    assert reconciler.calls == ["a"]
    own.committed("b", 9)
    await controller.wait_idle()
    assert reconciler.calls == ["a", "b"]
    own.writing("c")
    controller.enqueue_change("c", 10)
    own.rolled_back("c")  # 10 was someone else's after all
    await controller.wait_idle()
    own.writing("d")
    own.rolled_back("d")  # nothing held: nothing queued
    await controller.wait_idle()
    assert reconciler.calls == ["a", "b", "c"]


async def test_a_change_of_another_kind_queues_the_dependents_the_reconciler_names(
    make_controller, make_reconciler
) -> None:
    reconciler = make_reconciler()
    reconciler.dependents = lambda kind, object_id: ("x", "y") if (kind, object_id) == ("gadget", "g1") else ()
    controller = await make_controller(reconciler)
    controller.enqueue_dependents("gadget", "g2", 1)
    controller.enqueue_dependents("widget", "g1", 2)  # its own kind: the change feed queues it directly
    await controller.wait_idle()
    assert reconciler.calls == []
    controller.enqueue_dependents("gadget", "g1", 3)
    await controller.wait_idle()
    assert sorted(reconciler.calls) == ["x", "y"]


async def test_a_change_committed_before_a_pass_began_queues_no_second_pass_when_the_feed_routes_it(
    make_controller, make_reconciler
) -> None:
    """The feed routes a change some time after its commit; a pass that began in between (queued
    by an earlier change) read it already. A change committed after the pass began still queues
    one, while the pass runs or after it."""
    committed = 5
    reconciler = make_reconciler()
    reconciler.dependents = lambda kind, object_id: ("x",) if (kind, object_id) == ("gadget", "g1") else ()
    controller = await make_controller(reconciler, known_committed=lambda: committed)
    controller.enqueue("x")  # its pass begins knowing revision 5
    await controller.wait_idle()
    assert reconciler.calls == ["x"]

    controller.enqueue_change("x", 4)  # routed after the pass that read it
    controller.enqueue_dependents("gadget", "g1", 5)
    await controller.wait_idle()
    assert reconciler.calls == ["x"]

    controller.enqueue_dependents("gadget", "g1", 6)  # committed after that pass began
    await controller.wait_idle()
    assert reconciler.calls == ["x", "x"]
    committed = 9  # (the second pass began knowing 5 still)
    controller.enqueue_change("x", 7)
    await controller.wait_idle()
    assert reconciler.calls == ["x", "x", "x"]

    controller.enqueue_change("x", 9)  # the third pass began knowing 9
    controller.enqueue_dependents("gadget", "g1", 8)
    await controller.wait_idle()
    assert reconciler.calls == ["x", "x", "x"]

    controller.routed_through(9)  # the feed is past every revision a pass began knowing
    controller.enqueue_change("x", 9)  # (a feed never routes a change twice: the rule is gone)
    await controller.wait_idle()
    assert reconciler.calls == ["x", "x", "x", "x"]


async def test_without_a_known_revision_every_routed_change_queues_a_pass(make_controller, make_reconciler) -> None:
    reconciler = make_reconciler()
    controller = await make_controller(reconciler)
    controller.enqueue("x")
    await controller.wait_idle()
    controller.enqueue_change("x", 1)
    await controller.wait_idle()
    assert reconciler.calls == ["x", "x"]


@pytest.mark.parametrize("race", [
    WriteContention("the database aborted the write to resolve contention: deadlock detected"),
    Conflict("ExternalIPAttachment", "'auto-1'", 5, 4),
], ids=["contention", "version-conflict"])
async def test_write_races_are_retried_as_transient_without_a_traceback(
    clock, make_controller, make_reconciler, sample, caplog, race
) -> None:
    def script(key: ObjectKey, runs: int) -> Result:
        if runs == 0:
            raise race
        return Result()

    reconciler = make_reconciler(script=script)
    controller = await make_controller(reconciler)
    with caplog.at_level(logging.INFO, logger="osac.controllers.runtime.manager"):
        controller.enqueue("a")
        await controller.wait_idle()
    assert controller.scheduled_at("a") == clock.now() + timedelta(seconds=0.5)
    assert [r.exc_info for r in caplog.records if str(race) in r.getMessage()] == [None]
    await step(clock, controller, timedelta(seconds=0.5))
    assert reconciler.runs("a") == 2
    assert sample("osac_reconcile_total", kind="widget", outcome="transient_error") == 1
    assert sample("osac_reconcile_total", kind="widget", outcome="success") == 1


async def test_terminal_error_is_not_retried_until_the_object_changes(
    clock, make_controller, make_reconciler, objects, sample, eventually
) -> None:
    def script(key: ObjectKey, runs: int) -> Result:
        if key.id == "bad":
            raise TerminalError("spec asks for 9999 CPUs")
        return Result()

    objects.add("widget", "bad", "good")
    reconciler = make_reconciler(script=script)
    controller = await make_controller(reconciler)
    await controller.wait_idle()
    assert reconciler.runs("bad") == 1
    assert controller.scheduled_at("bad") is None

    await step(clock, controller, timedelta(hours=1))  # the periodic resync gives each key its slot
    await step(clock, controller, timedelta(hours=1))
    await eventually(lambda: reconciler.runs("good") == 2)  # the periodic resync ran...
    await controller.wait_idle()
    assert reconciler.runs("bad") == 1  # ...and skipped the parked key

    controller.enqueue("bad")
    await controller.wait_idle()
    assert reconciler.runs("bad") == 2
    assert sample("osac_reconcile_total", kind="widget", outcome="terminal_error") == 2


async def test_returning_something_else_than_a_result_is_an_error(
    clock, make_controller, make_reconciler, sample
) -> None:
    reconciler = make_reconciler(script=lambda key, runs: None)
    controller = await make_controller(reconciler)
    controller.enqueue("a")
    await controller.wait_idle()
    assert sample("osac_reconcile_total", kind="widget", outcome="error") == 1
    assert controller.scheduled_at("a") == clock.now() + timedelta(seconds=0.5)


# -- timers ---------------------------------------------------------------------------------------


async def test_requeue_after_fires_exactly_when_the_clock_passes_it(
    clock, make_controller, make_reconciler, sample
) -> None:
    reconciler = make_reconciler(
        script=lambda key, runs: Result(requeue_after=timedelta(seconds=30)) if runs == 0 else Result()
    )
    controller = await make_controller(reconciler)
    controller.enqueue("a")
    await controller.wait_idle()

    await step(clock, controller, timedelta(seconds=30) - timedelta(microseconds=1))
    assert reconciler.runs("a") == 1
    await step(clock, controller, timedelta(microseconds=1))
    assert reconciler.runs("a") == 2
    await step(clock, controller, timedelta(hours=1))
    assert reconciler.runs("a") == 2
    assert sample("osac_reconcile_total", kind="widget", outcome="requeue") == 1


async def test_requeue_after_zero_runs_again_at_once(make_controller, make_reconciler) -> None:
    reconciler = make_reconciler(
        script=lambda key, runs: Result(requeue_after=timedelta(0)) if runs < 3 else Result()
    )
    controller = await make_controller(reconciler)
    controller.enqueue("a")
    await controller.wait_idle()
    assert reconciler.runs("a") == 4


async def test_the_earliest_requested_time_wins(clock, make_controller, make_reconciler) -> None:
    reconciler = make_reconciler()
    controller = await make_controller(reconciler)
    controller.enqueue_after("a", timedelta(seconds=60))
    controller.enqueue_after("a", timedelta(seconds=10))
    controller.enqueue_after("a", timedelta(seconds=30))
    assert controller.scheduled_at("a") == clock.now() + timedelta(seconds=10)
    await step(clock, controller, timedelta(seconds=10))
    assert reconciler.runs("a") == 1
    await step(clock, controller, timedelta(minutes=1))
    assert reconciler.runs("a") == 1


async def test_a_run_supersedes_the_pending_timer_of_its_key(clock, make_controller, make_reconciler) -> None:
    reconciler = make_reconciler(
        script=lambda key, runs: Result(requeue_after=timedelta(minutes=5)) if runs == 0 else Result()
    )
    controller = await make_controller(reconciler)
    controller.enqueue("a")
    await controller.wait_idle()
    assert controller.scheduled_at("a") == clock.now() + timedelta(minutes=5)
    controller.enqueue("a")  # a change: the new run decides the future
    await controller.wait_idle()
    assert controller.scheduled_at("a") is None
    await step(clock, controller, timedelta(minutes=10))
    assert reconciler.runs("a") == 2


async def test_timers_fire_without_wake_once_the_real_wait_bound_passes(
    clock, make_controller, make_reconciler, eventually
) -> None:
    reconciler = make_reconciler()
    controller = await make_controller(reconciler, max_real_wait=0.01)
    controller.enqueue_after("a", timedelta(seconds=5))
    clock.advance(timedelta(seconds=5))
    await eventually(lambda: reconciler.runs("a") == 1)


# -- resync ---------------------------------------------------------------------------------------


async def test_resync_enqueues_every_key_each_period(
    clock, make_controller, make_reconciler, objects, eventually
) -> None:
    objects.add("widget", "a")
    reconciler = make_reconciler()
    controller = await make_controller(reconciler, resync_period=timedelta(minutes=10))
    await controller.wait_idle()
    objects.add("widget", "b")  # created while nobody told the controller

    await step(clock, controller, timedelta(minutes=10) - TICK)
    assert reconciler.calls == ["a"]
    clock.advance(TICK)
    controller.wake()
    # the periodic resync lists both keys and gives each a timer at its own slot of the next period
    await eventually(lambda: controller.scheduled_at("a") is not None and controller.scheduled_at("b") is not None)
    now = clock.now()
    for key in ("a", "b"):
        assert controller.scheduled_at(key) == now + until_slot(key, now, timedelta(minutes=10))
        assert now < controller.scheduled_at(key) <= now + timedelta(minutes=10)
    assert reconciler.calls == ["a"]

    clock.advance(timedelta(minutes=10))
    controller.wake()
    await eventually(lambda: sorted(reconciler.calls) == ["a", "a", "b"])


async def test_a_periodic_resync_spreads_the_keys_evenly_over_the_period(
    clock, make_controller, make_reconciler, objects
) -> None:
    """200 keys created at once come due at about 20 a minute over the next 10 minutes, not at once."""
    objects.add("widget", *(f"k{number:03d}" for number in range(200)))
    reconciler = make_reconciler()
    controller = await make_controller(reconciler, resync_period=timedelta(minutes=10))
    await controller.wait_idle()
    assert len(reconciler.calls) == 200  # the start's resync: everything at once

    await step(clock, controller, timedelta(minutes=10))
    assert len(reconciler.calls) == 200  # the periodic one only set timers
    start = clock.now()
    per_minute = []
    for _minute in range(10):
        before = len(reconciler.calls)
        await step(clock, controller, timedelta(minutes=1))
        per_minute.append(len(reconciler.calls) - before)
    assert sum(per_minute) == 200
    assert max(per_minute) <= 35 and min(per_minute) >= 8, per_minute
    assert clock.now() == start + timedelta(minutes=10)


async def test_a_failing_listing_is_retried_with_backoff(
    clock, make_controller, make_reconciler, objects, eventually
) -> None:
    objects.add("widget", "a")
    original = objects.list_keys
    attempts = []

    async def flaky(kind: str) -> list[str]:
        attempts.append(kind)
        if len(attempts) == 1:
            raise ConnectionError("database restarting")
        return await original(kind)

    objects.list_keys = flaky
    reconciler = make_reconciler()
    controller = await make_controller(reconciler)
    assert reconciler.calls == []
    clock.advance(timedelta(seconds=0.5))
    controller.wake()
    await eventually(lambda: reconciler.calls == ["a"])


# -- shutdown and restart -------------------------------------------------------------------------


async def test_stop_waits_for_in_flight_work_and_drops_queue_and_timers(
    clock, make_controller, make_reconciler
) -> None:
    reconciler = make_reconciler()
    controller = await make_controller(reconciler, workers=1)
    reconciler.hold()
    controller.enqueue("a")
    await asyncio.wait_for(reconciler.entered.wait(), 0.5)
    controller.enqueue("b")
    controller.enqueue_after("c", timedelta(seconds=5))

    stopping = asyncio.create_task(controller.stop())
    for _ in range(10):
        await asyncio.sleep(0)
    assert not stopping.done()
    assert not controller.is_running

    reconciler.release()
    await asyncio.wait_for(stopping, 0.5)
    assert reconciler.finished == ["a"]
    assert controller.scheduled_at("c") is None

    controller.enqueue("d")
    clock.advance(timedelta(minutes=1))
    controller.wake()
    await asyncio.sleep(0.01)
    assert reconciler.calls == ["a"]


async def test_stop_cancels_in_flight_work_after_its_timeout(make_controller, make_reconciler) -> None:
    reconciler = make_reconciler()
    controller = await make_controller(reconciler)
    reconciler.hold()
    controller.enqueue("a")
    await asyncio.wait_for(reconciler.entered.wait(), 0.5)
    await asyncio.wait_for(controller.stop(timeout=0.01), 0.5)
    assert reconciler.parallel == 0
    assert not controller.is_running


async def test_a_restarted_controller_resyncs(make_controller, make_reconciler, objects) -> None:
    objects.add("widget", "a")
    reconciler = make_reconciler()
    controller = await make_controller(reconciler)
    await controller.wait_idle()
    await controller.stop()
    await controller.start()
    await controller.wait_idle()
    assert reconciler.calls == ["a", "a"]


# -- metrics --------------------------------------------------------------------------------------


async def test_queue_depth_and_durations_are_reported(
    clock, make_controller, make_reconciler, sample
) -> None:
    reconciler = make_reconciler()
    controller = await make_controller(reconciler, workers=1)
    reconciler.hold()
    for key in "abc":
        controller.enqueue(key)
    await asyncio.wait_for(reconciler.entered.wait(), 0.5)
    assert sample("osac_workqueue_depth", kind="widget") == 2
    clock.advance(timedelta(seconds=2))  # the held run takes two seconds by the clock
    reconciler.release()
    await controller.wait_idle()
    assert sample("osac_workqueue_depth", kind="widget") == 0
    assert sample("osac_reconcile_duration_seconds_count", kind="widget") == 3
    assert sample("osac_reconcile_duration_seconds_sum", kind="widget") == 2
    assert sample("osac_reconcile_total", kind="widget", outcome="success") == 3


async def test_the_oldest_waiting_key_and_each_pass_cost_are_reported(
    clock, make_controller, make_reconciler, sample
) -> None:
    reconciler = make_reconciler()
    controller = await make_controller(reconciler, workers=1)
    costs = []
    controller.add_pass_listener(lambda object_id, outcome, cost: costs.append((object_id, outcome, cost)))
    reconciler.hold()
    controller.enqueue("a")  # holds the one worker
    await asyncio.wait_for(reconciler.entered.wait(), 0.5)
    assert sample("osac_workqueue_oldest_seconds", kind="widget") == 0  # nothing waits
    controller.enqueue("b")
    clock.advance(timedelta(seconds=3))
    controller.enqueue("c")
    controller.enqueue("b")  # a key queued again keeps its place and its age
    assert controller.depth == 2
    assert sample("osac_workqueue_oldest_seconds", kind="widget") == 3
    reconciler.release()
    await controller.wait_idle()
    assert sample("osac_workqueue_oldest_seconds", kind="widget") == 0
    assert [(object_id, outcome) for object_id, outcome, _ in costs] == [
        ("a", Outcome.SUCCESS), ("b", Outcome.SUCCESS), ("c", Outcome.SUCCESS)]
    assert all(cost.statements == 0 and cost.cpu_seconds >= 0 for _, _, cost in costs)  # no store here
    assert sample("osac_reconcile_statements_count", kind="widget") == 3
    assert sample("osac_reconcile_cpu_seconds_count", kind="widget") == 3


async def test_keys_queued_by_a_change_run_before_keys_queued_by_time(
    clock, make_controller, make_reconciler
) -> None:
    reconciler = make_reconciler()
    controller = await make_controller(reconciler, workers=1)
    reconciler.hold()
    controller.enqueue("busy")  # holds the one worker while the queue fills
    await asyncio.wait_for(reconciler.entered.wait(), 0.5)
    for key in ("t1", "t2", "t3"):
        controller.enqueue_after(key, timedelta(seconds=1))
    clock.advance(timedelta(seconds=1))
    controller.wake()  # t1..t3 are due: queued by time
    controller.enqueue("c1")
    controller.enqueue("t2")  # a change moves a timed key up
    controller.enqueue("c2")
    reconciler.release()
    await asyncio.wait_for(controller.wait_idle(), 0.5)
    assert reconciler.calls == ["busy", "c1", "t2", "c2", "t1", "t3"]
