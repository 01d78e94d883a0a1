"""A ComputeInstance end to end through its reconciler, the simulated KubeVirt and the simulated
fabric (instant speed): the VM runs on the address reserved at Create, its NIC's port sits on the
subnet segment with the DHCP reservation, automatic external access is DNAT'ed to it, and run
strategy, restarts, VM errors and a tenant that is not ready show in the status (compute.md §2,
§6 scenarios 1-4 and 6; networking.md §7.2, §8)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from osac.auth.subject import Role
from osac.controllers.workloads.metrics import refresh_compute_gauges
from osac.ipam import allocator
from osac.model import registry
from tests.support.onboarding import wait_for
from tests.support.vmaas import PRIVATE, PUBLIC, VMS, Vmaas, condition, is_reachable, is_true, metric


async def test_vm_runs_on_its_reserved_address_with_its_port_on_the_subnet(vmaas: Vmaas) -> None:
    # At instant speed the disk import ends within milliseconds, before a reconcile could see it;
    # at 100x it lasts about a second (40 GiB: 110 s at speed 1), so ProvisioningStorage shows.
    assert (await vmaas.admin.request("POST", f"{PRIVATE}/simulator/set_speed", json={"speed": "100"})).status_code == 200
    provisioned_before = await metric(vmaas, "osac_compute_provisioning_duration_seconds_count")
    created = await vmaas.create("web", boot_disk={"size_gib": 40}, additional_disks=[{"size_gib": 5}, {"size_gib": 5}])
    vm_id = created["id"]
    [attachment] = created["spec"]["compute_network_attachments"]
    subnet_before = await vmaas.get(f"{PUBLIC}/subnets/{attachment['subnet']}")

    running = await vmaas.until(vm_id, is_reachable)
    status = running["status"]
    [reserved] = [a for (_, a, purpose, _) in await _allocations(vmaas, vm_id) if purpose == "attachment"]
    assert status["internal_ip_address"] == reserved
    assert status["compute_network_attachment_statuses"] == [
        {"subnet": attachment["subnet"], "ip_address": reserved, "primary": True}]
    for name, reason in (("PROVISIONED", "InfrastructureReady"), ("READY", "AsExpected"),
                         ("CONFIGURATION_APPLIED", "ConfigurationApplied")):
        assert (is_true(running, name), condition(running, name)["reason"]) == (True, reason), name
    assert condition(running, "PROVISIONED")["message"] == "All infrastructure resources provisioned successfully"

    # The port ci/<id>/nic-0 is on the subnet's segment with its DHCP reservation (networking.md §7.2).
    fabric = await vmaas.observation("fabric", subnet_before["spec"]["virtual_network"])
    [port] = [p for p in fabric["ports"] if p["host_name"] == f"ci/{vm_id}"]
    assert (port["interface"], port["segment"], port["target_kind"]) == ("nic-0", attachment["subnet"], "compute_instance")
    assert port["mac"].startswith("02:") and len(port["mac"]) == 17
    assert port["security_group_ids"] == attachment["security_groups"]
    assert {"subnet_id": attachment["subnet"], "mac": port["mac"], "address": reserved} in [
        {k: r[k] for k in ("subnet_id", "mac", "address")} for r in fabric["reservations"]]

    # The simulated VM carries the same MAC and address on nic-0.
    machine = await vmaas.observation("compute_instance", vm_id)
    [nic] = machine["virtual_machine_instance"]["status"]["interfaces"]
    assert (nic["name"], nic["mac"], nic["ipAddress"]) == ("nic-0", port["mac"], reserved)
    assert machine["virtual_machine"]["spec"]["runStrategy"] == "Always"

    events = [e for e in await vmaas.event_items(vm_id) if e["reason"] != "NetworkAttachmentsPopulated"]
    assert [(e["reason"], e["message"]) for e in events] == [
        ("ProvisioningStorage", "Creating DataVolumes for boot disk (40GiB) and 2 additional disk(s)"),
        ("InfrastructureReady", "All infrastructure resources provisioned successfully"),
        ("Ready", f"VirtualMachine is ready at {reserved}"),
    ]
    assert await metric(vmaas, "osac_compute_provisioning_duration_seconds_count") == provisioned_before + 1
    # The reservation was taken at Create; running changes no counter.
    subnet_after = await vmaas.get(f"{PUBLIC}/subnets/{attachment['subnet']}")
    assert subnet_after["status"]["available_addresses"] == subnet_before["status"]["available_addresses"]


async def test_auto_external_access_is_dnated_to_the_primary_address(vmaas: Vmaas) -> None:
    created = await vmaas.create("public", auto_external_ip_attachment=True)
    vm_id = created["id"]
    vm = await vmaas.until(vm_id, lambda v: is_reachable(v) and bool(v["status"].get("external_ip_address")))
    [eip] = [e for e in (await vmaas.get(f"{PUBLIC}/external_ips"))["items"] if e["metadata"]["name"] == f"auto-{vm_id}"]
    assert vm["status"]["external_ip_address"] == eip["status"]["address"]

    subnet = await vmaas.get(f"{PUBLIC}/subnets/{created['spec']['compute_network_attachments'][0]['subnet']}")
    fabric = await vmaas.observation("fabric", subnet["spec"]["virtual_network"])
    assert {"external_address": eip["status"]["address"], "internal_address": vm["status"]["internal_ip_address"]} in [
        {k: d[k] for k in ("external_address", "internal_address")} for d in fabric["dnat"]]
    assert "AutoExternalIPCreated" in await vmaas.events(vm_id)


async def test_run_strategy_halts_and_starts_the_vm(vmaas: Vmaas) -> None:
    vm_id = (await vmaas.create("batch"))["id"]
    await vmaas.until(vm_id, is_reachable)

    await vmaas.update(vm_id, {"run_strategy": "Halted"}, "spec.run_strategy")
    stopped = await vmaas.until_state(vm_id, "STOPPED")
    assert is_true(stopped, "CONFIGURATION_APPLIED")
    await _refresh_gauges(vmaas)
    assert await metric(vmaas, 'osac_compute_instances{state="STOPPED",tenant="acme"}') == 1
    refused = await vmaas.alice.request("PATCH", f"{VMS}/{vm_id}", params={"update_mask": "spec.restart_requested_at"},
                                        json={"spec": {"restart_requested_at": _now()}})
    assert refused.status_code == 400
    assert refused.json()["message"] == "restart requires a running instance: ComputeInstance 'batch' is STOPPED"
    assert not is_true(stopped, "READY") and stopped["status"].get("internal_ip_address", "") == ""
    assert (await vmaas.observation("compute_instance", vm_id))["virtual_machine"]["spec"]["runStrategy"] == "Halted"

    await vmaas.update(vm_id, {"run_strategy": "Always"}, "spec.run_strategy")
    running = await vmaas.until(vm_id, is_reachable)
    assert is_true(running, "CONFIGURATION_APPLIED")
    # The address came back with the new incarnation, so Ready fired again; provisioning did not.
    reasons = await vmaas.events(vm_id)
    assert reasons.count("Ready") == 2 and reasons.count("InfrastructureReady") == 1


async def test_restart_runs_a_new_incarnation(vmaas: Vmaas) -> None:
    vm_id = (await vmaas.create("app"))["id"]
    await vmaas.until(vm_id, is_reachable)
    before = (await vmaas.observation("compute_instance", vm_id))["virtual_machine_instance"]["metadata"]["uid"]

    requested = _now()
    await vmaas.update(vm_id, {"restart_requested_at": requested}, "spec.restart_requested_at")
    restarted = await vmaas.until(vm_id, lambda v: condition(v, "RESTART_IN_PROGRESS")["reason"] == "RestartCompleted")
    assert is_reachable(restarted)
    assert restarted["status"]["last_restarted_at"] >= requested[:19]
    assert not is_true(restarted, "RESTART_FAILED")
    after = (await vmaas.observation("compute_instance", vm_id))["virtual_machine_instance"]["metadata"]["uid"]
    assert after != before

    # The same request again is not newer than the restart it caused.
    response = await vmaas.alice.request("PATCH", f"{VMS}/{vm_id}", params={"update_mask": "spec.restart_requested_at"},
                                         json={"spec": {"restart_requested_at": requested}})
    assert response.status_code == 200 and response.json()["status"]["last_restarted_at"] == restarted["status"]["last_restarted_at"]


async def test_vm_error_fails_the_instance_until_it_clears(vmaas: Vmaas) -> None:
    vm_id = (await vmaas.create("flaky"))["id"]
    await vmaas.until(vm_id, is_reachable)

    fault = await vmaas.fault(vm_id, "vm_status", printable_status="ErrorUnschedulable")
    await vmaas.signal(vm_id)
    failed = await vmaas.until_state(vm_id, "FAILED")
    assert (condition(failed, "READY")["status"], condition(failed, "READY")["reason"]) == (
        "CONDITION_STATUS_FALSE", "ErrorUnschedulable")
    assert is_true(failed, "PROVISIONED")  # sticky

    await vmaas.clear(fault)
    await vmaas.signal(vm_id)
    recovered = await vmaas.until_state(vm_id, "RUNNING")
    assert is_true(recovered, "READY")


async def _allocations(vmaas: Vmaas, vm_id: str) -> list[tuple[str, str, str, int]]:
    async with vmaas.server.app.store.read() as tx:
        held = await allocator.allocations_of(tx, "compute_instance", vm_id)
    return [(a.scope, a.address, a.purpose, a.ordinal) for a in held]


async def test_nothing_is_provisioned_while_the_tenant_is_not_ready(vmaas: Vmaas) -> None:
    admin = vmaas.admin
    fault = (await admin.request("POST", f"{PRIVATE}/simulator/faults", json={
        "fault": "fabric_fail", "params": {"operation": "create_nat_gateway", "terminal": True}})).json()["id"]
    tenant = (await admin.request("POST", f"{PUBLIC}/tenants", json={"metadata": {"name": "beta"}})).json()
    await wait_for(admin, f"{PUBLIC}/tenants/{tenant['id']}", lambda t: t["status"]["state"] == "TENANT_STATE_FAILED")
    # The gateway failed; the default subnet and SG, which a VM needs, become READY regardless.
    for collection, ready in (("subnets", "SUBNET_STATE_READY"), ("security_groups", "SECURITY_GROUP_STATE_READY")):
        await wait_for(admin, f"{PRIVATE}/{collection}?filter=this.metadata.tenant == 'beta'",
                       lambda page, ready=ready: [i["status"].get("state") for i in page["items"]] == [ready])
    bob = vmaas.server.rest(vmaas.server.token(Role.TENANT_ADMIN, ("beta",), user="bob"))
    async with bob:
        response = await bob.request("POST", VMS, json={"metadata": {"name": "early"}, "spec": {"template": "fedora"}})
        assert response.status_code == 200, response.text
        vm_id = response.json()["id"]
        waiting = await wait_for(bob, f"{VMS}/{vm_id}",
                                 lambda v: condition(v, "PROVISIONED")["reason"] == "TenantNotReady")
        assert condition(waiting, "PROVISIONED")["message"] == "Tenant 'beta' is not ready (phase: FAILED)"
        assert waiting["status"]["state"] == "COMPUTE_INSTANCE_STATE_STARTING"
        assert (await vmaas.observation("compute_instance", vm_id))["virtual_machine"] is None

        await vmaas.clear(fault)
        gateways = (await admin.request("GET", f"{PRIVATE}/nat_gateways")).json()["items"]
        [gateway] = [g for g in gateways if g["metadata"]["tenant"] == "beta"]
        assert (await admin.request("POST", f"{PRIVATE}/nat_gateways/{gateway['id']}/signal")).status_code == 200
        await wait_for(bob, f"{VMS}/{vm_id}", is_reachable, timeout=25)
        reasons = [e["reason"] for e in (await bob.request(
            "GET", f"{PUBLIC}/lifecycle_events", params={"filter": f"this.object_id == '{vm_id}'"})).json()["items"]]
        assert reasons.count("TenantNotReady") == 1 and reasons.count("Ready") == 1


async def _refresh_gauges(vmaas: Vmaas) -> None:
    """What the lease holder does every 15 s, now."""
    async with vmaas.server.app.store.read() as tx:
        refresh_compute_gauges(await tx.find(registry.get("compute_instance")))


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


async def test_security_group_change_is_reapplied_to_the_port_without_a_state_change(vmaas: Vmaas) -> None:
    created = await vmaas.create("api")
    vm_id = created["id"]
    running = await vmaas.until(vm_id, is_reachable)
    [attachment] = created["spec"]["compute_network_attachments"]
    vn_id = (await vmaas.get(f"{PUBLIC}/subnets/{attachment['subnet']}"))["spec"]["virtual_network"]
    response = await vmaas.alice.request("POST", f"{PUBLIC}/security_groups",
                                         json={"metadata": {"name": "web"}, "spec": {"virtual_network": vn_id}})
    assert response.status_code == 200, response.text
    group = await wait_for(vmaas.alice, f"{PUBLIC}/security_groups/{response.json()['id']}",
                           lambda g: g["status"].get("state") == "SECURITY_GROUP_STATE_READY")

    await vmaas.update(vm_id, {"compute_network_attachments": [{**attachment, "security_groups": [group["id"]]}]},
                       "spec.compute_network_attachments")

    async def port_groups() -> list[str]:
        fabric = await vmaas.observation("fabric", vn_id)
        [port] = [p for p in fabric["ports"] if p["host_name"] == f"ci/{vm_id}"]
        return list(port["security_group_ids"])

    async with asyncio.timeout(10):
        while await port_groups() != [group["id"]]:
            await asyncio.sleep(0.05)
    after = await vmaas.until(vm_id, lambda v: is_true(v, "CONFIGURATION_APPLIED"))
    assert after["status"]["state"] == "COMPUTE_INSTANCE_STATE_RUNNING"
    assert after["status"]["state_transition_time"] == running["status"]["state_transition_time"]
    assert not is_true(after, "RESTART_REQUIRED")
