"""DHCP on the simulated fabric: leases only for reserved ports on their segment."""

from __future__ import annotations

from datetime import timedelta

from osac.clock import FakeClock
from osac.providers.simulator.fabric.provider import SimulatedFabric
from tests.providers.conftest import START, attachment, network, subnet, tcp

VN = "vn-1"
SUBNET = "subnet-1"
MAC = "aa:00:00:00:00:01"


async def _subnet(fabric: SimulatedFabric) -> None:
    await network(fabric, VN)
    await fabric.create_subnet(subnet(SUBNET, VN))
    await fabric.create_subnet(subnet("subnet-2", VN, "10.0.2.0/24"))
    await fabric.apply_security_group("sg", VN, [tcp(22)], [])


async def test_no_lease_without_a_reservation(fabric: SimulatedFabric) -> None:
    await _subnet(fabric)
    assert await fabric.query_dhcp_lease(SUBNET, MAC) is None
    assert await fabric.query_dhcp_lease("unknown-subnet", MAC) is None


async def test_a_reserved_port_gets_its_address_at_the_first_query(fabric: SimulatedFabric, clock: FakeClock) -> None:
    await _subnet(fabric)
    await fabric.create_network_attachment(attachment("bm-1", "eth1", SUBNET, "10.0.1.9", ("sg",), mac=MAC.upper(),
                                                      target_kind="baremetal_instance"))
    clock.advance(timedelta(seconds=30))
    lease = await fabric.query_dhcp_lease(SUBNET, MAC)
    assert lease is not None
    assert (lease.address, lease.mac, lease.interface, lease.subnet_id) == ("10.0.1.9", MAC, "eth1", SUBNET)
    assert lease.granted_at == START + timedelta(seconds=30)
    clock.advance(timedelta(seconds=30))
    again = await fabric.query_dhcp_lease(SUBNET, MAC)
    assert again == lease  # granted once, at the first query
    leases = (await fabric.fabric_observation(VN))["leases"]
    assert [(item["address"], item["granted_at"]) for item in leases] == [("10.0.1.9", "2026-12-01T09:00:30.000000Z")]


async def test_no_lease_on_another_segment_or_for_another_mac(fabric: SimulatedFabric) -> None:
    await _subnet(fabric)
    await fabric.create_network_attachment(attachment("bm-1", "eth1", SUBNET, "10.0.1.9", ("sg",), mac=MAC))
    assert await fabric.query_dhcp_lease("subnet-2", MAC) is None
    assert await fabric.query_dhcp_lease(SUBNET, "aa:00:00:00:00:02") is None


async def test_moving_or_detaching_the_port_drops_reservation_and_lease(fabric: SimulatedFabric) -> None:
    await _subnet(fabric)
    await fabric.create_network_attachment(attachment("bm-1", "eth1", SUBNET, "10.0.1.9", ("sg",), mac=MAC))
    assert await fabric.query_dhcp_lease(SUBNET, MAC) is not None
    await fabric.create_network_attachment(attachment("bm-1", "eth1", "subnet-2", "10.0.2.9", ("sg",), mac=MAC))
    assert await fabric.query_dhcp_lease(SUBNET, MAC) is None
    moved = await fabric.query_dhcp_lease("subnet-2", MAC)
    assert moved is not None and moved.address == "10.0.2.9"
    await fabric.delete_network_attachment("bm-1", "eth1")
    assert await fabric.query_dhcp_lease("subnet-2", MAC) is None
    observation = await fabric.fabric_observation(VN)
    assert observation["leases"] == [] and observation["reservations"] == []


async def test_the_vip_range_is_never_leased(fabric: SimulatedFabric) -> None:
    await _subnet(fabric)
    leased = []
    for index, address in enumerate(["10.0.1.2", "10.0.1.239"]):
        mac = f"aa:00:00:00:01:{index:02x}"
        await fabric.create_network_attachment(attachment(f"ci/{index}", "nic-0", SUBNET, address, ("sg",), mac=mac))
        lease = await fabric.query_dhcp_lease(SUBNET, mac)
        assert lease is not None
        leased.append(lease.address)
    assert leased == ["10.0.1.2", "10.0.1.239"]
    segment = (await fabric.fabric_observation(VN))["segments"][0]
    assert segment["vip_range"] == ["10.0.1.240", "10.0.1.254"]
    assert all(not address.startswith("10.0.1.24") and not address.startswith("10.0.1.25") for address in leased)
