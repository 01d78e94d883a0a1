"""Waiting costs no polling: a networking object waiting for another one, and a tenant waiting for
its defaults, are queued by the change of what they wait for (docs/controllers.md, dependents).

The periodic looks (the safety nets) are made an hour long here, so anything that converges
within the test's timeouts was queued by a change.
"""

from __future__ import annotations

import pytest

from osac.auth.subject import Role
from osac.server.settings import DEFAULT_CONFIG, merge_config
from tests.support.onboarding import ready_catalogue, wait_for
from tests.support.server import SAFETY_NETS_AN_HOUR, running_server
from tests.support.watching import payload, read_events

#: Failed fabric calls are retried after 0.2 s, doubling (the waiting tests fail one until they
#: have seen its waiters wait for it).
INSTANT = merge_config(merge_config(DEFAULT_CONFIG, {"simulator": {"speed": "instant"},
                                                     "networking": {"retry_backoff_seconds": 0.2}}),
                       SAFETY_NETS_AN_HOUR)
#: Far below the safety nets: a waiter still waiting after this was not queued by the change.
PROMPTLY = 10.0


@pytest.fixture
async def live(db_url, tmp_path):
    async with running_server(tmp_path, db_url, controllers=True, config=INSTANT) as server:
        admin = server.rest(server.token(Role.PROVIDER_ADMIN, user="root"))
        await ready_catalogue(admin)
        yield server, admin


async def _fault(admin, **params) -> str:
    response = await admin.request("POST", "/api/private/v1/simulator/faults", json={"fault": "fabric_fail", "params": params})
    assert response.status_code == 200, response.text
    return str(response.json()["id"])


async def _messages(server, after_revision: str) -> dict[str, list[str]]:
    """Every status message each kind's objects had since ``after_revision``, in order."""
    lines = await read_events(server.http_url, server.token(Role.PROVIDER_ADMIN),
                              params={"after_revision": after_revision}, idle=0.5)
    found: dict[str, list[str]] = {}
    for line in lines:
        kind, obj = payload(line)
        found.setdefault(kind, []).append(obj.get("status", {}).get("message", ""))
    return found


@pytest.mark.parametrize(("operation", "waiters", "awaited"), [
    ("create_virtual_network", ("subnet", "security_group", "nat_gateway"), "VirtualNetwork 'default'"),
    ("allocate_external_ip", ("nat_gateway",), "ExternalIP 'default-nat'"),
], ids=["waiting-for-the-virtual-network", "nat-waiting-for-its-external-ip"])
async def test_objects_waiting_for_a_default_are_queued_when_it_is_ready(live, operation, waiters, awaited) -> None:
    server, admin = live
    # Given the fabric calls that create one default fail (retried after 0.2 s, doubling), so
    # others wait for it: until every waiter was seen waiting for it (however slow the machine)
    fault = await _fault(admin, operation=operation)
    revision = (await admin.request("GET", "/api/private/v1/tenants")).json()["revision"]
    # When the tenant is onboarded
    created = (await admin.request("POST", "/api/fulfillment/v1/tenants", json={"metadata": {"name": "acme"}})).json()
    for kind in waiters:
        await wait_for(admin, f"/api/private/v1/{kind}s",
                       lambda page: page["items"] and page["items"][0].get("status", {}).get("message", "").startswith(
                           f"waiting for {awaited}"), timeout=PROMPTLY)
    # And the default's fabric calls work again
    assert (await admin.request("DELETE", f"/api/private/v1/simulator/faults/{fault}")).status_code == 200
    # Then the waiters, and the tenant waiting for them, are READY long before any safety net
    for kind in waiters:
        await wait_for(admin, f"/api/private/v1/{kind}s",
                       lambda page, kind=kind: page["items"][0]["status"]["state"] == f"{kind.upper()}_STATE_READY",
                       timeout=PROMPTLY)
    ready = await wait_for(admin, f"/api/fulfillment/v1/tenants/{created['id']}",
                           lambda t: t["status"]["state"] == "TENANT_STATE_READY", timeout=PROMPTLY)
    assert ready["status"]["conditions"][0]["reason"] == "Ready"
    # And the waiters did wait for the failed default, then went on when it became ready
    messages = await _messages(server, revision)
    for kind in waiters:
        assert any(m.startswith(f"waiting for {awaited}") for m in messages[kind]), (kind, messages[kind])
        assert messages[kind][-1] == "", (kind, messages[kind])


async def test_failed_tenant_recovers_when_its_default_is_signalled(live) -> None:
    server, admin = live
    fault = await _fault(admin, operation="create_subnet", terminal=True)
    created = (await admin.request("POST", "/api/fulfillment/v1/tenants", json={"metadata": {"name": "acme"}})).json()
    path = f"/api/fulfillment/v1/tenants/{created['id']}"
    await wait_for(admin, path, lambda t: t["status"]["state"] == "TENANT_STATE_FAILED", timeout=PROMPTLY)
    [subnet] = (await admin.request("GET", "/api/private/v1/subnets")).json()["items"]
    assert (await admin.request("DELETE", f"/api/private/v1/simulator/faults/{fault}")).status_code == 200
    assert (await admin.request("POST", f"/api/private/v1/subnets/{subnet['id']}/signal")).status_code == 200
    await wait_for(admin, path, lambda t: t["status"]["state"] == "TENANT_STATE_READY", timeout=PROMPTLY)


async def test_tenant_teardown_follows_its_defaults_until_archived(live) -> None:
    server, admin = live
    created = (await admin.request("POST", "/api/fulfillment/v1/tenants", json={"metadata": {"name": "acme"}})).json()
    path = f"/api/fulfillment/v1/tenants/{created['id']}"
    await wait_for(admin, path, lambda t: t["status"]["state"] == "TENANT_STATE_READY", timeout=PROMPTLY)
    assert (await admin.request("DELETE", path)).status_code == 200
    await wait_for(admin, "/api/private/v1/tenants", lambda page: page["total"] == 0, timeout=PROMPTLY)
    for collection in ("virtual_networks", "subnets", "security_groups", "external_ips", "nat_gateways"):
        assert (await admin.request("GET", f"/api/private/v1/{collection}")).json()["total"] == 0, collection
