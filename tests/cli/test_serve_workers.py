"""``osac serve --workers N`` and ``osac controllers``: several processes of one deployment on one
PostgreSQL database, sharing the ports (workers) or splitting the roles (API, controllers)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
from sqlalchemy import create_engine, text

from osac.cli.errors import CliError
from osac.cli.workers import check_workers
from osac.clock import FakeClock
from osac.controllers.runtime.shards import DEFAULT_SHARDS, SHARD_PREFIX
from osac.server.settings import Settings
from osac.store.engine import sync_url
from tests.support.server_process import ServerProcess, catalogue_ready, free_port, get_json

from .test_serve import ServeProcess

SERVING = re.compile(r"serving with 2 workers: gRPC on (\S+), HTTP on (\S+)")
TOOK = re.compile(r"\[worker (\d)\] osac\.controllers\.runtime\.manager: \S+-(\d+) took shards")
PUBLIC = "/api/fulfillment/v1"


def test_several_workers_need_postgresql_and_the_system_clock(tmp_path: Path) -> None:
    sqlite = Settings(data_dir=tmp_path, workers=2)
    with pytest.raises(CliError, match=r"--workers 2: several processes need PostgreSQL"):
        check_workers(sqlite)
    postgres = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
    with pytest.raises(CliError, match=r"--workers 2: simulator.clock 'fake' is one process's clock"):
        check_workers(Settings(data_dir=tmp_path, db_url=postgres, workers=2, clock=FakeClock(datetime.now(UTC))))
    with pytest.raises(CliError, match=r"--workers 65: expected a number from 1 to 64"):
        check_workers(Settings(data_dir=tmp_path, db_url=postgres, workers=65))
    with pytest.raises(CliError, match=r"osac controllers shares the work .* with the embedded SQLite database"):
        check_workers(Settings(data_dir=tmp_path, serve_api=False))
    check_workers(Settings(data_dir=tmp_path, db_url=postgres, workers=2))
    check_workers(Settings(data_dir=tmp_path))


def test_serve_refuses_several_workers_on_sqlite(tmp_path: Path) -> None:
    process = ServeProcess(tmp_path / "data", "--workers", "2")
    code = process.finish()
    output = "".join(process.log)
    assert code == 1
    assert "Error: --workers 2: several processes need PostgreSQL" in output and "Traceback" not in output


def _shard_holders(db_url: str) -> dict[str, int]:
    engine = create_engine(sync_url(db_url))
    with engine.connect() as conn:
        rows = conn.execute(text("SELECT holder, count(*) AS n FROM leases WHERE name LIKE :prefix "
                                 "AND expires_at > now() GROUP BY holder"), {"prefix": f"{SHARD_PREFIX}%"})
        holders = {row.holder: int(row.n) for row in rows}
    engine.dispose()
    return holders


async def _eventually(condition, timeout: float = 30) -> None:  # type: ignore[no-untyped-def]
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.2)


async def test_two_workers_share_the_ports_and_the_shards_and_a_killed_one_is_started_again(
    new_pg_database: str, tmp_path: Path
) -> None:
    config = tmp_path / "osac.yaml"
    config.write_text("controllers: {lease_ttl_seconds: 3}\n")
    server = ServerProcess(tmp_path / "data", new_pg_database, args=("--workers", "2", "--config", str(config)))
    log = tmp_path / "data" / "server-1.log"
    await server.start()
    try:
        await _eventually(lambda: "serving with 2 workers" in log.read_text())
        listening = [line for line in log.read_text().splitlines() if "HTTP listening on" in line]
        assert [line.split("[worker ")[1][0] for line in listening] == ["1", "2"]
        await _eventually(lambda: sorted(_shard_holders(new_pg_database).values()) == [8, 8])
        first = sorted(_shard_holders(new_pg_database))

        async with server.client() as admin:
            for _ in range(10):  # new connections, spread by the kernel over both workers
                async with server.client() as fresh:
                    assert (await fresh.get("/healthz")).status_code == 200
            await catalogue_ready(admin)
            tenant = (await admin.post(f"{PUBLIC}/tenants", json={"metadata": {"name": "acme"}})).json()

            async def ready() -> bool:
                found = await get_json(admin, f"{PUBLIC}/tenants/{tenant['id']}")
                return bool(found["status"].get("state") == "TENANT_STATE_READY")

            async with asyncio.timeout(60):
                while not await ready():
                    await asyncio.sleep(0.2)

            victim = int(first[0].rsplit("-", 1)[1])
            os.kill(victim, signal.SIGKILL)
            await _eventually(lambda: f"(pid {victim}) ended with exit code -9" in log.read_text())
            assert (await admin.get("/healthz")).status_code == 200  # the other worker answers
            # started again: two members again, the new one with the dead one's share
            await _eventually(lambda: len(h := _shard_holders(new_pg_database)) == 2
                              and sorted(h.values()) == [8, 8] and sorted(h) != first)
            assert (await admin.get(f"{PUBLIC}/tenants/{tenant['id']}")).status_code == 200
    finally:
        assert server.process is not None
        server.process.send_signal(signal.SIGTERM)  # the parent only: it stops its workers
        code = server.process.wait(timeout=30)
    output = log.read_text()
    assert code == 0, output[-3000:]
    assert output.rstrip().endswith("INFO osac.serve: stopped"), output[-2000:]
    assert output.count("osac.serve: stopped") == 3  # the surviving worker, the restarted one, the parent
    assert "Traceback" not in output


async def test_api_and_controller_processes_split_the_roles(new_pg_database: str, tmp_path: Path) -> None:
    """``osac serve --no-controllers`` serves the API; ``osac controllers`` reconciles what it stores
    and serves only /healthz and /metrics."""
    api = ServerProcess(tmp_path / "data", new_pg_database, controllers=False)
    await api.start()
    controllers_address = f"127.0.0.1:{free_port()}"
    controllers = await _start_controllers(tmp_path, new_pg_database, controllers_address)
    try:
        async with httpx.AsyncClient(base_url=f"http://{controllers_address}") as http:
            assert (await http.get("/healthz")).status_code == 200
            assert "osac_reconcile_total" in (await http.get("/metrics")).text
            assert (await http.get(f"{PUBLIC}/tenants")).status_code == 404
        await _eventually(lambda: list(_shard_holders(new_pg_database).values()) == [DEFAULT_SHARDS])
        async with api.client() as admin:
            await catalogue_ready(admin)
            tenant = (await admin.post(f"{PUBLIC}/tenants", json={"metadata": {"name": "acme"}})).json()
            async with asyncio.timeout(60):
                while (await get_json(admin, f"{PUBLIC}/tenants/{tenant['id']}"))["status"].get(
                        "state") != "TENANT_STATE_READY":
                    await asyncio.sleep(0.2)
    finally:
        api.stop()
        controllers.send_signal(signal.SIGTERM)
        assert controllers.wait(timeout=30) == 0


async def _start_controllers(tmp_path: Path, db_url: str, http_address: str) -> subprocess.Popen[bytes]:
    log = open(tmp_path / "controllers.log", "wb")  # noqa: SIM115 - the process writes it until it ends
    process = subprocess.Popen([
        sys.executable, "-c", "from osac.cli.main import app; app()", "controllers", "--data-dir",
        str(tmp_path / "data"), "--db-url", db_url, "--http-address", http_address, "--simulator-speed", "instant",
    ], stdout=log, stderr=subprocess.STDOUT)
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(60), httpx.AsyncClient(base_url=f"http://{http_address}") as http:
            while process.poll() is None:
                try:
                    if (await http.get("/healthz")).status_code == 200:
                        return process
                except httpx.TransportError:
                    pass
                await asyncio.sleep(0.1)
    process.kill()
    raise AssertionError(f"osac controllers did not answer /healthz (exit code {process.wait()}):\n"
                         f"{(tmp_path / 'controllers.log').read_text()[-3000:]}")
