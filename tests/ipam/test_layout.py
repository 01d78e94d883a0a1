"""Subnet and pool layouts (networking.md §5.2) as a table: CIDR and VIP prefix in, parts out."""

from __future__ import annotations

import pytest

from osac.ipam.layout import LayoutError, address_text, address_value, pool_addresses, subnet_layout

# cidr, vip prefix, gateway, workload (first, last, size), VIP (first, last, size), broadcast
LAYOUTS = [
    ("10.0.1.0/24", 28, "10.0.1.1", ("10.0.1.2", "10.0.1.239", 238), ("10.0.1.240", "10.0.1.254", 15), "10.0.1.255"),
    ("10.0.1.0/24", 0, "10.0.1.1", ("10.0.1.2", "10.0.1.239", 238), ("10.0.1.240", "10.0.1.254", 15), "10.0.1.255"),
    ("10.0.1.0/24", 27, "10.0.1.1", ("10.0.1.2", "10.0.1.223", 222), ("10.0.1.224", "10.0.1.254", 31), "10.0.1.255"),
    ("10.0.1.0/24", 29, "10.0.1.1", ("10.0.1.2", "10.0.1.247", 246), ("10.0.1.248", "10.0.1.254", 7), "10.0.1.255"),
    ("10.0.1.0/24", 30, "10.0.1.1", ("10.0.1.2", "10.0.1.251", 250), ("10.0.1.252", "10.0.1.254", 3), "10.0.1.255"),
    ("10.0.0.0/20", 28, "10.0.0.1", ("10.0.0.2", "10.0.15.239", 4078), ("10.0.15.240", "10.0.15.254", 15),
     "10.0.15.255"),
    ("10.0.1.64/26", 28, "10.0.1.65", ("10.0.1.66", "10.0.1.111", 46), ("10.0.1.112", "10.0.1.126", 15),
     "10.0.1.127"),
    ("10.0.0.0/16", 28, "10.0.0.1", ("10.0.0.2", "10.0.255.239", 65518), ("10.0.255.240", "10.0.255.254", 15),
     "10.0.255.255"),
    ("10.0.0.0/16", 24, "10.0.0.1", ("10.0.0.2", "10.0.254.255", 65278), ("10.0.255.0", "10.0.255.254", 255),
     "10.0.255.255"),
    ("192.168.7.0/28", 29, "192.168.7.1", ("192.168.7.2", "192.168.7.7", 6), ("192.168.7.8", "192.168.7.14", 7),
     "192.168.7.15"),
    ("192.168.7.8/29", 30, "192.168.7.9", ("192.168.7.10", "192.168.7.11", 2), ("192.168.7.12", "192.168.7.14", 3),
     "192.168.7.15"),
]


@pytest.mark.parametrize(
    ("cidr", "vip_prefix", "gateway", "workload", "vip", "broadcast"),
    LAYOUTS,
    ids=[f"{row[0]}-v{row[1]}" for row in LAYOUTS],
)
def test_subnet_layout(
    cidr: str, vip_prefix: int, gateway: str, workload: tuple[str, str, int], vip: tuple[str, str, int], broadcast: str
) -> None:
    layout = subnet_layout(cidr, vip_prefix)
    assert layout.cidr == cidr
    assert layout.network == cidr.split("/")[0]
    assert layout.gateway == gateway
    assert (*layout.workload, layout.workload_size) == workload
    assert (*layout.vip, layout.vip_size) == vip
    assert layout.broadcast == broadcast
    assert layout.vip_range_text == f"{vip[0]}-{vip[1]}"
    # Every address of the subnet is exactly one part: network, gateway, workload, VIP, broadcast.
    size = 1 << (32 - int(cidr.split("/")[1]))
    assert 1 + 1 + layout.workload_size + layout.vip_size + 1 == size
    assert address_value(layout.workload[1]) + 1 == address_value(layout.vip[0])


def test_vip_range_text_matches_the_spec_example() -> None:
    assert subnet_layout("10.0.1.0/24", 0).vip_range_text == "10.0.1.240-10.0.1.254"


BAD_LAYOUTS = [
    ("10.0.1.0/28", 28, "subnet prefix /28 must be shorter than the VIP prefix /28"),
    ("10.0.1.0/29", 0, "subnet prefix /29 must be shorter than the VIP prefix /28"),
    ("10.0.1.0/29", 29, "subnet prefix /29 must be shorter than the VIP prefix /29"),
    ("10.0.1.0/30", 30, "subnet prefix /30 must be shorter than the VIP prefix /30"),
    ("10.0.1.0/32", 28, "subnet prefix /32 must be shorter than the VIP prefix /28"),
    ("10.0.1.0/24", 31, "VIP prefix /31 must be between /1 and /30"),
    ("10.0.1.0/24", -1, "VIP prefix /-1 must be between /1 and /30"),
    ("10.0.1.1/24", 28, "subnet CIDR '10.0.1.1/24' is not a valid network"),
    ("banana", 28, "subnet CIDR 'banana' is not a valid network"),
    ("fd00::/64", 28, "subnet CIDR fd00::/64 is IPv6: only IPv4 addresses are allocated"),
]


@pytest.mark.parametrize(("cidr", "vip_prefix", "message"), BAD_LAYOUTS,
                         ids=[f"{row[0]}-v{row[1]}" for row in BAD_LAYOUTS])
def test_subnet_layout_rejects(cidr: str, vip_prefix: int, message: str) -> None:
    with pytest.raises(LayoutError) as error:
        subnet_layout(cidr, vip_prefix)
    assert str(error.value).startswith(message)
    assert isinstance(error.value, ValueError)


POOLS = [
    ("203.0.113.0/24", ("203.0.113.1", "203.0.113.254")),
    ("198.51.100.0/22", ("198.51.100.1", "198.51.103.254")),
    ("203.0.113.4/30", ("203.0.113.5", "203.0.113.6")),
    ("203.0.113.8/31", ("203.0.113.8", "203.0.113.9")),
    ("203.0.113.7/32", ("203.0.113.7", "203.0.113.7")),
]


@pytest.mark.parametrize(("cidr", "usable"), POOLS, ids=[row[0] for row in POOLS])
def test_pool_addresses(cidr: str, usable: tuple[str, str]) -> None:
    assert pool_addresses(cidr) == usable


@pytest.mark.parametrize(("cidr", "message"), [
    ("2001:db8::/64", "pool CIDR 2001:db8::/64 is IPv6"),
    ("203.0.113.1/24", "pool CIDR '203.0.113.1/24' is not a valid network"),
], ids=["ipv6", "host-bits"])
def test_pool_addresses_rejects(cidr: str, message: str) -> None:
    with pytest.raises(LayoutError, match=message):
        pool_addresses(cidr)


def test_address_round_trip() -> None:
    assert address_value("10.0.1.2") == 0x0A000102
    assert address_text(0xFFFFFFFF) == "255.255.255.255"
    with pytest.raises(LayoutError, match="not an IPv4 address"):
        address_value("10.0.1")
