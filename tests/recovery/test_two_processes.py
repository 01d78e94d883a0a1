"""Two ``osac serve`` processes on one PostgreSQL database: VMs with automatic external access
created through both, one process killed (SIGKILL) half-way. The survivor takes over every shard
of the dead one within its lease, every VM ends RUNNING with its external address, every address
is handed out once, the pool's counts are exact, no VM's spec is applied twice and no transition
is recorded twice. And an
attachment reconciled by one process gives a running VM reconciled by the other its address at
once, through the change feed alone."""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine, text

from bench.harness import shard_owners
from osac.auth.subject import Role
from osac.controllers.runtime.shards import DEFAULT_SHARDS, shard_of
from osac.store.engine import sync_url
from tests.support.server_process import ServerProcess, catalogue_ready, get_json

FLEET = 100
#: Creates in flight at once (as many as bench/vm_fleet.py's clients).
CLIENTS = 8
PUBLIC = "/api/fulfillment/v1"
AUTO = "osac.openshift.io/auto-provisioned"
#: Short leases, so that the survivor takes over within seconds.
CONFIG = "controllers: {lease_ttl_seconds: 3}\n"


def _public(vm: dict[str, Any]) -> bool:
    status = vm["status"]
    return (status.get("state") == "COMPUTE_INSTANCE_STATE_RUNNING"
            and bool(status.get("internal_ip_address")) and bool(status.get("external_ip_address")))


async def _vms(http: httpx.AsyncClient) -> list[dict[str, Any]]:
    return list((await get_json(http, f"{PUBLIC}/compute_instances?limit=1000"))["items"])


def _shard_holders(db_url: str) -> Counter[str]:
    return Counter(shard_owners(db_url).values())


async def _acme(server: ServerProcess) -> None:
    """The packaged catalogue READY and tenant ``acme`` READY (its default networking made)."""
    async with server.client() as admin:
        await catalogue_ready(admin)
        tenant = (await admin.post(f"{PUBLIC}/tenants", json={"metadata": {"name": "acme"}})).json()

        async def ready() -> bool:
            found = await get_json(admin, f"{PUBLIC}/tenants/{tenant['id']}")
            return found["status"].get("state") == "TENANT_STATE_READY"

        await _until(ready, 60)


