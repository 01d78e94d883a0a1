"""Change notices of the simulated KubeVirt (simulator.md §2, §4): one per step as its due time
passes, in time order, on the fake clock and on the system clock."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from osac.clock import FakeClock, SystemClock
from osac.providers.simulator.compute.provider import SimulatedKubeVirt
from osac.providers.simulator.runtime import change_feed
from osac.providers.simulator.runtime.context import SimulatorRuntime, Speed
from osac.store.engine import Engines
from tests.providers.compute_support import Collector, vm_spec, walk

VM = "0192a0c4-7f00-7000-8000-000000000005"
OTHER = "0192a0c4-7f00-7000-8000-000000000006"


async def test_a_notice_for_every_step_as_the_fake_clock_passes_it(runtime: SimulatorRuntime, clock: FakeClock) -> None:
    kubevirt = SimulatedKubeVirt(runtime)
    collector = Collector(kubevirt.subscribe())
    try:
        await kubevirt.apply_virtual_machine(VM, vm_spec())
        await collector.until(clock.now(), VM)
        seen = [await kubevirt.observe_virtual_machine(VM)]
        while seen[-1].next_change_at is not None:
            due = seen[-1].next_change_at
            assert not any(n.changed_at >= due for n in collector.notices)  # nothing before its time
            clock.set(due)
            await collector.until(due, VM)
            seen.append(await kubevirt.observe_virtual_machine(VM))
    finally:
        await collector.close()
    times = [n.changed_at for n in collector.notices]
    assert times == sorted(times)
    assert sorted(set(times)) == [o.observed_at for o in seen]
    assert {(n.kind, n.key) for n in collector.notices} == {("compute_instance", VM)}


async def test_since_replays_the_recorded_steps(runtime: SimulatorRuntime, clock: FakeClock) -> None:
    kubevirt = SimulatedKubeVirt(runtime)
    start = clock.now()
    await kubevirt.apply_virtual_machine(VM, vm_spec())
    seen = await walk(clock, lambda: kubevirt.observe_virtual_machine(VM), lambda o: o.next_change_at)
    collector = Collector(kubevirt.subscribe(since=start))
    try:
        await collector.until(seen[-1].observed_at, VM)
    finally:
        await collector.close()
    assert sorted({n.changed_at for n in collector.notices}) == [o.observed_at for o in seen[1:]]


async def test_notices_follow_the_system_clock(engines: Engines) -> None:
    runtime = SimulatorRuntime(engines.writer, SystemClock(), Speed.of("instant"), reader=engines.reader)
    kubevirt = SimulatedKubeVirt(runtime)
    collector = Collector(kubevirt.subscribe())
    try:
        await kubevirt.apply_virtual_machine(VM, vm_spec())
        await kubevirt.apply_virtual_machine(OTHER, vm_spec(run_strategy="Halted"))
        observation = await kubevirt.observe_virtual_machine(VM)
        while observation.next_change_at is not None:
            await asyncio.sleep(0.001)
            observation = await kubevirt.observe_virtual_machine(VM)
        settled = observation.virtual_machine
        assert settled is not None and settled["status"]["printableStatus"] == "Running"
        last_change = max(step.at for step in (await kubevirt.store.read(VM))[1])
        await collector.until(last_change, VM)
        # The other VM's steps are due on their own schedule: wait for its last one too, rather
        # than assume it came before this VM's.
        other_last = max(step.at for step in (await kubevirt.store.read(OTHER))[1])
        await collector.until(other_last, OTHER)
    finally:
        await collector.close()
    mine = [n.changed_at for n in collector.notices if n.key == VM]
    assert mine == sorted(mine) and len(set(mine)) == 7
    assert any(n.key == OTHER for n in collector.notices)


def test_a_scan_reaches_back_only_to_the_plans_it_may_not_have_seen() -> None:
    """A wake-up scan reads from where the last one ended, or from the start of a plan that was
    in flight since then (its steps may commit after a scan passed their due time); only the
    periodic look reaches ``GRACE`` back (change_feed.py)."""
    wakeup = change_feed.Wakeup()
    start = datetime(2026, 12, 5, 12, 0, tzinfo=UTC)
    watermark = start + timedelta(seconds=10)
    with wakeup.listener() as listener:
        assert wakeup.scan_from(listener, watermark) == watermark
        with wakeup.planning(start + timedelta(seconds=4)):
            with wakeup.planning(start + timedelta(seconds=6)):
                # a scan while both plans are in flight reaches back to the earlier one
                assert wakeup.scan_from(listener, watermark) == start + timedelta(seconds=4)
            assert wakeup.scan_from(listener, watermark) == start + timedelta(seconds=4)
        # the first scan after they ended still does, the next one no longer
        assert wakeup.scan_from(listener, watermark) == start + timedelta(seconds=4)
        assert wakeup.scan_from(listener, watermark) == watermark
        with wakeup.planning(start + timedelta(seconds=12)):
            pass
        assert wakeup.scan_from(listener, watermark) == watermark  # a plan after the watermark
