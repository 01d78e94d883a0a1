"""Driving networking states through the private API in tests without reconcilers.

The ``server`` fixture runs no controllers, so every object stays in its initial state (PENDING)
unless a test writes ``status.state`` as a provider admin would (``PATCH /api/private/v1/…``
with ``update_mask=status.state``). The bootstrap catalogue seeds the default NetworkClass
(with tenant defaults) and the pool ``public-v4``, both PENDING.
"""

from __future__ import annotations

from typing import Any

from osac.model import registry
from tests.support.server import RestClient

PRIVATE = "/api/private/v1"
PUBLIC = "/api/fulfillment/v1"


def ready_state(collection: str) -> str:
    """The "ready" state name of a collection's kind (ALLOCATED for external IPs)."""
    kind = registry.by_collection(collection)
    suffix = "ALLOCATED" if kind.name == "external_ip" else "READY"
    value = kind.state_value(suffix)
    assert value is not None, collection
    return kind.state_name(value)


async def set_state(admin: RestClient, collection: str, object_id: str, state: str | None = None) -> dict[str, Any]:
    """Write ``status.state`` privately (default: the kind's ready state); returns the object."""
    response = await admin.request(
        "PATCH", f"{PRIVATE}/{collection}/{object_id}", params={"update_mask": "status.state"},
        json={"status": {"state": state or ready_state(collection)}},
    )
    assert response.status_code == 200, response.text
    return response.json()


async def find_by_name(admin: RestClient, collection: str, name: str, tenant: str | None = None) -> dict[str, Any]:
    condition = f"this.metadata.name == '{name}'"
    if tenant is not None:
        condition += f" && this.metadata.tenant == '{tenant}'"
    page = (await admin.request("GET", f"{PRIVATE}/{collection}", params={"filter": condition})).json()
    assert page["total"] == 1, (collection, name, page)
    return page["items"][0]


async def prepare_catalogue(admin: RestClient, *, defaults: bool = True, pool: bool = True) -> None:
    """Make the bootstrap default NetworkClass READY (``defaults=False``: first drop its tenant
    defaults, so tenants get no default networking) and the pool ``public-v4`` READY."""
    network_class = await find_by_name(admin, "network_classes", "default")
    if not defaults:
        response = await admin.request(
            "PATCH", f"{PRIVATE}/network_classes/{network_class['id']}", params={"update_mask": "spec.defaults"},
            json={"spec": {}},
        )
        assert response.status_code == 200, response.text
    await set_state(admin, "network_classes", network_class["id"])
    if pool:
        await set_state(admin, "external_ip_pools", (await find_by_name(admin, "external_ip_pools", "public-v4"))["id"])


async def ready_defaults(admin: RestClient, tenant: str) -> dict[str, dict[str, Any]]:
    """Mark a tenant's default networking ready (as the reconcilers would); returns it by
    collection."""
    made = {}
    for collection, name in (("virtual_networks", "default"), ("subnets", "default"), ("security_groups", "default"),
                             ("external_ips", "default-nat"), ("nat_gateways", "default")):
        page = (await admin.request("GET", f"{PRIVATE}/{collection}", params={
            "filter": f"this.metadata.name == '{name}' && this.metadata.tenant == '{tenant}'"})).json()
        for item in page["items"]:
            made[collection] = await set_state(admin, collection, item["id"])
    return made
