"""A server killed mid-provisioning (SIGKILL) and restarted converges with no duplicate fabric
object and no leaked address (networking issue, "killed reconciler")."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import httpx
from sqlalchemy import create_engine, text

from osac.auth.dev_issuer import DevIssuer
from osac.auth.subject import Role
from osac.clock import SystemClock
from osac.store.engine import sync_url

TENANTS = 6


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _start(data_dir: Path, db_url: str, http_port: int) -> subprocess.Popen[bytes]:
    command = [
        sys.executable, "-c", "from osac.cli.main import app; app()", "serve",
        "--data-dir", str(data_dir), "--db-url", db_url,
        "--grpc-address", f"127.0.0.1:{_free_port()}", "--http-address", f"127.0.0.1:{http_port}",
        "--simulator-speed", "1",
    ]
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)


async def _wait_healthy(base: str, timeout: float = 60) -> None:
    async with asyncio.timeout(timeout), httpx.AsyncClient(base_url=base) as http:
        while True:
            try:
                if (await http.get("/healthz")).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            await asyncio.sleep(0.1)


async def _catalogue_ready(http: httpx.AsyncClient) -> bool:
    classes = (await _get(http, "/api/private/v1/network_classes"))["items"]
    pools = (await _get(http, "/api/private/v1/external_ip_pools"))["items"]
    states = [item.get("status", {}).get("state", "") for item in classes + pools]
    return bool(states) and all(state.endswith("_READY") for state in states)


async def _get(http: httpx.AsyncClient, path: str) -> dict:
    response = await http.get(path)
    assert response.status_code == 200, response.text
    return response.json()


async def test_killed_server_converges_without_duplicates_or_leaks(db_url: str, tmp_path: Path) -> None:
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    server = _start(tmp_path, db_url, port)
    try:
        await _wait_healthy(base)
        token = DevIssuer(tmp_path, clock=SystemClock()).mint("root", [], Role.PROVIDER_ADMIN)
        headers = {"authorization": f"Bearer {token}"}
        async with httpx.AsyncClient(base_url=base, headers=headers, timeout=30) as http:
            async with asyncio.timeout(60):  # the catalogue must be READY before tenants are onboarded
                while not await _catalogue_ready(http):
                    await asyncio.sleep(0.1)
            for index in range(TENANTS):
                response = await http.post("/api/fulfillment/v1/tenants", json={"metadata": {"name": f"t{index}"}})
                assert response.status_code == 200, response.text
        # Operations take 2 s each at speed 1: the defaults are mid-provisioning now.
        os.killpg(server.pid, signal.SIGKILL)
        server.wait(timeout=10)
        server = _start(tmp_path, db_url, port)
        await _wait_healthy(base)
        async with httpx.AsyncClient(base_url=base, headers=headers, timeout=30) as http:
            async with asyncio.timeout(120):
                while True:
                    tenants = (await _get(http, "/api/private/v1/tenants"))["items"]
                    if len(tenants) == TENANTS and all(t["status"]["state"] == "TENANT_STATE_READY" for t in tenants):
                        break
                    await asyncio.sleep(0.25)
            eips = (await _get(http, "/api/private/v1/external_ips"))["items"]
            pool = (await _get(http, "/api/private/v1/external_ip_pools"))["items"][0]["status"]
            vns = (await _get(http, "/api/private/v1/virtual_networks"))["items"]
            subnets = (await _get(http, "/api/private/v1/subnets"))["items"]
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=20)

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
