"""Scenario 26 of networking.md §14 (*lifecycle of defaults*, §6.3, §4, §10.4): changed class
defaults reach only new tenants; the default SecurityGroup is an ordinary object a tenant admin
may edit and a tenant user may not; a tenant holding a VM cannot be deleted; a tenant holding
only its defaults is archived gateway first, VirtualNetwork last, itself after them.

The first three run on the API alone (``net``: no reconcilers); the teardown order needs the
reconcilers (``live``, simulator at instant speed) and is read from the outbox."""

from __future__ import annotations

import asyncio
from typing import Any

from osac.auth.subject import Role
from tests.networking.conftest import Net
from tests.support.networking import PRIVATE, PUBLIC, find_by_name
from tests.support.onboarding import wait_for
from tests.support.watching import outbox_after
from tests.workloads.conftest import failure

DEFAULTS = (("virtual_networks", "default"), ("subnets", "default"), ("security_groups", "default"),
            ("external_ips", "default-nat"), ("nat_gateways", "default"))
HTTPS_IN = [{"protocol": "PROTOCOL_TCP", "port_from": 443, "port_to": 443, "ipv4_cidr": "0.0.0.0/0"}]


async def _defaults_of(net: Net, tenant: str) -> dict[str, dict[str, Any]]:
    return {collection: await find_by_name(net.admin, collection, name, tenant) for collection, name in DEFAULTS}


async def _revision(net: Net) -> int:
    return int((await net.admin.request("GET", f"{PRIVATE}/tenants")).json()["revision"])


async def test_changed_class_defaults_reach_only_new_tenants(net: Net) -> None:
    # Given tenant acme onboarded under the bootstrap defaults
    await net.tenant("acme")
    before = await _defaults_of(net, "acme")
    revision = await _revision(net)
    # When the provider admin changes the class's defaults
    [network_class] = await net.items("network_classes", "this.metadata.name == 'default'")
    changed = await net.admin.request(
        "PATCH", f"{PRIVATE}/network_classes/{network_class['id']}",
        params={"update_mask": "spec.defaults.virtual_network_ipv4_cidr,spec.defaults.subnet_ipv4_cidr,"
                               "spec.defaults.ingress_rules"},
        json={"spec": {"defaults": {"virtual_network_ipv4_cidr": "10.50.0.0/16", "subnet_ipv4_cidr": "10.50.1.0/24",
                                    "ingress_rules": HTTPS_IN}}})
    assert changed.status_code == 200, changed.text
    # Then nothing of acme's changed: the class's own update is the only change event
    assert [(change, kind) for _, change, kind in await outbox_after(net.server.app, revision)] == [
        ("UPDATED", "network_class")]
    assert await _defaults_of(net, "acme") == before
    # And a tenant onboarded now gets the new defaults
    await net.tenant("beta", ready=False)
    beta = await _defaults_of(net, "beta")
    assert beta["virtual_networks"]["spec"]["ipv4_cidr"] == "10.50.0.0/16"
    assert beta["subnets"]["spec"]["ipv4_cidr"] == "10.50.1.0/24"
    assert beta["security_groups"]["spec"]["ingress"] == HTTPS_IN
    assert before["virtual_networks"]["spec"]["ipv4_cidr"] == "10.0.0.0/16"
    assert before["security_groups"]["spec"]["ingress"] != HTTPS_IN


async def test_tenant_admin_edits_the_default_group_and_a_tenant_user_may_not(net: Net) -> None:
    await net.tenant("acme")
    group = await find_by_name(net.admin, "security_groups", "default", "acme")
    path = f"{PUBLIC}/security_groups/{group['id']}"
    body = {"spec": {"ingress": HTTPS_IN}}
    # A tenant user is refused, and nothing changes
    bob = net.server.rest(net.server.token(Role.TENANT_USER, ("acme",), user="bob"))
    async with bob:
        assert (await bob.request("GET", path)).status_code == 200  # reading is fine
        refused = await bob.request("PATCH", path, params={"update_mask": "spec.ingress"}, json=body)
        assert failure(refused) == (
            "PERMISSION_DENIED", "tenant users cannot update objects labelled osac.openshift.io/default=true")
        assert refused.status_code == 403
        deleted = await bob.request("DELETE", path)
        assert failure(deleted) == (
            "PERMISSION_DENIED", "tenant users cannot delete objects labelled osac.openshift.io/default=true")
    unchanged = (await net.get("security_groups", group["id"])).json()
    assert (unchanged["spec"], unchanged["metadata"]["version"]) == (group["spec"], group["metadata"]["version"])
    # A tenant admin edits it like any group of hers
    edited = await net.alice.request("PATCH", path, params={"update_mask": "spec.ingress"}, json=body)
    assert edited.status_code == 200, edited.text
    assert edited.json()["spec"]["ingress"] == HTTPS_IN
    assert edited.json()["metadata"]["labels"] == {"osac.openshift.io/default": "true"}


async def test_tenant_with_a_vm_cannot_be_deleted(net: Net) -> None:
    tenant = await net.tenant("acme")
    vm = await net.alice.request("POST", f"{PUBLIC}/compute_instances",
                                 json={"metadata": {"name": "web"}, "spec": {"template": "fedora"}})
    assert vm.status_code == 200, vm.text
    revision = await _revision(net)
    refused = await net.admin.request("DELETE", f"{PUBLIC}/tenants/{tenant['id']}")
    assert failure(refused) == (
        "FAILED_PRECONDITION", "cannot delete Tenant 'acme': 1 ComputeInstance(s) still reference it: web")
    assert await _revision(net) == revision  # no change at all
    kept = (await net.get("tenants", tenant["id"])).json()
    assert "deletion_timestamp" not in kept["metadata"]


async def test_tenant_with_only_defaults_is_archived_gateway_first_and_network_last(live) -> None:
    server, admin = live
    created = (await admin.request("POST", f"{PUBLIC}/tenants", json={"metadata": {"name": "acme"}})).json()
    path = f"{PUBLIC}/tenants/{created['id']}"
    await wait_for(admin, path, lambda t: t["status"]["state"] == "TENANT_STATE_READY")
    revision = int((await admin.request("GET", f"{PRIVATE}/tenants")).json()["revision"])

    assert (await admin.request("DELETE", path)).status_code == 200
    async with asyncio.timeout(30):
        while (await admin.request("GET", path)).status_code != 404:
            await asyncio.sleep(0.05)

    archived = [kind for _, change, kind in await outbox_after(server.app, revision) if change == "DELETED"]
    assert archived == ["nat_gateway", "external_ip", "security_group", "subnet", "virtual_network", "tenant"]
