"""A server killed mid-provisioning (SIGKILL) and restarted converges with no duplicate fabric
object and no leaked address (networking issue, "killed reconciler")."""

from __future__ import annotations

import asyncio
from pathlib import Path

from sqlalchemy import create_engine, text

from osac.store.engine import sync_url
from tests.support.server_process import ServerProcess, catalogue_ready, get_json

TENANTS = 6


async def test_killed_server_converges_without_duplicates_or_leaks(db_url: str, tmp_path: Path) -> None:
    server = ServerProcess(tmp_path, db_url, speed="1")
    try:
        await server.start()
        async with server.client() as http:
            await catalogue_ready(http)  # the catalogue must be READY before tenants are onboarded
            for index in range(TENANTS):
                response = await http.post("/api/fulfillment/v1/tenants", json={"metadata": {"name": f"t{index}"}})
                assert response.status_code == 200, response.text
        # Operations take 2 s each at speed 1: the defaults are mid-provisioning now.
        server.kill()
        await server.start()
        async with server.client() as http:
            async with asyncio.timeout(120):
                while True:
                    tenants = (await get_json(http, "/api/private/v1/tenants"))["items"]
                    if len(tenants) == TENANTS and all(t["status"]["state"] == "TENANT_STATE_READY" for t in tenants):
                        break
                    await asyncio.sleep(0.25)
            eips = (await get_json(http, "/api/private/v1/external_ips"))["items"]
            pool = (await get_json(http, "/api/private/v1/external_ip_pools"))["items"][0]["status"]
            vns = (await get_json(http, "/api/private/v1/virtual_networks"))["items"]
            subnets = (await get_json(http, "/api/private/v1/subnets"))["items"]
    finally:
        server.stop()

    assert len(eips) == TENANTS and len({e["status"]["address"] for e in eips}) == TENANTS
    assert int(pool["allocated"]) == TENANTS and int(pool["total"]) == int(pool["allocated"]) + int(pool["available"])
    engine = create_engine(sync_url(db_url))
    with engine.connect() as conn:
        allocations = conn.execute(text("SELECT count(*) FROM ip_allocations")).scalar_one()
        networks = conn.execute(text("SELECT count(*) FROM sim_fabric_networks")).scalar_one()
        segments = conn.execute(text("SELECT count(*) FROM sim_fabric_segments WHERE kind = 'subnet'")).scalar_one()
        external = conn.execute(text("SELECT count(*) FROM sim_fabric_external_ips")).scalar_one()
        snat = conn.execute(text("SELECT count(*) FROM sim_fabric_snat")).scalar_one()
    engine.dispose()
    assert allocations == TENANTS, "exactly one address per ExternalIP, nothing leaked"
    assert networks == len(vns) == TENANTS
    assert segments == len(subnets) == TENANTS
    assert external == TENANTS and snat == TENANTS
