"""State machines (networking.md §3.2): the transition tables, and their enforcement on private
status writes."""

from __future__ import annotations

import pytest

from osac.model import registry
from osac.services.kinds import BEHAVIOURS
from tests.networking.conftest import Net, error
from tests.support.networking import PRIVATE

STATES = ("PENDING", "READY", "FAILED", "DELETING", "DELETE_FAILED")
STANDARD_ALLOWED = {
    ("PENDING", "READY"), ("PENDING", "FAILED"), ("READY", "PENDING"), ("FAILED", "PENDING"),
    ("PENDING", "DELETING"), ("READY", "DELETING"), ("FAILED", "DELETING"),
    ("DELETING", "DELETE_FAILED"), ("DELETE_FAILED", "DELETING"),
}
EIP_STATES = ("PENDING", "ALLOCATED", "FAILED", "DELETING", "DELETE_FAILED")
EIP_ALLOWED = {
    ("PENDING", "ALLOCATED"), ("PENDING", "FAILED"), ("ALLOCATED", "FAILED"), ("FAILED", "ALLOCATED"),
    ("FAILED", "PENDING"), ("PENDING", "DELETING"), ("ALLOCATED", "DELETING"), ("FAILED", "DELETING"),
    ("DELETING", "DELETE_FAILED"), ("DELETE_FAILED", "DELETING"),
}
TENANT_ALLOWED = {
    ("PENDING", "READY"), ("PENDING", "FAILED"), ("FAILED", "READY"),
    ("PENDING", "DELETING"), ("READY", "DELETING"), ("FAILED", "DELETING"),
    ("DELETING", "DELETE_FAILED"), ("DELETE_FAILED", "DELETING"),
}
STANDARD_KINDS = ("network_class", "virtual_network", "subnet", "security_group", "external_ip_pool",
                  "nat_gateway", "external_ip_attachment")


def _cases() -> list[tuple[str, str, str, bool]]:
    cases = []
    for kind in STANDARD_KINDS:
        cases += [(kind, a, b, (a, b) in STANDARD_ALLOWED) for a in STATES for b in STATES if a != b]
    cases += [("external_ip", a, b, (a, b) in EIP_ALLOWED) for a in EIP_STATES for b in EIP_STATES if a != b]
    cases += [("tenant", a, b, (a, b) in TENANT_ALLOWED) for a in STATES for b in STATES if a != b]
    return cases


@pytest.mark.parametrize(("kind_name", "before", "after", "allowed"), _cases(),
                         ids=[f"{k}:{a}->{b}" for k, a, b, _ in _cases()])
def test_transition_table(kind_name: str, before: str, after: str, allowed: bool) -> None:
    kind = registry.get(kind_name)
    transitions = BEHAVIOURS[kind.name](kind).transitions
    assert transitions is not None
    src, dst = kind.state_value(before), kind.state_value(after)
    assert src is not None and dst is not None
    assert (dst in transitions.get(src, frozenset())) is allowed


async def test_private_status_writes_follow_the_state_machine(net: Net) -> None:
    await net.tenant()
    eip = await net.external_ip("web")  # ALLOCATED
    refused = await net.admin.request("PATCH", f"{PRIVATE}/external_ips/{eip['id']}", params={"update_mask": "status.state"},
                                      json={"status": {"state": "EXTERNAL_IP_STATE_PENDING"}})
    assert error(refused) == (400, "invalid state transition EXTERNAL_IP_STATE_ALLOCATED -> EXTERNAL_IP_STATE_PENDING")
    assert (await net.ready("external_ips", eip["id"], "EXTERNAL_IP_STATE_FAILED"))["status"]["state"] == "EXTERNAL_IP_STATE_FAILED"
    assert (await net.ready("external_ips", eip["id"]))["status"]["state"] == "EXTERNAL_IP_STATE_ALLOCATED"
    vn = await net.network("app", "10.1.0.0/16", ready=False)
    refused = await net.admin.request("PATCH", f"{PRIVATE}/virtual_networks/{vn['id']}", params={"update_mask": "status.state"},
                                      json={"status": {"state": "VIRTUAL_NETWORK_STATE_DELETE_FAILED"}})
    assert error(refused) == (400, "invalid state transition VIRTUAL_NETWORK_STATE_PENDING -> VIRTUAL_NETWORK_STATE_DELETE_FAILED")
    [tenant] = await net.items("tenants")
    await net.ready("tenants", tenant["id"])
    refused = await net.admin.request("PATCH", f"{PRIVATE}/tenants/{tenant['id']}", params={"update_mask": "status.state"},
                                      json={"status": {"state": "TENANT_STATE_PENDING"}})
    assert error(refused) == (400, "invalid state transition TENANT_STATE_READY -> TENANT_STATE_PENDING")