@contextlib.asynccontextmanager
async def _deployment(db_url: str, data_dir: Path, *args: str) -> AsyncIterator[list[ServerProcess]]:
    """Two ``osac serve`` on ``db_url``, the shards dealt between them and tenant ``acme`` READY;
    both stopped (or found killed) at the end."""
    servers = [ServerProcess(data_dir, db_url, speed="instant", args=args) for _ in range(2)]
    try:
        for server in servers:
            await server.start()
        even = [DEFAULT_SHARDS // 2, DEFAULT_SHARDS // 2]
        await _until(lambda: sorted(_shard_holders(db_url).values()) == even, 30)
        await _acme(servers[0])
        yield servers
    finally:
        for server in servers:
            server.stop()


async def _until(condition: Any, timeout: float, interval: float = 0.2) -> Any:
    """The first true value of ``condition()`` (a coroutine function or a plain one)."""
    async with asyncio.timeout(timeout):
        while True:
            result = condition()
            if asyncio.iscoroutine(result):
                result = await result
            if result:
                return result
            await asyncio.sleep(interval)


@pytest.mark.timeout(600)
async def test_a_killed_process_s_shards_are_taken_over_and_its_vms_finish_without_duplicates(
    new_pg_database: str, tmp_path: Path
) -> None:
    db_url = new_pg_database
    config = tmp_path / "osac.yaml"
    config.write_text(CONFIG)
    async with _deployment(db_url, tmp_path / "data", "--config", str(config)) as servers:
        clients = [server.client(Role.TENANT_ADMIN, ("acme",), "alice") for server in servers]
        try:
            creating = asyncio.Semaphore(CLIENTS)

            async def create(index: int) -> None:
                async with creating:
                    response = await clients[index % 2].post(f"{PUBLIC}/compute_instances", json={
                        "metadata": {"name": f"vm-{index:02}"},
                        "spec": {"template": "fedora", "auto_external_ip_attachment": True}})
                assert response.status_code == 200, response.text

            await asyncio.gather(*(create(index) for index in range(FLEET)))

            async def half_way() -> bool:
                return 0 < sum(map(_public, await _vms(clients[1]))) < FLEET

            await _until(half_way, 240, 0.05)
            servers[0].kill()

            # the leases last 3 s; the survivor deals again at its next renewal (every 1 s)
            await _until(lambda: list(_shard_holders(db_url).values()) == [DEFAULT_SHARDS], 10)

            async def all_public() -> list[dict[str, Any]] | None:
                vms = await _vms(clients[1])
                return vms if len(vms) == FLEET and all(map(_public, vms)) else None

            vms = await _until(all_public, 300, 0.25)
            eips = (await get_json(clients[1], f"{PUBLIC}/external_ips?limit=1000"))["items"]
            attachments = (await get_json(clients[1], f"{PUBLIC}/external_ip_attachments?limit=1000"))["items"]
        finally:
            for client in clients:
                await client.aclose()
        async with servers[1].client() as admin:
            pool = (await get_json(admin, "/api/private/v1/external_ip_pools"))["items"][0]["status"]

    internal = [vm["status"]["internal_ip_address"] for vm in vms]
    external = [vm["status"]["external_ip_address"] for vm in vms]
    assert len(set(internal)) == FLEET and len(set(external)) == FLEET
    auto_eips = [e for e in eips if AUTO in e["metadata"].get("labels", {})]
    assert len(auto_eips) == FLEET and {e["status"]["address"] for e in auto_eips} == set(external)
    assert len(attachments) == FLEET
    assert all(a["status"]["state"] == "EXTERNAL_IP_ATTACHMENT_STATE_READY" for a in attachments)
    assert int(pool["allocated"]) == FLEET + 1  # the NAT gateway's and one per VM
    assert int(pool["total"]) == int(pool["allocated"]) + int(pool["available"])

    engine = create_engine(sync_url(db_url))
    with engine.connect() as conn:
        def count(query: str) -> int:
            return int(conn.execute(text(query)).scalar_one())

        assert count("SELECT count(*) FROM ip_allocations WHERE owner_type = 'compute_instance'") == FLEET
        assert count("SELECT count(*) FROM ip_allocations WHERE owner_type = 'external_ip'") == FLEET + 1
        assert count("SELECT count(*) FROM sim_virtual_machines WHERE gone_at IS NULL") == FLEET
        assert count("SELECT count(*) FROM sim_fabric_dnat") == FLEET
        # each VM's spec applied to the provider once (one generation) and started once
        assert count("SELECT count(*) FROM sim_virtual_machines WHERE generation = 1 AND incarnations = 1") == FLEET
        events = conn.execute(text(
            "SELECT object_id, data FROM lifecycle_events WHERE object_type = 'ComputeInstance' ORDER BY timestamp"
        )).all()
    engine.dispose()
    per_vm: dict[str, list[Any]] = {}
    for row in events:
        per_vm.setdefault(row.object_id, []).append(row.data)
    # each transition of each VM recorded once, whichever process made it, the killed one included
    assert sorted(per_vm) == sorted(vm["id"] for vm in vms)
    for vm_id, recorded in per_vm.items():
        reasons = Counter(event.get("reason") for event in recorded)
        assert reasons["Ready"] == 1 and max(reasons.values()) == 1, (vm_id, reasons)


@pytest.mark.timeout(300)
async def test_an_attachment_reconciled_by_one_process_reaches_a_running_vm_reconciled_by_the_other(
    new_pg_database: str, tmp_path: Path
) -> None:
    db_url = new_pg_database
    async with _deployment(db_url, tmp_path / "data") as servers:
        owners = shard_owners(db_url)
        async with servers[0].client() as admin:
            [pool] = (await get_json(admin, "/api/private/v1/external_ip_pools"))["items"]
        async with servers[0].client(Role.TENANT_ADMIN, ("acme",), "alice") as alice:
            crossing: list[tuple[str, str]] = []  # (VM id, attachment id) owned by different processes
            made = 0
            while len(crossing) < 2:  # each pair crosses with a chance of one half
                vms = []
                for index in range(made, made + 4):
                    response = await alice.post(f"{PUBLIC}/compute_instances", json={
                        "metadata": {"name": f"vm-{index:02}"}, "spec": {"template": "fedora"}})
                    assert response.status_code == 200, response.text
                    vms.append(response.json()["id"])
                made += 4

                async def running(ids: list[str] = vms) -> bool:
                    found = [await get_json(alice, f"{PUBLIC}/compute_instances/{vm_id}") for vm_id in ids]
                    return all(vm["status"].get("state") == "COMPUTE_INSTANCE_STATE_RUNNING" for vm in found)

                await _until(running, 120)
                # VMs RUNNING and settled: their next periodic look is RESYNC (30 s) away
                eips = []
                for vm_id in vms:
                    eip = await alice.post(f"{PUBLIC}/external_ips", json={
                        "metadata": {"name": f"eip-{vm_id}"}, "spec": {"pool": pool["metadata"]["name"]}})
                    assert eip.status_code == 200, eip.text
                    eips.append(eip.json()["id"])

                async def allocated(ids: list[str] = eips) -> bool:
                    found = [await get_json(alice, f"{PUBLIC}/external_ips/{eip_id}") for eip_id in ids]
                    return all(eip["status"].get("state") == "EXTERNAL_IP_STATE_ALLOCATED" for eip in found)

                await _until(allocated, 60)
                for vm_id, eip_id in zip(vms, eips, strict=True):
                    attachment = await alice.post(f"{PUBLIC}/external_ip_attachments", json={
                        "spec": {"external_ip": eip_id, "compute_instance": vm_id}})
                    assert attachment.status_code == 200, attachment.text
                    attachment_id = attachment.json()["id"]
                    if owners[shard_of(vm_id, DEFAULT_SHARDS)] != owners[shard_of(attachment_id, DEFAULT_SHARDS)]:
                        crossing.append((vm_id, attachment_id))

            async def addressed() -> bool:
                for vm_id, attachment_id in crossing:
                    vm = await get_json(alice, f"{PUBLIC}/compute_instances/{vm_id}")
                    attachment = await get_json(alice, f"{PUBLIC}/external_ip_attachments/{attachment_id}")
                    ready = attachment["status"].get("state") == "EXTERNAL_IP_ATTACHMENT_STATE_READY"
                    if not ready or not vm["status"].get("external_ip_address"):
                        return False
                return True

            # well before the VMs' own periodic look: the attachment's change queued each VM
            await _until(addressed, 15)


@pytest.mark.timeout(300)
async def test_a_fault_set_through_one_process_reaches_the_vm_another_process_reconciles(
    new_pg_database: str, tmp_path: Path
) -> None:
    db_url = new_pg_database
    async with _deployment(db_url, tmp_path / "data") as servers:
        owners = shard_owners(db_url)
        holder = {f"{os.uname().nodename}-{server.pid}": server for server in servers}
        assert sorted(holder) == sorted(set(owners.values()))
        async with servers[0].client(Role.TENANT_ADMIN, ("acme",), "alice") as alice:
            created = await alice.post(f"{PUBLIC}/compute_instances", json={
                "metadata": {"name": "vm-paused"}, "spec": {"template": "fedora"}})
            assert created.status_code == 200, created.text
            vm_id = created.json()["id"]

            async def vm_state(expected: str) -> bool:
                vm = await get_json(alice, f"{PUBLIC}/compute_instances/{vm_id}")
                return vm["status"].get("state") == expected

            await _until(lambda: vm_state("COMPUTE_INSTANCE_STATE_RUNNING"), 120)
            # the fault is set through the process that does not reconcile the VM
            elsewhere = next(server for name, server in holder.items() if name != owners[shard_of(vm_id, DEFAULT_SHARDS)])
            async with elsewhere.client() as admin:
                fault = await admin.post("/api/private/v1/simulator/faults", json={
                    "fault": "vm_status", "target_kind": "compute_instance", "target_id": vm_id,
                    "params": {"printable_status": "Paused"}})
                assert fault.status_code == 200, fault.text
                # well before the VM's periodic look (30 s): the fault's signal reached its owner
                await _until(lambda: vm_state("COMPUTE_INSTANCE_STATE_PAUSED"), 10)
                cleared = await admin.delete(f"/api/private/v1/simulator/faults/{fault.json()['id']}")
                assert cleared.status_code == 200, cleared.text
                await _until(lambda: vm_state("COMPUTE_INSTANCE_STATE_RUNNING"), 10)
