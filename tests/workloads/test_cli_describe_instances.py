"""``osac describe computeinstance`` / ``baremetalinstance`` of an instance with automatic external
access (docs/cli.md, Describe): the external address under the state, and an Auto-provisioned
section naming the automatic ExternalIP with its address and its attachment with its target
address, each with its state and id, all equal to what the API returns.

The server runs the reconcilers and the simulator at instant speed, on a thread of its own so
that the CLI (Typer's ``CliRunner`` in the test thread) reaches it over gRPC as from a shell;
it runs on each test database (SQLite and PostgreSQL).
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from osac.server.app import Application
from osac.server.settings import Settings
from tests.cli.conftest import BackgroundServer, Osac
from tests.support.bmaas import FAST_GATES

TENANT = "acme"
#: Real seconds to wait for the reconcilers (instant speed: a few hundred milliseconds each).
CONVERGE = 30.0


class LiveServer(BackgroundServer):
    """``BackgroundServer`` with the reconcilers, on the test's database."""

    def __init__(self, data_dir: Path, db_url: str) -> None:  # replaces the base class set-up
        self.data_dir = data_dir
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="osac-test-server", daemon=True)
        self.application = Application(Settings(
            data_dir=data_dir, db_url=db_url, grpc_address="127.0.0.1:0", http_address="127.0.0.1:0",
            run_controllers=True, config=FAST_GATES))


def get(osac: Osac, kind: str, name: str, *flags: str) -> dict[str, Any]:
    return json.loads(osac.ok("get", kind, name, "-o", "json", *flags))  # type: ignore[no-any-return]


def until(osac: Osac, kind: str, name: str, predicate: Callable[[dict[str, Any]], bool], *flags: str
          ) -> dict[str, Any]:
    deadline = time.monotonic() + CONVERGE
    while not predicate(found := get(osac, kind, name, *flags)):
        assert time.monotonic() < deadline, f"{kind} {name} never matched; last: {found}"
        time.sleep(0.05)
    return found


def state_is(state: str) -> Callable[[dict[str, Any]], bool]:
    return lambda obj: str(obj.get("status", {}).get("state", "")).endswith(f"_STATE_{state}")


@pytest.fixture
def alice(db_url: str, tmp_path: Path) -> Iterator[Osac]:
    """A tenant admin of ``acme``, onboarded (default networking READY) on a live server."""
    server = LiveServer(tmp_path, db_url)
    server.start()
    try:
        root = Osac(server, tmp_path / "root" / "osac.yaml", CliRunner())
        root.login("provider-admin", user="root")
        until(root, "network_class", "default", state_is("READY"), "--private")  # states are private here
        until(root, "external_ip_pool", "public-v4", state_is("READY"), "--private")
        root.ok("create", "tenant", TENANT)
        until(root, "tenant", TENANT, state_is("READY"))
        tenant_admin = Osac(server, tmp_path / "alice" / "osac.yaml", CliRunner())
        tenant_admin.login("tenant-admin", TENANT, user="alice")
        yield tenant_admin
    finally:
        server.stop()


def auto_section(lines: list[str]) -> list[list[str]]:
    """The rows of the Auto-provisioned section, split into words."""
    at = lines.index("Auto-provisioned:")
    rows = []
    for line in lines[at + 1:]:
        if not line.startswith("  "):
            break
        rows.append(line.split())
    return rows


def test_describe_vm_shows_its_external_ip_and_auto_provisioned_children(alice: Osac) -> None:
    alice.ok("create", "computeinstance", "web", "--template", "fedora", "--external-ip-attachment")
    vm = until(alice, "vm", "web", lambda v: bool(v["status"].get("external_ip_address")))
    name = f"auto-{vm['id']}"
    eip = get(alice, "eip", name)
    attachment = until(alice, "eipa", name, state_is("READY"))
    address, internal = eip["status"]["address"], vm["status"]["internal_ip_address"]
    assert vm["status"]["external_ip_address"] == address

    lines = alice.ok("describe", "computeinstance", "web").splitlines()
    assert f"Internal IP:    {internal}" in lines
    assert f"External IP:    {address}" in lines
    assert auto_section(lines) == [
        ["ExternalIP", f"'{name}'", "ALLOCATED", address, eip["id"]],
        ["ExternalIPAttachment", f"'{name}'", "READY", internal, attachment["id"]],
    ]


def test_describe_bare_metal_instance_shows_its_external_ip_and_auto_provisioned_children(alice: Osac) -> None:
    alice.ok("create", "baremetalinstance", "db", "--host-type", "bm-standard", "--external-ip-attachment")
    server = get(alice, "bmi", "db")
    name = f"auto-{server['id']}"
    attachment = until(alice, "eipa", name, state_is("READY"))
    eip = get(alice, "eip", name)
    server = get(alice, "bmi", "db")
    address, leased = eip["status"]["address"], server["status"]["network_attachment_statuses"][0]["ip_address"]
    assert attachment["status"]["target_address"] == leased

    lines = alice.ok("describe", "baremetalinstance", "db").splitlines()
    assert f"External IP:    {address}" in lines
    assert auto_section(lines) == [
        ["ExternalIP", f"'{name}'", "ALLOCATED", address, eip["id"]],
        ["ExternalIPAttachment", f"'{name}'", "READY", leased, attachment["id"]],
    ]

    # Without a READY attachment there is no external address to show
    alice.ok("create", "baremetalinstance", "plain", "--host-type", "bm-standard")
    assert not [line for line in alice.ok("describe", "bmi", "plain").splitlines() if line.startswith("External IP:")]
    assert "Auto-provisioned:" not in alice.ok("describe", "bmi", "plain").splitlines()

