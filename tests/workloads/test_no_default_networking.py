"""Scenario 23 of networking.md §14 (*no defaults*) for a ComputeInstance and a
BareMetalInstance, end to end (reconcilers, simulator at instant speed).

The default NetworkClass has no ``defaults``: a new tenant becomes READY with
``DEFAULT_NETWORKING_READY`` TRUE ``DefaultsNotConfigured`` and owns no networking object; an
instance created without networking is refused with the §6.4 message and nothing is stored,
while instances with explicit attachments are accepted and run. (Clusters: tests/caas.)
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from osac.auth.subject import Role
from tests.support.bmaas import FAST_GATES
from tests.support.onboarding import ready_catalogue, wait_for
from tests.support.server import RestClient, running_server
from tests.workloads.conftest import failure

PUBLIC = "/api/fulfillment/v1"
PRIVATE = "/api/private/v1"
NO_DEFAULTS = "No default networking resources available. Please contact your administrator."
NOT_CONFIGURED = "no tenant defaults are configured; no default networking was created"
NETWORKING = ("virtual_networks", "subnets", "security_groups", "external_ips", "nat_gateways")
INSTANCES = {"compute_instances": {"template": "fedora"}, "baremetal_instances": {"host_type": "bm-standard"}}


@dataclass
class Bare:
    """Tenant ``acme`` onboarded under a default class without ``defaults``."""

    admin: RestClient
    alice: RestClient
    tenant: dict[str, Any]

    async def create(self, collection: str, body: dict[str, Any]) -> dict[str, Any]:
        response = await self.alice.request("POST", f"{PUBLIC}/{collection}", json=body)
        assert response.status_code == 200, response.text
        return dict(response.json())

    async def ready(self, collection: str, body: dict[str, Any]) -> dict[str, Any]:
        created = await self.create(collection, body)
        return await wait_for(self.alice, f"{PUBLIC}/{collection}/{created['id']}",
                              lambda o: o["status"]["state"].endswith("_STATE_READY"))

    async def names(self, collection: str) -> list[str]:
        page = (await self.admin.request("GET", f"{PRIVATE}/{collection}",
                                         params={"filter": "this.metadata.tenant == 'acme'"})).json()
        return sorted(item["metadata"]["name"] for item in page["items"])


@pytest.fixture
async def bare(db_url: str, tmp_path: Path) -> AsyncIterator[Bare]:
    async with running_server(tmp_path, db_url, controllers=True, config=FAST_GATES) as server:
        admin = server.rest(server.token(Role.PROVIDER_ADMIN, user="root"))
        alice = server.rest(server.token(Role.TENANT_ADMIN, ("acme",), user="alice"))
        async with admin, alice:
            await ready_catalogue(admin)
            [network_class] = (await admin.request("GET", f"{PRIVATE}/network_classes")).json()["items"]
            dropped = await admin.request("PATCH", f"{PRIVATE}/network_classes/{network_class['id']}",
                                          params={"update_mask": "spec.defaults"}, json={"spec": {}})
            assert dropped.status_code == 200, dropped.text
            assert "defaults" not in dropped.json().get("spec", {})
            created = await admin.request("POST", f"{PUBLIC}/tenants", json={"metadata": {"name": "acme"}})
            assert created.status_code == 200, created.text
            tenant = await wait_for(admin, f"{PUBLIC}/tenants/{created.json()['id']}",
                                    lambda t: t["status"]["state"] == "TENANT_STATE_READY")
            yield Bare(admin, alice, tenant)


async def test_tenant_is_ready_without_any_networking(bare: Bare) -> None:
    [condition] = bare.tenant["status"]["conditions"]
    assert (condition["type"], condition["status"], condition["reason"], condition["message"]) == (
        "TENANT_CONDITION_TYPE_DEFAULT_NETWORKING_READY", "CONDITION_STATUS_TRUE", "DefaultsNotConfigured",
        NOT_CONFIGURED)
    for collection in NETWORKING:
        assert await bare.names(collection) == [], collection
    events = (await bare.admin.request("GET", f"{PUBLIC}/lifecycle_events",
                                       params={"filter": f"this.object_id == '{bare.tenant['id']}'"})).json()["items"]
    assert [e["reason"] for e in events if e["reason"].startswith("DefaultNetworking")] == []


@pytest.mark.parametrize("collection", list(INSTANCES), ids=["compute-instance", "bare-metal-instance"])
async def test_instance_without_networking_is_refused(bare: Bare, collection: str) -> None:
    response = await bare.alice.request("POST", f"{PUBLIC}/{collection}",
                                        json={"metadata": {"name": "plain"}, "spec": INSTANCES[collection]})
    assert failure(response) == ("FAILED_PRECONDITION", NO_DEFAULTS)
    assert await bare.names(collection) == []


async def test_instances_with_explicit_attachments_run(bare: Bare) -> None:
    vn = await bare.ready("virtual_networks", {"metadata": {"name": "app"}, "spec": {"ipv4_cidr": "10.1.0.0/16"}})
    subnet = await bare.ready("subnets", {"metadata": {"name": "app"},
                                          "spec": {"virtual_network": vn["id"], "ipv4_cidr": "10.1.1.0/24"}})
    group = await bare.ready("security_groups", {"metadata": {"name": "web"}, "spec": {"virtual_network": vn["id"]}})

    vm = await bare.create("compute_instances", {"metadata": {"name": "web"}, "spec": {
        "template": "fedora", "compute_network_attachments": [{"subnet": "app", "security_groups": ["web"]}]}})
    assert vm["spec"]["compute_network_attachments"] == [
        {"subnet": subnet["id"], "security_groups": [group["id"]], "primary": True}]
    server = await bare.create("baremetal_instances", {"metadata": {"name": "db"}, "spec": {
        "host_type": "bm-standard", "network_attachments": [{"subnet": "app"}]}})
    # No default VN: an attachment without groups stays without (deny-all), on the first fabric port.
    assert server["spec"]["network_attachments"] == [{"subnet": subnet["id"], "interface": "ens1f0", "primary": True}]

    running = await wait_for(bare.alice, f"{PUBLIC}/compute_instances/{vm['id']}",
                             lambda v: v["status"]["state"] == "COMPUTE_INSTANCE_STATE_RUNNING")
    assert running["status"]["internal_ip_address"] == "10.1.1.2"
    running_bm = await wait_for(bare.alice, f"{PUBLIC}/baremetal_instances/{server['id']}",
                                    lambda b: b["status"]["state"] == "BARE_METAL_INSTANCE_STATE_RUNNING", timeout=30)
    assert [(s["interface"], s["subnet"], s["ip_address"]) for s in running_bm["status"]["network_attachment_statuses"]] == [
        ("ens1f0", subnet["id"], "10.1.1.3")]
    for collection in NETWORKING[3:]:
        assert await bare.names(collection) == [], collection  # nothing was provisioned behind the tenant's back
