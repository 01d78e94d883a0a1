"""Onboarding end to end: the reconcilers drive every default to READY through the fabric."""

from __future__ import annotations

import asyncio

from osac.auth.subject import Role
from tests.support.onboarding import wait_for


async def test_onboarding_converges_to_ready_defaults(live) -> None:
    server, admin = live
    created = (await admin.request("POST", "/api/fulfillment/v1/tenants", json={"metadata": {"name": "acme"}})).json()
    assert created["status"]["state"] == "TENANT_STATE_PENDING"
    tenant = await wait_for(admin, f"/api/fulfillment/v1/tenants/{created['id']}",
                            lambda t: t["status"]["state"] == "TENANT_STATE_READY")
    [condition] = tenant["status"]["conditions"]
    assert (condition["status"], condition["reason"], condition["message"]) == (
        "CONDITION_STATUS_TRUE", "Ready", "default networking is ready")
    alice = server.rest(server.token(Role.TENANT_ADMIN, ("acme",), user="alice"))
    states = {}
    for collection in ("virtual_networks", "subnets", "security_groups", "external_ips", "nat_gateways"):
        [item] = (await alice.request("GET", f"/api/fulfillment/v1/{collection}")).json()["items"]
        assert item["metadata"]["labels"] == {"osac.openshift.io/default": "true"}
        states[collection] = item["status"]["state"].rsplit("_", 1)[-1]
    assert states == {"virtual_networks": "READY", "subnets": "READY", "security_groups": "READY",
                      "external_ips": "ALLOCATED", "nat_gateways": "READY"}
    eip = (await alice.request("GET", "/api/fulfillment/v1/external_ips")).json()["items"][0]
    assert eip["status"]["attached"] is True and eip["status"]["address"].startswith("203.0.113.")
    events = (await alice.request("GET", "/api/fulfillment/v1/lifecycle_events",
                                  params={"filter": f"this.object_id == '{created['id']}'"})).json()["items"]
    assert [e["reason"] for e in events] == ["DefaultNetworkingCreated", "DefaultNetworkingReady"]

    # The simulated fabric holds exactly what the API says (Simulator.GetObservation).
    vn = (await alice.request("GET", "/api/fulfillment/v1/virtual_networks")).json()["items"][0]
    subnet = (await alice.request("GET", "/api/fulfillment/v1/subnets")).json()["items"][0]
    observed = (await admin.request("POST", "/api/private/v1/simulator/get_observation",
                                    json={"kind": "fabric", "key": vn["id"]})).json()["observation"]
    assert observed["virtual_network"]["vn_id"] == vn["id"]
    [segment] = [s for s in observed["segments"] if s.get("subnet_id") == subnet["id"]]
    assert segment["cidr"] == subnet["spec"]["ipv4_cidr"] and segment["gateway"] == subnet["status"]["gateway"]
    [snat] = observed["snat"]
    assert snat["external_address"] == eip["status"]["address"]
    [group] = observed["security_groups"]
    assert [rule["protocol"] for rule in group["ingress"]] == ["tcp", "icmp"]


async def test_tenant_with_only_defaults_is_torn_down_gateway_first(live) -> None:
    server, admin = live
    created = (await admin.request("POST", "/api/fulfillment/v1/tenants", json={"metadata": {"name": "acme"}})).json()
    path = f"/api/fulfillment/v1/tenants/{created['id']}"
    await wait_for(admin, path, lambda t: t["status"]["state"] == "TENANT_STATE_READY")
    page = (await admin.request("GET", "/api/fulfillment/v1/external_ip_pools")).json()
    before = int(page["items"][0]["status"]["available"])
    assert (await admin.request("DELETE", path)).status_code == 200
    async with asyncio.timeout(30):
        while (await admin.request("GET", path)).status_code != 404:
            await asyncio.sleep(0.05)
    for collection in ("virtual_networks", "subnets", "security_groups", "external_ips", "nat_gateways"):
        assert (await admin.request("GET", f"/api/private/v1/{collection}")).json()["total"] == 0, collection
    after = (await admin.request("GET", "/api/private/v1/external_ip_pools")).json()["items"][0]["status"]
    assert int(after["available"]) == before + 1 and int(after.get("allocated", "0")) == 0


