"""Two server processes on one PostgreSQL database, sixteen clients creating VMs on one subnet
through the API until it is full: every workload address is handed out once, never one of the
VIP range, both servers took part, and the next create gets RESOURCE_EXHAUSTED with the spec's
message and persists nothing (networking.md §5.1, §5.4)."""

from __future__ import annotations

import asyncio
import ipaddress
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import create_engine, text

from osac.auth.subject import Role
from osac.store.engine import sync_url
from tests.support.server_process import ServerProcess, catalogue_ready, get_json

PUBLIC = "/api/fulfillment/v1"
CLIENTS_PER_SERVER = 8
CIDR = "10.99.1.0/24"
#: A /24 less network, gateway, broadcast and the /28 VIP range at its end.
WORKLOAD_ADDRESSES = 238


async def _ready(http: httpx.AsyncClient, collection: str, body: dict[str, Any]) -> dict[str, Any]:
    response = await http.post(f"{PUBLIC}/{collection}", json=body)
    assert response.status_code == 200, response.text
    path = f"{PUBLIC}/{collection}/{response.json()['id']}"
    async with asyncio.timeout(60):
        while not (obj := await get_json(http, path))["status"].get("state", "").endswith("_READY"):
            await asyncio.sleep(0.1)
    return dict(obj)


async def _networking(server: ServerProcess) -> dict[str, Any]:
    """Tenant ``acme`` READY with a READY subnet ``fill`` (CIDR) in its own virtual network."""
    async with server.client() as admin:
        await catalogue_ready(admin)
        await _ready(admin, "tenants", {"metadata": {"name": "acme"}})
    async with server.client(Role.TENANT_ADMIN, ("acme",), "alice") as alice:
        vn = await _ready(alice, "virtual_networks", {"metadata": {"name": "fill"}, "spec": {"ipv4_cidr": "10.99.0.0/16"}})
        return await _ready(alice, "subnets", {"metadata": {"name": "fill"},
                                               "spec": {"virtual_network": vn["id"], "ipv4_cidr": CIDR}})


async def test_sixteen_clients_on_two_servers_fill_a_subnet(pg_database: str, tmp_path: Path) -> None:
    setup = ServerProcess(tmp_path, pg_database)
    try:
        await setup.start()
        subnet = await _networking(setup)
    finally:
        setup.stop()
    servers = [ServerProcess(tmp_path, pg_database, controllers=False) for _ in range(2)]
    created: list[list[str]] = [[], []]
    refusals: list[httpx.Response] = []
    try:
        await asyncio.gather(*(server.start() for server in servers))

        async def client(number: int, server_index: int) -> None:
            async with servers[server_index].client(Role.TENANT_ADMIN, ("acme",), "alice") as alice:
                index = 0
                while True:
                    response = await alice.post(f"{PUBLIC}/compute_instances", json={
                        "metadata": {"name": f"vm-{server_index}-{number}-{index}"},
                        "spec": {"template": "fedora", "compute_network_attachments": [{"subnet": "fill"}]}})
                    if response.status_code != 200:
                        refusals.append(response)
                        return
                    created[server_index].append(response.json()["id"])
                    index += 1

        await asyncio.gather(*(client(number, server_index)
                               for server_index in range(2) for number in range(CLIENTS_PER_SERVER)))
        async with servers[1].client(Role.TENANT_ADMIN, ("acme",), "alice") as alice:
            after = await get_json(alice, f"{PUBLIC}/subnets/{subnet['id']}")
            listed = (await get_json(alice, f"{PUBLIC}/compute_instances?limit=1000"))["items"]
    finally:
        for server in servers:
            server.stop()

    assert len(refusals) == 2 * CLIENTS_PER_SERVER
    for refusal in refusals:
        assert refusal.status_code == 429, refusal.text
        assert refusal.json()["message"] == "Subnet 'fill' has no free addresses (needed 1, available 0)"
    assert all(len(ids) > 20 for ids in created), [len(ids) for ids in created]  # both servers took part
    ids = created[0] + created[1]
    assert len(ids) == len(set(ids)) == WORKLOAD_ADDRESSES
    assert {vm["id"] for vm in listed} == set(ids)  # a refused create left no object behind
    assert int(after["status"].get("available_addresses", 0)) == 0  # proto3 JSON omits a zero
    assert int(subnet["status"]["available_addresses"]) == WORKLOAD_ADDRESSES

    engine = create_engine(sync_url(pg_database))
    with engine.connect() as conn:
        rows = conn.execute(text(
            "SELECT owner_id, address FROM ip_allocations WHERE owner_type = 'compute_instance'")).all()
    engine.dispose()
    assert {row.owner_id for row in rows} == set(ids) and len(rows) == WORKLOAD_ADDRESSES
    network = ipaddress.ip_network(CIDR)
    addresses = [ipaddress.ip_address(int(row.address)) for row in rows]
    assert len(set(addresses)) == WORKLOAD_ADDRESSES
    vip_range = list(network.subnets(new_prefix=28))[-1]
    assert all(address in network and address not in vip_range for address in addresses)
    assert not any(address in (network.network_address + 1, network.broadcast_address) for address in addresses)
