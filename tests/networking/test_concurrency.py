"""Uniqueness under concurrency (networking.md §4 atomicity, §5.5, R7, R8): constraints and
locks, not read-then-write, decide; exactly one of many concurrent conflicting creates wins."""

from __future__ import annotations

import asyncio
from collections import Counter

from tests.networking.conftest import Net, error

ATTEMPTS = 20


async def test_one_consumer_of_an_external_ip_among_concurrent_gateways_and_attachments(net: Net) -> None:
    await net.tenant()
    await net.external_ip("shared")
    vns = [await net.network(f"vn-{i}", f"10.{i + 1}.0.0/16") for i in range(ATTEMPTS // 2)]
    vms = [await net.create("compute_instances", {"metadata": {"name": f"vm-{i}"},
                                                  "spec": {"template": "fedora", "instance_type": "small"}})
           for i in range(ATTEMPTS // 2)]
    requests = [net.post("nat_gateways", {"metadata": {"name": f"gw-{i}"}, "spec": {"virtual_network": vn["id"], "external_ip": "shared"}})
                for i, vn in enumerate(vns)]
    requests += [net.post("external_ip_attachments", {"metadata": {"name": f"at-{i}"}, "spec": {"external_ip": "shared", "compute_instance": vm["id"]}})
                 for i, vm in enumerate(vms)]
    responses = await asyncio.gather(*requests)
    winners = [r.json() for r in responses if r.status_code == 200]
    assert len(winners) == 1, [r.text for r in responses]
    kind = "NATGateway" if winners[0]["metadata"]["name"].startswith("gw-") else "ExternalIPAttachment"
    expected = (400, f"ExternalIP 'shared' is already used by {kind} '{winners[0]['metadata']['name']}'")
    assert Counter(error(r) for r in responses if r.status_code != 200) == Counter({expected: ATTEMPTS - 1})


async def test_one_gateway_per_virtual_network_under_concurrency(net: Net) -> None:
    await net.tenant()
    await net.network("app", "10.1.0.0/16")
    eips = [await net.external_ip(f"eip-{i}") for i in range(ATTEMPTS)]
    responses = await asyncio.gather(*[
        net.post("nat_gateways", {"metadata": {"name": f"gw-{i}"}, "spec": {"virtual_network": "app", "external_ip": eip["id"]}})
        for i, eip in enumerate(eips)
    ])
    winners = [r.json() for r in responses if r.status_code == 200]
    assert len(winners) == 1, [r.text for r in responses]
    expected = (409, f"VirtualNetwork 'app' already has NATGateway '{winners[0]['metadata']['name']}'")
    assert Counter(error(r) for r in responses if r.status_code != 200) == Counter({expected: ATTEMPTS - 1})


async def test_one_of_concurrent_overlapping_subnets_wins(net: Net) -> None:
    await net.tenant()
    await net.network("app", "10.1.0.0/16")
    # A /20 against fifteen disjoint /24s inside it: the /20 wins alone, or loses to the /24s
    # that committed before it.
    cidrs = ["10.1.0.0/20"] + [f"10.1.{i}.0/24" for i in range(15)]
    responses = await asyncio.gather(*[
        net.post("subnets", {"metadata": {"name": f"s-{i}"}, "spec": {"virtual_network": "app", "ipv4_cidr": cidr}})
        for i, cidr in enumerate(cidrs)
    ])
    ok = [r.json() for r in responses if r.status_code == 200]
    assert ok
    if any(s["spec"]["ipv4_cidr"] == "10.1.0.0/20" for s in ok):
        assert len(ok) == 1, [r.text for r in responses]
    for response in responses:
        if response.status_code != 200:
            status, message = error(response)
            assert status == 400 and message.startswith("subnet CIDR ") and " in VirtualNetwork 'app'" in message, message
    same = await asyncio.gather(*[
        net.post("subnets", {"metadata": {"name": f"t-{i}"}, "spec": {"virtual_network": "app", "ipv4_cidr": "10.1.128.0/24"}})
        for i in range(ATTEMPTS)
    ])
    winners = [r.json() for r in same if r.status_code == 200]
    assert len(winners) == 1, [r.text for r in same]
    expected = (400, f"subnet CIDR 10.1.128.0/24 overlaps Subnet '{winners[0]['metadata']['name']}' (10.1.128.0/24) "
                     "in VirtualNetwork 'app'")
    assert Counter(error(r) for r in same if r.status_code != 200) == Counter({expected: ATTEMPTS - 1})
    disjoint = await asyncio.gather(*[
        net.post("subnets", {"metadata": {"name": f"d-{i}"}, "spec": {"virtual_network": "app", "ipv4_cidr": f"10.1.{200 + i}.0/24"}})
        for i in range(10)
    ])
    assert all(r.status_code == 200 for r in disjoint), [r.text for r in disjoint]


async def test_concurrent_external_ips_get_distinct_addresses_and_exact_counters(net: Net) -> None:
    await net.tenant()
    [pool] = await net.items("external_ip_pools", "this.metadata.name == 'public-v4'")
    responses = await asyncio.gather(*[
        net.post("external_ips", {"metadata": {"name": f"e-{i}"}, "spec": {"pool": "public-v4"}}) for i in range(30)
    ])
    assert all(r.status_code == 200 for r in responses), [r.text for r in responses if r.status_code != 200]
    addresses = {r.json()["status"]["address"] for r in responses}
    assert len(addresses) == 30
    status = (await net.get("external_ip_pools", pool["id"])).json()["status"]
    assert (status["total"], status["allocated"], status["available"]) == ("254", "31", "223")  # + default-nat
