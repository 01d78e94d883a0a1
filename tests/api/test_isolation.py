"""Tenant isolation: tenant B can never see, change or infer tenant A's objects."""

from __future__ import annotations

import pytest

from osac.auth.subject import Role
from osac.model import registry
from osac.model.kinds import Scope
from tests.support.samples import World
from tests.support.watching import payload, read_events

TENANT_KINDS = [k for k in registry.KINDS if k.scope in (Scope.TENANT,)]


async def _populate(server) -> tuple[World, dict[str, str]]:
    admin = server.rest(server.token(Role.PROVIDER_ADMIN, user="root"))
    alice = server.rest(server.token(Role.TENANT_ADMIN, ("acme",), user="alice"))
    world = World(admin, alice)
    for kind in TENANT_KINDS:
        await world.dependency(kind.name)
    await admin.request("POST", "/api/fulfillment/v1/tenants", json={"metadata": {"name": "globex"}})
    return world, dict(world.made)


async def test_other_tenant_cannot_see_or_touch_anything(server) -> None:
    world, made = await _populate(server)
    bob = server.rest(server.token(Role.TENANT_ADMIN, ("globex",), user="bob"))
    for kind in [*TENANT_KINDS, registry.get("tenant")]:
        object_id = made[kind.name]
        base = f"/api/fulfillment/v1/{kind.collection}"
        expected = {"code": 5, "message": f"{kind.message} '{object_id}' not found", "details": []}
        got = await bob.request("GET", f"{base}/{object_id}")
        assert (got.status_code, got.json()) == (404, expected), kind.name
        patched = await bob.request("PATCH", f"{base}/{object_id}", json={"metadata": {"labels": {"x": "y"}}})
        assert (patched.status_code, patched.json()) == (404, expected), kind.name
        deleted = await bob.request("DELETE", f"{base}/{object_id}")
        assert (deleted.status_code, deleted.json()) == (404, expected), kind.name
        listed = (await bob.request("GET", base)).json()
        ids = [item["id"] for item in listed["items"]]
        assert object_id not in ids and listed["total"] == len(ids), kind.name
        by_filter = (await bob.request("GET", base, params={"filter": f"this.id == '{object_id}'"})).json()
        assert by_filter["total"] == 0, kind.name
    # Nothing of acme was changed by any of that.
    for kind in TENANT_KINDS:
        stored = (await world.user.request("GET", f"/api/fulfillment/v1/{kind.collection}/{made[kind.name]}")).json()
        assert "labels" not in stored["metadata"], kind.name


async def test_other_tenant_watch_sees_nothing_of_acme(server) -> None:
    _, made = await _populate(server)
    lines = await read_events(server.http_url, server.token(Role.TENANT_ADMIN, ("globex",), user="bob"),
                              params={"after_revision": "1"}, idle=1.0)
    seen = [payload(line)[1]["metadata"]["tenant"] for line in lines]
    assert seen and set(seen) <= {"globex", "shared"}
    assert not any(line["result"]["event"]["type"] == "EVENT_TYPE_OBJECT_SIGNALED" for line in lines)


async def test_references_into_another_tenant_do_not_resolve(server) -> None:
    _, made = await _populate(server)
    bob = server.rest(server.token(Role.TENANT_ADMIN, ("globex",), user="bob"))
    vn = made["virtual_network"]
    response = await bob.request("POST", "/api/fulfillment/v1/subnets",
                                 json={"spec": {"virtual_network": vn, "ipv4_cidr": "10.10.9.0/24"}})
    assert response.status_code == 400
    assert response.json()["message"] == f"spec.virtual_network: VirtualNetwork '{vn}' not found"


@pytest.mark.parametrize("role", [Role.TENANT_ADMIN, Role.TENANT_USER])
async def test_tenant_roles_cannot_call_the_private_api(server, role: Role) -> None:
    client = server.rest(server.token(role, ("acme",), user="carol"))
    for kind in registry.KINDS:
        response = await client.request("GET", f"/api/private/v1/{kind.collection}")
        assert response.status_code == 403, kind.name
        assert response.json()["message"] == "the private API requires the provider admin role"
    watch = await read_events(server.http_url, server.token(role, ("acme",)), path="/api/private/v1/events/watch")
    assert watch == [{"status": 403, "body": {"code": 7, "message": "the private API requires the provider admin role", "details": []}}]


