"""Instances waiting for what another reconciler produces are queued by its change
(docs/controllers.md, dependents), and by the provider's change notices: a VM's external address
by its attachment turning READY (and cleared by its deletion), a VM's status by a fault, an
instance held back by its tenant by the tenant turning READY, a teardown waiting for its
auto-provisioned children by their archive.

The periodic looks (the safety nets, the compute resync) are made an hour long here, so anything
that converges within the test's timeouts was queued by a change.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from osac.auth.subject import Role
from osac.server.settings import merge_config
from tests.support.bmaas import BMIS, FAST_GATES, Bmaas
from tests.support.onboarding import ready_catalogue, wait_for
from tests.support.server import SAFETY_NETS_AN_HOUR, RestClient, running_server
from tests.support.vmaas import PRIVATE, PUBLIC, VMS, Vmaas, is_reachable

#: Far below the safety nets: an instance still waiting after this was not queued by the change.
PROMPTLY = 10.0
AUTO_FOR = "osac.openshift.io/auto-provisioned-for"


@pytest.fixture
async def live(db_url: str, tmp_path: Path) -> AsyncIterator[tuple[Vmaas, Bmaas]]:
    """Controllers at instant speed with every safety net an hour long; tenant ``acme`` READY."""
    config = merge_config(FAST_GATES, SAFETY_NETS_AN_HOUR)
    async with running_server(tmp_path, db_url, controllers=True, config=config) as server:
        admin = server.rest(server.token(Role.PROVIDER_ADMIN, user="root"))
        alice = server.rest(server.token(Role.TENANT_ADMIN, ("acme",), user="alice"))
        async with admin, alice:
            await ready_catalogue(admin)
            await _ready_tenant(admin, "acme")
            yield Vmaas(server, admin, alice), Bmaas(server, admin, alice)


async def _ready_tenant(admin: RestClient, name: str) -> dict[str, Any]:
    created = (await admin.request("POST", f"{PUBLIC}/tenants", json={"metadata": {"name": name}})).json()
    return await wait_for(admin, f"{PUBLIC}/tenants/{created['id']}",
                          lambda t: t["status"]["state"] == "TENANT_STATE_READY", timeout=PROMPTLY)


async def _failed_tenant(admin: RestClient, name: str) -> str:
    """Tenant ``name`` FAILED by its NAT gateway (its subnet and SG READY); returns the fault."""
    fault = (await admin.request("POST", f"{PRIVATE}/simulator/faults", json={
        "fault": "fabric_fail", "params": {"operation": "create_nat_gateway", "terminal": True}})).json()["id"]
    created = (await admin.request("POST", f"{PUBLIC}/tenants", json={"metadata": {"name": name}})).json()
    await wait_for(admin, f"{PUBLIC}/tenants/{created['id']}",
                   lambda t: t["status"]["state"] == "TENANT_STATE_FAILED", timeout=PROMPTLY)
    for collection, ready in (("subnets", "SUBNET_STATE_READY"), ("security_groups", "SECURITY_GROUP_STATE_READY")):
        await wait_for(admin, f"{PRIVATE}/{collection}?filter=this.metadata.tenant == '{name}'",
                       lambda page, ready=ready: [i["status"].get("state") for i in page["items"]] == [ready],
                       timeout=PROMPTLY)
    return str(fault)


async def _recover(admin: RestClient, fault: str, name: str) -> None:
    """Clear the fault and signal the tenant's NAT gateway: it, then the tenant, become READY."""
    assert (await admin.request("DELETE", f"{PRIVATE}/simulator/faults/{fault}")).status_code == 200
    gateways = (await admin.request("GET", f"{PRIVATE}/nat_gateways")).json()["items"]
    [gateway] = [g for g in gateways if g["metadata"]["tenant"] == name]
    assert (await admin.request("POST", f"{PRIVATE}/nat_gateways/{gateway['id']}/signal")).status_code == 200


async def _auto_children(client: RestClient, parent_id: str) -> list[str]:
    names = []
    for collection in ("external_ip_attachments", "external_ips"):
        for item in (await client.request("GET", f"{PUBLIC}/{collection}")).json()["items"]:
            if item["metadata"].get("labels", {}).get(AUTO_FOR) == parent_id:
                names.append(f"{collection}/{item['metadata']['name']}")
    return names


def _has_external_address(vm: dict[str, Any]) -> bool:
    return is_reachable(vm) and bool(vm["status"].get("external_ip_address"))


async def test_vm_gets_its_external_address_when_its_attachment_is_ready(live) -> None:
    vmaas, _ = live
    # When a VM is created with automatic external access
    created = await vmaas.create("web", auto_external_ip_attachment=True)
    # Then it runs and shows its external address long before any safety net
    vm = await vmaas.until(created["id"], _has_external_address, timeout=PROMPTLY)
    [eip] = [e for e in (await vmaas.get(f"{PUBLIC}/external_ips"))["items"]
             if e["metadata"]["name"] == f"auto-{created['id']}"]
    assert vm["status"]["external_ip_address"] == eip["status"]["address"]


async def test_vm_loses_its_external_address_when_its_attachment_is_deleted(live) -> None:
    vmaas, _ = live
    created = await vmaas.create("web", auto_external_ip_attachment=True)
    await vmaas.until(created["id"], _has_external_address, timeout=PROMPTLY)
    [attachment] = [a for a in (await vmaas.get(f"{PUBLIC}/external_ip_attachments"))["items"]
                    if a["metadata"].get("labels", {}).get(AUTO_FOR) == created["id"]]
    # When its attachment is deleted (the VM stays)
    path = f"{PUBLIC}/external_ip_attachments/{attachment['id']}"
    assert (await vmaas.alice.request("DELETE", path)).status_code == 200
    # Then the VM stops showing the external address long before any safety net
    vm = await vmaas.until(created["id"], lambda v: not v["status"].get("external_ip_address"), timeout=PROMPTLY)
    assert vm["status"]["state"] == "COMPUTE_INSTANCE_STATE_RUNNING"


