"""Tenants: onboarding to READY through the reconciler, reserved names, guarded delete."""

from __future__ import annotations

import asyncio

from osac.auth.subject import Role
from tests.support.networking import prepare_catalogue
from tests.support.server import running_server
from tests.support.waiting import until_get


async def _wait_for(client, path: str, predicate, timeout: float = 10.0) -> dict:
    return dict(await until_get(client, path, predicate, timeout))


async def test_tenant_becomes_ready_and_is_archived_on_delete(db_url, tmp_path) -> None:
    async with running_server(tmp_path, db_url, controllers=True) as server:
        admin = server.rest(server.token(Role.PROVIDER_ADMIN, user="root"))
        await prepare_catalogue(admin, defaults=False)  # a READY default class without tenant defaults
        created = (await admin.request("POST", "/api/fulfillment/v1/tenants", json={"metadata": {"name": "acme"}})).json()
        assert created["status"]["state"] == "TENANT_STATE_PENDING"
        path = f"/api/fulfillment/v1/tenants/{created['id']}"
        ready = await _wait_for(admin, path, lambda t: t["status"]["state"] == "TENANT_STATE_READY")
        [condition] = ready["status"]["conditions"]
        assert condition["type"] == "TENANT_CONDITION_TYPE_DEFAULT_NETWORKING_READY"
        assert condition["status"] == "CONDITION_STATUS_TRUE"
        assert condition["reason"] == "DefaultsNotConfigured"
        private = (await admin.request("GET", f"/api/private/v1/tenants/{created['id']}")).json()
        assert private["metadata"]["finalizers"] == ["fulfillment-controller"]

        alice = server.rest(server.token(Role.TENANT_ADMIN, ("acme",), user="alice"))
        own = await alice.request("GET", path)
        assert own.status_code == 200 and own.json()["metadata"]["name"] == "acme"
        vn = (await alice.request("POST", "/api/fulfillment/v1/virtual_networks",
                                  json={"metadata": {"name": "app"}, "spec": {"ipv4_cidr": "10.0.0.0/16"}})).json()
        blocked = await admin.request("DELETE", path)
        assert blocked.status_code == 400
        assert blocked.json()["message"] == "cannot delete Tenant 'acme': 1 VirtualNetwork(s) still reference it: app"

        assert (await alice.request("DELETE", f"/api/fulfillment/v1/virtual_networks/{vn['id']}")).status_code == 200
        async with asyncio.timeout(10):  # a DELETING network still blocks (networking.md §4) until archived
            while (await alice.request("GET", f"/api/fulfillment/v1/virtual_networks/{vn['id']}")).status_code != 404:
                await asyncio.sleep(0.05)
        assert (await admin.request("DELETE", path)).status_code == 200
        async with asyncio.timeout(10):
            while (await admin.request("GET", path)).status_code != 404:
                await asyncio.sleep(0.05)
        again = await admin.request("POST", "/api/fulfillment/v1/tenants", json={"metadata": {"name": "acme"}})
        assert again.status_code == 200, "an archived tenant's name is free again"


async def test_reserved_and_unnamed_tenants_are_rejected(server) -> None:
    admin = server.rest(server.token(Role.PROVIDER_ADMIN, user="root"))
    for name in ("shared", "system"):
        response = await admin.request("POST", "/api/fulfillment/v1/tenants", json={"metadata": {"name": name}})
        assert (response.status_code, response.json()["message"]) == (
            400, f"metadata.name: '{name}' is reserved; choose another tenant name")
    unnamed = await admin.request("POST", "/api/fulfillment/v1/tenants", json={})
    assert unnamed.json()["message"] == "metadata.name: required; it is the tenant name used in tokens"


async def test_objects_need_an_existing_tenant(server) -> None:
    alice = server.rest(server.token(Role.TENANT_ADMIN, ("nowhere",), user="alice"))
    response = await alice.request("POST", "/api/fulfillment/v1/virtual_networks", json={"spec": {"ipv4_cidr": "10.0.0.0/16"}})
    assert response.status_code == 400
    assert response.json()["message"] == "tenant 'nowhere' does not exist; a provider admin must create it first"


async def test_tenant_admin_cannot_create_tenants_or_catalogue(server) -> None:
    alice = server.rest(server.token(Role.TENANT_ADMIN, ("acme",), user="alice"))
    response = await alice.request("POST", "/api/fulfillment/v1/tenants", json={"metadata": {"name": "x"}})
    assert response.status_code == 403
    host_type = await alice.request("POST", "/api/fulfillment/v1/host_types", json={"metadata": {"name": "x"}})
    assert host_type.status_code == 403 and "provider admins" in host_type.json()["message"]


async def test_tenant_domains_are_globally_unique(server) -> None:
    admin = server.rest(server.token(Role.PROVIDER_ADMIN, user="root"))
    first = await admin.request("POST", "/api/fulfillment/v1/tenants",
                                json={"metadata": {"name": "acme"}, "spec": {"domains": ["acme.example"]}})
    assert first.status_code == 200, first.text
    clash = await admin.request("POST", "/api/fulfillment/v1/tenants",
                                json={"metadata": {"name": "globex"}, "spec": {"domains": ["ACME.example"]}})
    assert (clash.status_code, clash.json()["message"]) == (
        409, "spec.domains[0]: domain 'ACME.example' already belongs to another tenant")
    moved = await admin.request("PATCH", f"/api/fulfillment/v1/tenants/{first.json()['id']}",
                                json={"spec": {"domains": ["acme.test"]}})
    assert moved.status_code == 200, moved.text
    freed = await admin.request("POST", "/api/fulfillment/v1/tenants",
                                json={"metadata": {"name": "globex"}, "spec": {"domains": ["acme.example"]}})
    assert freed.status_code == 200, freed.text