async def test_tenant_user_cannot_change_default_objects(server) -> None:
    admin = server.rest(server.token(Role.PROVIDER_ADMIN, user="root"))
    await admin.request("POST", "/api/fulfillment/v1/tenants", json={"metadata": {"name": "acme"}})
    vn = (await server.rest(server.token(Role.TENANT_ADMIN, ("acme",))).request(
        "POST", "/api/fulfillment/v1/virtual_networks", json={"spec": {"ipv4_cidr": "10.20.0.0/16"}})).json()
    private = await admin.request("PATCH", f"/api/private/v1/virtual_networks/{vn['id']}",
                                  params={"update_mask": "metadata.labels"},
                                  json={"metadata": {"labels": {"osac.openshift.io/default": "true"}}})
    assert private.status_code == 200, private.text
    user = server.rest(server.token(Role.TENANT_USER, ("acme",), user="dave"))
    response = await user.request("DELETE", f"/api/fulfillment/v1/virtual_networks/{vn['id']}")
    assert response.status_code == 403
    assert response.json()["message"] == "tenant users cannot delete objects labelled osac.openshift.io/default=true"


async def test_counts_by_state_hold_only_what_the_caller_may_list(server) -> None:
    """The console's overview counts (``KindService.count_by_state``): per state exactly what a
    List of the same caller holds, nothing of another tenant."""
    from osac.services.core.context import Caller

    world, made = await _populate(server)
    services = server.app.services
    verifier = server.app.verifier
    alice = Caller(await verifier.verify(server.token(Role.TENANT_ADMIN, ("acme",), user="alice")), private=False)
    bob = Caller(await verifier.verify(server.token(Role.TENANT_ADMIN, ("globex",), user="bob")), private=False)
    for kind in TENANT_KINDS:
        if kind.state_enum is None:
            continue
        service = services[kind.name]
        page = await service.list(alice, limit=1000)
        expected: dict[int, int] = {}
        for item in page.items:
            expected[item.status.state] = expected.get(item.status.state, 0) + 1
        assert await service.count_by_state(alice) == expected and sum(expected.values()) >= 1, kind.name
        assert await service.count_by_state(bob) == {}, kind.name


async def test_stage_counts_hold_only_what_the_caller_may_list(server) -> None:
    """The console's stage counts (``stage_counts.stage_inputs``, one grouped query): per group
    exactly the clusters a List of the same caller holds, with the same STAGE cell."""
    from collections import Counter

    from osac.services.clusters.stage_counts import stage_inputs
    from osac.services.core.context import Caller
    from osac.status.clusters import cells
    from osac.status.conditions.views import ConditionView

    await _populate(server)
    clusters = server.app.services["cluster"]
    verifier = server.app.verifier
    alice = Caller(await verifier.verify(server.token(Role.TENANT_ADMIN, ("acme",), user="alice")), private=False)
    bob = Caller(await verifier.verify(server.token(Role.TENANT_ADMIN, ("globex",), user="bob")), private=False)
    admin = Caller(await verifier.verify(server.token(Role.PROVIDER_ADMIN, user="root")), private=True)
    for caller in (alice, admin):
        listed = (await clusters.list(caller, limit=1000)).items
        expected = Counter((c.metadata.tenant, c.status.state, cells.stage_cell(c.status)) for c in listed)
        counted = await stage_inputs(clusters, caller)
        got: Counter[tuple[str, int, str]] = Counter()
        for group in counted.groups:
            progress = ConditionView(1, group.progressing_status, group.progressing_reason)
            got[(group.tenant, group.state, cells.stage_cell([progress], group.stage))] += group.count
        assert got == expected and sum(expected.values()) >= 1
        assert counted.revision >= 1
    assert (await stage_inputs(clusters, bob)).groups == []
