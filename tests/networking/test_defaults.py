"""Default tenant networking (networking.md §6.1): created with the Tenant, in one transaction."""

from __future__ import annotations

from osac.auth.subject import Role
from osac.services.networking.allocation_metrics import ALLOCATION_FAILURES
from tests.networking.conftest import Net, error
from tests.support.networking import PRIVATE, PUBLIC, find_by_name, set_state
from tests.support.watching import payload, read_events

DEFAULTS = [("virtual_network", "default"), ("subnet", "default"), ("security_group", "default"),
            ("external_ip", "default-nat"), ("nat_gateway", "default")]
COLLECTIONS = ["virtual_networks", "subnets", "security_groups", "external_ips", "nat_gateways"]


async def _revision(net: Net) -> int:
    return int((await net.admin.request("GET", f"{PRIVATE}/tenants")).json()["revision"])


async def _networking_objects(net: Net, tenant: str) -> int:
    total = 0
    for collection in COLLECTIONS:
        page = (await net.admin.request("GET", f"{PRIVATE}/{collection}",
                                        params={"filter": f"this.metadata.tenant == '{tenant}'"})).json()
        total += page["total"]
    return total


async def test_onboarding_creates_the_five_defaults_in_one_transaction(net: Net) -> None:
    before = await _revision(net)
    tenant = await net.tenant(ready=False)
    assert tenant["status"]["state"] == "TENANT_STATE_PENDING"
    [default_class] = await net.items("network_classes", "this.metadata.name == 'default'")
    [pool] = await net.items("external_ip_pools", "this.metadata.name == 'public-v4'")

    token = net.server.token(Role.PROVIDER_ADMIN, user="root")
    lines = await read_events(net.server.http_url, token, path=f"{PRIVATE}/events/watch",
                              params={"after_revision": str(before)}, idle=1.0)
    events = [(line["result"]["event"]["type"], int(line["result"]["event"]["revision"]), *payload(line)) for line in lines]
    created = [(kind, obj) for event_type, _, kind, obj in events if event_type == "EVENT_TYPE_OBJECT_CREATED"]
    assert [(kind, obj["metadata"]["name"]) for kind, obj in created] == [("tenant", "acme"), *DEFAULTS]
    revisions = [revision for _, revision, _, _ in events]
    assert revisions[:6] == list(range(revisions[0], revisions[0] + 6))  # consecutive: one transaction
    assert [(t, k) for t, _, k, _ in events[6:]] == [("EVENT_TYPE_OBJECT_UPDATED", "external_ip_pool")]  # counters last

    by_kind = {kind: obj for kind, obj in created}
    for kind, _ in DEFAULTS:
        meta = by_kind[kind]["metadata"]
        assert (meta["creator"], meta["tenant"], meta["labels"]) == ("system", "acme", {"osac.openshift.io/default": "true"}), kind
        assert by_kind[kind]["status"]["state"].endswith("_STATE_PENDING"), kind
    vn, subnet, sg, eip, gateway = (by_kind[k] for k, _ in DEFAULTS)
    assert vn["spec"] == {"region": "local", "network_class": default_class["id"], "ipv4_cidr": "10.0.0.0/16"}
    assert subnet["spec"] == {"virtual_network": vn["id"], "ipv4_cidr": "10.0.0.0/20"}
    assert subnet["status"]["gateway"] == "10.0.0.1" and subnet["status"]["vip_range"] == "10.0.15.240-10.0.15.254"
    assert sg["spec"]["virtual_network"] == vn["id"]
    assert sg["spec"]["ingress"] == default_class["spec"]["defaults"]["ingress_rules"]
    assert sg["spec"]["egress"] == default_class["spec"]["defaults"]["egress_rules"]
    assert (eip["spec"]["pool"], eip["status"]["address"]) == (pool["id"], "203.0.113.1")
    assert gateway["spec"] == {"virtual_network": vn["id"], "external_ip": eip["id"]}

    notes = (await net.admin.request("GET", f"{PUBLIC}/lifecycle_events",
                                     params={"filter": f"this.object_id == '{tenant['id']}'"})).json()["items"]
    assert [(n["reason"], n["type"]) for n in notes] == [("DefaultNetworkingCreated", "LIFECYCLE_EVENT_TYPE_NORMAL")]
    assert "NATGateway 'default'" in notes[0]["message"]

    # The tenant can be deleted while it holds only its defaults (networking.md §4).
    assert (await net.admin.request("DELETE", f"{PUBLIC}/tenants/{tenant['id']}")).status_code == 200


