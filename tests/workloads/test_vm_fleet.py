"""Fifty ComputeInstances with automatic external access, deleted together (instant speed):
afterwards no auto-provisioned object, fabric rule, port or address is left, and the manual
external IP attached to a VM deleted with them is kept, ALLOCATED, with its attachment detached
(``TargetDeleted``)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from sqlalchemy import func, select

from osac.ipam.schema import ip_allocations
from tests.support.vmaas import PUBLIC, VMS, Vmaas, is_reachable

FLEET = 50
AUTO = "osac.openshift.io/auto-provisioned"


async def _items(vmaas: Vmaas, collection: str) -> list[dict[str, Any]]:
    return list((await vmaas.get(f"{PUBLIC}/{collection}?limit=1000"))["items"])


async def _until(predicate: Any, timeout: float = 240.0) -> None:
    async with asyncio.timeout(timeout):
        while not await predicate():
            await asyncio.sleep(0.1)


async def _owned_addresses(vmaas: Vmaas, owner_type: str) -> int:
    async with vmaas.server.app.store.read() as tx:
        return int((await tx.conn.execute(
            select(func.count()).select_from(ip_allocations).where(ip_allocations.c.owner_type == owner_type)
        )).scalar_one())


@pytest.mark.timeout(900)  # fifty VMs through one SQLite writer take a minute or two under load
async def test_deleting_fifty_vms_leaves_nothing_auto_provisioned_and_keeps_the_manual_ip(vmaas: Vmaas) -> None:
    [subnet] = [s for s in await _items(vmaas, "subnets") if s["metadata"]["name"] == "default"]
    vn_id = subnet["spec"]["virtual_network"]
    pool_before = (await vmaas.admin.request("GET", "/api/private/v1/external_ip_pools")).json()["items"][0]["status"]

    vms = await asyncio.gather(*(vmaas.create(f"vm-{index:02}", auto_external_ip_attachment=True)
                                 for index in range(FLEET)))
    web = await vmaas.create("web")  # reached through a manual external IP
    ids = {vm["id"] for vm in [*vms, web]}

    async def all_public() -> bool:
        listed = [vm for vm in await _items(vmaas, "compute_instances") if vm["id"] in ids]
        return len(listed) == FLEET + 1 and all(
            is_reachable(vm) and (vm["id"] == web["id"] or vm["status"].get("external_ip_address")) for vm in listed)

    await _until(all_public)
    manual = (await vmaas.alice.request("POST", f"{PUBLIC}/external_ips",
                                        json={"metadata": {"name": "manual"}, "spec": {"pool": "public-v4"}})).json()

    async def manual_allocated() -> bool:
        got = await vmaas.get(f"{PUBLIC}/external_ips/{manual['id']}")
        return bool(got["status"].get("state") == "EXTERNAL_IP_STATE_ALLOCATED")

    await _until(manual_allocated)
    response = await vmaas.alice.request("POST", f"{PUBLIC}/external_ip_attachments", json={
        "metadata": {"name": "manual-web"}, "spec": {"external_ip": manual["id"], "compute_instance": web["id"]}})
    assert response.status_code == 200, response.text
    attachment = response.json()

    async def manual_attached() -> bool:
        got = await vmaas.get(f"{PUBLIC}/external_ip_attachments/{attachment['id']}")
        return bool(got["status"].get("state") == "EXTERNAL_IP_ATTACHMENT_STATE_READY")

    await _until(manual_attached)
    fabric = await vmaas.observation("fabric", vn_id)
    assert len(fabric["dnat"]) == FLEET + 1
    assert len([p for p in fabric["ports"] if p["host_name"].startswith("ci/")]) == FLEET + 1
    assert await _owned_addresses(vmaas, "compute_instance") == FLEET + 1

    responses = await asyncio.gather(*(vmaas.alice.request("DELETE", f"{VMS}/{vm_id}") for vm_id in ids))
    assert [r.status_code for r in responses] == [200] * (FLEET + 1)

    async def all_gone() -> bool:
        return not [vm for vm in await _items(vmaas, "compute_instances") if vm["id"] in ids]

    await _until(all_gone)
    auto_left = [f"{collection}/{item['metadata']['name']}"
                 for collection in ("external_ips", "external_ip_attachments")
                 for item in await _items(vmaas, collection) if AUTO in item["metadata"].get("labels", {})]
    assert auto_left == []
    async def manual_detached() -> bool:  # the target's deletion queues its attachments at once
        got = await vmaas.get(f"{PUBLIC}/external_ip_attachments/{attachment['id']}")
        return bool(got["status"].get("reason") == "TargetDeleted")

    await _until(manual_detached, timeout=10)  # the safety-net recheck would take 5 minutes
    kept = await vmaas.get(f"{PUBLIC}/external_ips/{manual['id']}")
    assert kept["status"]["state"] == "EXTERNAL_IP_STATE_ALLOCATED"

    fabric = await vmaas.observation("fabric", vn_id)
    assert fabric["dnat"] == []
    assert [p for p in fabric["ports"] if p["host_name"].startswith("ci/")] == []
    assert [r for r in fabric["reservations"] if r["host_name"].startswith("ci/")] == []
    assert await _owned_addresses(vmaas, "compute_instance") == 0
    after = await vmaas.get(f"{PUBLIC}/subnets/{subnet['id']}")
    assert after["status"]["available_addresses"] == subnet["status"]["available_addresses"]
    pool_after = (await vmaas.admin.request("GET", "/api/private/v1/external_ip_pools")).json()["items"][0]["status"]
    assert int(pool_after["allocated"]) == int(pool_before["allocated"]) + 1  # the manual one
    assert int(pool_after["total"]) == int(pool_after["allocated"]) + int(pool_after["available"])
