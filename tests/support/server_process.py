"""``osac serve`` in a child process, for tests that kill it (SIGKILL) and start it again on the
same database and data directory."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx

from osac.auth.dev_issuer import DevIssuer
from osac.auth.subject import Role
from osac.clock import SystemClock


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class ServerProcess:
    """One ``osac serve`` at a fixed HTTP port (kept across restarts)."""

    def __init__(self, data_dir: Path, db_url: str, speed: str = "instant", *, controllers: bool = True,
                 args: tuple[str, ...] = ()) -> None:
        self.data_dir, self.db_url, self.speed, self.controllers = data_dir, db_url, speed, controllers
        self.args = args
        self.base_url = f"http://127.0.0.1:{free_port()}"
        self.process: subprocess.Popen[bytes] | None = None
        self.starts = 0

    async def start(self, timeout: float = 60) -> None:
        command = [
            sys.executable, "-c", "from osac.cli.main import app; app()", "serve",
            "--data-dir", str(self.data_dir), "--db-url", self.db_url,
            "--grpc-address", f"127.0.0.1:{free_port()}",
            "--http-address", self.base_url.removeprefix("http://"),
            "--simulator-speed", self.speed,
            *([] if self.controllers else ["--no-controllers"]),
            *self.args,
        ]
        # the server's log goes next to its data, one file per start, for the failure's reader
        self.starts += 1
        self.data_dir.mkdir(parents=True, exist_ok=True)
        with open(self.data_dir / f"server-{self.starts}.log", "wb") as log:
            self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        async with asyncio.timeout(timeout), httpx.AsyncClient(base_url=self.base_url) as http:
            while True:
                try:
                    if (await http.get("/healthz")).status_code == 200:
                        return
                except httpx.TransportError:
                    pass
                await asyncio.sleep(0.1)

    @property
    def pid(self) -> int:
        """The server process's id (its controllers' lease holder is ``<node name>-<pid>``)."""
        assert self.process is not None
        return self.process.pid

    def kill(self) -> None:
        """SIGKILL the server and everything it started: no shutdown code runs."""
        assert self.process is not None
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            self.process.wait(timeout=20)

    def client(self, role: Role = Role.PROVIDER_ADMIN, tenants: tuple[str, ...] = (), user: str = "root") -> httpx.AsyncClient:
        token = DevIssuer(self.data_dir, clock=SystemClock()).mint(user, list(tenants), role)
        return httpx.AsyncClient(base_url=self.base_url, headers={"authorization": f"Bearer {token}"}, timeout=30)


async def get_json(http: httpx.AsyncClient, path: str) -> Any:
    response = await http.get(path)
    assert response.status_code == 200, response.text
    return response.json()


async def catalogue_ready(http: httpx.AsyncClient, timeout: float = 60) -> None:
    """Wait until the packaged network class and external IP pools are READY."""
    async with asyncio.timeout(timeout):
        while True:
            classes = (await get_json(http, "/api/private/v1/network_classes"))["items"]
            pools = (await get_json(http, "/api/private/v1/external_ip_pools"))["items"]
            states = [item.get("status", {}).get("state", "") for item in classes + pools]
            if states and all(state.endswith("_READY") for state in states):
                return
            await asyncio.sleep(0.1)