async def test_subnet_fault_fails_onboarding_and_recovers_after_signal(live) -> None:
    server, admin = live
    fault = await admin.request("POST", "/api/private/v1/simulator/faults", json={
        "fault": "fabric_fail", "params": {"operation": "create_subnet", "terminal": True}})
    assert fault.status_code == 200, fault.text
    created = (await admin.request("POST", "/api/fulfillment/v1/tenants", json={"metadata": {"name": "acme"}})).json()
    path = f"/api/fulfillment/v1/tenants/{created['id']}"
    failed = await wait_for(admin, path, lambda t: t["status"]["state"] == "TENANT_STATE_FAILED")
    [condition] = failed["status"]["conditions"]
    assert condition["status"] == "CONDITION_STATUS_FALSE"
    assert condition["reason"] == "SubnetProvisioningFailed"
    assert condition["message"].startswith("Subnet 'default' failed to provision")
    [subnet] = (await admin.request("GET", "/api/private/v1/subnets",
                                    params={"filter": "this.metadata.tenant == 'acme'"})).json()["items"]
    assert subnet["status"]["state"] == "SUBNET_STATE_FAILED"
    events = (await admin.request("GET", "/api/fulfillment/v1/lifecycle_events",
                                  params={"filter": f"this.object_id == '{created['id']}'"})).json()["items"]
    assert "DefaultNetworkingFailed" in [e["reason"] for e in events]

    assert (await admin.request("DELETE", f"/api/private/v1/simulator/faults/{fault.json()['id']}")).status_code == 200
    assert (await admin.request("POST", f"/api/private/v1/subnets/{subnet['id']}/signal")).status_code == 200
    recovered = await wait_for(admin, path, lambda t: t["status"]["state"] == "TENANT_STATE_READY")
    assert recovered["status"]["conditions"][0]["reason"] == "Ready"


async def test_transient_fabric_faults_are_retried_with_messages(live) -> None:
    server, admin = live
    await admin.request("POST", "/api/private/v1/simulator/faults", json={
        "fault": "fabric_fail", "params": {"operation": "apply_security_group", "times": 2}})
    created = (await admin.request("POST", "/api/fulfillment/v1/tenants", json={"metadata": {"name": "acme"}})).json()
    await wait_for(admin, f"/api/fulfillment/v1/tenants/{created['id']}",
                   lambda t: t["status"]["state"] == "TENANT_STATE_READY", timeout=30)
    history = []
    async with server.rest(server.token(Role.PROVIDER_ADMIN)) as client:
        events = (await client.request("GET", "/api/fulfillment/v1/security_groups")).json()["items"]
        history = [e["status"]["state"] for e in events]
    assert history == ["SECURITY_GROUP_STATE_READY"]


async def test_networking_metrics_follow_the_pool_and_readiness(live) -> None:
    server, admin = live
    created = (await admin.request("POST", "/api/fulfillment/v1/tenants", json={"metadata": {"name": "acme"}})).json()
    await wait_for(admin, f"/api/fulfillment/v1/tenants/{created['id']}", lambda t: t["status"]["state"] == "TENANT_STATE_READY")
    async with asyncio.timeout(10):
        while True:
            metrics = (await admin.request("GET", "/metrics")).text
            if 'osac_external_ip_pool_addresses{pool="public-v4",state="allocated"} 1.0' in metrics:
                break
            await asyncio.sleep(0.1)
    assert 'osac_external_ip_pool_addresses{pool="public-v4",state="total"} 254.0' in metrics
    assert 'osac_networking_ready_seconds_count{kind="subnet"}' in metrics
    assert 'osac_network_provider_operation_seconds_count{manager="sim-fabric",operation="create_virtual_network",result="ok"}' in metrics
    assert 'osac_network_provider_operation_seconds_count{manager="sim-k8s",operation="create_subnet_overlay",result="ok"}' in metrics


async def test_no_database_connection_is_held_while_the_fabric_works(live) -> None:
    # The default VirtualNetwork's fabric call takes 2 s: while it runs, the reconciler holds no
    # connection (it looked up what the call needs in a read snapshot it closed before calling);
    # those the store keeps between transactions are in none.
    server, admin = live
    await admin.request("POST", "/api/private/v1/simulator/faults", json={
        "fault": "fabric_latency", "params": {"operation": "create_virtual_network", "seconds": 2}})
    created = (await admin.request("POST", "/api/fulfillment/v1/tenants", json={"metadata": {"name": "acme"}})).json()
    await asyncio.sleep(0.5)  # the VirtualNetwork's pass is inside its fabric call now
    pool = server.app.engines.reader.sync_engine.pool
    held = []
    for _ in range(20):
        held.append(pool.checkedout() - server.app.engines.kept_readers.kept)
        await asyncio.sleep(0.02)
    networks = (await admin.request("GET", "/api/fulfillment/v1/virtual_networks")).json()["items"]
    assert [n["status"]["state"] for n in networks] == ["VIRTUAL_NETWORK_STATE_PENDING"]  # still in the call
    assert min(held) == 0, held
    await wait_for(admin, f"/api/fulfillment/v1/tenants/{created['id']}",
                   lambda t: t["status"]["state"] == "TENANT_STATE_READY", timeout=30)