async def test_running_vm_gets_the_address_of_an_attachment_made_for_it(live) -> None:
    vmaas, _ = live
    created = await vmaas.create("web")
    await vmaas.until(created["id"], is_reachable, timeout=PROMPTLY)
    eip = (await vmaas.alice.request("POST", f"{PUBLIC}/external_ips",
                                     json={"metadata": {"name": "manual"}, "spec": {"pool": "public-v4"}})).json()
    allocated = await wait_for(vmaas.alice, f"{PUBLIC}/external_ips/{eip['id']}",
                               lambda e: e["status"].get("state") == "EXTERNAL_IP_STATE_ALLOCATED", timeout=PROMPTLY)
    # When a tenant attaches an external IP to the running VM (one the VM has never read)
    response = await vmaas.alice.request("POST", f"{PUBLIC}/external_ip_attachments", json={
        "metadata": {"name": "manual-web"}, "spec": {"external_ip": eip["id"], "compute_instance": created["id"]}})
    assert response.status_code == 200, response.text
    # Then the VM shows that address long before any resync
    vm = await vmaas.until(created["id"], _has_external_address, timeout=PROMPTLY)
    assert vm["status"]["external_ip_address"] == allocated["status"]["address"]


async def test_vm_status_follows_a_simulator_fault_as_it_is_set_and_cleared(live) -> None:
    vmaas, _ = live
    created = await vmaas.create("flaky")
    await vmaas.until(created["id"], is_reachable, timeout=PROMPTLY)
    # When a fault makes the VM report an error (no Signal, no resync within the test)
    fault = await vmaas.fault(created["id"], "vm_status", printable_status="ErrorUnschedulable")
    # Then the instance shows it at once, and recovers at once when the fault is cleared
    await vmaas.until(created["id"], lambda v: v["status"]["state"] == "COMPUTE_INSTANCE_STATE_FAILED",
                      timeout=PROMPTLY)
    await vmaas.clear(fault)
    await vmaas.until(created["id"], lambda v: v["status"]["state"] == "COMPUTE_INSTANCE_STATE_RUNNING",
                      timeout=PROMPTLY)


async def test_vm_deletion_completes_when_its_auto_children_are_archived(live) -> None:
    vmaas, _ = live
    created = await vmaas.create("web", auto_external_ip_attachment=True)
    await vmaas.until(created["id"], _has_external_address, timeout=PROMPTLY)
    assert len(await _auto_children(vmaas.alice, created["id"])) == 2
    # When the VM is deleted
    assert (await vmaas.alice.request("DELETE", f"{VMS}/{created['id']}")).status_code == 200
    # Then its children go first, then the VM, each step queued by the one before
    await vmaas.archived(created["id"], timeout=PROMPTLY)
    assert await _auto_children(vmaas.alice, created["id"]) == []


async def test_bare_metal_deletion_completes_when_its_auto_children_are_archived(live) -> None:
    _, bmaas = live
    created = await bmaas.create("box", auto_external_ip_attachment=True)
    await bmaas.until_state(created["id"], "RUNNING", timeout=PROMPTLY)
    await wait_for(bmaas.alice, f"{PUBLIC}/external_ip_attachments",
                   lambda page: [a["status"].get("state") for a in page["items"]] == ["EXTERNAL_IP_ATTACHMENT_STATE_READY"],
                   timeout=PROMPTLY)
    # When the instance is deleted
    await bmaas.delete(created["id"])
    # Then its children go first, then its host, each step queued by the one before
    await bmaas.archived(created["id"], timeout=PROMPTLY)
    assert await _auto_children(bmaas.alice, created["id"]) == []
    assert "DeleteFailed" not in await bmaas.events(created["id"])


@pytest.mark.parametrize("collection", [VMS, BMIS], ids=["compute-instance", "bare-metal-instance"])
async def test_instance_held_back_by_its_tenant_proceeds_once_the_tenant_is_ready(live, collection) -> None:
    vmaas, _ = live
    server, admin = vmaas.server, vmaas.admin
    # Given tenant beta FAILED (its NAT gateway could not be created)
    fault = await _failed_tenant(admin, "beta")
    bob = server.rest(server.token(Role.TENANT_ADMIN, ("beta",), user="bob"))
    async with bob:
        # When an instance is created in it, it waits for the tenant
        spec = {"template": "fedora"} if collection == VMS else {"host_type": "bm-standard"}
        response = await bob.request("POST", collection, json={"metadata": {"name": "early"}, "spec": spec})
        assert response.status_code == 200, response.text
        path = f"{collection}/{response.json()['id']}"
        await wait_for(bob, path, lambda i: "Tenant 'beta' is not ready (phase: FAILED)" in str(i["status"]),
                       timeout=PROMPTLY)
        # And once the tenant recovers
        await _recover(admin, fault, "beta")
        # Then the instance runs long before any safety net
        if collection == VMS:
            await wait_for(bob, path, is_reachable, timeout=PROMPTLY)
        else:
            await wait_for(bob, path, lambda i: i["status"]["state"] == "BARE_METAL_INSTANCE_STATE_RUNNING",
                           timeout=PROMPTLY)
