"""Faults of the simulated bare-metal hosts (simulator.md §5, target kind ``host``): each has its
effect on the targeted host only, and clearing it resumes normal behaviour."""

from __future__ import annotations

import asyncio

import pytest

from osac.clock import FakeClock
from osac.providers.baremetal import HostObservation
from osac.providers.interfaces import TerminalProviderError, TransientProviderError
from osac.providers.simulator.baremetal.provider import SimulatedBareMetal
from osac.providers.simulator.runtime.context import SimulatorRuntime
from tests.providers.compute_support import HOST_TYPES, add_fault, check_shape, inventory, walk

HOST = "bm-std-001"
OTHER = "bm-std-002"
IMAGE = "https://images.example.com/rhel-9.4.qcow2"


@pytest.fixture
async def baremetal(runtime: SimulatorRuntime) -> SimulatedBareMetal:
    provider = SimulatedBareMetal(runtime, inventory(("bm-std", "bm-standard", 3)))
    await provider.load_inventory(HOST_TYPES)
    return provider


async def settle(baremetal: SimulatedBareMetal, clock: FakeClock, host: str = HOST) -> list[HostObservation]:
    return await walk(clock, lambda: baremetal.observe_host(host), lambda o: o.next_change_at)


def state(observation: HostObservation) -> tuple[str, bool]:
    assert observation.host is not None
    return observation.host["status"]["provisioning"]["state"], observation.host["status"]["poweredOn"]


async def provisioned(baremetal: SimulatedBareMetal, clock: FakeClock, host: str = HOST) -> None:
    await baremetal.provision_host(host, IMAGE, "", "")
    assert state((await settle(baremetal, clock, host))[-1]) == ("provisioned", True)


async def test_unreadable(baremetal: SimulatedBareMetal, runtime: SimulatorRuntime, clock: FakeClock) -> None:
    await baremetal.provision_host(HOST, IMAGE, "", "")
    fault = await add_fault(runtime, "unreadable", "host", HOST)
    hidden = await baremetal.observe_host(HOST)
    assert not hidden.readable and hidden.host is None and fault in hidden.error
    assert hidden.next_change_at is not None
    assert (await baremetal.observe_host(OTHER)).readable
    clock.set(hidden.next_change_at)
    await runtime.faults.delete(fault)
    assert state(await baremetal.observe_host(HOST)) == ("provisioned", True)  # it went on underneath


@pytest.mark.parametrize(("terminal", "error"), [(False, TransientProviderError), (True, TerminalProviderError)])
async def test_provision_fail(baremetal: SimulatedBareMetal, runtime: SimulatorRuntime, terminal: bool,
                              error: type[Exception]) -> None:
    await add_fault(runtime, "provision_fail", "host", HOST, reason="ImageUnreachable", terminal=terminal, times=1)
    with pytest.raises(error) as caught:
        await baremetal.provision_host(HOST, IMAGE, "", "")
    assert type(caught.value) is error and caught.value.reason == "ImageUnreachable"  # type: ignore[attr-defined]
    assert state(await baremetal.observe_host(HOST)) == ("available", False)
    await baremetal.provision_host(HOST, IMAGE, "", "")
    assert state(await baremetal.observe_host(HOST)) == ("provisioning", True)


async def test_teardown_fail(baremetal: SimulatedBareMetal, runtime: SimulatorRuntime, clock: FakeClock) -> None:
    await provisioned(baremetal, clock)
    fault = await add_fault(runtime, "teardown_fail", "host", HOST)
    await baremetal.deprovision_host(HOST)
    stuck = await settle(baremetal, clock)
    assert [state(o) for o in stuck] == [("deprovisioning", True)]
    assert stuck[-1].next_change_at is None
    with pytest.raises(TransientProviderError) as caught:
        await baremetal.deprovision_host(HOST)
    assert caught.value.reason == "TeardownFailed"

    await runtime.faults.delete(fault)
    await baremetal.deprovision_host(HOST)
    assert state((await settle(baremetal, clock))[-1]) == ("available", False)


async def test_restart_fail_keeps_the_host_down(baremetal: SimulatedBareMetal, runtime: SimulatorRuntime,
                                                clock: FakeClock) -> None:
    await provisioned(baremetal, clock)
    await provisioned(baremetal, clock, OTHER)
    fault = await add_fault(runtime, "restart_fail", "host", HOST)
    await baremetal.reboot_host(HOST)
    down = await settle(baremetal, clock)
    assert state(down[-1]) == ("provisioned", False) and down[-1].next_change_at is None
    assert down[-1].host["spec"]["online"] is True  # type: ignore[index]
    await baremetal.reboot_host(OTHER)
    assert state((await settle(baremetal, clock, OTHER))[-1]) == ("provisioned", True)

    await runtime.faults.delete(fault)
    await baremetal.reboot_host(HOST)
    assert state((await settle(baremetal, clock))[-1]) == ("provisioned", True)


async def test_power_fail_fails_power_calls_the_given_times(
    baremetal: SimulatedBareMetal, runtime: SimulatorRuntime, clock: FakeClock
) -> None:
    await provisioned(baremetal, clock)
    await add_fault(runtime, "power_fail", "host", HOST, times=3)
    for call in (baremetal.reboot_host, lambda host: baremetal.set_power(host, False), baremetal.reboot_host):
        with pytest.raises(TransientProviderError) as caught:
            await call(HOST)
        assert caught.value.reason == "PowerManagementError"
    assert state(await baremetal.observe_host(HOST)) == ("provisioned", True)
    await baremetal.reboot_host(HOST)  # the fourth call works
    assert state((await settle(baremetal, clock))[-1]) == ("provisioned", True)


async def test_host_broken(baremetal: SimulatedBareMetal, runtime: SimulatorRuntime) -> None:
    fault = await add_fault(runtime, "host_broken", "host", HOST)
    broken = (await baremetal.observe_host(HOST)).host
    assert broken is not None
    check_shape("bare_metal_host", broken)
    assert broken["status"]["operationalStatus"] == "error"
    assert broken["status"]["errorType"] and fault in broken["status"]["errorMessage"]
    records = {h.name: h.operational_status for h in await baremetal.list_hosts()}
    assert records == {HOST: "error", OTHER: "OK", "bm-std-003": "OK"}

    await runtime.faults.delete(fault)
    healed = (await baremetal.observe_host(HOST)).host
    assert healed is not None
    assert (healed["status"]["operationalStatus"], healed["status"]["errorType"]) == ("OK", "")


async def test_a_fault_created_or_cleared_is_a_notice_at_once(
    baremetal: SimulatedBareMetal, runtime: SimulatorRuntime, clock: FakeClock
) -> None:
    notices = baremetal.subscribe()
    first = asyncio.ensure_future(anext(notices))
    await asyncio.sleep(0.05)  # the feed is waiting: nothing is due
    assert not first.done()
    # A fault on one host is a notice for that host
    await runtime.fault_changed("host", HOST)
    notice = await asyncio.wait_for(first, 5)
    assert (notice.kind, notice.key, notice.changed_at) == ("host", HOST, clock.now())
    # A fault on every host (``*``) is a notice for each host of the inventory
    await runtime.fault_changed("host", "*")
    keys = {(await asyncio.wait_for(anext(notices), 5)).key for _ in range(3)}
    assert keys == {HOST, OTHER, "bm-std-003"}
    await notices.aclose()
