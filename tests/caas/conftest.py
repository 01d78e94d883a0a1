"""Cluster API tests: a running server (no reconcilers) whose bootstrap catalogue is READY, with
tenants ``acme`` and ``beta`` whose default networking is READY, so a cluster can be created
with nothing but a template. States of networking objects are driven through the private API as
the reconcilers would (``tests.support.networking``); cluster status is written only through the
service's reconciler path (``write_status``), never through the API."""

from __future__ import annotations

import base64
import json
import struct
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from google.protobuf.message import Message
from typer.testing import CliRunner

from osac.auth.subject import Role
from osac.model import registry
from tests.cli.conftest import BackgroundServer, Osac
from tests.support.networking import PRIVATE, PUBLIC, prepare_catalogue, ready_defaults, set_state
from tests.support.prepared import Prepare
from tests.support.server import RestClient, ServerHandle, running_server

TENANT = "acme"
OTHER_TENANT = "beta"
RELEASE_IMAGE = "quay.io/openshift-release-dev/ocp-release:4.17.0-x86_64"
PULL_SECRET = json.dumps({"auths": {"quay.io": {"auth": "dXNlcjpwYXNz"}}})


def ssh_key(comment: str = "alice@example.net") -> str:
    """A well-formed ed25519 public key line (the key bytes are arbitrary)."""
    kind = b"ssh-ed25519"
    blob = struct.pack(">I", len(kind)) + kind + struct.pack(">I", 32) + bytes(range(32))
    return f"ssh-ed25519 {base64.b64encode(blob).decode()} {comment}"


def error(response: httpx.Response) -> tuple[int, str]:
    """(HTTP status, message) of an error response."""
    return response.status_code, response.json()["message"]


@dataclass
class Caas:
    """A server with a READY catalogue, a provider admin, tenant admins ``alice`` (acme) and
    ``bob`` (beta)."""

    server: ServerHandle
    admin: RestClient
    alice: RestClient
    bob: RestClient

    async def post(self, collection: str, body: dict[str, Any], *, client: RestClient | None = None,
                   private: bool = False) -> httpx.Response:
        prefix = PRIVATE if private else PUBLIC
        return await (client or self.alice).request("POST", f"{prefix}/{collection}", json=body)

    async def create(self, collection: str, body: dict[str, Any], *, client: RestClient | None = None,
                     private: bool = False) -> dict[str, Any]:
        response = await self.post(collection, body, client=client, private=private)
        assert response.status_code == 200, response.text
        return dict(response.json())

    async def cluster(self, name: str = "prod", *, client: RestClient | None = None, **spec: Any) -> dict[str, Any]:
        """A cluster from ``ocp-small`` (3 workers of vm-standard) unless ``spec`` says otherwise."""
        return await self.create("clusters", {"metadata": {"name": name}, "spec": {"template": "ocp-small", **spec}},
                                 client=client)

    async def patch(self, collection: str, object_id: str, body: dict[str, Any], *, mask: str | None = None,
                    client: RestClient | None = None, private: bool = False) -> httpx.Response:
        prefix = PRIVATE if private else PUBLIC
        params = {"update_mask": mask} if mask else {}
        return await (client or self.alice).request("PATCH", f"{prefix}/{collection}/{object_id}", params=params,
                                                    json=body)

    async def get(self, collection: str, object_id: str, *, private: bool = True,
                  client: RestClient | None = None) -> httpx.Response:
        chosen = client or (self.admin if private else self.alice)
        return await chosen.request("GET", f"{PRIVATE if private else PUBLIC}/{collection}/{object_id}")

    async def items(self, collection: str, condition: str = "") -> list[dict[str, Any]]:
        params = {"filter": condition} if condition else {}
        response = await self.admin.request("GET", f"{PRIVATE}/{collection}", params=params)
        assert response.status_code == 200, response.text
        return list(response.json()["items"])

    async def revision(self) -> int:
        return int((await self.admin.request("GET", f"{PRIVATE}/clusters")).json()["revision"])

    async def ready(self, collection: str, object_id: str, state: str | None = None) -> dict[str, Any]:
        return await set_state(self.admin, collection, object_id, state)

    async def template(self, name: str, body: dict[str, Any]) -> httpx.Response:
        return await self.post("cluster_templates", {"metadata": {"name": name}, **body}, client=self.admin)

    async def write_status(self, cluster_id: str, change: Callable[[Message], None]) -> Message:
        """Change a stored cluster as its reconciler would: ``write_status`` with the version lock."""
        kind = registry.get("cluster")
        app = self.server.app
        async with app.store.write() as tx:
            stored = await tx.get(kind, cluster_id)
            assert stored is not None
            desired = type(stored)()
            desired.CopyFrom(stored)
            change(desired)
            return await app.services["cluster"].write_status(tx, desired, stored)

    async def stored(self, cluster_id: str) -> Message | None:
        """The stored private object, unredacted (what reconcilers read)."""
        async with self.server.app.store.read() as tx:
            return await tx.get(registry.get("cluster"), cluster_id)


