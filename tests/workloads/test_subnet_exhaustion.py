"""Concurrent allocation from a small subnet (networking.md §5.2–§5.5, §14 scenario 16): sixty
one-NIC VMs created at once on a /26, whose workload range holds 46 addresses, with the
reconcilers running at instant speed: 46 run on 46 distinct addresses of that range, the other
fourteen get RESOURCE_EXHAUSTED with the spec's message and leave nothing behind, and the subnet's
counter and the IPAM rows agree."""

from __future__ import annotations

import asyncio
import ipaddress
from collections import Counter
from typing import Any

from sqlalchemy import select

from osac.ipam.schema import ip_allocations, ip_ranges
from osac.services.networking.allocation_metrics import ALLOCATION_FAILURES
from tests.support.onboarding import wait_for
from tests.support.vmaas import PUBLIC, VMS, Vmaas, is_reachable
from tests.support.watching import outbox_after
from tests.workloads.conftest import failure

CIDR = "10.0.9.0/26"
#: .0 network, .1 gateway, .2–.47 workloads, .48–.62 the /28 VIP range (default prefix), .63 broadcast.
FIRST, LAST = ipaddress.ip_address("10.0.9.2"), ipaddress.ip_address("10.0.9.47")
WORKLOAD_ADDRESSES = 46
ATTEMPTS = 60


async def _ready(vmaas: Vmaas, collection: str, body: dict[str, Any]) -> dict[str, Any]:
    response = await vmaas.alice.request("POST", f"{PUBLIC}/{collection}", json=body)
    assert response.status_code == 200, response.text
    return await wait_for(vmaas.alice, f"{PUBLIC}/{collection}/{response.json()['id']}",
                          lambda obj: obj["status"].get("state", "").endswith("_STATE_READY"))


async def test_sixty_concurrent_vms_on_a_slash_26_get_46_addresses_and_14_refusals(vmaas: Vmaas) -> None:
    # Given a READY /26 in its own virtual network (the default subnet 10.0.0.0/20 would overlap
    # it in the default one),
    vn = await _ready(vmaas, "virtual_networks", {"metadata": {"name": "batch"}, "spec": {"ipv4_cidr": "10.0.0.0/16"}})
    subnet = await _ready(vmaas, "subnets", {"metadata": {"name": "jobs"},
                                             "spec": {"virtual_network": vn["id"], "ipv4_cidr": CIDR}})
    assert (subnet["status"]["gateway"], subnet["status"]["vip_range"], subnet["status"]["available_addresses"]) == (
        "10.0.9.1", "10.0.9.48-10.0.9.62", WORKLOAD_ADDRESSES)
    revision = await _revision(vmaas)
    failures = ALLOCATION_FAILURES.labels("workload", "manual")._value.get()

    # when sixty one-NIC VMs on it are created at once,
    responses = await asyncio.gather(*(
        vmaas.alice.request("POST", VMS, json={"metadata": {"name": f"vm-{i:02}"}, "spec": {
            "template": "fedora", "compute_network_attachments": [{"subnet": "jobs"}]}})
        for i in range(ATTEMPTS)))

    # then 46 are created and 14 are refused, exhausted, with the spec's message;
    created = {r.json()["metadata"]["name"]: r.json()["id"] for r in responses if r.status_code == 200}
    assert len(created) == WORKLOAD_ADDRESSES
    assert Counter(failure(r) for r in responses if r.status_code != 200) == Counter({
        ("RESOURCE_EXHAUSTED", "Subnet 'jobs' has no free addresses (needed 1, available 0)"): ATTEMPTS - WORKLOAD_ADDRESSES})
    assert ALLOCATION_FAILURES.labels("workload", "manual")._value.get() == failures + ATTEMPTS - WORKLOAD_ADDRESSES

    # the refused creates left no object and no CREATED event behind,
    listed = (await vmaas.get(f"{VMS}?limit=1000"))["items"]
    assert {vm["metadata"]["name"]: vm["id"] for vm in listed if vm["metadata"]["name"].startswith("vm-")} == created
    creations = [kind for _, change, kind in await outbox_after(vmaas.server.app, revision) if change == "CREATED"]
    assert Counter(creations)["compute_instance"] == WORKLOAD_ADDRESSES

    # the subnet has no address left,
    after = await vmaas.get(f"{PUBLIC}/subnets/{subnet['id']}")
    assert after["status"].get("available_addresses", 0) == 0  # proto3 JSON omits a zero

    # the 46 VMs run, each on its own address of the workload range: every one of .2–.47 once,
    async def all_running() -> bool:
        vms = [vm for vm in (await vmaas.get(f"{VMS}?limit=1000"))["items"] if vm["id"] in created.values()]
        return len(vms) == WORKLOAD_ADDRESSES and all(is_reachable(vm) for vm in vms)

    async with asyncio.timeout(60):
        while not await all_running():
            await asyncio.sleep(0.2)
    running = {vm["id"]: vm["status"] for vm in (await vmaas.get(f"{VMS}?limit=1000"))["items"] if vm["id"] in created.values()}
    addresses = sorted(ipaddress.ip_address(status["internal_ip_address"]) for status in running.values())
    assert addresses == [FIRST + offset for offset in range(WORKLOAD_ADDRESSES)] and addresses[-1] == LAST
    for status in running.values():
        assert status["compute_network_attachment_statuses"] == [
            {"subnet": subnet["id"], "ip_address": status["internal_ip_address"], "primary": True}]

    # and the IPAM rows are exactly those addresses, one per VM, with the range counted full.
    async with vmaas.server.app.store.read() as tx:
        rows = (await tx.conn.execute(select(ip_allocations).where(ip_allocations.c.scope == subnet["id"]))).all()
        [workload] = (await tx.conn.execute(
            select(ip_ranges).where(ip_ranges.c.scope == subnet["id"], ip_ranges.c.kind == "workload"))).all()
    assert sorted((row.owner_type, row.owner_id, row.kind, row.ordinal, str(ipaddress.ip_address(row.address)))
                  for row in rows) == sorted(
        ("compute_instance", vm_id, "workload", 0, status["internal_ip_address"]) for vm_id, status in running.items())
    assert (workload.size, workload.allocated_count, workload.next_unused) == (
        WORKLOAD_ADDRESSES, WORKLOAD_ADDRESSES, int(LAST) + 1)


async def _revision(vmaas: Vmaas) -> int:
    """The store's revision, from a List response."""
    return int((await vmaas.get(f"{PUBLIC}/subnets"))["revision"])
