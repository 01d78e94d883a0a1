"""Faults of the simulated KubeVirt (simulator.md §5, target kind ``compute_instance``): each has
its effect on the targeted VM only, and clearing it resumes normal behaviour."""

from __future__ import annotations

import asyncio

import pytest

from osac.clock import FakeClock
from osac.providers.compute import VirtualMachineObservation
from osac.providers.interfaces import TerminalProviderError, TransientProviderError
from osac.providers.simulator.compute.provider import SimulatedKubeVirt
from osac.providers.simulator.runtime.context import SimulatorRuntime
from tests.providers.compute_support import add_fault, check_shape, vm_spec, walk

VM = "0192a0c4-7f00-7000-8000-000000000003"
OTHER = "0192a0c4-7f00-7000-8000-000000000004"


@pytest.fixture
def kubevirt(runtime: SimulatorRuntime) -> SimulatedKubeVirt:
    return SimulatedKubeVirt(runtime)


async def settle(kubevirt: SimulatedKubeVirt, clock: FakeClock, instance: str = VM) -> list[VirtualMachineObservation]:
    return await walk(clock, lambda: kubevirt.observe_virtual_machine(instance), lambda o: o.next_change_at)


def printable(observation: VirtualMachineObservation) -> str | None:
    vm = observation.virtual_machine
    return None if vm is None else vm["status"]["printableStatus"]


async def running(kubevirt: SimulatedKubeVirt, clock: FakeClock, instance: str = VM) -> VirtualMachineObservation:
    await kubevirt.apply_virtual_machine(instance, vm_spec())
    return (await settle(kubevirt, clock, instance))[-1]


async def test_unreadable_hides_the_vm_while_it_goes_on(
    kubevirt: SimulatedKubeVirt, runtime: SimulatorRuntime, clock: FakeClock
) -> None:
    await kubevirt.apply_virtual_machine(VM, vm_spec())
    await kubevirt.apply_virtual_machine(OTHER, vm_spec())
    fault = await add_fault(runtime, "unreadable", "compute_instance", VM)

    hidden = await kubevirt.observe_virtual_machine(VM)
    assert not hidden.readable and fault in hidden.error
    assert (hidden.virtual_machine, hidden.virtual_machine_instance, hidden.data_volumes) == (None, None, [])
    assert hidden.next_change_at is not None
    await settle(kubevirt, clock, OTHER)  # progress continues underneath
    assert (await kubevirt.observe_virtual_machine(OTHER)).readable

    await runtime.faults.delete(fault)
    back = await kubevirt.observe_virtual_machine(VM)
    assert back.readable and printable(back) == "Running"


@pytest.mark.parametrize(("terminal", "error"), [(False, TransientProviderError), (True, TerminalProviderError)])
async def test_provision_fail_fails_the_next_applies(
    kubevirt: SimulatedKubeVirt, runtime: SimulatorRuntime, terminal: bool, error: type[Exception]
) -> None:
    await add_fault(runtime, "provision_fail", "compute_instance", VM, reason="QuotaExceeded", terminal=terminal,
                    times=2)
    for _ in range(2):
        with pytest.raises(error) as caught:
            await kubevirt.apply_virtual_machine(VM, vm_spec())
        assert type(caught.value) is error
        assert caught.value.reason == "QuotaExceeded"  # type: ignore[attr-defined]
        assert (await kubevirt.observe_virtual_machine(VM)).virtual_machine is None
    await kubevirt.apply_virtual_machine(VM, vm_spec())  # the third call succeeds: the fault is used up
    assert printable(await kubevirt.observe_virtual_machine(VM)) == "Provisioning"
    assert await runtime.faults.all() == []


async def test_teardown_fail_halts_and_later_deletes_raise(
    kubevirt: SimulatedKubeVirt, runtime: SimulatorRuntime, clock: FakeClock
) -> None:
    await running(kubevirt, clock)
    fault = await add_fault(runtime, "teardown_fail", "compute_instance", VM)

    await kubevirt.delete_virtual_machine(VM)  # the teardown starts, then halts
    halted = await settle(kubevirt, clock)
    assert [printable(o) for o in halted] == ["Terminating"]
    assert halted[-1].next_change_at is None and len(halted[-1].data_volumes) == 3
    for _ in range(2):
        with pytest.raises(TransientProviderError) as caught:
            await kubevirt.delete_virtual_machine(VM)
        assert caught.value.reason == "TeardownFailed" and "Terminating" in caught.value.message

    await runtime.faults.delete(fault)
    await kubevirt.delete_virtual_machine(VM)  # resumes from now
    rest = await settle(kubevirt, clock)
    assert rest[-1].virtual_machine is None and rest[-1].data_volumes == []


