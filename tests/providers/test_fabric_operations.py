"""The simulated fabric's operations: idempotent, typed errors, one segment per port."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

import pytest

from osac.providers.interfaces import TerminalProviderError, TransientProviderError
from osac.providers.simulator.fabric.provider import SimulatedFabric
from tests.providers.conftest import attachment, everything, network, subnet, tcp

VN = "vn-1"
SUBNET = "subnet-1"
SG = "sg-1"

Step = Callable[[SimulatedFabric], Awaitable[Any]]


async def _base(fabric: SimulatedFabric) -> None:
    """A VN with one subnet, one SG, one announced EIP."""
    await network(fabric, VN)
    await fabric.create_subnet(subnet(SUBNET, VN))
    await fabric.apply_security_group(SG, VN, [tcp(22, "10.0.0.0/16")], [everything()])
    await fabric.allocate_external_ip("eip-1", "pool-1", "203.0.113.10")
    await fabric.allocate_external_ip("eip-2", "pool-1", "203.0.113.11")


CREATES: dict[str, Step] = {
    "virtual_network": lambda f: f.create_virtual_network("vn-2", ["10.1.0.0/16"]),
    "subnet": lambda f: f.create_subnet(subnet("subnet-2", VN, "10.0.2.0/24")),
    "security_group": lambda f: f.apply_security_group("sg-2", VN, [tcp(80)], []),
    "external_ip": lambda f: f.allocate_external_ip("eip-3", "pool-1", "203.0.113.12"),
    "external_ip_attachment": lambda f: f.create_external_ip_attachment("att-1", "203.0.113.10", VN, "10.0.1.5"),
    "nat_gateway": lambda f: f.create_nat_gateway("gw-1", VN, "203.0.113.11"),
    "network_attachment": lambda f: f.create_network_attachment(attachment("ci/a", "nic-0", SUBNET, "10.0.1.5", (SG,))),
}


@pytest.mark.parametrize("create", list(CREATES.values()), ids=list(CREATES))
async def test_applying_twice_is_applying_once(fabric: SimulatedFabric, create: Step) -> None:
    await _base(fabric)
    await create(fabric)
    first = await fabric.fabric_observation(VN)
    await create(fabric)
    second = await fabric.fabric_observation(VN)
    assert {k: v for k, v in first.items() if k != "observed_at"} == {
        k: v for k, v in second.items() if k != "observed_at"
    }


async def test_create_virtual_network_returns_the_same_backend_ref(fabric: SimulatedFabric) -> None:
    first = await fabric.create_virtual_network("vn-x", ["10.0.0.0/16"])
    assert await fabric.create_virtual_network("vn-x", ["10.0.0.0/16"]) == first
    assert first


DELETES: dict[str, Step] = {
    "virtual_network": lambda f: f.delete_virtual_network("nope"),
    "subnet": lambda f: f.delete_subnet("nope"),
    "security_group": lambda f: f.delete_security_group("nope"),
    "external_ip": lambda f: f.release_external_ip("nope"),
    "external_ip_attachment": lambda f: f.delete_external_ip_attachment("nope"),
    "nat_gateway": lambda f: f.delete_nat_gateway("nope"),
    "network_attachment": lambda f: f.delete_network_attachment("ci/nope", "nic-0"),
}


@pytest.mark.parametrize("delete", list(DELETES.values()), ids=list(DELETES))
async def test_deleting_the_unknown_succeeds(fabric: SimulatedFabric, delete: Step) -> None:
    await delete(fabric)
    await delete(fabric)


CHANGED: dict[str, tuple[Step, str]] = {
    "vn cidrs": (lambda f: f.create_virtual_network(VN, ["10.9.0.0/16"]), "cidrs"),
    "subnet cidr": (lambda f: f.create_subnet(subnet(SUBNET, VN, "10.0.9.0/24")), "cidr"),
    "subnet vn": (lambda f: f.create_subnet(replace(subnet(SUBNET, VN), vn_id="vn-other")), "vn_id"),
    "sg vn": (lambda f: f.apply_security_group(SG, "vn-other", [], []), "vn_id"),
    "eip address": (lambda f: f.allocate_external_ip("eip-1", "pool-1", "203.0.113.99"), "address"),
    "eip pool": (lambda f: f.allocate_external_ip("eip-1", "pool-9", "203.0.113.10"), "pool_id"),
}


@pytest.mark.parametrize(("change", "field"), list(CHANGED.values()), ids=list(CHANGED))
async def test_a_changed_immutable_input_is_terminal(fabric: SimulatedFabric, change: Step, field: str) -> None:
    await _base(fabric)
    with pytest.raises(TerminalProviderError) as caught:
        await change(fabric)
    assert caught.value.reason == "ImmutableFieldChanged"
    assert field in caught.value.message


async def test_nat_gateway_and_dnat_immutables(fabric: SimulatedFabric) -> None:
    await _base(fabric)
    await fabric.create_nat_gateway("gw-1", VN, "203.0.113.11")
    with pytest.raises(TerminalProviderError, match="external_address"):
        await fabric.create_nat_gateway("gw-1", VN, "203.0.113.10")
    await fabric.create_external_ip_attachment("att-1", "203.0.113.10", VN, "10.0.1.5")
    with pytest.raises(TerminalProviderError, match="vn_id"):
        await fabric.create_external_ip_attachment("att-1", "203.0.113.10", "vn-other", "10.0.1.5")


async def test_a_dnat_target_can_be_reprogrammed(fabric: SimulatedFabric) -> None:
    await _base(fabric)
    await fabric.create_external_ip_attachment("att-1", "203.0.113.10", VN, "10.0.1.5")
    await fabric.create_external_ip_attachment("att-1", "203.0.113.10", VN, "10.0.1.6")
    observation = await fabric.fabric_observation(VN)
    assert observation["dnat"] == [
        {"attachment_id": "att-1", "external_address": "203.0.113.10", "internal_address": "10.0.1.6"}
    ]


async def test_security_group_rules_are_replaced_in_full(fabric: SimulatedFabric) -> None:
    await _base(fabric)
    await fabric.apply_security_group(SG, VN, [tcp(80)], [])
    (group,) = (await fabric.fabric_observation(VN))["security_groups"]
    assert [r["port_from"] for r in group["ingress"]] == [80]
    assert group["egress"] == []


async def test_a_port_lives_in_one_segment_and_moving_it_rehomes_it(fabric: SimulatedFabric) -> None:
    await _base(fabric)
    await fabric.create_subnet(subnet("subnet-2", VN, "10.0.2.0/24"))
    await fabric.create_network_attachment(attachment("bm-001", "eth1", SUBNET, "10.0.1.5", (SG,), mac="aa:00:00:00:00:01",
                                                      target_kind="baremetal_instance"))
    await fabric.create_network_attachment(attachment("bm-001", "eth1", "subnet-2", "10.0.2.5", (SG,), mac="aa:00:00:00:00:01",
                                                      target_kind="baremetal_instance"))
    observation = await fabric.fabric_observation(VN)
    assert [(p["host_name"], p["interface"], p["segment"]) for p in observation["ports"]] == [
        ("bm-001", "eth1", "subnet-2")
    ]
    assert [(r["subnet_id"], r["address"]) for r in observation["reservations"]] == [("subnet-2", "10.0.2.5")]


async def test_a_repeated_attachment_rebinds_security_groups(fabric: SimulatedFabric) -> None:
    await _base(fabric)
    await fabric.apply_security_group("sg-2", VN, [tcp(80)], [])
    spec = attachment("ci/a", "nic-0", SUBNET, "10.0.1.5", (SG,))
    await fabric.create_network_attachment(spec)
    await fabric.create_network_attachment(replace(spec, security_group_ids=("sg-2", SG)))
    (port,) = (await fabric.fabric_observation(VN))["ports"]
    assert port["security_group_ids"] == ["sg-2", SG]


async def test_a_physical_port_goes_back_to_parking_a_virtual_one_is_removed(fabric: SimulatedFabric) -> None:
    await _base(fabric)
    await fabric.register_host_ports("bm-001", [("eth0", "lifecycle", "AA:00:00:00:00:00"),
                                                ("eth1", "fabric", "aa:00:00:00:00:01")])
    await fabric.create_network_attachment(
        attachment("bm-001", "eth1", SUBNET, "10.0.1.7", (SG,), mac="aa:00:00:00:00:01", target_kind="baremetal_instance"))
    await fabric.create_network_attachment(attachment("ci/a", "nic-0", SUBNET, "10.0.1.5", (SG,)))
    assert len((await fabric.fabric_observation(VN))["ports"]) == 2

    await fabric.delete_network_attachment("bm-001", "eth1")
    await fabric.delete_network_attachment("ci/a", "nic-0")
    await fabric.delete_network_attachment("ci/a", "nic-0")

    observation = await fabric.fabric_observation(VN)
    assert observation["ports"] == [] and observation["reservations"] == []
    snapshot = await fabric.runtime.fabric_store.snapshot()
    homes = {(p.host_name, p.interface): p.segment_id for p in snapshot.ports}
    assert homes == {("bm-001", "eth0"): "provisioning", ("bm-001", "eth1"): "parking"}


@pytest.mark.parametrize(
    ("address", "reason"),
    [("10.0.1.240", "AddressOutsideWorkloadRange"), ("10.0.1.1", "AddressOutsideWorkloadRange"),
     ("10.0.2.5", "AddressOutsideWorkloadRange")],
    ids=["vip-range", "gateway", "other-subnet"],
)
async def test_attachments_only_take_workload_addresses(fabric: SimulatedFabric, address: str, reason: str) -> None:
    await _base(fabric)
    with pytest.raises(TerminalProviderError) as caught:
        await fabric.create_network_attachment(attachment("ci/a", "nic-0", SUBNET, address, (SG,)))
    assert caught.value.reason == reason


async def test_one_address_one_port_per_subnet(fabric: SimulatedFabric) -> None:
    await _base(fabric)
    await fabric.create_network_attachment(attachment("ci/a", "nic-0", SUBNET, "10.0.1.5", (SG,)))
    with pytest.raises(TerminalProviderError) as caught:
        await fabric.create_network_attachment(attachment("ci/b", "nic-0", SUBNET, "10.0.1.5", (SG,), mac="02:00:00:00:00:bb"))
    assert caught.value.reason == "AddressInUse"


async def test_missing_dependencies_are_transient(fabric: SimulatedFabric) -> None:
    with pytest.raises(TransientProviderError, match="VirtualNetworkNotFound|does not exist"):
        await fabric.create_subnet(subnet(SUBNET, VN))
    await _base(fabric)
    with pytest.raises(TransientProviderError) as caught:
        await fabric.create_network_attachment(attachment("ci/a", "nic-0", "subnet-9", "10.0.9.5"))
    assert caught.value.reason == "SubnetNotFound"
    with pytest.raises(TransientProviderError) as caught:
        await fabric.create_network_attachment(attachment("ci/a", "nic-0", SUBNET, "10.0.1.5", ("sg-9",)))
    assert caught.value.reason == "SecurityGroupNotFound"
    with pytest.raises(TransientProviderError) as caught:
        await fabric.create_external_ip_attachment("att-1", "198.51.100.1", VN, "10.0.1.5")
    assert caught.value.reason == "ExternalAddressNotAnnounced"


async def test_security_groups_of_another_network_are_refused(fabric: SimulatedFabric) -> None:
    await _base(fabric)
    await network(fabric, "vn-2")
    await fabric.apply_security_group("sg-other", "vn-2", [], [])
    with pytest.raises(TerminalProviderError) as caught:
        await fabric.create_network_attachment(attachment("ci/a", "nic-0", SUBNET, "10.0.1.5", ("sg-other",)))
    assert caught.value.reason == "SecurityGroupInOtherNetwork"


async def test_deleting_what_is_in_use_is_transient_until_the_users_are_gone(fabric: SimulatedFabric) -> None:
    await _base(fabric)
    await fabric.create_network_attachment(attachment("ci/a", "nic-0", SUBNET, "10.0.1.5", (SG,)))
    await fabric.create_nat_gateway("gw-1", VN, "203.0.113.11")
    for delete in (
        fabric.delete_subnet(SUBNET),
        fabric.delete_security_group(SG),
        fabric.delete_virtual_network(VN),
        fabric.release_external_ip("eip-2"),
    ):
        with pytest.raises(TransientProviderError) as caught:
            await delete
        assert caught.value.reason == "InUse"
    await fabric.delete_network_attachment("ci/a", "nic-0")
    await fabric.delete_nat_gateway("gw-1")
    await fabric.release_external_ip("eip-2")
    await fabric.release_external_ip("eip-1")
    await fabric.delete_security_group(SG)
    await fabric.delete_subnet(SUBNET)
    await fabric.delete_virtual_network(VN)
    observation = await fabric.fabric_observation(VN)
    assert observation["virtual_network"] is None
    assert all(observation[k] == [] for k in ("segments", "ports", "security_groups", "dnat", "snat"))


async def test_overlapping_subnets_in_one_network_are_refused(fabric: SimulatedFabric) -> None:
    await _base(fabric)
    with pytest.raises(TerminalProviderError) as caught:
        await fabric.create_subnet(subnet("subnet-2", VN, "10.0.1.0/25", vip_prefix=28))
    assert caught.value.reason == "SegmentOverlap"
    await network(fabric, "vn-2")
    await fabric.create_subnet(subnet("subnet-3", "vn-2", "10.0.1.0/24"))  # other VN: fine (R1)


async def test_one_nat_gateway_per_network_and_one_use_per_address(fabric: SimulatedFabric) -> None:
    await _base(fabric)
    await fabric.create_nat_gateway("gw-1", VN, "203.0.113.11")
    with pytest.raises(TerminalProviderError) as caught:
        await fabric.create_nat_gateway("gw-2", VN, "203.0.113.10")
    assert caught.value.reason == "AlreadyExists"
    with pytest.raises(TerminalProviderError) as caught:
        await fabric.create_external_ip_attachment("att-1", "203.0.113.11", VN, "10.0.1.5")
    assert caught.value.reason == "AddressInUse"


async def test_observation_shape(fabric: SimulatedFabric) -> None:
    await _base(fabric)
    await fabric.create_network_attachment(attachment("ci/a", "nic-0", SUBNET, "10.0.1.5", (SG,)))
    await fabric.create_external_ip_attachment("att-1", "203.0.113.10", VN, "10.0.1.5")
    await fabric.create_nat_gateway("gw-1", VN, "203.0.113.11")
    observation = await fabric.fabric_observation(VN)
    assert observation["readable"] is True
    assert observation["virtual_network"]["cidrs"] == ["10.0.0.0/16"]
    assert observation["segments"] == [{
        "subnet_id": SUBNET, "cidr": "10.0.1.0/24", "ipv6_cidr": "", "gateway": "10.0.1.1",
        "dhcp_range": ["10.0.1.2", "10.0.1.239"], "vip_range": ["10.0.1.240", "10.0.1.254"],
    }]
    assert observation["ports"][0]["target_kind"] == "compute_instance"
    assert observation["snat"] == [{"natgw_id": "gw-1", "external_address": "203.0.113.11"}]
    assert [e["address"] for e in observation["external_ips"]] == ["203.0.113.10", "203.0.113.11"]
