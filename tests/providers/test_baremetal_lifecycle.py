"""A simulated host's lifecycle (simulator.md §3.3): provisioning, power, reboot and
deprovisioning step by step at ``instant``, the durations at speed 1, DHCP leases 15 s after
boot only on ports with a reservation, change notices, and restart safety."""

from __future__ import annotations

import asyncio
import json
from datetime import datetime, timedelta

import pytest

from osac.clock import FakeClock
from osac.providers.baremetal import HostObservation
from osac.providers.interfaces import TerminalProviderError, TransientProviderError
from osac.providers.simulator.baremetal.provider import SimulatedBareMetal
from osac.providers.simulator.fabric.provider import SimulatedFabric
from osac.providers.simulator.runtime.context import SimulatorRuntime, Speed
from osac.store.engine import Engines
from tests.providers.compute_support import HOST_TYPES, Collector, check_shape, inventory, walk
from tests.providers.conftest import START, attachment, network, subnet

HOST = "bm-std-001"
IMAGE = "https://images.example.com/rhel-9.4.qcow2"


def provider(runtime: SimulatorRuntime) -> SimulatedBareMetal:
    return SimulatedBareMetal(runtime, inventory(("bm-std", "bm-standard", 3)))


@pytest.fixture
async def baremetal(runtime: SimulatorRuntime) -> SimulatedBareMetal:
    bare_metal = provider(runtime)
    await bare_metal.load_inventory(HOST_TYPES)
    return bare_metal


async def settle(baremetal: SimulatedBareMetal, clock: FakeClock, host: str = HOST) -> list[HostObservation]:
    seen = await walk(clock, lambda: baremetal.observe_host(host), lambda o: o.next_change_at)
    for observation in seen:
        assert observation.host is not None
        check_shape("bare_metal_host", observation.host)
    return seen


def summary(observation: HostObservation) -> tuple[str, bool, bool]:
    assert observation.host is not None
    return (observation.host["status"]["provisioning"]["state"], observation.host["status"]["poweredOn"],
            observation.host["spec"]["online"])


def ips(observation: HostObservation) -> dict[str, str]:
    assert observation.host is not None
    return {nic["name"]: nic["ip"] for nic in observation.host["status"]["hardware"]["nics"]}


def seconds(later: datetime, earlier: datetime) -> float:
    return (later - earlier).total_seconds()


async def test_a_new_host_is_available_and_off(baremetal: SimulatedBareMetal) -> None:
    observation = await baremetal.observe_host(HOST)
    assert observation.readable and observation.next_change_at is None
    host = observation.host
    assert host is not None
    check_shape("bare_metal_host", host)
    assert summary(observation) == ("available", False, False)
    assert host["metadata"]["labels"] == {"osac.openshift.io/host-type": "bm-standard"}
    macs = json.loads(host["metadata"]["annotations"]["osac.openshift.io/interface-macs"])
    record = (await baremetal.list_hosts())[0]
    assert macs == {i.name: i.mac for i in record.interfaces}
    assert [(n["name"], n["mac"], n["ip"]) for n in host["status"]["hardware"]["nics"]] == [
        (i.name, i.mac, "") for i in record.interfaces]
    assert host["spec"]["bootMACAddress"] == record.interfaces[0].mac
    assert "consumerRef" not in host["spec"]
    assert (await baremetal.observe_host("bm-std-999")).host is None


