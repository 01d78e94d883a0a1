"""Provider faults through the simulator admin API: retries, FAILED, DELETE_FAILED, Signal
(networking.md §3.2, §14 scenarios 14 and 19)."""

from __future__ import annotations

import asyncio

import pytest

from osac.auth.subject import Role
from osac.server.settings import DEFAULT_CONFIG, merge_config
from tests.support.onboarding import ready_catalogue, wait_for
from tests.support.server import running_server
from tests.support.watching import read_events

FAST = merge_config(DEFAULT_CONFIG, {"simulator": {"speed": "instant"},
                                     "networking": {"retry_backoff_seconds": 0.05, "provider_retry_limit": 5,
                                                    "cleanup_retry_limit": 3}})


@pytest.fixture
async def acme(db_url, tmp_path):
    async with running_server(tmp_path, db_url, controllers=True, config=FAST) as server:
        admin = server.rest(server.token(Role.PROVIDER_ADMIN, user="root"))
        await ready_catalogue(admin)
        tenant = (await admin.request("POST", "/api/fulfillment/v1/tenants", json={"metadata": {"name": "acme"}})).json()
        await wait_for(admin, f"/api/fulfillment/v1/tenants/{tenant['id']}", lambda t: t["status"]["state"] == "TENANT_STATE_READY")
        alice = server.rest(server.token(Role.TENANT_ADMIN, ("acme",), user="alice"))
        vn = (await alice.request("POST", "/api/fulfillment/v1/virtual_networks",
                                  json={"metadata": {"name": "app"}, "spec": {"ipv4_cidr": "10.1.0.0/16"}})).json()
        await wait_for(alice, f"/api/fulfillment/v1/virtual_networks/{vn['id']}",
                       lambda o: o["status"]["state"] == "VIRTUAL_NETWORK_STATE_READY")
        yield server, admin, alice


async def _fault(admin, **params) -> str:
    response = await admin.request("POST", "/api/private/v1/simulator/faults", json={"fault": "fabric_fail", "params": params})
    assert response.status_code == 200, response.text
    return response.json()["id"]


async def test_transient_faults_are_retried_until_ready(acme) -> None:
    server, admin, alice = acme
    await _fault(admin, operation="create_subnet", times=3)
    page = (await alice.request("GET", "/api/fulfillment/v1/subnets")).json()
    subnet = (await alice.request("POST", "/api/fulfillment/v1/subnets",
                                  json={"metadata": {"name": "web"}, "spec": {"virtual_network": "app", "ipv4_cidr": "10.1.1.0/24"}})).json()
    await wait_for(alice, f"/api/fulfillment/v1/subnets/{subnet['id']}", lambda o: o["status"]["state"] == "SUBNET_STATE_READY")
    lines = await read_events(server.http_url, server.token(Role.TENANT_ADMIN, ("acme",)),
                              params={"after_revision": page["revision"],
                                      "filter": f"has(event.subnet) && event.subnet.id == '{subnet['id']}'"}, idle=0.5)
    messages = [line["result"]["event"]["subnet"]["status"].get("message", "") for line in lines]
    retries = [m for m in messages if m.startswith("retrying (attempt ")]
    assert [m.split(")")[0] for m in retries] == ["retrying (attempt 1", "retrying (attempt 2", "retrying (attempt 3"]
    assert "simulated failure of create_subnet" in retries[0]


async def test_terminal_fault_fails_and_signal_recovers(acme) -> None:
    server, admin, alice = acme
    fault = await _fault(admin, operation="create_subnet", terminal=True)
    subnet = (await alice.request("POST", "/api/fulfillment/v1/subnets",
                                  json={"metadata": {"name": "web"}, "spec": {"virtual_network": "app", "ipv4_cidr": "10.1.1.0/24"}})).json()
    path = f"/api/fulfillment/v1/subnets/{subnet['id']}"
    failed = await wait_for(alice, path, lambda o: o["status"]["state"] == "SUBNET_STATE_FAILED")
    assert "simulated failure of create_subnet" in failed["status"]["message"]
    assert (await admin.request("DELETE", f"/api/private/v1/simulator/faults/{fault}")).status_code == 200
    assert (await admin.request("POST", f"/api/private/v1/subnets/{subnet['id']}/signal")).status_code == 200
    await wait_for(alice, path, lambda o: o["status"]["state"] == "SUBNET_STATE_READY")


async def test_external_ip_release_is_confirmed_before_the_address_is_free(acme) -> None:
    server, admin, alice = acme
    eip = (await alice.request("POST", "/api/fulfillment/v1/external_ips",
                               json={"metadata": {"name": "web"}, "spec": {"pool": "public-v4"}})).json()
    path = f"/api/fulfillment/v1/external_ips/{eip['id']}"
    await wait_for(alice, path, lambda o: o["status"]["state"] == "EXTERNAL_IP_STATE_ALLOCATED")
    pool_path = "/api/private/v1/external_ip_pools"
    allocated = int((await admin.request("GET", pool_path)).json()["items"][0]["status"]["allocated"])
    fault = await _fault(admin, operation="release_external_ip", terminal=True)
    assert (await alice.request("DELETE", path)).status_code == 200
    failed = await wait_for(alice, path, lambda o: o["status"]["state"] == "EXTERNAL_IP_STATE_DELETE_FAILED")
    assert failed["status"]["message"].startswith("teardown failed: ")
    assert int((await admin.request("GET", pool_path)).json()["items"][0]["status"]["allocated"]) == allocated
    events = (await alice.request("GET", "/api/fulfillment/v1/lifecycle_events",
                                  params={"filter": f"this.object_id == '{eip['id']}'"})).json()["items"]
    assert [e["reason"] for e in events] == ["DeleteFailed"]

    assert (await admin.request("DELETE", f"/api/private/v1/simulator/faults/{fault}")).status_code == 200
    assert (await admin.request("POST", f"/api/private/v1/external_ips/{eip['id']}/signal")).status_code == 200
    async with asyncio.timeout(20):
        while (await alice.request("GET", path)).status_code != 404:
            await asyncio.sleep(0.05)
    assert int((await admin.request("GET", pool_path)).json()["items"][0]["status"]["allocated"]) == allocated - 1
