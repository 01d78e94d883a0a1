"""Where the parts of a subnet and of an external pool lie (networking.md §5.2). Pure: no I/O.

For subnet ``N/p`` and VIP prefix ``v`` (0 means 28)::

    network    first address                      reserved
    gateway    first + 1
    workload   first + 2 … first of the VIP block − 1
    VIP        the last /v block, without the broadcast address
    broadcast  last address                       reserved

``p < v`` guarantees at least two /v blocks, so the workload range has at least two addresses and
the VIP range at least three (a cluster needs two VIPs).
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

from osac.ipam.errors import LayoutError

__all__ = [
    "DEFAULT_VIP_PREFIX_LENGTH",
    "LayoutError",
    "SubnetLayout",
    "address_text",
    "address_value",
    "pool_addresses",
    "subnet_layout",
]

#: ``vip_prefix_length`` 0 in a NetworkClass means this.
DEFAULT_VIP_PREFIX_LENGTH = 28
#: The longest VIP prefix: a /30 block without its broadcast address still holds the two VIPs.
MAX_VIP_PREFIX_LENGTH = 30


@dataclass(frozen=True)
class SubnetLayout:
    """The parts of one IPv4 subnet; addresses in dotted form, ranges inclusive."""

    cidr: str
    network: str
    gateway: str
    workload: tuple[str, str]
    vip: tuple[str, str]
    broadcast: str
    workload_size: int
    vip_size: int

    @property
    def vip_range_text(self) -> str:
        """``Subnet.status.vip_range``: ``10.0.1.240-10.0.1.254``."""
        return f"{self.vip[0]}-{self.vip[1]}"


def subnet_layout(cidr: str, vip_prefix_length: int) -> SubnetLayout:
    """Lay out ``cidr`` with VIP blocks of ``/vip_prefix_length`` (0 means 28).

    :raises LayoutError: the CIDR is not an IPv4 network with zero host bits, the VIP prefix is
        outside 1–30, or the subnet is not larger than one VIP block (its prefix must be shorter
        than the VIP prefix).
    """
    vip_prefix = vip_prefix_length or DEFAULT_VIP_PREFIX_LENGTH
    if not 1 <= vip_prefix <= MAX_VIP_PREFIX_LENGTH:
        raise LayoutError(
            f"VIP prefix /{vip_prefix} must be between /1 and /{MAX_VIP_PREFIX_LENGTH} "
            "(the VIP range must hold a cluster's two VIPs)"
        )
    network = _ipv4_network(cidr, "subnet")
    if network.prefixlen >= vip_prefix:
        raise LayoutError(f"subnet prefix /{network.prefixlen} must be shorter than the VIP prefix /{vip_prefix}")
    first = int(network.network_address)
    last = int(network.broadcast_address)
    vip_first = last + 1 - (1 << (32 - vip_prefix))
    return SubnetLayout(
        cidr=str(network),
        network=_text(first),
        gateway=_text(first + 1),
        workload=(_text(first + 2), _text(vip_first - 1)),
        vip=(_text(vip_first), _text(last - 1)),
        broadcast=_text(last),
        workload_size=vip_first - 1 - (first + 2) + 1,
        vip_size=last - 1 - vip_first + 1,
    )


def pool_addresses(cidr: str) -> tuple[str, str]:
    """The usable first and last address of an external pool CIDR: without the network and
    broadcast addresses for prefixes up to /30, every address of a /31 or /32 (RFC 3021).

    :raises LayoutError: not an IPv4 network with zero host bits (IPv6 pools are never allocated from).
    """
    network = _ipv4_network(cidr, "pool")
    first = int(network.network_address)
    last = int(network.broadcast_address)
    if network.prefixlen <= 30:
        first, last = first + 1, last - 1
    return _text(first), _text(last)


def _ipv4_network(cidr: str, what: str) -> ipaddress.IPv4Network:
    try:
        network = ipaddress.ip_network(cidr, strict=True)
    except ValueError as error:
        raise LayoutError(f"{what} CIDR {cidr!r} is not a valid network: {error}") from error
    if not isinstance(network, ipaddress.IPv4Network):
        raise LayoutError(f"{what} CIDR {cidr} is IPv6: only IPv4 addresses are allocated")
    return network


def address_value(address: str) -> int:
    """``"10.0.1.2"`` as the integer IPAM stores.

    :raises LayoutError: not an IPv4 address.
    """
    try:
        return int(ipaddress.IPv4Address(address))
    except ValueError as error:
        raise LayoutError(f"{address!r} is not an IPv4 address: {error}") from error


def address_text(value: int) -> str:
    """The dotted form of a stored address."""
    return str(ipaddress.IPv4Address(value))


_text = address_text
