"""Fixtures for the CLI tests: a real server on free ports and a way to run ``osac`` against it.

The server is the real ``Application`` (SQLite in a temporary directory, no reconcilers), started
once per session on an event loop in a background thread; the CLI runs in the test thread through
Typer's ``CliRunner`` and reaches it over gRPC on loopback, exactly as from a shell. Each test has
its own saved-login file (``OSAC_CONFIG``), so logins never leak between tests. Tests that need
objects to become READY by themselves start their own server with the reconcilers and the
simulator at instant speed (``BackgroundServer(..., live=True)``).
"""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from osac.cli.main import app
from osac.server.app import Application
from osac.server.settings import DEFAULT_CONFIG, Settings, merge_config

START_TIMEOUT = 60.0
#: The configuration of a live server: every provider simulated, without simulated delays.
INSTANT = merge_config(DEFAULT_CONFIG, {"simulator": {"speed": "instant"}})
#: Variables of the outer environment that would change what the CLI does.
CLEARED_ENV = ("OSAC_ADDRESS", "OSAC_TOKEN", "OSAC_DATA_DIR", "OSAC_DB_URL", "EDITOR")


class BackgroundServer:
    """An ``Application`` running on its own event loop in a daemon thread; ``live``: with the
    reconcilers and the simulator at instant speed (or as ``config`` says), on SQLite in
    ``data_dir`` unless ``db_url`` names another database."""

    def __init__(self, data_dir: Path, *, live: bool = False, db_url: str | None = None,
                 config: dict[str, Any] | None = None) -> None:
        self.data_dir = data_dir
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="osac-test-server", daemon=True)
        self.application = Application(
            Settings(
                data_dir=data_dir,
                db_url=db_url,
                grpc_address="127.0.0.1:0",
                http_address="127.0.0.1:0",
                run_controllers=live,
                config=config or (INSTANT if live else merge_config(DEFAULT_CONFIG, {})),
            )
        )

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.application.grpc_port}"

    def start(self) -> None:
        self.thread.start()
        asyncio.run_coroutine_threadsafe(self.application.start(), self.loop).result(START_TIMEOUT)

    def stop(self) -> None:
        asyncio.run_coroutine_threadsafe(self.application.stop(), self.loop).result(START_TIMEOUT)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(START_TIMEOUT)
        self.loop.close()


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BackgroundServer]:
    running = BackgroundServer(tmp_path_factory.mktemp("osac-data"))
    running.start()
    yield running
    running.stop()


@dataclass
class Osac:
    """Runs ``osac ARGS`` as a user would, with this test's saved login."""

    server: BackgroundServer
    config_file: Path
    runner: CliRunner

    def __call__(self, *args: str, input: str | None = None, env: dict[str, str] | None = None) -> Result:
        environment: dict[str, str | None] = {name: None for name in CLEARED_ENV}
        environment["OSAC_CONFIG"] = str(self.config_file)
        environment.update(env or {})
        return self.runner.invoke(app, list(args), input=input, env=environment, catch_exceptions=False)

    def ok(self, *args: str, input: str | None = None, env: dict[str, str] | None = None) -> str:
        """Run and require success; the standard output."""
        result = self(*args, input=input, env=env)
        assert result.exit_code == 0, f"osac {' '.join(args)} failed ({result.exit_code}): {result.output}"
        return result.stdout

    def login(self, role: str, *tenants: str, user: str = "alice") -> None:
        tenant_options = [word for tenant in tenants for word in ("--tenant", tenant)]
        self.ok(
            "login", self.server.address, "--dev", "--role", role, "--user", user,
            "--data-dir", str(self.server.data_dir), *tenant_options,
        )


@pytest.fixture
def osac(server: BackgroundServer, tmp_path: Path) -> Osac:
    return Osac(server, tmp_path / "config" / "osac.yaml", CliRunner())


@pytest.fixture(scope="session")
def admin(server: BackgroundServer, tmp_path_factory: pytest.TempPathFactory) -> Osac:
    """A provider admin. With no reconcilers running, it marks objects READY itself through the
    private API, as a reconciler would (``edit --private --set status.state=READY``)."""
    provider_admin = Osac(server, tmp_path_factory.mktemp("admin") / "osac.yaml", CliRunner())
    provider_admin.login("provider-admin", user="root")
    return provider_admin


def mark_ready(admin: Osac, kind: str, name: str) -> None:
    admin.ok("edit", kind, name, "--private", "--set", "status.state=READY")


@pytest.fixture(scope="session")
def tenants(admin: Osac) -> tuple[str, str]:
    """Tenants ``acme`` and ``other``, created by a provider admin through the CLI once the
    catalogue their default networking needs is READY."""
    mark_ready(admin, "network_class", "default")
    mark_ready(admin, "external_ip_pool", "public-v4")
    for name in ("acme", "other"):
        assert admin.ok("create", "tenant", "--name", name).startswith(f"Tenant '{name}' created (id ")
    return "acme", "other"


def table(text: str) -> list[dict[str, str]]:
    """The rows of an ``osac get`` table as {header: cell}, cut at the header positions."""
    header, *lines = text.rstrip("\n").splitlines()
    names = re.split(r"\s{2,}", header.strip())
    starts: list[int] = []
    for name in names:
        starts.append(header.index(name, starts[-1] + 1 if starts else 0))
    ends = [*starts[1:], None]
    return [
        {name: line[start:end].strip() for name, start, end in zip(names, starts, ends, strict=True)}
        for line in lines
    ]
