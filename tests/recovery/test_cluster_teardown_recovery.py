"""A server killed (SIGKILL) while clusters with a virtual and a bare-metal node set are being torn
down, and started again: every cluster is deleted, and every host of the inventory is free, none
kept by a cluster that is gone (issue: hosts leaked by cluster teardown, with a crash)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import pytest

from osac.auth.subject import Role
from tests.support.server_process import ServerProcess, catalogue_ready, get_json

PUBLIC = "/api/fulfillment/v1"
PRIVATE = "/api/private/v1"
CLUSTERS = 2
MIXED = {"title": "Mixed", "node_sets": {"workers": {"host_type": "vm-standard", "size": 2},
                                         "metal": {"host_type": "bm-standard", "size": 2}},
         "spec_defaults": {"release_image": "quay.io/openshift-release-dev/ocp-release:4.17.0-x86_64"}}
READY = "CLUSTER_STATE_READY"


async def _hosts(admin: httpx.AsyncClient) -> dict[str, tuple[str, str]]:
    """Host name -> (owner id or "", its state) for every bare-metal host."""
    response = await admin.post(f"{PRIVATE}/simulator/list_hosts", json={"host_type": "bm-standard"})
    assert response.status_code == 200, response.text
    return {h["name"]: (h.get("owner", {}).get("id", ""), h.get("state", "")) for h in response.json()["hosts"]}


async def _clusters(alice: httpx.AsyncClient) -> list[dict[str, Any]]:
    return list((await get_json(alice, f"{PUBLIC}/clusters"))["items"])


async def _set_speed(admin: httpx.AsyncClient, speed: str) -> None:
    response = await admin.post(f"{PRIVATE}/simulator/set_speed", json={"speed": speed})
    assert response.status_code == 200, response.text


@pytest.mark.timeout(600)
async def test_hosts_of_clusters_killed_mid_teardown_are_all_released(db_url: str, tmp_path: Path) -> None:
    server = ServerProcess(tmp_path, db_url, speed="instant")
    try:
        await server.start()
        async with server.client() as admin:
            await catalogue_ready(admin)
            start = await _hosts(admin)
            assert {owner for owner, _ in start.values()} == {""}
            tenant = (await admin.post(f"{PUBLIC}/tenants", json={"metadata": {"name": "acme"}})).json()
            response = await admin.post(f"{PRIVATE}/cluster_templates", json={"metadata": {"name": "mixed"}, **MIXED})
            assert response.status_code == 200, response.text
            async with asyncio.timeout(60):
                while (await get_json(admin, f"{PUBLIC}/tenants/{tenant['id']}"))["status"].get("state") != "TENANT_STATE_READY":
                    await asyncio.sleep(0.1)
            async with server.client(Role.TENANT_ADMIN, ("acme",), "alice") as alice:
                for index in range(CLUSTERS):
                    response = await alice.post(f"{PUBLIC}/clusters", json={"metadata": {"name": f"mix-{index}"},
                                                                             "spec": {"template": "mixed"}})
                    assert response.status_code == 200, response.text
                async with asyncio.timeout(180):
                    while not ((clusters := await _clusters(alice)) and all(c["status"]["state"] == READY for c in clusters)):
                        await asyncio.sleep(0.2)
                held = {owner for owner, _ in (await _hosts(admin)).values()} - {""}
                assert held == {f"{c['id']}/metal" for c in clusters}
                # Teardown at a pace where the kill lands in its middle: the simulated machines
                # take seconds to go, and the hosts are still held when the server dies.
                await _set_speed(admin, "5")
                for cluster in clusters:
                    assert (await alice.delete(f"{PUBLIC}/clusters/{cluster['id']}")).status_code == 200
                async with asyncio.timeout(60):
                    while not all(c["status"].get("stage") for c in await _clusters(alice)):
                        await asyncio.sleep(0.1)
                assert {owner for owner, _ in (await _hosts(admin)).values()} - {""}, "killed before teardown ended"
        server.kill()
        await server.start()
        async with server.client(Role.TENANT_ADMIN, ("acme",), "alice") as alice:
            async with asyncio.timeout(300):
                while await _clusters(alice):
                    await asyncio.sleep(0.25)
        async with server.client() as admin:
            end = await _hosts(admin)
    finally:
        server.stop()
    assert end == start, "every host is free again, as it was before the clusters"