async def test_teardown_fail_at_the_volumes_leaves_them(
    kubevirt: SimulatedKubeVirt, runtime: SimulatorRuntime, clock: FakeClock
) -> None:
    await running(kubevirt, clock)
    await add_fault(runtime, "teardown_fail", "compute_instance", VM, stage="DeletingVolumes", terminal=True)
    await kubevirt.delete_virtual_machine(VM)
    final = (await settle(kubevirt, clock))[-1]
    assert (final.virtual_machine, final.virtual_machine_instance) == (None, None)
    assert [d["metadata"]["name"] for d in final.data_volumes] == [
        f"ci-{VM}-boot", f"ci-{VM}-disk-1", f"ci-{VM}-disk-2"]
    with pytest.raises(TerminalProviderError, match="DeletingVolumes"):
        await kubevirt.delete_virtual_machine(VM)


@pytest.mark.parametrize("forced", ["ErrorUnschedulable", "CrashLoopBackOff"])
async def test_vm_status_forces_the_printable_status(
    kubevirt: SimulatedKubeVirt, runtime: SimulatorRuntime, clock: FakeClock, forced: str
) -> None:
    await running(kubevirt, clock)
    fault = await add_fault(runtime, "vm_status", "compute_instance", VM, printable_status=forced)
    broken = await kubevirt.observe_virtual_machine(VM)
    assert broken.virtual_machine is not None
    assert broken.virtual_machine["status"]["printableStatus"] == forced
    assert broken.virtual_machine["status"]["ready"] is False
    ready = next(c for c in broken.virtual_machine["status"]["conditions"] if c["type"] == "Ready")
    assert (ready["status"], ready["reason"]) == ("False", forced)
    check_shape("virtual_machine", broken.virtual_machine)

    await runtime.faults.delete(fault)
    healed = await kubevirt.observe_virtual_machine(VM)
    assert healed.virtual_machine["status"]["printableStatus"] == "Running"
    assert healed.virtual_machine["status"]["ready"] is True


async def test_vm_status_paused_reports_the_paused_conditions(
    kubevirt: SimulatedKubeVirt, runtime: SimulatorRuntime, clock: FakeClock
) -> None:
    await running(kubevirt, clock)
    await add_fault(runtime, "vm_status", "compute_instance", VM, printable_status="Paused")
    paused = await kubevirt.observe_virtual_machine(VM)
    assert paused.virtual_machine is not None and paused.virtual_machine_instance is not None
    assert paused.virtual_machine["status"]["printableStatus"] == "Paused"
    for document in (paused.virtual_machine, paused.virtual_machine_instance):
        condition = next(c for c in document["status"]["conditions"] if c["type"] == "Paused")
        assert condition["status"] == "True"
    check_shape("virtual_machine_instance", paused.virtual_machine_instance)


async def test_restart_fail_leaves_the_vm_stopped(
    kubevirt: SimulatedKubeVirt, runtime: SimulatorRuntime, clock: FakeClock
) -> None:
    await running(kubevirt, clock)
    await running(kubevirt, clock, OTHER)
    fault = await add_fault(runtime, "restart_fail", "compute_instance", VM)

    await kubevirt.restart_virtual_machine(VM)
    seen = await settle(kubevirt, clock)
    assert [printable(o) for o in seen] == ["Stopping", "Stopped"]
    assert seen[-1].virtual_machine_instance is None and seen[-1].next_change_at is None

    await kubevirt.restart_virtual_machine(OTHER)  # another VM restarts normally
    assert printable((await settle(kubevirt, clock, OTHER))[-1]) == "Running"

    await runtime.faults.delete(fault)
    await kubevirt.restart_virtual_machine(VM)
    again = await settle(kubevirt, clock)
    assert [printable(o) for o in again][-1] == "Running"
    assert again[-1].virtual_machine["status"]["ready"] is True


async def test_a_fault_for_every_vm(kubevirt: SimulatedKubeVirt, runtime: SimulatorRuntime) -> None:
    await add_fault(runtime, "provision_fail", "compute_instance")
    for instance in (VM, OTHER):
        with pytest.raises(TransientProviderError) as caught:
            await kubevirt.apply_virtual_machine(instance, vm_spec())
        assert caught.value.reason == "SimulatedFailure"


async def test_a_fault_created_or_cleared_is_a_notice_at_once(
    kubevirt: SimulatedKubeVirt, runtime: SimulatorRuntime, clock: FakeClock
) -> None:
    await running(kubevirt, clock, VM)
    await running(kubevirt, clock, OTHER)
    notices = kubevirt.subscribe(since=clock.now())
    first = asyncio.ensure_future(anext(notices))
    await asyncio.sleep(0.05)  # the feed is waiting: nothing is due after now
    assert not first.done()
    # A fault on one VM is a notice for that VM, at the time it was made
    await runtime.fault_changed("compute_instance", VM)
    notice = await asyncio.wait_for(first, 5)
    assert (notice.kind, notice.key, notice.changed_at) == ("compute_instance", VM, clock.now())
    # A fault on every VM (``*``) is a notice for each of them
    await runtime.fault_changed("compute_instance", "*")
    keys = {(await asyncio.wait_for(anext(notices), 5)).key for _ in range(2)}
    assert keys == {VM, OTHER}
    await notices.aclose()
