"""Static validation of networking input (networking.md §2, §3.1): CIDRs and security rules.

Pure functions over values and messages; every failure is INVALID_ARGUMENT with a message that
names the field path, the value and the rule.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence

from osac.api.private.v1.security_rule_type_pb2 import SecurityRule
from osac.services.core.errors import InvalidArgument

IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

#: The longest VirtualNetwork IPv4 prefix (§3.1).
VN_MAX_PREFIX = 28
#: The longest Subnet IPv4 prefix (§3.1); it must also be shorter than the VIP prefix.
SUBNET_MAX_PREFIX = 29
#: ``vip_prefix_length`` 0 means this (§5.2).
DEFAULT_VIP_PREFIX = 28
MAX_VIP_PREFIX = 30

PROTOCOL_TCP = 1
PROTOCOL_UDP = 2
PROTOCOL_ICMP = 3
PROTOCOL_ALL = 4
PROTOCOL_NAMES = {PROTOCOL_TCP: "PROTOCOL_TCP", PROTOCOL_UDP: "PROTOCOL_UDP",
                  PROTOCOL_ICMP: "PROTOCOL_ICMP", PROTOCOL_ALL: "PROTOCOL_ALL"}


def effective_vip_prefix(vip_prefix_length: int) -> int:
    return vip_prefix_length or DEFAULT_VIP_PREFIX


def network(text: str, path: str, version: int) -> IPNetwork:
    """Parse ``text`` as an IPv``version`` network (``a.b.c.d/p``) with zero host bits."""
    family = f"IPv{version}"
    example = "10.0.0.0/16" if version == 4 else "fd00::/48"
    try:
        parsed = ipaddress.ip_network(text, strict=False)
    except ValueError:
        raise InvalidArgument(f"{path}: '{text}' is not a valid {family} network (e.g. {example})") from None
    if parsed.version != version:
        raise InvalidArgument(f"{path}: '{text}' is not an {family} network (e.g. {example})")
    if "/" not in text:
        raise InvalidArgument(f"{path}: '{text}' is an address, not a network; add a prefix length (e.g. {example})")
    if ipaddress.ip_address(text.split("/", 1)[0]) != parsed.network_address:
        raise InvalidArgument(f"{path}: '{text}' has host bits set; the network is {parsed}")
    return parsed


def ipv4_network(text: str, path: str, *, required: bool = True, max_prefix: int | None = None) -> IPNetwork | None:
    """An optional or required IPv4 CIDR, with an optional longest prefix."""
    if not text:
        if required:
            raise InvalidArgument(f"{path}: required; give an IPv4 CIDR such as 10.0.0.0/16")
        return None
    parsed = network(text, path, 4)
    if max_prefix is not None and parsed.prefixlen > max_prefix:
        raise InvalidArgument(f"{path}: prefix /{parsed.prefixlen} is too long; at most /{max_prefix} is allowed")
    return parsed


def ipv6_network(text: str, path: str) -> IPNetwork | None:
    return network(text, path, 6) if text else None


def inside(inner: IPNetwork, outer: IPNetwork) -> bool:
    return inner.version == outer.version and inner.subnet_of(outer)  # type: ignore[arg-type]  # same version


def overlaps(a: IPNetwork, b: IPNetwork) -> bool:
    return a.version == b.version and a.overlaps(b)


def vip_prefix(value: int, path: str) -> int:
    """Validate ``vip_prefix_length`` (0 = 28, else 1–30) and return the effective prefix."""
    if value != 0 and not 1 <= value <= MAX_VIP_PREFIX:
        raise InvalidArgument(
            f"{path}: {value} is out of range; use 0 (= {DEFAULT_VIP_PREFIX}) or 1-{MAX_VIP_PREFIX} "
            "(the VIP range must hold a cluster's two VIPs)"
        )
    return effective_vip_prefix(value)


def subnet_prefix(subnet: IPNetwork, vip: int, path: str, class_label: str) -> None:
    """A subnet's IPv4 prefix: at most /29 and shorter than the VIP prefix (§3.1, §5.2)."""
    if subnet.prefixlen > SUBNET_MAX_PREFIX:
        raise InvalidArgument(f"{path}: prefix /{subnet.prefixlen} is too long; at most /{SUBNET_MAX_PREFIX} is allowed")
    if subnet.prefixlen >= vip:
        raise InvalidArgument(
            f"{path}: prefix /{subnet.prefixlen} must be shorter than the VIP prefix /{vip} of {class_label} "
            f"(the last /{vip} block of a subnet is its VIP range)"
        )


def security_rules(rules: Sequence[SecurityRule], path: str, *, ipv6_allowed: bool) -> None:
    """Every rule of a list (§3.1 SecurityRule): protocol set; TCP/UDP 1 ≤ port_from ≤ port_to ≤
    65535; ICMP/ALL ports 0; at least one peer CIDR, each valid; IPv6 only in an IPv6 network."""
    for index, rule in enumerate(rules):
        here = f"{path}[{index}]"
        protocol = rule.protocol
        port_from, port_to = rule.port_from, rule.port_to
        if protocol not in PROTOCOL_NAMES:
            raise InvalidArgument(
                f"{here}.protocol: required; use PROTOCOL_TCP, PROTOCOL_UDP, PROTOCOL_ICMP or PROTOCOL_ALL"
            )
        name = PROTOCOL_NAMES[protocol]
        if protocol in (PROTOCOL_TCP, PROTOCOL_UDP):
            if not 1 <= port_from <= port_to <= 65535:
                raise InvalidArgument(
                    f"{here}: {name} ports must satisfy 1 <= port_from <= port_to <= 65535 "
                    f"(got {port_from}-{port_to})"
                )
        elif port_from or port_to:
            raise InvalidArgument(f"{here}: {name} rules take no ports; leave port_from and port_to 0")
        ipv4, ipv6 = rule.ipv4_cidr, rule.ipv6_cidr
        if not ipv4 and not ipv6:
            raise InvalidArgument(f"{here}: set ipv4_cidr or ipv6_cidr (0.0.0.0/0 or ::/0 means any peer)")
        if ipv4:
            network(ipv4, f"{here}.ipv4_cidr", 4)
        if ipv6:
            network(ipv6, f"{here}.ipv6_cidr", 6)
            if not ipv6_allowed:
                raise InvalidArgument(
                    f"{here}.ipv6_cidr: IPv6 rules need a VirtualNetwork with an IPv6 CIDR"
                )