async def _two_tenants_ready(server: ServerHandle) -> None:
    async with server.rest(server.token(Role.PROVIDER_ADMIN, user="root")) as admin:
        await prepare_catalogue(admin)
        for tenant in (TENANT, OTHER_TENANT):
            response = await admin.request("POST", f"{PUBLIC}/tenants", json={"metadata": {"name": tenant}})
            assert response.status_code == 200, response.text
            await ready_defaults(admin, tenant)


@pytest.fixture
async def caas(prepared: Prepare, tmp_path: Path) -> AsyncIterator[Caas]:
    url, _ = await prepared("acme-and-beta-ready", _two_tenants_ready)
    async with running_server(tmp_path, url, controllers=False) as server:
        admin = server.rest(server.token(Role.PROVIDER_ADMIN, user="root"))
        alice = server.rest(server.token(Role.TENANT_ADMIN, (TENANT,), user="alice"))
        bob = server.rest(server.token(Role.TENANT_ADMIN, (OTHER_TENANT,), user="bob"))
        async with admin, alice, bob:
            yield Caas(server, admin, alice, bob)


# -- the osac command against a server without reconcilers --------------------------------------------

#: What a provider admin marks READY, as the reconcilers would, for tenant ``acme`` to host clusters.
CLI_READY = (("network_class", "default"), ("external_ip_pool", "public-v4"))
CLI_DEFAULTS = (("virtual_network", "default"), ("subnet", "default"), ("security_group", "default"),
                ("external_ip", "default-nat"), ("nat_gateway", "default"))


@pytest.fixture(scope="module")
def cli_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BackgroundServer]:
    """A server with tenant ``acme`` whose default networking is READY (the only tenant, so the
    defaults' names are unambiguous for the admin's CLI)."""
    running = BackgroundServer(tmp_path_factory.mktemp("osac-caas"))
    running.start()
    admin = Osac(running, tmp_path_factory.mktemp("caas-admin") / "osac.yaml", CliRunner())
    admin.login("provider-admin", user="root")
    for kind, name in CLI_READY:
        admin.ok("edit", kind, name, "--private", "--set", "status.state=READY")
    admin.ok("create", "tenant", "--name", TENANT)
    for kind, name in CLI_DEFAULTS:
        state = "ALLOCATED" if kind == "external_ip" else "READY"
        admin.ok("edit", kind, name, "--private", "--set", f"status.state={state}")
    yield running
    running.stop()


@pytest.fixture
def tenant_admin(cli_server: BackgroundServer, tmp_path: Path) -> Osac:
    """``alice``, tenant admin of ``acme``, logged in with her own saved login."""
    alice = Osac(cli_server, tmp_path / "config" / "osac.yaml", CliRunner())
    alice.login("tenant-admin", TENANT, user="alice")
    return alice
