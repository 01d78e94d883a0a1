"""A BareMetalInstance end to end through its reconciler, the simulated inventory and the
simulated fabric (instant speed): the gates run in order, the host's port leaves parking for the
subnet segment with its DHCP reservation and lease, automatic external access is DNAT'ed to the
leased primary address, power follows the run strategy and ``restart_trigger``, and deletion
returns everything (compute.md §3, §6 scenarios 8, 14, 15; networking.md §7.4, §8, §10)."""

from __future__ import annotations

import pytest

from tests.support.bmaas import (
    BMIS,
    GATES,
    OBSERVABLE_POWER,
    PUBLIC,
    Bmaas,
    at,
    condition,
    port_of,
    sample,
    step_status,
    steps,
)
from tests.support.onboarding import wait_for


async def test_gates_run_in_order_and_the_host_runs_on_its_reserved_address(bmaas: Bmaas) -> None:
    subnet = await bmaas.default_subnet()
    assert sample("osac_baremetal_free_hosts", host_type="bm-standard") == 12
    metrics = {
        "gates": [sample("osac_baremetal_gate_duration_seconds_count", gate=gate) for gate in GATES],
        "provisioning": sample("osac_baremetal_provisioning_duration_seconds_count"),
        "attach": sample("osac_baremetal_interface_attach_duration_seconds_count", host_type="bm-standard"),
        "configured": sample("osac_baremetal_network_configuration_total", result="success"),
    }
    created = await bmaas.create("box")
    assert created["status"]["state"] == "BARE_METAL_INSTANCE_STATE_PROVISIONING"

    running = await bmaas.until_state(created["id"], "RUNNING")
    status = running["status"]
    recorded = steps(running)
    assert list(recorded) == GATES
    assert {step_status(running, gate) for gate in GATES} == {"COMPLETED"}
    for earlier, later in zip(GATES, GATES[1:], strict=False):
        assert at(recorded[earlier]["started_at"]) <= at(recorded[earlier]["finished_at"])
        assert at(recorded[earlier]["finished_at"]) <= at(recorded[later]["started_at"]), (earlier, later)
    host = status["host"]
    assert host in await bmaas.hosts()
    assert await bmaas.segment(host, "ens1f0") == subnet["id"]
    assert await bmaas.segment(host, "eno1") == "provisioning"  # the lifecycle port is never attached
    [reserved] = await bmaas.allocations(created["id"])
    assert status["network_attachment_statuses"] == [
        {"interface": "ens1f0", "subnet": subnet["id"], "ip_address": reserved, "primary": True}]
    for name in ("PROVISIONED", "READY", "CONFIGURATION_APPLIED"):
        assert condition(running, name)["status"] == "CONDITION_STATUS_TRUE", condition(running, name)
    assert condition(running, "PROVISIONED")["reason"] == "InfrastructureReady"

    # The public view hides the host; the inventory names the owner.
    public = (await bmaas.alice.request("GET", f"{BMIS}/{created['id']}")).json()
    assert "host" not in public["status"] and "provisioning_steps" not in public["status"]
    assert (await bmaas.hosts())[host]["owner"]["id"] == created["id"]

    # The host's fabric port sits on the subnet segment with its reservation and lease.
    fabric = await bmaas.observation("fabric", subnet["spec"]["virtual_network"])
    port = port_of(fabric, host, "ens1f0")
    assert port is not None and port["segment"] == subnet["id"] and port["target_kind"] == "baremetal_instance"
    assert [(r["address"], r["mac"]) for r in fabric["reservations"] if r["host_name"] == host] == [
        (reserved, port["mac"])]
    assert [lease["address"] for lease in fabric["leases"] if lease["host_name"] == host] == [reserved]
    observed = await bmaas.observation("host", host)
    assert observed["host"]["status"]["provisioning"]["state"] == "provisioned"
    assert observed["host"]["status"]["poweredOn"] is True

    assert [sample("osac_baremetal_gate_duration_seconds_count", gate=gate) for gate in GATES] == [
        count + 1 for count in metrics["gates"]]
    assert sample("osac_baremetal_provisioning_duration_seconds_count") == metrics["provisioning"] + 1
    assert sample("osac_baremetal_interface_attach_duration_seconds_count", host_type="bm-standard") == (
        metrics["attach"] + 1)
    assert sample("osac_baremetal_network_configuration_total", result="success") == metrics["configured"] + 1

    reasons = await bmaas.events(created["id"])
    for once in ("HostAssigned", "NetworkingConfigured", "ProvisioningComplete", "IPAddressDiscovered", "Ready"):
        assert reasons.count(once) == 1, reasons
    order = [r for r in reasons if r in ("HostAssigned", "NetworkingConfigured", "ProvisioningComplete",
                                         "IPAddressDiscovered", "Ready")]
    assert order == ["HostAssigned", "NetworkingConfigured", "ProvisioningComplete", "IPAddressDiscovered", "Ready"]


