"""Scenario 24 of networking.md §14 (*failure reasons*) beyond the subnet (which
test_default_networking.py covers): a terminal ``fabric_fail`` at onboarding on the default
VirtualNetwork, SecurityGroup, NATGateway or the gateway's ExternalIP gives the §6.2 reason and
message on ``DEFAULT_NETWORKING_READY``, the tenant FAILED and a Warning
``DefaultNetworkingFailed`` naming the same failure."""

from __future__ import annotations

import pytest

from tests.support.onboarding import wait_for

PUBLIC = "/api/fulfillment/v1"
PRIVATE = "/api/private/v1"

#: (fabric operation, the default that fails, its collection, condition reason, message prefix)
FAILURES = [
    pytest.param("create_virtual_network", "virtual_networks", "VIRTUAL_NETWORK_STATE_FAILED",
                 "VirtualNetworkProvisioningFailed", "VirtualNetwork 'default' failed to provision: ",
                 id="virtual-network"),
    pytest.param("apply_security_group", "security_groups", "SECURITY_GROUP_STATE_FAILED",
                 "SecurityGroupProvisioningFailed", "SecurityGroup 'default' failed to provision: ",
                 id="security-group"),
    pytest.param("create_nat_gateway", "nat_gateways", "NAT_GATEWAY_STATE_FAILED",
                 "NATGatewayProvisioningFailed", "NATGateway 'default' failed to provision: ", id="nat-gateway"),
    pytest.param("allocate_external_ip", "external_ips", "EXTERNAL_IP_STATE_FAILED",
                 "NATGatewayProvisioningFailed", "NATGateway 'default' failed to provision: ",
                 id="nat-external-ip"),
]


@pytest.mark.parametrize(("operation", "collection", "failed_state", "reason", "prefix"), FAILURES)
async def test_terminal_fault_at_onboarding_names_the_failed_default(
    live, operation: str, collection: str, failed_state: str, reason: str, prefix: str
) -> None:
    server, admin = live
    # Given the fabric fails every call of one operation terminally
    fault = await admin.request("POST", f"{PRIVATE}/simulator/faults", json={
        "fault": "fabric_fail", "params": {"operation": operation, "terminal": True}})
    assert fault.status_code == 200, fault.text
    # When tenant acme is onboarded
    created = (await admin.request("POST", f"{PUBLIC}/tenants", json={"metadata": {"name": "acme"}})).json()
    # Then the tenant fails with that default's reason
    tenant = await wait_for(admin, f"{PUBLIC}/tenants/{created['id']}",
                            lambda t: t["status"]["state"] == "TENANT_STATE_FAILED")
    [failed] = (await admin.request("GET", f"{PRIVATE}/{collection}",
                                    params={"filter": "this.metadata.tenant == 'acme'"})).json()["items"]
    assert failed["status"]["state"] == failed_state
    error = failed["status"]["message"]
    assert error.startswith(f"simulated failure of {operation} of {failed['id']}"), error
    [condition] = tenant["status"]["conditions"]
    assert (condition["type"], condition["status"], condition["reason"], condition["message"]) == (
        "TENANT_CONDITION_TYPE_DEFAULT_NETWORKING_READY", "CONDITION_STATUS_FALSE", reason, prefix + error)

    events = (await admin.request("GET", f"{PUBLIC}/lifecycle_events",
                                  params={"filter": f"this.object_id == '{created['id']}'"})).json()["items"]
    assert [(e["reason"], e["type"]) for e in events] == [
        ("DefaultNetworkingCreated", "LIFECYCLE_EVENT_TYPE_NORMAL"),
        ("DefaultNetworkingFailed", "LIFECYCLE_EVENT_TYPE_WARNING")]
    assert events[1]["message"] == prefix + error
