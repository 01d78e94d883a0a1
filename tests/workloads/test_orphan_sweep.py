"""The sweep for orphaned auto-provisioned children (networking.md §10.2): a VM whose finalizers a
provider admin removed privately is archived at once, before its cleanup ran; its automatic
external IP and attachment would then hold an external address forever. The sweep deletes them
through the normal path, attachment first, and counts them."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from osac.auth.subject import Role, Subject
from osac.model import registry
from osac.server.settings import merge_config
from osac.services.core.context import Caller
from tests.support.vmaas import FAST_RETRIES, PRIVATE, PUBLIC, VMS, Vmaas, metric, serving_vmaas

PROVIDER_ADMIN = Caller(Subject("admin", (), frozenset({Role.PROVIDER_ADMIN})), private=True)
#: A sweep every quarter second instead of every ten minutes.
SWEEPING = merge_config(FAST_RETRIES, {"networking": {"orphan_sweep_interval": 0.25}})


@pytest.fixture
async def sweeping(db_url: str, tmp_path: Path) -> AsyncIterator[Vmaas]:
    async with serving_vmaas(db_url, tmp_path, SWEEPING) as found:
        yield found


async def _pool_allocated(vmaas: Vmaas) -> int:
    return sum(int(p["status"].get("allocated", 0)) for p in (await vmaas.admin.request(
        "GET", f"{PRIVATE}/external_ip_pools")).json()["items"])


async def _until_allocated(vmaas: Vmaas, count: int, timeout: float = 20.0) -> None:
    """The pools' ``allocated`` counters add up to ``count`` (they follow each allocation and
    each confirmed release)."""
    async with asyncio.timeout(timeout):
        while await _pool_allocated(vmaas) != count:
            await asyncio.sleep(0.05)


async def _gone(vmaas: Vmaas, path: str, timeout: float = 20.0) -> None:
    async with asyncio.timeout(timeout):
        while (await vmaas.admin.request("GET", path)).status_code != 404:
            await asyncio.sleep(0.05)


async def _public_vm(vmaas: Vmaas, name: str, before: int) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """A new VM with automatic external access, public: (VM, its ExternalIP, its attachment)."""
    vm = await vmaas.create(name, auto_external_ip_attachment=True)
    await vmaas.until(vm["id"], lambda v: bool(v["status"].get("external_ip_address")))
    [eip] = [e for e in (await vmaas.get(f"{PUBLIC}/external_ips"))["items"] if e["metadata"]["name"] == f"auto-{vm['id']}"]
    [attachment] = (await vmaas.get(f"{PUBLIC}/external_ip_attachments"))["items"]
    await _until_allocated(vmaas, before + 2)
    return vm, eip, attachment


async def _archive_without_cleanup(vmaas: Vmaas, vm_id: str) -> None:
    """What a provider admin's private Update emptying the VM's finalizers and its Delete do,
    in one transaction of the service's: the VM's reconciler, which puts its finalizer back on a
    live VM at its next pass, cannot pass in between (as it can between two requests)."""
    app = vmaas.server.app
    service = app.services["compute_instance"]
    async with app.store.write() as tx:
        emptied = registry.get("compute_instance").private_class()(id=vm_id)
        await service.update_in(tx, PROVIDER_ADMIN, emptied, ["metadata.finalizers"], lock=False)
        await service.delete_in(tx, PROVIDER_ADMIN, vm_id)


async def test_children_of_a_vm_archived_without_its_cleanup_are_swept(sweeping: Vmaas) -> None:
    vmaas = sweeping
    # Given a VM with automatic external access, public, and a manual external IP beside it,
    before = await _pool_allocated(vmaas)
    [pool] = (await vmaas.admin.request("GET", f"{PRIVATE}/external_ip_pools")).json()["items"]
    manual = (await vmaas.alice.request("POST", f"{PUBLIC}/external_ips", json={
        "metadata": {"name": "kept"}, "spec": {"pool": pool["metadata"]["name"]}})).json()
    vm, eip, attachment = await _public_vm(vmaas, "web", before)
    swept_attachments = await metric(vmaas, 'osac_network_orphans_deleted_total{type="external_ip_attachment"}')
    swept_eips = await metric(vmaas, 'osac_network_orphans_deleted_total{type="external_ip"}')
    # when a provider admin removes its finalizers privately and deletes it (archived at once),
    await _archive_without_cleanup(vmaas, vm["id"])
    assert (await vmaas.alice.request("GET", f"{VMS}/{vm['id']}")).status_code == 404

    # then the sweep deletes the attachment, then the external IP, through their own teardown:
    await _gone(vmaas, f"{PUBLIC}/external_ip_attachments/{attachment['id']}")
    await _gone(vmaas, f"{PUBLIC}/external_ips/{eip['id']}")
    await _until_allocated(vmaas, before + 1)  # the address is back in the pool
    subnet = await vmaas.get(f"{PUBLIC}/subnets/{vm['spec']['compute_network_attachments'][0]['subnet']}")
    fabric = await vmaas.observation("fabric", subnet["spec"]["virtual_network"])
    assert fabric["dnat"] == [] and eip["status"]["address"] not in str(fabric)
    assert await metric(vmaas, 'osac_network_orphans_deleted_total{type="external_ip_attachment"}') == swept_attachments + 1
    assert await metric(vmaas, 'osac_network_orphans_deleted_total{type="external_ip"}') == swept_eips + 1
    # and the manual external IP, not auto-provisioned, is kept.
    kept = (await vmaas.alice.request("GET", f"{PUBLIC}/external_ips/{manual['id']}")).json()
    assert kept["status"]["state"] == "EXTERNAL_IP_STATE_ALLOCATED"


async def test_children_of_a_live_vm_are_left_alone(sweeping: Vmaas) -> None:
    vmaas = sweeping
    vm = await vmaas.create("web", auto_external_ip_attachment=True)
    await vmaas.until(vm["id"], lambda v: bool(v["status"].get("external_ip_address")))
    await asyncio.sleep(1.0)  # four sweeps
    attachments = (await vmaas.get(f"{PUBLIC}/external_ip_attachments"))["items"]
    assert [(a["status"]["state"], "deletion_timestamp" in a["metadata"]) for a in attachments] == [
        ("EXTERNAL_IP_ATTACHMENT_STATE_READY", False)]
    vm_now = await vmaas.get(f"{VMS}/{vm['id']}")
    assert vm_now["status"]["external_ip_address"]