async def test_provision_power_reboot_and_deprovision_step_by_step(
    baremetal: SimulatedBareMetal, clock: FakeClock
) -> None:
    await baremetal.assign_free_host("bm-standard", "BareMetalInstance", "bmi-1")
    await baremetal.provision_host(HOST, IMAGE, "#cloud-config", "ssh-ed25519 AAAA")
    provisioning = await settle(baremetal, clock)
    assert [summary(o) for o in provisioning] == [
        ("provisioning", True, True), ("provisioned", True, True), ("provisioned", True, True)]  # + lease tick
    host = provisioning[-1].host
    assert host is not None
    assert host["spec"]["consumerRef"] == {"kind": "BareMetalInstance", "name": "bmi-1"}
    assert host["spec"]["image"] == {"url": IMAGE}
    await baremetal.provision_host(HOST, IMAGE, "#cloud-config", "ssh-ed25519 AAAA")  # idempotent
    assert (await baremetal.observe_host(HOST)).next_change_at is None

    await baremetal.set_power(HOST, False)
    assert [summary(o) for o in await settle(baremetal, clock)] == [
        ("provisioned", True, False), ("provisioned", False, False)]
    await baremetal.set_power(HOST, False)  # already off
    assert (await baremetal.observe_host(HOST)).next_change_at is None

    await baremetal.set_power(HOST, True)
    assert [summary(o) for o in await settle(baremetal, clock)] == [
        ("provisioned", False, True), ("provisioned", True, True), ("provisioned", True, True)]

    await baremetal.reboot_host(HOST)
    assert [summary(o) for o in await settle(baremetal, clock)] == [
        ("provisioned", True, True), ("provisioned", False, True), ("provisioned", True, True),
        ("provisioned", True, True)]

    await baremetal.deprovision_host(HOST)
    wiped = await settle(baremetal, clock)
    assert [summary(o) for o in wiped] == [("deprovisioning", True, False), ("available", False, False)]
    assert "image" not in wiped[-1].host["spec"]  # type: ignore[index]
    await baremetal.deprovision_host(HOST)  # already available and off
    assert (await baremetal.observe_host(HOST)).next_change_at is None


async def test_power_calls_wait_while_provisioning(baremetal: SimulatedBareMetal, clock: FakeClock) -> None:
    await baremetal.provision_host(HOST, IMAGE, "", "")
    for call in (baremetal.set_power(HOST, False), baremetal.reboot_host(HOST)):
        with pytest.raises(TransientProviderError) as caught:
            await call
        assert caught.value.reason == "HostBusy"
    with pytest.raises(TerminalProviderError) as other_image:
        await baremetal.provision_host(HOST, "https://images.example.com/other.qcow2", "", "")
    assert other_image.value.reason == "HostProvisioned"
    await baremetal.deprovision_host(HOST)
    with pytest.raises(TransientProviderError, match="deprovisioning"):
        await baremetal.provision_host(HOST, IMAGE, "", "")
    await settle(baremetal, clock)
    await baremetal.provision_host(HOST, "https://images.example.com/other.qcow2", "", "")
    assert summary((await settle(baremetal, clock))[-1]) == ("provisioned", True, True)


async def test_calls_on_an_unknown_host(baremetal: SimulatedBareMetal) -> None:
    for call in (baremetal.provision_host("bm-x-001", IMAGE, "", ""), baremetal.set_power("bm-x-001", True),
                 baremetal.reboot_host("bm-x-001"), baremetal.deprovision_host("bm-x-001")):
        with pytest.raises(TerminalProviderError) as caught:
            await call
        assert caught.value.reason == "HostNotFound"


async def test_durations_at_speed_1(engines: Engines) -> None:
    clock = FakeClock(START)
    runtime = SimulatorRuntime(engines.writer, clock, Speed.of(1), reader=engines.reader)
    baremetal = provider(runtime)
    await baremetal.load_inventory(HOST_TYPES)

    async def timeline() -> list[HostObservation]:
        return await walk(clock, lambda: baremetal.observe_host(HOST), lambda o: o.next_change_at)

    await baremetal.provision_host(HOST, IMAGE, "", "")
    provisioned = await timeline()
    assert 135 <= seconds(provisioned[1].observed_at, START) <= 165
    assert 13.5 <= seconds(provisioned[2].observed_at, provisioned[1].observed_at) <= 16.5  # lease

    await baremetal.set_power(HOST, False)
    off = await timeline()
    assert 9 <= seconds(off[1].observed_at, off[0].observed_at) <= 11
    await baremetal.set_power(HOST, True)
    on = await timeline()
    assert 54 <= seconds(on[1].observed_at, on[0].observed_at) <= 66
    started = clock.now()
    await baremetal.reboot_host(HOST)
    reboot = await timeline()
    assert reboot[0].observed_at == started  # nothing visible changes until the power goes off
    assert 9 <= seconds(reboot[1].observed_at, started) <= 11
    assert 63 <= seconds(reboot[2].observed_at, started) <= 77
    await baremetal.deprovision_host(HOST)
    wipe = await timeline()
    assert 54 <= seconds(wipe[1].observed_at, wipe[0].observed_at) <= 66


