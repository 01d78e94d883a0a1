"""Workload API tests: a running server (no reconcilers) whose bootstrap catalogue is READY and
whose tenant ``acme`` has READY default networking, with clients speaking REST like users do.

No reconciler runs, so networking objects are made READY through the private API
(``tests.support.networking``), and instance status, which the API never writes, is advanced
with ``Workloads.derive``: the reconcilers' own status write (``KindService.write_status``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest

from osac.auth.subject import Role
from osac.ipam import allocator
from osac.model import registry
from osac.store.tables import LIVE
from tests.support.networking import PRIVATE, PUBLIC, prepare_catalogue, ready_defaults, set_state
from tests.support.prepared import Prepare
from tests.support.server import RestClient, ServerHandle, running_server

TENANT = "acme"
VMS = "compute_instances"
BMS = "baremetal_instances"


@dataclass
class Workloads:
    """A server with a READY catalogue; ``admin`` is a provider admin, ``alice`` a tenant admin of
    ``acme``; ``defaults`` is acme's READY default networking by collection."""

    server: ServerHandle
    admin: RestClient
    alice: RestClient
    defaults: dict[str, dict[str, Any]] = field(default_factory=dict)

    # -- requests ---------------------------------------------------------------------------------

    async def post(self, collection: str, body: dict[str, Any], *, private: bool = False,
                   client: RestClient | None = None) -> httpx.Response:
        prefix = PRIVATE if private else PUBLIC
        return await (client or (self.admin if private else self.alice)).request("POST", f"{prefix}/{collection}", json=body)

    async def create(self, collection: str, body: dict[str, Any], *, private: bool = False,
                     client: RestClient | None = None) -> dict[str, Any]:
        response = await self.post(collection, body, private=private, client=client)
        assert response.status_code == 200, response.text
        return dict(response.json())

    async def get(self, collection: str, object_id: str, *, private: bool = False) -> dict[str, Any]:
        client = self.admin if private else self.alice
        response = await client.request("GET", f"{PRIVATE if private else PUBLIC}/{collection}/{object_id}")
        assert response.status_code == 200, response.text
        return dict(response.json())

    async def patch(self, collection: str, object_id: str, body: dict[str, Any], mask: str | None = None, *,
                    private: bool = False) -> httpx.Response:
        client = self.admin if private else self.alice
        params = {"update_mask": mask} if mask else {}
        return await client.request("PATCH", f"{PRIVATE if private else PUBLIC}/{collection}/{object_id}",
                                    params=params, json=body)

    async def delete(self, collection: str, object_id: str) -> httpx.Response:
        return await self.alice.request("DELETE", f"{PUBLIC}/{collection}/{object_id}")

    async def items(self, collection: str, condition: str = "") -> list[dict[str, Any]]:
        params = {"filter": condition} if condition else {}
        response = await self.admin.request("GET", f"{PRIVATE}/{collection}", params=params)
        assert response.status_code == 200, response.text
        return list(response.json()["items"])

    async def revision(self) -> int:
        """The store's revision, from a List response: unchanged = no change event."""
        return int((await self.admin.request("GET", f"{PRIVATE}/tenants")).json()["revision"])

    async def events(self, object_id: str) -> list[tuple[str, str]]:
        """(reason, type) of the lifecycle events of an object, oldest first."""
        response = await self.admin.request("GET", f"{PUBLIC}/lifecycle_events",
                                            params={"filter": f"this.object_id == '{object_id}'"})
        return [(e["reason"], e["type"].removeprefix("LIFECYCLE_EVENT_TYPE_")) for e in response.json()["items"]]

    # -- networking ---------------------------------------------------------------------------------

    async def network(self, name: str, cidr: str, *, ready: bool = True) -> dict[str, Any]:
        return await self._made("virtual_networks", {"metadata": {"name": name}, "spec": {"ipv4_cidr": cidr}}, ready)

    async def subnet(self, name: str, vn: str, cidr: str, *, ready: bool = True) -> dict[str, Any]:
        return await self._made("subnets", {"metadata": {"name": name}, "spec": {"virtual_network": vn, "ipv4_cidr": cidr}},
                                ready)

    async def security_group(self, name: str, vn: str, *, ready: bool = True) -> dict[str, Any]:
        return await self._made("security_groups", {"metadata": {"name": name}, "spec": {"virtual_network": vn}}, ready)

    async def pool(self, name: str, cidrs: list[str]) -> dict[str, Any]:
        pool = await self.create("external_ip_pools", {"metadata": {"name": name},
                                                       "spec": {"cidrs": cidrs, "ip_family": "IP_FAMILY_IPV4"}}, private=True)
        return await set_state(self.admin, "external_ip_pools", pool["id"])

    async def set_state(self, collection: str, object_id: str, state: str | None = None) -> dict[str, Any]:
        return await set_state(self.admin, collection, object_id, state)

    async def _made(self, collection: str, body: dict[str, Any], ready: bool) -> dict[str, Any]:
        obj = await self.create(collection, body)
        return await set_state(self.admin, collection, obj["id"]) if ready else obj

    # -- what only the service and the reconcilers see ------------------------------------------------

    async def allocations(self, owner_type: str, owner_id: str) -> list[tuple[str, str, str, int]]:
        """IPAM rows of an owner: (subnet id, address, purpose, ordinal)."""
        async with self.server.app.store.read() as tx:
            held = await allocator.allocations_of(tx, owner_type, owner_id)
        return [(a.scope, a.address, a.purpose, a.ordinal) for a in held]

    async def derive(self, kind_name: str, object_id: str, change: Callable[[Any], None]) -> dict[str, Any]:
        """Write an instance's status as its reconciler would (``change`` edits the private
        message); returns the public view."""
        kind = registry.get(kind_name)
        service = self.server.app.services[kind_name]
        async with self.server.app.store.write() as tx:
            [stored] = await tx.find(kind, LIVE[kind.name].c.id == object_id)
            desired = type(stored)()
            desired.CopyFrom(stored)
            change(desired)
            await service.write_status(tx, desired, stored)
        return await self.get(kind.collection, object_id)


def failure(response: httpx.Response) -> tuple[str, str]:
    """(gRPC code name, message) of an error response: INVALID_ARGUMENT and FAILED_PRECONDITION
    share HTTP 400, so the code tells them apart."""
    assert response.status_code != 200, response.text
    body = response.json()
    return grpc.StatusCode(_CODES[body["code"]]).name, body["message"]


_CODES = {code.value[0]: code.value for code in grpc.StatusCode}


async def _tenant_with_ready_defaults(server: ServerHandle) -> dict[str, dict[str, Any]]:
    async with server.rest(server.token(Role.PROVIDER_ADMIN, user="root")) as admin:
        await prepare_catalogue(admin)
        response = await admin.request("POST", f"{PUBLIC}/tenants", json={"metadata": {"name": TENANT}})
        assert response.status_code == 200, response.text
        return await ready_defaults(admin, TENANT)


@pytest.fixture
async def wl(prepared: Prepare, tmp_path: Path) -> AsyncIterator[Workloads]:
    url, defaults = await prepared("acme-ready", _tenant_with_ready_defaults)
    async with running_server(tmp_path, url, controllers=False) as server:
        admin = server.rest(server.token(Role.PROVIDER_ADMIN, user="root"))
        alice = server.rest(server.token(Role.TENANT_ADMIN, (TENANT,), user="alice"))
        async with admin, alice:
            yield Workloads(server, admin, alice, defaults)
