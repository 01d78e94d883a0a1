"""``osac serve`` stops within a second of SIGTERM when idle (the product target; 1.5 s allowed
for a loaded 2-core machine), ends an open watch stream with UNAVAILABLE and the revision to
resume from instead of holding the drain, and a restart finds everything it stored."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
from pathlib import Path

from tests.support.server_process import ServerProcess, catalogue_ready

#: The product target is 1 s; the margin is for a loaded test machine.
STOP_SECONDS = 1.5
PUBLIC = "/api/fulfillment/v1"


async def _terminate(server: ServerProcess) -> tuple[int | None, float]:
    """SIGTERM the server; its exit code (None if still running) and the seconds it took."""
    assert server.process is not None
    started = time.monotonic()
    os.kill(server.process.pid, signal.SIGTERM)
    while server.process.poll() is None and time.monotonic() - started < 10:
        await asyncio.sleep(0.01)
    return server.process.poll(), time.monotonic() - started


async def test_an_idle_server_stops_within_a_second_of_sigterm_and_restarts_with_its_data(tmp_path: Path) -> None:
    server = ServerProcess(tmp_path / "data", f"sqlite+aiosqlite:///{tmp_path / 'osac.sqlite'}", speed="60")
    await server.start()
    try:
        async with server.client() as admin:
            await catalogue_ready(admin)  # a tenant's default NAT needs a READY pool
            created = await admin.post(f"{PUBLIC}/tenants", json={"metadata": {"name": "acme"}})
            assert created.status_code == 200, created.text
            tenant = created.json()["id"]
            lines: list[str] = []

            async def watch() -> None:
                async with admin.stream("GET", "/api/events/v1/events") as response:
                    assert response.status_code == 200
                    async for line in response.aiter_lines():
                        lines.append(line)

            watching = asyncio.create_task(watch())
            await asyncio.sleep(1.0)  # idle: nothing but the open watch stream
            code, seconds = await _terminate(server)
            await asyncio.wait_for(watching, 5)
        assert code == 0, f"exit code {code}"
        assert seconds < STOP_SECONDS, f"osac serve took {seconds:.2f} s to stop"
        last = json.loads(lines[-1])["error"]
        assert last["code"] == 14  # UNAVAILABLE
        assert last["message"].startswith("the server is stopping; resume the watch from revision ")
        log = (tmp_path / "data" / "server-1.log").read_text()
        assert "Traceback" not in log and log.rstrip().endswith("INFO osac.serve: stopped")

        await server.start()
        async with server.client() as admin:
            found = await admin.get(f"{PUBLIC}/tenants/{tenant}")
            assert found.status_code == 200 and found.json()["metadata"]["name"] == "acme"
    finally:
        server.stop()