@pytest.mark.parametrize("bmaas", [OBSERVABLE_POWER], indirect=True)
async def test_power_follows_the_run_strategy_and_restart_trigger_power_cycles(bmaas: Bmaas) -> None:
    created = await bmaas.create("box", run_strategy="BARE_METAL_INSTANCE_RUN_STRATEGY_HALTED")
    stopped = await bmaas.until_state(created["id"], "STOPPED")
    host = stopped["status"]["host"]
    assert {step_status(stopped, gate) for gate in GATES} == {"COMPLETED"}
    assert (await bmaas.observation("host", host))["host"]["status"]["poweredOn"] is False
    assert condition(stopped, "READY")["reason"] == "PoweredOff"
    assert condition(stopped, "CONFIGURATION_APPLIED")["status"] == "CONDITION_STATUS_TRUE"

    await bmaas.update(created["id"], {"run_strategy": "BARE_METAL_INSTANCE_RUN_STRATEGY_ALWAYS"}, "spec.run_strategy")
    running = await bmaas.until_state(created["id"], "RUNNING")
    assert (await bmaas.observation("host", host))["host"]["status"]["poweredOn"] is True
    assert running["status"].get("restart_trigger", "0") in (0, "0")

    readies = (await bmaas.events(created["id"])).count("Ready")
    await bmaas.update(created["id"], {"restart_trigger": "1"}, "spec.restart_trigger")
    cycled = await bmaas.until(created["id"], lambda b: str(b["status"].get("restart_trigger")) == "1"
                               and b["status"]["state"] == "BARE_METAL_INSTANCE_STATE_RUNNING")
    assert condition(cycled, "RESTART_IN_PROGRESS")["reason"] == "RestartCompleted"
    assert condition(cycled, "RESTART_FAILED")["status"] == "CONDITION_STATUS_FALSE"
    assert cycled["status"]["host"] == host
    # The host really went down and came back: READY turned TRUE once more.
    assert (await bmaas.events(created["id"])).count("Ready") == readies + 1


async def test_deletion_returns_the_port_the_addresses_and_the_host(bmaas: Bmaas) -> None:
    subnet = await bmaas.default_subnet()
    created = await bmaas.create("box")
    running = await bmaas.until_state(created["id"], "RUNNING")
    host = running["status"]["host"]
    assert await bmaas.segment(host, "ens1f0") == subnet["id"]
    [reserved] = await bmaas.allocations(created["id"])
    available = (await bmaas.alice.request("GET", f"{PUBLIC}/subnets/{subnet['id']}")).json()["status"]

    await bmaas.delete(created["id"])
    await bmaas.archived(created["id"])

    fabric = await bmaas.observation("fabric", subnet["spec"]["virtual_network"])
    assert port_of(fabric, host, "ens1f0") is None
    assert await bmaas.segment(host, "ens1f0") == "parking"
    assert [r for r in fabric["reservations"] if r["host_name"] == host] == []
    assert [lease for lease in fabric["leases"] if lease["host_name"] == host] == []
    assert await bmaas.allocations(created["id"]) == []
    after = (await bmaas.alice.request("GET", f"{PUBLIC}/subnets/{subnet['id']}")).json()["status"]
    assert after["available_addresses"] == available["available_addresses"] + 1
    assert "owner" not in (await bmaas.hosts())[host]
    observed = await bmaas.observation("host", host)
    assert observed["host"]["status"]["provisioning"]["state"] == "available"
    assert observed["host"]["status"]["poweredOn"] is False
    assert reserved not in [r["address"] for r in fabric["reservations"]]
    assert (await bmaas.events(created["id"]))[-1] != "DeleteFailed"

    # The host serves the next instance.
    again = await bmaas.create("next")
    assert (await bmaas.until_state(again["id"], "RUNNING"))["status"]["host"] == host


async def test_automatic_external_access_targets_the_primary_address_and_goes_first(bmaas: Bmaas) -> None:
    subnet = await bmaas.default_subnet()
    created = await bmaas.create("box", auto_external_ip_attachment=True)
    running = await bmaas.until_state(created["id"], "RUNNING")
    [primary] = [s["ip_address"] for s in running["status"]["network_attachment_statuses"] if s["primary"]]
    attachment = await wait_for(
        bmaas.alice, f"{PUBLIC}/external_ip_attachments",
        lambda page: any(a["status"].get("state") == "EXTERNAL_IP_ATTACHMENT_STATE_READY" for a in page["items"]))
    [ready] = attachment["items"]
    assert ready["status"]["target_address"] == primary
    eip = (await bmaas.alice.request("GET", f"{PUBLIC}/external_ips/{ready['spec']['external_ip']}")).json()
    fabric = await bmaas.observation("fabric", subnet["spec"]["virtual_network"])
    assert [(d["external_address"], d["internal_address"]) for d in fabric["dnat"]] == [
        (eip["status"]["address"], primary)]

    await bmaas.delete(created["id"])
    await bmaas.archived(created["id"])
    for collection in ("external_ip_attachments", "external_ips"):
        items = (await bmaas.alice.request("GET", f"{PUBLIC}/{collection}")).json()["items"]
        assert [i for i in items if i["metadata"].get("labels", {}).get("osac.openshift.io/auto-provisioned-for")] == []
    fabric = await bmaas.observation("fabric", subnet["spec"]["virtual_network"])
    assert fabric["dnat"] == []
