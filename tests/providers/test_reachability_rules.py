"""The traffic rules R1–R6 (networking.md §1) as a truth table over a hand-built fabric snapshot."""

from __future__ import annotations

from typing import NamedTuple

import pytest

from osac.providers.simulator.fabric.reachability import (
    Dnat,
    FabricSnapshot,
    Port,
    Reason,
    Rule,
    SecurityGroup,
    Segment,
    Snat,
    check,
)

ANY = "0.0.0.0/0"

SNAPSHOT = FabricSnapshot(
    segments=[
        Segment("a1", "vn-a", "10.0.1.0/24", "10.0.1.1", "10.0.1.240", "10.0.1.254"),
        Segment("a2", "vn-a", "10.0.2.0/24", "10.0.2.1", "10.0.2.240", "10.0.2.254"),
        Segment("b1", "vn-b", "10.0.1.0/24", "10.0.1.1", "10.0.1.240", "10.0.1.254"),  # same CIDR as a1 (R1)
        Segment("c1", "vn-c", "10.5.0.0/24", "10.5.0.1", "10.5.0.240", "10.5.0.254"),
    ],
    ports=[
        Port("ci/a1", "nic-0", "a1", "vn-a", ("sg-ssh",), "10.0.1.10"),
        Port("ci/a2", "nic-0", "a1", "vn-a", ("sg-ssh",), "10.0.1.11"),
        Port("ci/a3", "nic-0", "a2", "vn-a", ("sg-ssh",), "10.0.2.10"),
        Port("ci/nosg", "nic-0", "a1", "vn-a", (), "10.0.1.12"),
        Port("ci/sa", "nic-0", "a1", "vn-a", ("sg-out",), "10.0.1.20"),
        Port("ci/sb", "nic-0", "a1", "vn-a", ("sg-b22",), "10.0.1.21"),
        Port("ci/sc", "nic-0", "a1", "vn-a", ("sg-b22", "sg-8080"), "10.0.1.22"),
        Port("ci/b1", "nic-0", "b1", "vn-b", ("sg-open",), "10.0.1.10"),  # same address as ci/a1
        Port("ci/c1", "nic-0", "c1", "vn-c", ("sg-https-out",), "10.5.0.10"),
        Port("bm-park", "eth1", "parking", None, (), None),
    ],
    security_groups=[
        SecurityGroup("sg-ssh", "vn-a", (Rule("tcp", 22, 22, "10.0.0.0/16"),), (Rule("all", ipv4_cidr=ANY),)),
        SecurityGroup("sg-out", "vn-a", (), (Rule("all", ipv4_cidr=ANY),)),
        SecurityGroup("sg-b22", "vn-a", (Rule("tcp", 22, 22, "10.0.1.20/32"),), (Rule("all", ipv4_cidr=ANY),)),
        SecurityGroup("sg-8080", "vn-a", (Rule("tcp", 8080, 8080, ANY),), ()),
        SecurityGroup("sg-open", "vn-b", (Rule("all", ipv4_cidr=ANY),), (Rule("all", ipv4_cidr=ANY),)),
        SecurityGroup("sg-https-out", "vn-c", (), (Rule("tcp", 443, 443, ANY),)),
    ],
    external_addresses=["203.0.113.1", "203.0.113.2", "203.0.113.5", "203.0.113.6"],
    dnat=[
        Dnat("att-a1", "203.0.113.5", "vn-a", "10.0.1.10"),
        Dnat("att-b1", "203.0.113.6", "vn-b", "10.0.1.10"),
    ],
    snat=[Snat("gw-a", "vn-a", "203.0.113.1"), Snat("gw-c", "vn-c", "203.0.113.2")],
)


class Case(NamedTuple):
    id: str
    src: str
    dst: str
    protocol: str
    port: int
    reason: Reason
    source: str = ""
    destination: str = ""
    reply: bool = False


