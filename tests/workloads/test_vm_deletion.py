"""Deleting a ComputeInstance end to end (compute.md §2.6, §6 scenario 7; networking.md §10): the
automatic external access goes first, then the VM, then its port; the addresses return to the
subnet; a teardown that keeps failing ends DELETE_FAILED naming what is left, and Delete again
or Signal resumes it."""

from __future__ import annotations

from typing import Any

from tests.support.vmaas import PRIVATE, PUBLIC, VMS, Vmaas, is_reachable


async def _auto_children(vmaas: Vmaas, vm_id: str) -> list[str]:
    names = []
    for collection in ("external_ip_attachments", "external_ips"):
        for item in (await vmaas.get(f"{PUBLIC}/{collection}"))["items"]:
            if item["metadata"].get("labels", {}).get("osac.openshift.io/auto-provisioned-for") == vm_id:
                names.append(f"{collection}/{item['metadata']['name']}")
    return names


async def _ports(vmaas: Vmaas, vn_id: str, vm_id: str) -> list[dict[str, Any]]:
    fabric = await vmaas.observation("fabric", vn_id)
    return [p for p in fabric["ports"] if p["host_name"] == f"ci/{vm_id}"]


async def test_deletion_removes_external_access_then_the_vm_then_its_port(vmaas: Vmaas) -> None:
    created = await vmaas.create("web", auto_external_ip_attachment=True)
    vm_id = created["id"]
    subnet_path = f"{PUBLIC}/subnets/{created['spec']['compute_network_attachments'][0]['subnet']}"
    running = await vmaas.until(vm_id, lambda v: is_reachable(v) and bool(v["status"].get("external_ip_address")))
    subnet = await vmaas.get(subnet_path)
    vn_id = subnet["spec"]["virtual_network"]
    assert len(await _ports(vmaas, vn_id, vm_id)) == 1
    assert len(await _auto_children(vmaas, vm_id)) == 2

    assert (await vmaas.alice.request("DELETE", f"{VMS}/{vm_id}")).status_code == 200
    deleting = await vmaas.until_state(vm_id, "DELETING")
    assert deleting["status"]["internal_ip_address"] == running["status"]["internal_ip_address"]
    await vmaas.archived(vm_id)

    assert await _auto_children(vmaas, vm_id) == []
    assert await _ports(vmaas, vn_id, vm_id) == []
    fabric = await vmaas.observation("fabric", vn_id)
    assert [d for d in fabric["dnat"] if d["internal_address"] == running["status"]["internal_ip_address"]] == []
    assert [r for r in fabric["reservations"] if r["host_name"] == f"ci/{vm_id}"] == []
    assert (await vmaas.observation("compute_instance", vm_id))["virtual_machine"] is None
    after = await vmaas.get(subnet_path)
    assert after["status"]["available_addresses"] == subnet["status"]["available_addresses"] + 1
    reasons = await vmaas.events(vm_id)
    assert "DeleteFailed" not in reasons


async def test_teardown_fault_past_the_retry_limit_is_delete_failed_until_deleted_again(vmaas: Vmaas) -> None:
    created = await vmaas.create("stuck", auto_external_ip_attachment=True)
    vm_id = created["id"]
    subnet_path = f"{PUBLIC}/subnets/{created['spec']['compute_network_attachments'][0]['subnet']}"
    await vmaas.until(vm_id, lambda v: is_reachable(v) and bool(v["status"].get("external_ip_address")))
    subnet = await vmaas.get(subnet_path)
    fault = await vmaas.fault(vm_id, "teardown_fail")

    assert (await vmaas.alice.request("DELETE", f"{VMS}/{vm_id}")).status_code == 200
    failed = await vmaas.until_state(vm_id, "DELETE_FAILED")
    stored = (await vmaas.admin.request("GET", f"{PRIVATE}/compute_instances/{vm_id}")).json()
    assert stored["metadata"]["finalizers"] == ["fulfillment-controller"]  # the auto-cleanup one is gone
    # The external access went first: it is gone although the VM is not.
    assert await _auto_children(vmaas, vm_id) == []
    assert failed["status"].get("external_ip_address", "") == ""
    machine = await vmaas.observation("compute_instance", vm_id)
    assert machine["virtual_machine"]["metadata"]["deletionTimestamp"]
    [event] = [e for e in await vmaas.event_items(vm_id) if e["reason"] == "DeleteFailed"]
    assert event["type"] == "LIFECYCLE_EVENT_TYPE_WARNING"
    assert event["message"].startswith(f"cleanup gave up after its retry limit; left over: VirtualMachine '{vm_id}' "
                                       "teardown failed: ")
    assert "is stuck at stage Terminating" in event["message"]

    # Signal resumes with a fresh budget; the fault still holds, so cleanup gives up once more.
    await vmaas.signal(vm_id)
    await vmaas.until_events(vm_id, lambda reasons: reasons.count("DeleteFailed") == 2)
    await vmaas.until_state(vm_id, "DELETE_FAILED")

    await vmaas.clear(fault)
    assert (await vmaas.alice.request("DELETE", f"{VMS}/{vm_id}")).status_code == 200
    await vmaas.archived(vm_id)
    assert await _ports(vmaas, subnet["spec"]["virtual_network"], vm_id) == []
    after = await vmaas.get(subnet_path)
    assert after["status"]["available_addresses"] == subnet["status"]["available_addresses"] + 1


async def test_an_auto_child_that_fails_to_go_fails_the_instance_and_is_retried_with_it(vmaas: Vmaas) -> None:
    created = await vmaas.create("edge", auto_external_ip_attachment=True)
    vm_id = created["id"]
    await vmaas.until(vm_id, lambda v: is_reachable(v) and bool(v["status"].get("external_ip_address")))
    response = await vmaas.admin.request("POST", f"{PRIVATE}/simulator/faults", json={
        "fault": "fabric_fail", "params": {"operation": "release_external_ip", "terminal": True}})
    assert response.status_code == 200, response.text

    assert (await vmaas.alice.request("DELETE", f"{VMS}/{vm_id}")).status_code == 200
    await vmaas.until_state(vm_id, "DELETE_FAILED")
    [event] = [e for e in await vmaas.event_items(vm_id) if e["reason"] == "DeleteFailed"]
    assert event["message"].startswith(
        f"cleanup gave up after its retry limit; left over: ExternalIP 'auto-{vm_id}' release failed: ")
    assert await _auto_children(vmaas, vm_id) == [f"external_ips/auto-{vm_id}"]  # the attachment went first
    # The VM was not touched: its teardown waits for the external access.
    assert (await vmaas.observation("compute_instance", vm_id))["virtual_machine"]["status"]["printableStatus"] == "Running"

    await vmaas.clear(response.json()["id"])
    assert (await vmaas.alice.request("DELETE", f"{VMS}/{vm_id}")).status_code == 200
    await vmaas.archived(vm_id)
    assert await _auto_children(vmaas, vm_id) == []
