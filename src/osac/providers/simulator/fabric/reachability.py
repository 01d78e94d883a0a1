"""Reachability on the simulated fabric: the traffic rules R1–R6 of networking.md §1, as a pure
function of a snapshot of the fabric tables.

``check(snapshot, src, dst, protocol, port)`` answers whether a packet from ``src`` reaches
``dst``. Endpoints are ``<host>/<interface>`` (a port; the host part may itself contain ``/``,
e.g. ``ci/<id>/nic-0``), an address, or ``internet``.

Resolution of an address:

- an announced external address (an EIP) is an external endpoint; as a destination it is
  translated through its DNAT entry;
- an internal address is the port holding a DHCP reservation for it. CIDRs overlap across VNs
  (R1), so an address held in several VNs resolves to the one in the other endpoint's VN; still
  ambiguous → ``NO_ROUTE``;
- an address in a subnet's VIP range (cluster API / ingress VIPs, served by the k8s manager rather
  than a switch port) is a VIP endpoint: it can be reached but carries no security groups;
- the gateway of the source's subnets is always reachable (R4: gateway traffic always passes);
- any other address outside every VN is a host on the internet.

Rules, in the order a packet meets them (the first failure is the reason):

=========================  ============================================================  ==================
Path                       Checks                                                        Failure reasons
=========================  ============================================================  ==================
port → port, same VN       routed (R2, R3); egress SGs of src; ingress SGs of dst (R4)   SG_EGRESS_DENIED,
                                                                                         SG_INGRESS_DENIED
port → port, other VN      never (R1)                                                    ISOLATED
port → internet            egress SGs; the VN's SNAT (R6); source becomes the SNAT EIP   SG_EGRESS_DENIED,
                                                                                         NO_SNAT
port → EIP                 as to the internet, then as from the internet to the DNAT     as both
                           target, with the SNAT address as the source
internet → EIP / port      DNAT to the target (R5); ingress SGs of the target for the    NO_DNAT,
                           original source; destination becomes the internal address     SG_INGRESS_DENIED
parked / unknown port      not on any VN                                                 NO_ROUTE
=========================  ============================================================  ==================

SGs (R4) are stateful, default deny and a union of allow rules: a packet passes a port if any
rule of any of its SGs matches; a port without SGs passes nothing. Ingress rules match the source
address, egress rules the destination. The symbolic ``internet`` matches only rules covering every
address (``0.0.0.0/0`` / ``::/0``). ``reply=True`` asks about the reply packet of a flow from
``dst`` to ``src``: it passes exactly when that flow is allowed (replies of allowed flows pass,
R4; replies to DNAT flows leave through the same EIP, R6), with the translations reversed.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

INTERNET = "internet"

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network


class Reason(StrEnum):
    OK = "OK"
    ISOLATED = "ISOLATED"
    NO_ROUTE = "NO_ROUTE"
    SG_EGRESS_DENIED = "SG_EGRESS_DENIED"
    SG_INGRESS_DENIED = "SG_INGRESS_DENIED"
    NO_SNAT = "NO_SNAT"
    NO_DNAT = "NO_DNAT"


# -- the snapshot ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Rule:
    protocol: str  # tcp, udp, icmp, all
    port_from: int = 0
    port_to: int = 0
    ipv4_cidr: str = ""
    ipv6_cidr: str = ""

    @classmethod
    def of(cls, data: Mapping[str, Any]) -> Rule:
        """A rule as the fabric store keeps it (JSON)."""
        return cls(
            protocol=str(data.get("protocol", "")).lower(),
            port_from=int(data.get("port_from", 0) or 0),
            port_to=int(data.get("port_to", 0) or 0),
            ipv4_cidr=str(data.get("ipv4_cidr", "") or ""),
            ipv6_cidr=str(data.get("ipv6_cidr", "") or ""),
        )


@dataclass(frozen=True)
class SecurityGroup:
    sg_id: str
    vn_id: str
    ingress: tuple[Rule, ...] = ()
    egress: tuple[Rule, ...] = ()


@dataclass(frozen=True)
class Segment:
    segment_id: str
    vn_id: str
    cidr: str
    gateway: str = ""
    vip_first: str = ""
    vip_last: str = ""


@dataclass(frozen=True)
class Port:
    """A port on a subnet segment (ports on parking / provisioning have ``vn_id`` None)."""

    host_name: str
    interface: str
    segment_id: str
    vn_id: str | None
    security_group_ids: tuple[str, ...] = ()
    address: str | None = None  # from the port's reservation on its segment

    @property
    def key(self) -> str:
        return f"{self.host_name}/{self.interface}"


@dataclass(frozen=True)
class Dnat:
    attachment_id: str
    external_address: str
    vn_id: str
    internal_address: str


@dataclass(frozen=True)
class Snat:
    natgw_id: str
    vn_id: str
    external_address: str


@dataclass(frozen=True)
class FabricSnapshot:
    """The fabric tables reachability needs (built by ``FabricStore.snapshot`` or by tests)."""

    segments: Sequence[Segment] = ()
    ports: Sequence[Port] = ()
    security_groups: Sequence[SecurityGroup] = ()
    external_addresses: Sequence[str] = ()
    dnat: Sequence[Dnat] = ()
    snat: Sequence[Snat] = ()
    _sgs: dict[str, SecurityGroup] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_sgs", {sg.sg_id: sg for sg in self.security_groups})

    def security_group(self, sg_id: str) -> SecurityGroup | None:
        return self._sgs.get(sg_id)

    def snat_of(self, vn_id: str) -> Snat | None:
        return next((s for s in self.snat if s.vn_id == vn_id), None)

    def dnat_of_external(self, address: Address) -> Dnat | None:
        return next((d for d in self.dnat if _same(d.external_address, address)), None)

    def dnat_to(self, vn_id: str, address: str) -> Dnat | None:
        target = _address(address)
        return next((d for d in self.dnat if d.vn_id == vn_id and _same(d.internal_address, target)), None)


# -- the answer -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Reachability:
    """``allowed`` and its ``reason``; the addresses after NAT (as seen by the destination);
    ``detail`` says in words why (not part of the API message). ``sent_to`` is the destination
    address as the sender addressed it (the EIP of a DNAT flow) and ``sent_from`` the sender's
    own address: what a reply is translated back to."""

    allowed: bool
    reason: Reason
    translated_source: str = ""
    translated_destination: str = ""
    detail: str = ""
    sent_from: str = ""
    sent_to: str = ""


# -- endpoints ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Port:
    port: Port
    address: Address | None


@dataclass(frozen=True)
class _Vip:
    vn_id: str
    address: Address


@dataclass(frozen=True)
class _Gateway:
    vn_id: str
    address: Address


@dataclass(frozen=True)
class _Outside:
    """The internet: a given address outside every VN, or the symbolic ``internet``."""

    address: Address | None


@dataclass(frozen=True)
class _External:
    """An announced external address (EIP)."""

    address: Address


@dataclass(frozen=True)
class _Unroutable:
    why: str


_Endpoint = _Port | _Vip | _Gateway | _Outside | _External | _Unroutable


def check(
    snapshot: FabricSnapshot,
    src: str,
    dst: str,
    protocol: str,
    port: int = 0,
    *,
    reply: bool = False,
) -> Reachability:
    """Whether a packet ``src → dst`` (``protocol``: tcp, udp, icmp, all; ``port``: the
    destination port for tcp/udp) is delivered, per R1–R6. With ``reply``, whether the reply of
    the flow ``dst → src`` reaches ``src``."""
    protocol = protocol.lower()
    if reply:
        forward = check(snapshot, dst, src, protocol, port)
        if not forward.allowed:
            return replace(forward, detail=f"reply of a flow {dst} -> {src} that is not allowed: {forward.detail}")
        return Reachability(
            True,
            Reason.OK,
            translated_source=forward.sent_to,
            translated_destination=forward.sent_from,
            detail=f"reply of the allowed flow {dst} -> {src} ({forward.detail})",
            sent_from=forward.translated_destination,
            sent_to=forward.translated_source,
        )
    return _Checker(snapshot, protocol, port).run(src, dst)


class _Checker:
    def __init__(self, snapshot: FabricSnapshot, protocol: str, port: int) -> None:
        self.snapshot = snapshot
        self.protocol = protocol
        self.port = port

    # -- resolution ------------------------------------------------------------------------------

    def run(self, src_text: str, dst_text: str) -> Reachability:
        src = self.resolve(src_text, peer=None)
        dst = self.resolve(dst_text, peer=src)
        if isinstance(src, _Unroutable) and _is_address(src_text) and not isinstance(dst, _Unroutable):
            # an ambiguous source address may be settled by the destination's VN
            src = self.resolve(src_text, peer=dst)
        if isinstance(src, _Unroutable):
            return _drop(Reason.NO_ROUTE, f"source {src_text}: {src.why}")
        if isinstance(dst, _Unroutable):
            return _drop(Reason.NO_ROUTE, f"destination {dst_text}: {dst.why}")
        if isinstance(src, _Port):
            return self.from_port(src, dst, dst_text)
        if isinstance(src, _Outside | _External):
            return self.from_outside(src.address, dst, dst_text)
        return _drop(Reason.NO_ROUTE, f"source {src_text} is a {_describe(src)} and originates no traffic")

    def resolve(self, text: str, peer: _Endpoint | None) -> _Endpoint:
        text = text.strip()
        if text.lower() == INTERNET:
            return _Outside(None)
        address = _address(text)
        if address is None:
            return self.resolve_port(text)
        if any(_same(a, address) for a in self.snapshot.external_addresses) or self.snapshot.dnat_of_external(
            address
        ):
            return _External(address)
        peer_vn = _vn_of(peer)
        holders = [
            p for p in self.snapshot.ports if p.vn_id is not None and p.address and _same(p.address, address)
        ]
        if len(holders) > 1 and peer_vn is not None:
            # the peer's VN decides; held only in other VNs, any of them answers ISOLATED
            holders = [p for p in holders if p.vn_id == peer_vn] or _first(holders)
        if len(holders) > 1 and isinstance(peer, _Outside | _External):
            # from outside only a DNAT entry leads in: the holder it targets, else any (NO_DNAT)
            targeted = [p for p in holders if self.snapshot.dnat_to(p.vn_id or "", str(address))]
            holders = targeted or _first(holders)
        if len(holders) == 1:
            return _Port(holders[0], address)
        if len(holders) > 1:
            vns = ", ".join(sorted({p.vn_id or "" for p in holders}))
            return _Unroutable(f"address {address} is held in several virtual networks ({vns}); name the port")
        segments = [s for s in self.snapshot.segments if _contains(s.cidr, address)]
        if len(segments) > 1 and peer_vn is not None:
            segments = [s for s in segments if s.vn_id == peer_vn] or sorted(segments, key=lambda s: s.vn_id)[:1]
        if not segments:
            return _Outside(address)
        if len(segments) > 1:
            return _Unroutable(f"address {address} lies in several virtual networks; name the port")
        segment = segments[0]
        if segment.gateway and _same(segment.gateway, address):
            return _Gateway(segment.vn_id, address)
        if _in_range(address, segment.vip_first, segment.vip_last):
            return _Vip(segment.vn_id, address)
        return _Unroutable(f"no port holds address {address} in subnet {segment.segment_id}")

    def resolve_port(self, text: str) -> _Endpoint:
        host, sep, interface = text.rpartition("/")
        if not sep or not host or not interface:
            return _Unroutable(f"'{text}' is neither <host>/<interface>, an address nor '{INTERNET}'")
        port = next((p for p in self.snapshot.ports if p.host_name == host and p.interface == interface), None)
        if port is None:
            return _Unroutable(f"port {text} is not known to the fabric")
        if port.vn_id is None:
            return _Unroutable(f"port {text} is on segment '{port.segment_id}', outside every virtual network")
        return _Port(port, _address(port.address) if port.address else None)

    # -- paths -----------------------------------------------------------------------------------

    def from_port(self, src: _Port, dst: _Endpoint, dst_text: str) -> Reachability:
        vn = src.port.vn_id
        assert vn is not None
        source = str(src.address) if src.address else ""
        if isinstance(dst, _Port | _Vip | _Gateway):
            dst_vn = dst.port.vn_id if isinstance(dst, _Port) else dst.vn_id
            if dst_vn != vn:
                return _drop(Reason.ISOLATED, f"{src.port.key} is in virtual network {vn}, {dst_text} in {dst_vn}")
            if isinstance(dst, _Gateway):
                return _pass(source, str(dst.address), "gateway traffic always passes")
            target = dst.address
            if not self.allows(src.port, "egress", target):
                return _drop(Reason.SG_EGRESS_DENIED, f"no egress rule of {src.port.key} allows {self.probe(target)}")
            if isinstance(dst, _Port) and not self.allows(dst.port, "ingress", src.address):
                return _drop(Reason.SG_INGRESS_DENIED,
                             f"no ingress rule of {dst.port.key} allows {self.probe(src.address, 'from')}")
            return _pass(source, _text(target), "routed inside the virtual network")
        # leaving the VN: egress rules, then SNAT (R6)
        assert isinstance(dst, _Outside | _External)
        if not self.allows(src.port, "egress", dst.address):
            return _drop(Reason.SG_EGRESS_DENIED, f"no egress rule of {src.port.key} allows {self.probe(dst.address)}")
        snat = self.snapshot.snat_of(vn)
        if snat is None:
            return _drop(Reason.NO_SNAT, f"virtual network {vn} has no NAT gateway")
        if isinstance(dst, _Outside):
            return _pass(snat.external_address, _text(dst.address), "SNAT through the NAT gateway", sent_from=source)
        inbound = self.from_outside(_address(snat.external_address), dst, dst_text)
        return replace(inbound, detail=f"SNAT to {snat.external_address}, then {inbound.detail}", sent_from=source)

    def from_outside(self, source: Address | None, dst: _Endpoint, dst_text: str) -> Reachability:
        if isinstance(dst, _Outside):
            return _drop(Reason.NO_ROUTE, "both endpoints are outside every virtual network")
        if isinstance(dst, _External):
            dnat = self.snapshot.dnat_of_external(dst.address)
            if dnat is None:
                return _drop(Reason.NO_DNAT, f"external address {dst.address} has no DNAT entry")
        elif isinstance(dst, _Port):
            if dst.address is None:
                return _drop(Reason.NO_DNAT, f"port {dst.port.key} has no address")
            found = self.snapshot.dnat_to(dst.port.vn_id or "", str(dst.address))
            if found is None:
                return _drop(Reason.NO_DNAT, f"no external IP attachment targets {dst_text}")
            dnat = found
        else:
            assert isinstance(dst, _Vip | _Gateway)
            found = self.snapshot.dnat_to(dst.vn_id, str(dst.address))
            if found is None:
                return _drop(Reason.NO_DNAT, f"no external IP attachment targets {dst_text}")
            dnat = found
        source_text = _text(source)
        target = self.dnat_target(dnat)
        if isinstance(target, _Unroutable):
            return _drop(Reason.NO_ROUTE, target.why)
        if isinstance(target, _Port) and not self.allows(target.port, "ingress", source):
            return _drop(Reason.SG_INGRESS_DENIED,
                         f"no ingress rule of {target.port.key} allows {self.probe(source, 'from')}")
        return _pass(source_text, dnat.internal_address, f"DNAT {dnat.external_address} -> {dnat.internal_address}",
                     sent_to=dnat.external_address)

    def dnat_target(self, dnat: Dnat) -> _Endpoint:
        address = _address(dnat.internal_address)
        holders = [
            p for p in self.snapshot.ports
            if p.vn_id == dnat.vn_id and p.address and address is not None and _same(p.address, address)
        ]
        if holders:
            return _Port(holders[0], address)
        segment = next(
            (s for s in self.snapshot.segments if s.vn_id == dnat.vn_id and address and _contains(s.cidr, address)),
            None,
        )
        if segment is not None and address is not None and _in_range(address, segment.vip_first, segment.vip_last):
            return _Vip(dnat.vn_id, address)
        return _Unroutable(f"DNAT target {dnat.internal_address} is not attached in virtual network {dnat.vn_id}")

    # -- security groups -------------------------------------------------------------------------

    def allows(self, port: Port, direction: str, peer: Address | None) -> bool:
        """R4: any rule of any SG of the port matches (no SG: nothing passes)."""
        for sg_id in port.security_group_ids:
            sg = self.snapshot.security_group(sg_id)
            if sg is None:
                continue
            rules: Iterable[Rule] = sg.ingress if direction == "ingress" else sg.egress
            if any(self.matches(rule, peer) for rule in rules):
                return True
        return False

    def matches(self, rule: Rule, peer: Address | None) -> bool:
        if rule.protocol != "all":
            if rule.protocol != self.protocol:
                return False
            if self.protocol in ("tcp", "udp") and not rule.port_from <= self.port <= rule.port_to:
                return False
        cidrs = [c for c in (rule.ipv4_cidr, rule.ipv6_cidr) if c]
        if peer is None:  # the symbolic internet: only a rule covering every address
            return any(_covers_everything(c) for c in cidrs)
        return any(_contains(c, peer) for c in cidrs)

    def probe(self, peer: Address | None, word: str = "to") -> str:
        what = f"{self.protocol} {self.port}" if self.protocol in ("tcp", "udp") else self.protocol
        return f"{what} {word} {_text(peer)}"


# -- helpers --------------------------------------------------------------------------------------


def _pass(source: str, destination: str, detail: str, *, sent_from: str = "", sent_to: str = "") -> Reachability:
    return Reachability(True, Reason.OK, source, destination, detail, sent_from or source, sent_to or destination)


def _drop(reason: Reason, detail: str) -> Reachability:
    return Reachability(False, reason, detail=detail)


def _first(ports: Sequence[Port]) -> list[Port]:
    return sorted(ports, key=lambda p: (p.vn_id or "", p.key))[:1]


def _vn_of(endpoint: _Endpoint | None) -> str | None:
    if isinstance(endpoint, _Port):
        return endpoint.port.vn_id
    if isinstance(endpoint, _Vip | _Gateway):
        return endpoint.vn_id
    return None


def _describe(endpoint: _Endpoint) -> str:
    return {_Vip: "VIP", _Gateway: "gateway"}.get(type(endpoint), "endpoint")


def _text(address: Address | None) -> str:
    return INTERNET if address is None else str(address)


def _is_address(text: str) -> bool:
    return _address(text) is not None


def _address(text: str | None) -> Address | None:
    if not text:
        return None
    try:
        return ipaddress.ip_address(text.strip())
    except ValueError:
        return None


def _network(text: str) -> Network | None:
    try:
        return ipaddress.ip_network(text.strip(), strict=False)
    except ValueError:
        return None


def _covers_everything(cidr: str) -> bool:
    network = _network(cidr)
    return network is not None and network.prefixlen == 0


def _same(text: str | Address, address: Address | None) -> bool:
    if address is None:
        return False
    other = _address(text) if isinstance(text, str) else text
    return other == address


def _contains(cidr: str | None, address: Address | None) -> bool:
    if not cidr or address is None:
        return False
    network = _network(cidr)
    return network is not None and network.version == address.version and address in network


def _in_range(address: Address, first: str | None, last: str | None) -> bool:
    low, high = _address(first), _address(last)
    if low is None or high is None or low.version != address.version or high.version != address.version:
        return False
    return int(low) <= int(address) <= int(high)  # one family: the order of the addresses
