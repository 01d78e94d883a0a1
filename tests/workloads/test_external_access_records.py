"""What automatic and manual external access leave on record (networking.md §12):

- scenario 39: deleting a VM with a manual ExternalIP attached detaches the attachment
  (PENDING ``TargetDeleted``) and records ``ExternalIPAttachmentDetached`` on it; the ExternalIP,
  the tenant's defaults and the VM's deletion are unaffected;
- scenario 35: the automatic path's pool exhaustion is logged as the structured record
  ``ExternalIPPoolExhausted`` naming the tenant and the ExternalIP it wanted.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from typing import Any

import pytest

from tests.networking.conftest import error
from tests.support.networking import find_by_name, set_state
from tests.support.onboarding import wait_for
from tests.support.vmaas import PUBLIC, Vmaas, is_reachable
from tests.workloads.conftest import VMS, Workloads

EXHAUSTED = "ExternalIPPoolExhausted"
DEFAULTS = (("virtual_networks", "default"), ("subnets", "default"), ("security_groups", "default"),
            ("external_ips", "default-nat"), ("nat_gateways", "default"))


async def _until(vmaas: Vmaas, path: str, state: str,
                 also: Callable[[dict[str, Any]], bool] = lambda _: True) -> dict[str, Any]:
    return await wait_for(vmaas.alice, path, lambda o: o["status"].get("state") == state and also(o))


async def test_deleting_the_target_detaches_a_manual_attachment_with_an_event(vmaas: Vmaas) -> None:
    # Given VM web running with a manual external IP attached to it
    vm = await vmaas.create("web")
    await vmaas.until(vm["id"], is_reachable)
    eip = (await vmaas.alice.request("POST", f"{PUBLIC}/external_ips",
                                     json={"metadata": {"name": "manual"}, "spec": {"pool": "public-v4"}})).json()
    await _until(vmaas, f"{PUBLIC}/external_ips/{eip['id']}", "EXTERNAL_IP_STATE_ALLOCATED")
    created = await vmaas.alice.request("POST", f"{PUBLIC}/external_ip_attachments", json={
        "metadata": {"name": "web-in"}, "spec": {"external_ip": eip["id"], "compute_instance": vm["id"]}})
    assert created.status_code == 200, created.text
    attachment_path = f"{PUBLIC}/external_ip_attachments/{created.json()['id']}"
    await _until(vmaas, attachment_path, "EXTERNAL_IP_ATTACHMENT_STATE_READY")
    defaults = {c: await find_by_name(vmaas.admin, c, n, "acme") for c, n in DEFAULTS}
    vn_id = defaults["virtual_networks"]["id"]
    assert len((await vmaas.observation("fabric", vn_id))["dnat"]) == 1

    # When the VM is deleted
    assert (await vmaas.alice.request("DELETE", f"{PUBLIC}/{VMS}/{vm['id']}")).status_code == 200
    # Then its deletion is not held back by the manual attachment
    await vmaas.archived(vm["id"])
    # And the attachment is detached, with the event saying so
    detached = await _until(vmaas, attachment_path, "EXTERNAL_IP_ATTACHMENT_STATE_PENDING",
                                      lambda a: a["status"].get("reason") == "TargetDeleted")
    message = "target ComputeInstance 'web' was deleted; attachment detached"
    assert detached["status"]["message"] == message
    assert "target_address" not in detached["status"]
    events = [(e["reason"], e["type"], e["message"]) for e in await vmaas.event_items(detached["id"])]
    assert events.count(("ExternalIPAttachmentDetached", "LIFECYCLE_EVENT_TYPE_NORMAL", message)) == 1
    assert events[-1][0] == "ExternalIPAttachmentDetached"
    assert (await vmaas.observation("fabric", vn_id))["dnat"] == []
    # And the manual external IP and the tenant's defaults are untouched
    kept = await vmaas.get(f"{PUBLIC}/external_ips/{eip['id']}")
    assert (kept["status"]["state"], kept["status"].get("attached", False)) == ("EXTERNAL_IP_STATE_ALLOCATED", False)
    for collection, name in DEFAULTS:  # (the subnet's address counter moves with the VM's address)
        before, after = defaults[collection], await find_by_name(vmaas.admin, collection, name, "acme")
        assert (after["spec"], after["status"]["state"], "deletion_timestamp" in after["metadata"]) == (
            before["spec"], before["status"]["state"], False), collection


async def test_automatic_pool_exhaustion_is_logged_as_a_structured_record(
    wl: Workloads, caplog: pytest.LogCaptureFixture
) -> None:
    # Given no READY pool has a free address
    public = await find_by_name(wl.admin, "external_ip_pools", "public-v4")
    await set_state(wl.admin, "external_ip_pools", public["id"], "EXTERNAL_IP_POOL_STATE_PENDING")
    # When alice asks for a VM with automatic external access
    with caplog.at_level(logging.INFO, logger="osac.services"):
        response = await wl.post(VMS, {"metadata": {"name": "web"},
                                       "spec": {"template": "fedora", "auto_external_ip_attachment": True}})
    # Then the request is refused and one ExternalIPPoolExhausted record names the tenant and the
    # ExternalIP the VM would have had
    assert error(response) == (429, "ExternalIPPool exhaustion: no available capacity in any READY pool for IPv4")
    [record] = [r for r in caplog.records if getattr(r, "event", None) == EXHAUSTED]
    assert (record.name, record.levelname, record.tenant, record.family) == (  # type: ignore[attr-defined]
        "osac.services.networking.pool_selection", "WARNING", "acme", "ipv4")
    assert re.fullmatch(r"auto-[0-9a-f-]{36}", record.external_ip), record.external_ip  # type: ignore[attr-defined]
    assert record.getMessage() == (
        f"no READY ipv4 pool has a free address for ExternalIP '{record.external_ip}' of tenant 'acme'")  # type: ignore[attr-defined]
    # And no external IP was logged as provisioned
    assert [r for r in caplog.records if getattr(r, "event", None) == "AutoProvisionedExternalIP"] == []
    assert await wl.items(VMS, "this.metadata.name == 'web'") == []