async def test_a_lease_15_seconds_after_boot_only_on_reserved_ports(
    baremetal: SimulatedBareMetal, fabric: SimulatedFabric, clock: FakeClock, engines: Engines
) -> None:
    record = (await baremetal.list_hosts())[0]
    port = record.interface("ens1f0")
    assert port is not None
    await network(fabric, "vn")
    await fabric.create_subnet(subnet("s", "vn"))
    await fabric.create_network_attachment(
        attachment(HOST, "ens1f0", "s", "10.0.1.20", mac=port.mac, target_kind="baremetal_instance"))
    assert await fabric.query_dhcp_lease("s", port.mac) is None  # the host runs no OS yet

    # at speed 1, to see the 15 s
    runtime = SimulatorRuntime(engines.writer, clock, Speed.of(1), reader=engines.reader)
    slow = provider(runtime)
    await slow.provision_host(HOST, IMAGE, "", "")
    provisioned = await walk(clock, lambda: slow.observe_host(HOST), lambda o: o.next_change_at)
    booted_at, leased_at = provisioned[1].observed_at, provisioned[2].observed_at
    assert 13.5 <= seconds(leased_at, booted_at) <= 16.5
    assert ips(provisioned[1]) == {"eno1": "", "ens1f0": "", "ens1f1": "", "ens2f0": ""}
    assert ips(provisioned[2]) == {"eno1": "", "ens1f0": "10.0.1.20", "ens1f1": "", "ens2f0": ""}

    clock.advance(timedelta(minutes=3))  # the service asks later: the lease is dated when the host got it
    lease = await fabric.query_dhcp_lease("s", port.mac)
    assert lease is not None
    assert (lease.address, lease.interface, lease.granted_at) == ("10.0.1.20", "ens1f0", leased_at)
    other = record.interface("ens1f1")
    assert other is not None and await fabric.query_dhcp_lease("s", other.mac) is None

    await slow.set_power(HOST, False)
    off = await walk(clock, lambda: slow.observe_host(HOST), lambda o: o.next_change_at)
    assert ips(off[-1])["ens1f0"] == ""
    assert await fabric.query_dhcp_lease("s", port.mac) == lease  # the DHCP server keeps the lease


async def test_no_lease_before_boot_even_when_queried_late(
    baremetal: SimulatedBareMetal, fabric: SimulatedFabric, clock: FakeClock
) -> None:
    port = (await baremetal.list_hosts())[1].interface("ens1f0")
    assert port is not None
    await network(fabric, "vn")
    await fabric.create_subnet(subnet("s", "vn"))
    await fabric.create_network_attachment(
        attachment("bm-std-002", "ens1f0", "s", "10.0.1.30", mac=port.mac, target_kind="baremetal_instance"))
    clock.advance(timedelta(hours=1))
    assert await fabric.query_dhcp_lease("s", port.mac) is None
    await baremetal.set_power("bm-std-002", True)  # powered on without an OS: no DHCP client
    await settle(baremetal, clock, "bm-std-002")
    assert await fabric.query_dhcp_lease("s", port.mac) is None


async def test_notices_for_host_steps(baremetal: SimulatedBareMetal, clock: FakeClock) -> None:
    collector = Collector(baremetal.subscribe())
    try:
        await baremetal.provision_host(HOST, IMAGE, "", "")
        await collector.until(clock.now(), HOST)
        seen = [await baremetal.observe_host(HOST)]
        while seen[-1].next_change_at is not None:
            due = seen[-1].next_change_at
            clock.set(due)
            await collector.until(due, HOST)
            seen.append(await baremetal.observe_host(HOST))
    finally:
        await collector.close()
    assert [(n.kind, n.key, n.changed_at) for n in collector.notices] == [
        ("host", HOST, o.observed_at) for o in seen]


async def test_a_restarted_process_sees_the_same_host(
    baremetal: SimulatedBareMetal, runtime: SimulatorRuntime, engines: Engines, clock: FakeClock
) -> None:
    await baremetal.provision_host(HOST, IMAGE, "", "")
    before = await baremetal.observe_host(HOST)
    restarted = provider(SimulatorRuntime(engines.writer, clock, Speed.of("instant"), reader=engines.reader))
    assert await restarted.observe_host(HOST) == before
    assert await restarted.load_inventory(HOST_TYPES) == []
    await asyncio.sleep(0)
    assert [summary(o) for o in await settle(restarted, clock)][-1] == ("provisioned", True, True)
