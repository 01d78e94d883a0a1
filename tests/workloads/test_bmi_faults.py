"""BareMetalInstance gates under faults (compute.md §3.2, §3.4, §6 scenarios 9-13, 15): fabric
errors retried within the budget, a failed gate re-run by Signal or Update without repeating the
earlier ones, a DHCP timeout, waiting for a free host (and twenty instances for ten hosts), and a teardown that gives up naming what
is left."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from prometheus_client import REGISTRY

from osac.server.settings import merge_config
from tests.support.bmaas import BMIS, FAST_GATES, PRIVATE, PUBLIC, Bmaas, at, condition, step_status, steps

#: One host in the inventory, so that a second instance has to wait for another.
ONE_HOST = merge_config(FAST_GATES, {"simulator": {"inventory": {"hosts": [
    {"prefix": "bm-std", "host_type": "bm-standard", "count": 1}]}}})
#: Leases are given up on after half a second instead of five minutes.
SHORT_DHCP = merge_config(FAST_GATES, {"baremetal": {"ip_discovery_timeout": 0.5}})


def failures() -> float:
    value = REGISTRY.get_sample_value("osac_baremetal_network_configuration_total", {"result": "failure"})
    return value or 0.0


async def test_fabric_errors_are_retried_and_gate_three_waits_for_gate_two(bmaas: Bmaas) -> None:
    await bmaas.fault("fabric_fail", "fabric", operation="create_network_attachment", times=3)
    created = await bmaas.create("box")
    running = await bmaas.until_state(created["id"], "RUNNING")
    recorded = steps(running)
    networking, provisioning = recorded["NetworkingConfigured"], recorded["ProvisioningComplete"]
    assert networking["attempts"] == 3
    assert at(networking["finished_at"]) <= at(provisioning["started_at"])
    reasons = await bmaas.events(created["id"])
    assert reasons.count("NetworkingConfigured") == 1 and "NetworkingConfigurationFailed" not in reasons


@pytest.mark.parametrize("rerun", ["signal", "update"])
async def test_a_failed_networking_gate_reruns_on_signal_or_update_keeping_gate_one(bmaas: Bmaas, rerun: str) -> None:
    before = failures()
    fault = await bmaas.fault("fabric_fail", "fabric", operation="create_network_attachment", terminal=True)
    created = await bmaas.create("box")
    failed = await bmaas.until_state(created["id"], "FAILED")
    provisioned = condition(failed, "PROVISIONED")
    assert (provisioned["status"], provisioned["reason"]) == ("CONDITION_STATUS_FALSE", "NetworkingConfigurationFailed")
    assert "interface ens1f0: simulated failure" in provisioned["message"]
    assert step_status(failed, "InventoryAssigned") == "COMPLETED"
    assert step_status(failed, "NetworkingConfigured") == "FAILED"
    assert step_status(failed, "ProvisioningComplete") == "PENDING"
    assert (await bmaas.events(created["id"])).count("NetworkingConfigurationFailed") == 1
    assert failures() == before + 1

    await bmaas.clear(fault)
    if rerun == "signal":
        await bmaas.signal(created["id"])
    else:
        await bmaas.update(created["id"], {"run_strategy": "BARE_METAL_INSTANCE_RUN_STRATEGY_ALWAYS"},
                           "spec.run_strategy")
    running = await bmaas.until_state(created["id"], "RUNNING")
    assert steps(running)["InventoryAssigned"] == steps(failed)["InventoryAssigned"]
    assert running["status"]["host"] == failed["status"]["host"]
    assert at(steps(running)["NetworkingConfigured"]["started_at"]) > at(steps(failed)["NetworkingConfigured"]["finished_at"])
    reasons = await bmaas.events(created["id"])
    assert reasons.count("HostAssigned") == 1 and reasons.count("NetworkingConfigured") == 1
    assert reasons.count("Ready") == 1


@pytest.mark.parametrize("bmaas", [SHORT_DHCP], indirect=True)
async def test_no_lease_times_out_and_signal_retries_discovery(bmaas: Bmaas) -> None:
    subnet = await bmaas.default_subnet()
    fault = await bmaas.fault("dhcp_fail", "subnet", subnet["id"])
    created = await bmaas.create("box")
    failed = await bmaas.until_state(created["id"], "FAILED")
    provisioned = condition(failed, "PROVISIONED")
    assert provisioned["reason"] == "IPDiscoveryTimeout"
    assert provisioned["message"].startswith("no DHCP lease yet for interface(s) ens1f0")
    assert [step_status(failed, gate) for gate in ("ProvisioningComplete", "IPDiscoveryComplete")] == [
        "COMPLETED", "FAILED"]
    assert "ProvisioningFailed" in await bmaas.events(created["id"])

    await bmaas.clear(fault)
    await bmaas.signal(created["id"])
    running = await bmaas.until_state(created["id"], "RUNNING")
    [reserved] = await bmaas.allocations(created["id"])
    assert running["status"]["network_attachment_statuses"][0]["ip_address"] == reserved
    assert steps(running)["ProvisioningComplete"] == steps(failed)["ProvisioningComplete"]


@pytest.mark.parametrize("bmaas", [ONE_HOST], indirect=True)
async def test_without_a_free_host_the_instance_waits_until_one_is_added(bmaas: Bmaas) -> None:
    first = await bmaas.create("first")
    await bmaas.until_state(first["id"], "RUNNING")
    second = await bmaas.create("second")
    waiting = await bmaas.until(second["id"], lambda b: steps(b).get("InventoryAssigned", {}).get("attempts", 0) >= 3)
    assert waiting["status"]["state"] == "BARE_METAL_INSTANCE_STATE_PROVISIONING"
    provisioned = condition(waiting, "PROVISIONED")
    assert (provisioned["reason"], provisioned["message"]) == ("WaitingForHost", "no free host of type bm-standard")
    assert step_status(waiting, "InventoryAssigned") == "RUNNING"

    added = await bmaas.admin.request("POST", f"{PRIVATE}/simulator/add_hosts",
                                      json={"prefix": "bm-std", "host_type": "bm-standard", "count": 1})
    assert added.status_code == 200, added.text
    running = await bmaas.until_state(second["id"], "RUNNING")
    assert running["status"]["host"] == "bm-std-002"
    assert "ProvisioningFailed" not in await bmaas.events(second["id"])


async def test_a_teardown_fault_past_the_limit_gives_delete_failed_naming_the_port(bmaas: Bmaas) -> None:
    subnet = await bmaas.default_subnet()
    created = await bmaas.create("box")
    host = (await bmaas.until_state(created["id"], "RUNNING"))["status"]["host"]
    fault = await bmaas.fault("fabric_fail", "fabric", operation="delete_network_attachment")

    await bmaas.delete(created["id"])
    await bmaas.until_state(created["id"], "DELETE_FAILED")
    response = await bmaas.alice.request("GET", f"{PUBLIC}/lifecycle_events",
                                         params={"filter": f"this.object_id == '{created['id']}'"})
    [message] = [e["message"] for e in response.json()["items"] if e["reason"] == "DeleteFailed"]
    assert f"port {host}/ens1f0 still on subnet {subnet['id']}" in message
    assert await bmaas.segment(host, "ens1f0") == subnet["id"]
    assert (await bmaas.hosts())[host]["owner"]["id"] == created["id"]

    await bmaas.clear(fault)
    await bmaas.delete(created["id"])  # Delete again resumes the teardown
    await bmaas.archived(created["id"])
    assert await bmaas.segment(host, "ens1f0") == "parking"
    assert "owner" not in (await bmaas.hosts())[host]
    assert await bmaas.allocations(created["id"]) == []
    assert (await bmaas.alice.request("GET", f"{BMIS}/{created['id']}")).status_code == 404


#: Ten hosts for twenty instances (compute.md §6 scenario 13).
TEN_HOSTS = merge_config(FAST_GATES, {"simulator": {"inventory": {"hosts": [
    {"prefix": "bm-std", "host_type": "bm-standard", "count": 10}]}}})


@pytest.mark.parametrize("bmaas", [TEN_HOSTS], indirect=True)
async def test_twenty_instances_for_ten_hosts_get_ten_hosts_once_each_and_ten_wait(bmaas: Bmaas) -> None:
    created = await asyncio.gather(*(bmaas.create(f"box-{index:02}") for index in range(20)))
    ids = [bmi["id"] for bmi in created]

    async def settled() -> list[dict[str, Any]]:
        listed = [(await bmaas.admin.request("GET", f"{PRIVATE}/baremetal_instances/{bmi_id}")).json() for bmi_id in ids]
        running = [b for b in listed if b["status"]["state"] == "BARE_METAL_INSTANCE_STATE_RUNNING"]
        waiting = [b for b in listed if condition(b, "PROVISIONED")["reason"] == "WaitingForHost"
                   and steps(b).get("InventoryAssigned", {}).get("attempts", 0) >= 2]
        return running if len(running) == 10 and len(waiting) == 10 else []

    async with asyncio.timeout(120):
        while not (running := await settled()):
            await asyncio.sleep(0.1)
    hosts = [b["status"]["host"] for b in running]
    assert sorted(hosts) == [f"bm-std-{n:03}" for n in range(1, 11)]  # each host once
    listed = await bmaas.admin.request("POST", f"{PRIVATE}/simulator/list_hosts", json={"host_type": "bm-standard"})
    owners = {h["name"]: h.get("owner", {}).get("id", "") for h in listed.json()["hosts"]}
    assert owners == {b["status"]["host"]: b["id"] for b in running}