OK = Reason.OK
CASES = [
    # R2/R3/R4 inside one VN
    Case("same-subnet-allowed", "ci/a1/nic-0", "ci/a2/nic-0", "tcp", 22, OK, "10.0.1.10", "10.0.1.11"),
    Case("same-subnet-default-deny", "ci/a1/nic-0", "ci/a2/nic-0", "tcp", 80, Reason.SG_INGRESS_DENIED),
    Case("same-subnet-icmp-deny", "ci/a1/nic-0", "ci/a2/nic-0", "icmp", 0, Reason.SG_INGRESS_DENIED),
    Case("l3-between-subnets", "ci/a1/nic-0", "ci/a3/nic-0", "tcp", 22, OK, "10.0.1.10", "10.0.2.10"),
    Case("by-address", "ci/a1/nic-0", "10.0.1.11", "tcp", 22, OK, "10.0.1.10", "10.0.1.11"),
    Case("overlap-resolved-in-src-vn", "ci/a2/nic-0", "10.0.1.10", "tcp", 22, OK, "10.0.1.11", "10.0.1.10"),
    Case("no-sg-no-egress", "ci/nosg/nic-0", "ci/a1/nic-0", "tcp", 22, Reason.SG_EGRESS_DENIED),
    Case("no-sg-no-ingress", "ci/a1/nic-0", "ci/nosg/nic-0", "tcp", 22, Reason.SG_INGRESS_DENIED),
    Case("gateway-always", "ci/nosg/nic-0", "10.0.1.1", "udp", 67, OK, "10.0.1.12", "10.0.1.1"),
    Case("vip-reachable", "ci/a1/nic-0", "10.0.1.240", "tcp", 6443, OK, "10.0.1.10", "10.0.1.240"),
    # stateful, union
    Case("stateful-forward", "ci/sa/nic-0", "ci/sb/nic-0", "tcp", 22, OK, "10.0.1.20", "10.0.1.21"),
    Case("stateful-reply", "ci/sb/nic-0", "ci/sa/nic-0", "tcp", 22, OK, "10.0.1.21", "10.0.1.20", reply=True),
    Case("stateful-new-flow-back", "ci/sb/nic-0", "ci/sa/nic-0", "tcp", 22, Reason.SG_INGRESS_DENIED),
    Case("reply-of-denied-flow", "ci/a2/nic-0", "ci/a1/nic-0", "tcp", 80, Reason.SG_INGRESS_DENIED, reply=True),
    Case("union-first-sg", "ci/sa/nic-0", "ci/sc/nic-0", "tcp", 22, OK, "10.0.1.20", "10.0.1.22"),
    Case("union-second-sg", "ci/sa/nic-0", "ci/sc/nic-0", "tcp", 8080, OK, "10.0.1.20", "10.0.1.22"),
    Case("union-neither", "ci/sa/nic-0", "ci/sc/nic-0", "tcp", 9090, Reason.SG_INGRESS_DENIED),
    Case("ingress-cidr-is-the-source", "ci/a1/nic-0", "ci/sb/nic-0", "tcp", 22, Reason.SG_INGRESS_DENIED),
    # R1 isolation, also with overlapping CIDRs
    Case("isolated-by-port", "ci/a1/nic-0", "ci/b1/nic-0", "tcp", 22, Reason.ISOLATED),
    Case("isolated-reverse", "ci/b1/nic-0", "ci/a1/nic-0", "tcp", 22, Reason.ISOLATED),
    Case("isolated-by-address", "ci/b1/nic-0", "10.0.1.11", "tcp", 22, Reason.ISOLATED),
    Case("isolated-other-cidr", "ci/a1/nic-0", "ci/c1/nic-0", "tcp", 443, Reason.ISOLATED),
    Case("isolated-address-held-elsewhere", "ci/c1/nic-0", "10.0.1.10", "tcp", 22, Reason.ISOLATED),
    # R6 outbound
    Case("snat-outbound", "ci/a1/nic-0", "internet", "tcp", 443, OK, "203.0.113.1", "internet"),
    Case("snat-to-address", "ci/a1/nic-0", "198.51.100.7", "udp", 53, OK, "203.0.113.1", "198.51.100.7"),
    Case("no-snat-even-with-eip", "ci/b1/nic-0", "internet", "tcp", 443, Reason.NO_SNAT),
    Case("egress-rule-443", "ci/c1/nic-0", "internet", "tcp", 443, OK, "203.0.113.2", "internet"),
    Case("egress-rule-denies-80", "ci/c1/nic-0", "internet", "tcp", 80, Reason.SG_EGRESS_DENIED),
    # R5 inbound
    Case("dnat-inbound", "internet", "203.0.113.6", "tcp", 22, OK, "internet", "10.0.1.10"),
    Case("dnat-to-port", "internet", "ci/b1/nic-0", "tcp", 22, OK, "internet", "10.0.1.10"),
    Case("dnat-ingress-original-source", "internet", "203.0.113.5", "tcp", 22, Reason.SG_INGRESS_DENIED),
    Case("no-dnat", "internet", "ci/a2/nic-0", "tcp", 22, Reason.NO_DNAT),
    Case("no-dnat-internal-address", "internet", "10.0.1.11", "tcp", 22, Reason.NO_DNAT),
    Case("no-dnat-on-snat-address", "internet", "203.0.113.1", "tcp", 22, Reason.NO_DNAT),
    Case("dnat-reply-via-eip", "ci/b1/nic-0", "internet", "tcp", 22, OK, "203.0.113.6", "internet", reply=True),
    Case("outside-to-outside", "internet", "198.51.100.7", "tcp", 22, Reason.NO_ROUTE),
    # hairpin through NAT: out via SNAT, in via DNAT
    Case("eip-of-another-vn", "ci/a1/nic-0", "203.0.113.6", "tcp", 22, OK, "203.0.113.1", "10.0.1.10"),
    Case("eip-needs-snat", "ci/b1/nic-0", "203.0.113.5", "tcp", 22, Reason.NO_SNAT),
    # not on a VN
    Case("parked-port", "bm-park/eth1", "ci/a1/nic-0", "tcp", 22, Reason.NO_ROUTE),
    Case("unknown-port", "ci/x/nic-0", "ci/a1/nic-0", "tcp", 22, Reason.NO_ROUTE),
    Case("not-an-endpoint", "nonsense", "ci/a1/nic-0", "tcp", 22, Reason.NO_ROUTE),
    Case("unheld-address", "ci/a1/nic-0", "10.0.1.99", "tcp", 22, Reason.NO_ROUTE),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_reachability(case: Case) -> None:
    answer = check(SNAPSHOT, case.src, case.dst, case.protocol, case.port, reply=case.reply)
    assert (answer.reason, answer.allowed) == (case.reason, case.reason is OK), answer.detail
    if case.reason is OK:
        assert (answer.translated_source, answer.translated_destination) == (case.source, case.destination)
    else:
        assert answer.detail


def test_an_ambiguous_address_needs_a_port() -> None:
    answer = check(SNAPSHOT, "10.0.1.10", "10.0.1.11", "tcp", 22)
    assert answer.allowed  # 10.0.1.11 exists only in vn-a, which settles 10.0.1.10
    answer = check(SNAPSHOT, "internet", "10.0.1.10", "tcp", 22)
    assert answer.reason is Reason.NO_ROUTE  # held and DNAT-targeted in vn-a and vn-b alike
    assert "name the port" in answer.detail
