"""Durations of the simulated KubeVirt at realistic speed (simulator.md §3.2 at speed 1, ±10 %
seeded jitter), the speed factor, determinism from the seed, and restart safety (§4, §6)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from osac.clock import FakeClock
from osac.providers.compute import VirtualMachineObservation
from osac.providers.simulator.compute.provider import SimulatedKubeVirt
from osac.providers.simulator.runtime.context import SimulatorRuntime, Speed
from osac.store.engine import Engines, create_engines
from tests.providers.compute_support import vm_spec, walk
from tests.providers.conftest import START
from tests.support.schema import migrate_with_simulator_async

VM = "0192a0c4-7f00-7000-8000-000000000002"


def runtime_on(engines: Engines, clock: FakeClock, speed: str = "1", seed: int = 42) -> SimulatorRuntime:
    return SimulatorRuntime(engines.writer, clock, Speed.of(speed), reader=engines.reader, seed=seed)


def printable(observation: VirtualMachineObservation) -> str | None:
    vm = observation.virtual_machine
    return None if vm is None else vm["status"]["printableStatus"]


def first_time(seen: list[VirtualMachineObservation], test: Callable[[VirtualMachineObservation], bool]) -> datetime:
    return next(o.observed_at for o in seen if test(o))


def seconds(later: datetime, earlier: datetime) -> float:
    return (later - earlier).total_seconds()


async def lifecycle(kubevirt: SimulatedKubeVirt, clock: FakeClock) -> list[VirtualMachineObservation]:
    """Create, run, restart, stop and delete, observing every step."""

    def observe() -> Awaitable[VirtualMachineObservation]:
        return kubevirt.observe_virtual_machine(VM)

    await kubevirt.apply_virtual_machine(VM, vm_spec())
    seen = await walk(clock, observe, lambda o: o.next_change_at)
    await kubevirt.restart_virtual_machine(VM)
    seen += await walk(clock, observe, lambda o: o.next_change_at)
    await kubevirt.set_run_strategy(VM, "Halted")
    seen += await walk(clock, observe, lambda o: o.next_change_at)
    await kubevirt.delete_virtual_machine(VM)
    seen += await walk(clock, observe, lambda o: o.next_change_at)
    return seen


async def test_durations_at_speed_1_stay_within_the_jitter(engines: Engines) -> None:
    clock = FakeClock(START)
    kubevirt = SimulatedKubeVirt(runtime_on(engines, clock))
    await kubevirt.apply_virtual_machine(VM, vm_spec())
    seen = await walk(clock, lambda: kubevirt.observe_virtual_machine(VM), lambda o: o.next_change_at)

    def volume_done(name: str) -> datetime:
        return first_time(seen, lambda o: any(d["metadata"]["name"] == f"ci-{VM}-{name}"
                                              and d["status"]["phase"] == "Succeeded" for d in o.data_volumes))

    assert 99 <= seconds(volume_done("boot"), START) <= 121  # 30 s + 2 s/GiB x 40 GiB
    assert 45 <= seconds(volume_done("disk-1"), START) <= 55  # 10 GiB
    assert 63 <= seconds(volume_done("disk-2"), START) <= 77  # 20 GiB
    starting = first_time(seen, lambda o: printable(o) == "Starting")
    running = first_time(seen, lambda o: printable(o) == "Running")
    addressed = first_time(seen, lambda o: o.virtual_machine_instance is not None
                           and any("ipAddress" in i for i in o.virtual_machine_instance["status"]["interfaces"]))
    assert starting == volume_done("boot")
    assert 18 <= seconds(running, starting) <= 22
    assert 4.5 <= seconds(addressed, running) <= 5.5
    quarter = first_time(seen, lambda o: o.data_volumes and o.data_volumes[0]["status"]["progress"] == "25.00%")
    assert seconds(quarter, START) == pytest.approx(seconds(volume_done("boot"), START) / 4, abs=1e-5)

    await kubevirt.set_run_strategy(VM, "Halted")
    stopped = await walk(clock, lambda: kubevirt.observe_virtual_machine(VM), lambda o: o.next_change_at)
    assert [printable(o) for o in stopped] == ["Stopping", "Stopped"]
    assert 9 <= seconds(stopped[1].observed_at, stopped[0].observed_at) <= 11


async def test_the_speed_divides_every_duration(engines: Engines) -> None:
    clock = FakeClock(START)
    kubevirt = SimulatedKubeVirt(runtime_on(engines, clock, speed="60"))
    await kubevirt.apply_virtual_machine(VM, vm_spec())
    seen = await walk(clock, lambda: kubevirt.observe_virtual_machine(VM), lambda o: o.next_change_at)
    starting = first_time(seen, lambda o: printable(o) == "Starting")
    running = first_time(seen, lambda o: printable(o) == "Running")
    assert 99 / 60 <= seconds(starting, START) <= 121 / 60
    assert 18 / 60 <= seconds(running, starting) <= 22 / 60


async def test_the_same_seed_gives_the_same_observations(engines: Engines, tmp_path: Path) -> None:
    other = f"sqlite+aiosqlite:///{tmp_path / 'other.sqlite'}"
    await migrate_with_simulator_async(other)
    second = create_engines(other)
    try:
        clocks = [FakeClock(START) for _ in range(3)]
        first_run = await lifecycle(SimulatedKubeVirt(runtime_on(engines, clocks[0])), clocks[0])
        same_seed = await lifecycle(SimulatedKubeVirt(runtime_on(second, clocks[1])), clocks[1])
        assert same_seed == first_run
        assert len(first_run) > 15
    finally:
        await second.dispose()
    third = f"sqlite+aiosqlite:///{tmp_path / 'third.sqlite'}"
    await migrate_with_simulator_async(third)
    reseeded = create_engines(third)
    try:
        other_seed = await lifecycle(SimulatedKubeVirt(runtime_on(reseeded, clocks[2], seed=7)), clocks[2])
    finally:
        await reseeded.dispose()
    assert [o.observed_at for o in other_seed] != [o.observed_at for o in first_run]
    assert [printable(o) for o in other_seed] == [printable(o) for o in first_run]


async def test_a_restarted_process_observes_what_the_first_one_would(engines: Engines, tmp_path: Path) -> None:
    clock = FakeClock(START)
    first = SimulatedKubeVirt(runtime_on(engines, clock))
    await first.apply_virtual_machine(VM, vm_spec())
    clock.advance(timedelta(seconds=60))  # mid-import
    before = await first.observe_virtual_machine(VM)

    # the process dies; a new one (new runtime, new provider objects) starts on the same database
    restarted_clock = FakeClock(clock.now())
    restarted = SimulatedKubeVirt(runtime_on(engines, restarted_clock))
    assert await restarted.observe_virtual_machine(VM) == before

    # ten simulated minutes later it sees what an uninterrupted run sees
    restarted_clock.advance(timedelta(minutes=10))
    after_restart = await restarted.observe_virtual_machine(VM)
    uninterrupted_url = f"sqlite+aiosqlite:///{tmp_path / 'uninterrupted.sqlite'}"
    await migrate_with_simulator_async(uninterrupted_url)
    uninterrupted = create_engines(uninterrupted_url)
    try:
        reference_clock = FakeClock(START)
        reference = SimulatedKubeVirt(runtime_on(uninterrupted, reference_clock))
        await reference.apply_virtual_machine(VM, vm_spec())
        reference_clock.advance(timedelta(seconds=60))
        await reference.observe_virtual_machine(VM)
        reference_clock.advance(timedelta(minutes=10))
        assert after_restart == await reference.observe_virtual_machine(VM)
    finally:
        await uninterrupted.dispose()
    assert printable(after_restart) == "Running"
    instance = after_restart.virtual_machine_instance
    assert instance is not None and instance["metadata"]["creationTimestamp"] < "2026-12-01T09:03:00"
