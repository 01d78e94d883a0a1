"""Networking API tests: a running server (no reconcilers) whose bootstrap default NetworkClass
(with tenant defaults, NAT on) and pool ``public-v4`` (203.0.113.0/24) are READY, and clients
speaking REST like users do. States are driven through the private API (``tests.support.networking``)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from osac.auth.subject import Role
from tests.support.networking import PRIVATE, PUBLIC, prepare_catalogue, ready_defaults, set_state
from tests.support.prepared import Prepare
from tests.support.server import RestClient, ServerHandle, running_server

TENANT = "acme"


@dataclass
class Net:
    """A server with a READY catalogue, a provider admin and a tenant admin of ``acme``."""

    server: ServerHandle
    admin: RestClient
    alice: RestClient

    async def post(self, collection: str, body: dict[str, Any], *, private: bool = False,
                   client: RestClient | None = None) -> httpx.Response:
        prefix = PRIVATE if private else PUBLIC
        return await (client or (self.admin if private else self.alice)).request("POST", f"{prefix}/{collection}", json=body)

    async def create(self, collection: str, body: dict[str, Any], *, private: bool = False, ready: bool = False,
                     client: RestClient | None = None) -> dict[str, Any]:
        response = await self.post(collection, body, private=private, client=client)
        assert response.status_code == 200, response.text
        obj = response.json()
        if ready:
            obj = await set_state(self.admin, collection, obj["id"])
        return obj

    async def get(self, collection: str, object_id: str, *, private: bool = True) -> httpx.Response:
        client = self.admin if private else self.alice
        return await client.request("GET", f"{PRIVATE if private else PUBLIC}/{collection}/{object_id}")

    async def delete(self, collection: str, object_id: str, *, private: bool = False) -> httpx.Response:
        client = self.admin if private else self.alice
        return await client.request("DELETE", f"{PRIVATE if private else PUBLIC}/{collection}/{object_id}")

    async def ready(self, collection: str, object_id: str, state: str | None = None) -> dict[str, Any]:
        return await set_state(self.admin, collection, object_id, state)

    async def items(self, collection: str, condition: str = "") -> list[dict[str, Any]]:
        params = {"filter": condition} if condition else {}
        response = await self.admin.request("GET", f"{PRIVATE}/{collection}", params=params)
        assert response.status_code == 200, response.text
        return list(response.json()["items"])

    async def tenant(self, name: str = TENANT, *, ready: bool = True) -> dict[str, Any]:
        """Create a tenant through the API (default networking included) and, with ``ready``,
        mark its defaults READY / ALLOCATED."""
        response = await self.admin.request("POST", f"{PUBLIC}/tenants", json={"metadata": {"name": name}})
        assert response.status_code == 200, response.text
        if ready:
            await ready_defaults(self.admin, name)
        return dict(response.json())

    async def network(self, name: str, cidr: str, *, ready: bool = True) -> dict[str, Any]:
        return await self.create("virtual_networks", {"metadata": {"name": name}, "spec": {"ipv4_cidr": cidr}}, ready=ready)

    async def subnet(self, name: str, vn: str, cidr: str, *, ready: bool = True) -> dict[str, Any]:
        return await self.create("subnets", {"metadata": {"name": name}, "spec": {"virtual_network": vn, "ipv4_cidr": cidr}},
                                 ready=ready)

    async def external_ip(self, name: str, pool: str = "public-v4", *, ready: bool = True) -> dict[str, Any]:
        return await self.create("external_ips", {"metadata": {"name": name}, "spec": {"pool": pool}}, ready=ready)

    async def pool(self, name: str, cidrs: list[str], *, ready: bool = True) -> dict[str, Any]:
        return await self.create("external_ip_pools", {"metadata": {"name": name},
                                                       "spec": {"cidrs": cidrs, "ip_family": "IP_FAMILY_IPV4"}},
                                 private=True, ready=ready)


def error(response: httpx.Response) -> tuple[int, str]:
    """(HTTP status, message) of an error response."""
    return response.status_code, response.json()["message"]


async def _ready_catalogue(server: ServerHandle) -> None:
    async with server.rest(server.token(Role.PROVIDER_ADMIN, user="root")) as admin:
        await prepare_catalogue(admin)


@pytest.fixture
async def net(prepared: Prepare, tmp_path: Path) -> AsyncIterator[Net]:
    url, _ = await prepared("ready-catalogue", _ready_catalogue)
    async with running_server(tmp_path, url, controllers=False) as server:
        admin = server.rest(server.token(Role.PROVIDER_ADMIN, user="root"))
        alice = server.rest(server.token(Role.TENANT_ADMIN, (TENANT,), user="alice"))
        async with admin, alice:
            yield Net(server, admin, alice)
