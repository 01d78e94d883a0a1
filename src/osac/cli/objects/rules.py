"""Security rules as people write and read them: ``protocol=tcp,port=443,cidr=0.0.0.0/0`` in,
``tcp 443 from 0.0.0.0/0`` out.

A rule written on the command line is ``KEY=VALUE`` pairs separated by commas:

    protocol   tcp, udp, icmp or all (required)
    port       N, or N-M                 (tcp and udp: required; icmp and all: none)
    ports      N-M, or N
    cidr       an IPv4 network: the source of an ingress rule, the destination of an egress one
    cidr6      an IPv6 network           (at least one of cidr / cidr6; 0.0.0.0/0 is any)

The rule's own field names (``port_from``, ``port_to``, ``ipv4_cidr``, ``ipv6_cidr``) work too.
Everything networking.md §3.1 checks locally is checked here first, so a mistake is reported
with the key at fault and the fix, before anything is sent.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from typing import Any

from osac.cli.errors import CliError

PROTOCOLS = ("tcp", "udp", "icmp", "all")
PORTED = ("tcp", "udp")
MAX_PORT = 65535
KEYS = ("protocol", "port", "ports", "cidr", "cidr6")
#: Other spellings of the keys (the rule's own field names among them).
KEY_ALIASES = {
    "proto": "protocol", "port_from": "port_from", "port_to": "port_to",
    "ipv4_cidr": "cidr", "cidr4": "cidr", "ipv6_cidr": "cidr6",
}
EXAMPLE = "protocol=tcp,port=443,cidr=0.0.0.0/0"
#: What ``--ingress none`` means: no rules at all (an empty list).
NO_RULES = "none"


def parse_rule(text: str) -> list[tuple[str, str]]:
    """The SecurityRule fields (name, text value) that ``text`` describes.

    :raises CliError: the problem and its fix, e.g. ``port 70000 is out of range; ports are 1-65535``.
    """
    given = _pairs(text)
    protocol = _protocol(given.get("protocol"))
    low, high = _ports(protocol, given)
    ipv4 = _network(given, "cidr", 4)
    ipv6 = _network(given, "cidr6", 6)
    if not ipv4 and not ipv6:
        raise CliError("no address range; add cidr=A.B.C.D/N (IPv4; cidr=0.0.0.0/0 for any) or cidr6=X::/N (IPv6)")
    fields = [("protocol", protocol.upper())]
    if low:
        fields += [("port_from", str(low)), ("port_to", str(high))]
    if ipv4:
        fields.append(("ipv4_cidr", ipv4))
    if ipv6:
        fields.append(("ipv6_cidr", ipv6))
    return fields


def _pairs(text: str) -> dict[str, str]:
    pairs: dict[str, str] = {}
    for part in text.split(","):
        if not part.strip():
            continue
        key, equals, value = part.partition("=")
        key = key.strip().lower().replace("-", "_")
        if not equals or not key:
            raise CliError(f"'{part.strip()}' is not KEY=VALUE; write rules like {EXAMPLE}")
        key = KEY_ALIASES.get(key, key)
        if key not in (*KEYS, "port_from", "port_to"):
            raise CliError(f"unknown key '{key}'; the keys are {', '.join(KEYS)} (e.g. {EXAMPLE})")
        if key in pairs:
            raise CliError(f"{key} is given twice; give it once")
        pairs[key] = value.strip()
    return pairs


def _protocol(value: str | None) -> str:
    if value is None or not value:
        raise CliError(f"no protocol; add protocol={'|'.join(PROTOCOLS)}")
    word = value.lower().removeprefix("protocol_")
    if word not in PROTOCOLS:
        raise CliError(f"protocol '{value}' is not one of {', '.join(PROTOCOLS)}")
    return word


def _ports(protocol: str, given: Mapping[str, str]) -> tuple[int, int]:
    written = [key for key in ("port", "ports", "port_from", "port_to") if key in given]
    if protocol not in PORTED:
        if any(given[key] not in ("", "0") for key in written):
            raise CliError(f"{protocol} rules have no ports; remove {written[0]}={given[written[0]]}")
        return 0, 0
    if not written:
        raise CliError(f"a {protocol} rule needs port=N or ports=N-M (1-{MAX_PORT})")
    if ("port" in given) + ("ports" in given) + bool({"port_from", "port_to"} & set(given)) > 1:
        raise CliError(f"give the ports once: port=N or ports=N-M, not {' and '.join(written)}")
    if "port_from" in given or "port_to" in given:
        low = _port(given.get("port_from") or given.get("port_to", ""), "port_from")
        high = _port(given.get("port_to") or given.get("port_from", ""), "port_to")
        written_range = f"port_from={low},port_to={high}"
    else:
        key = "port" if "port" in given else "ports"
        first, dash, last = given[key].partition("-")
        low = _port(first, key)
        high = _port(last, key) if dash else low
        written_range = f"{key}={given[key]}"
    if low > high:
        raise CliError(f"{written_range} is reversed; write ports={high}-{low}")
    return low, high


def _port(text: str, key: str) -> int:
    word = text.strip()
    if not word.isdigit():
        raise CliError(f"{key} '{text}' is not a port number; use port=N or ports=N-M (1-{MAX_PORT})")
    number = int(word)
    if not 1 <= number <= MAX_PORT:
        raise CliError(f"port {number} is out of range; ports are 1-{MAX_PORT}")
    return number


def _network(given: Mapping[str, str], key: str, version: int) -> str:
    text = given.get(key)
    if text is None:
        return ""
    other = "cidr6" if version == 4 else "cidr"
    family = f"IPv{version}"
    try:
        network = ipaddress.ip_network(text, strict=False)
    except ValueError:
        example = "0.0.0.0/0" if version == 4 else "::/0"
        raise CliError(f"{key} '{text}' is not an {family} network; write e.g. {key}={example}") from None
    if network.version != version:
        raise CliError(f"{key} '{text}' is IPv{network.version}; use {other}={text}")
    if ipaddress.ip_interface(text).ip != network.network_address:
        raise CliError(f"{key} '{text}' has host bits set; did you mean {key}={network}?")
    return str(network)


# -- reading -------------------------------------------------------------------------------------


def rule_text(rule: Any, *, egress: bool = False) -> str:
    """``tcp 443 from 0.0.0.0/0``, ``udp 1000-2000 to 10.0.0.0/8``, ``icmp from 0.0.0.0/0, ::/0``."""
    words = [_protocol_word(rule.protocol)]
    ports = port_text(rule)
    if ports:
        words.append(ports)
    cidrs = ", ".join(c for c in (rule.ipv4_cidr, rule.ipv6_cidr) if c) or "nowhere"
    words.append(("to " if egress else "from ") + cidrs)
    return " ".join(words)


def short_rule(rule: Any) -> str:
    """``tcp/443``, ``udp/1000-2000``, ``icmp``: a rule without its addresses, for tables."""
    ports = port_text(rule)
    return _protocol_word(rule.protocol) + (f"/{ports}" if ports else "")


def port_text(rule: Any) -> str:
    if not rule.port_from and not rule.port_to:
        return ""
    if rule.port_from == rule.port_to or not rule.port_to:
        return str(rule.port_from)
    return f"{rule.port_from}-{rule.port_to}"


def _protocol_word(number: int) -> str:
    return PROTOCOLS[number - 1] if 1 <= number <= len(PROTOCOLS) else f"protocol {number}"