async def test_onboarding_without_pool_capacity_stores_nothing(net: Net) -> None:
    [pool] = await net.items("external_ip_pools", "this.metadata.name == 'public-v4'")
    await set_state(net.admin, "external_ip_pools", pool["id"], "EXTERNAL_IP_POOL_STATE_PENDING")  # not READY: no capacity
    tiny = await net.pool("tiny", ["198.51.100.0/31"])  # RFC 3021: two usable addresses
    await net.tenant("one", ready=False)
    await net.tenant("two", ready=False)
    before = await _revision(net)
    failures = ALLOCATION_FAILURES.labels("external", "default")._value.get()
    response = await net.admin.request("POST", f"{PUBLIC}/tenants", json={"metadata": {"name": "three"}})
    assert error(response) == (429, "ExternalIPPool exhaustion: no available capacity in any READY pool for IPv4")
    assert await _revision(net) == before  # no change event at all
    assert ALLOCATION_FAILURES.labels("external", "default")._value.get() == failures + 1
    assert (await net.admin.request("GET", f"{PRIVATE}/tenants", params={"filter": "this.metadata.name == 'three'"})).json()["total"] == 0
    assert await _networking_objects(net, "three") == 0
    status = (await net.get("external_ip_pools", tiny["id"])).json()["status"]
    assert (status["total"], status["allocated"]) == ("2", "2")


async def test_default_pool_is_the_one_with_most_free_addresses(net: Net) -> None:
    await net.pool("big", ["198.51.100.0/23"])  # 510 > 253
    await net.tenant(ready=False)
    eip = await find_by_name(net.admin, "external_ips", "default-nat", "acme")
    assert eip["status"]["address"] == "198.51.100.1"


async def test_no_defaults_configured_creates_no_networking(net: Net) -> None:
    [default_class] = await net.items("network_classes", "this.metadata.name == 'default'")
    response = await net.admin.request("PATCH", f"{PRIVATE}/network_classes/{default_class['id']}",
                                       params={"update_mask": "spec.defaults"}, json={"spec": {}})
    assert response.status_code == 200, response.text
    tenant = await net.tenant(ready=False)
    assert await _networking_objects(net, "acme") == 0
    notes = (await net.admin.request("GET", f"{PUBLIC}/lifecycle_events",
                                     params={"filter": f"this.object_id == '{tenant['id']}'"})).json()["items"]
    assert notes == []


async def test_nat_disabled_creates_three_defaults(net: Net) -> None:
    [default_class] = await net.items("network_classes", "this.metadata.name == 'default'")
    response = await net.admin.request("PATCH", f"{PRIVATE}/network_classes/{default_class['id']}",
                                       params={"update_mask": "spec.defaults.enable_nat_gateway"},
                                       json={"spec": {"defaults": {"enable_nat_gateway": False}}})
    assert response.status_code == 200, response.text
    await net.tenant(ready=False)
    assert await _networking_objects(net, "acme") == 3


async def test_default_class_not_ready_refuses_the_tenant(net: Net) -> None:
    [default_class] = await net.items("network_classes", "this.metadata.name == 'default'")
    await set_state(net.admin, "network_classes", default_class["id"], "NETWORK_CLASS_STATE_PENDING")
    response = await net.admin.request("POST", f"{PUBLIC}/tenants", json={"metadata": {"name": "acme"}})
    assert error(response) == (400, "NetworkClass 'default' is not READY (state NETWORK_CLASS_STATE_PENDING)")
    assert (await net.admin.request("GET", f"{PRIVATE}/tenants")).json()["total"] == 0
