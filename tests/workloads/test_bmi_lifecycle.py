"""A BareMetalInstance end to end through its reconciler, the simulated inventory and the
simulated fabric (instant speed): the gates run in order, the host's port leaves parking for the
subnet segment with its DHCP reservation and lease, automatic external access is DNAT'ed to the
leased primary address, power follows the run strategy and ``restart_trigger``, and deletion
returns everything (compute.md §3, §6 scenarios 8, 14, 15; networking.md §7.4, §8, §10)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from prometheus_client import REGISTRY
from sqlalchemy import select

from osac.auth.subject import Role
from osac.providers.simulator.runtime.schema import sim_fabric_ports
from osac.server.settings import merge_config
from tests.reconcile.test_default_networking import INSTANT, ready_catalogue, wait_for
from tests.support.server import RestClient, ServerHandle, running_server

PUBLIC = "/api/fulfillment/v1"
PRIVATE = "/api/private/v1"
BMIS = f"{PUBLIC}/baremetal_instances"
GATES = ["InventoryAssigned", "NetworkingConfigured", "ProvisioningComplete", "IPDiscoveryComplete"]
#: The gates' waits shortened (the spec's are 30 s for a free host, 2 s for fabric retries, 5 s
#: between lease polls) so that a scenario with retries takes well under a second.
#: Retries are fast; the networking budget is wall-clock time, so it is kept well above what three
#: quick retries take on a loaded machine (no test here waits for it to run out).
FAST_GATES = merge_config(INSTANT, {
    "baremetal": {"host_wait_backoff": 0.1, "host_wait_backoff_max": 0.2, "networking_retry_backoff": 0.05,
                  "networking_retry_backoff_max": 0.1, "networking_budget_per_interface": 60,
                  "lease_poll_interval": 0.1, "provisioning_retry_backoff": 0.05},
    "networking": {"cleanup_retry_limit": 3, "retry_backoff_seconds": 0.05},
})
#: A power cycle must be seen going down before it counts as done; at instant speed the host is
#: down for a millisecond, at 200x for 0.3 s (provisioning then takes under a second).
OBSERVABLE_POWER = merge_config(FAST_GATES, {"simulator": {"speed": 200}})


@dataclass
class Bmaas:
    """A server with controllers at instant speed, a READY catalogue and tenant ``acme`` READY;
    ``admin`` is a provider admin, ``alice`` a tenant admin of ``acme``."""

    server: ServerHandle
    admin: RestClient
    alice: RestClient

    async def create(self, name: str, **spec: Any) -> dict[str, Any]:
        response = await self.alice.request("POST", BMIS, json={"metadata": {"name": name},
                                                                "spec": {"host_type": "bm-standard", **spec}})
        assert response.status_code == 200, response.text
        return dict(response.json())

    async def until(self, bmi_id: str, predicate: Callable[[dict[str, Any]], bool], timeout: float = 20.0
                    ) -> dict[str, Any]:
        """The private view (with ``status.host`` and ``provisioning_steps``) once ``predicate``."""
        return await wait_for(self.admin, f"{PRIVATE}/baremetal_instances/{bmi_id}", predicate, timeout=timeout)

    async def until_state(self, bmi_id: str, state: str, timeout: float = 20.0) -> dict[str, Any]:
        return await self.until(bmi_id, lambda bmi: bmi["status"]["state"] == f"BARE_METAL_INSTANCE_STATE_{state}",
                                timeout)

    async def update(self, bmi_id: str, spec: dict[str, Any], mask: str) -> dict[str, Any]:
        response = await self.alice.request("PATCH", f"{BMIS}/{bmi_id}", params={"update_mask": mask},
                                            json={"spec": spec})
        assert response.status_code == 200, response.text
        return dict(response.json())

    async def signal(self, bmi_id: str) -> None:
        response = await self.admin.request("POST", f"{PRIVATE}/baremetal_instances/{bmi_id}/signal")
        assert response.status_code == 200, response.text

    async def delete(self, bmi_id: str) -> None:
        assert (await self.alice.request("DELETE", f"{BMIS}/{bmi_id}")).status_code == 200

    async def archived(self, bmi_id: str, timeout: float = 20.0) -> None:
        async with asyncio.timeout(timeout):
            while (await self.alice.request("GET", f"{BMIS}/{bmi_id}")).status_code != 404:
                await asyncio.sleep(0.05)

    async def events(self, object_id: str) -> list[str]:
        response = await self.alice.request("GET", f"{PUBLIC}/lifecycle_events",
                                            params={"filter": f"this.object_id == '{object_id}'"})
        return [e["reason"] for e in response.json()["items"]]

    async def observation(self, kind: str, key: str) -> dict[str, Any]:
        response = await self.admin.request("POST", f"{PRIVATE}/simulator/get_observation",
                                            json={"kind": kind, "key": key})
        assert response.status_code == 200, response.text
        return dict(response.json()["observation"])

    async def fault(self, fault: str, target_kind: str, target_id: str = "*", **params: Any) -> str:
        response = await self.admin.request("POST", f"{PRIVATE}/simulator/faults", json={
            "fault": fault, "target_kind": target_kind, "target_id": target_id, "params": params})
        assert response.status_code == 200, response.text
        return str(response.json()["id"])

    async def clear(self, fault_id: str) -> None:
        assert (await self.admin.request("DELETE", f"{PRIVATE}/simulator/faults/{fault_id}")).status_code == 200

    async def hosts(self) -> dict[str, dict[str, Any]]:
        response = await self.admin.request("POST", f"{PRIVATE}/simulator/list_hosts", json={"host_type": "bm-standard"})
        assert response.status_code == 200, response.text
        return {host["name"]: host for host in response.json()["hosts"]}

    async def segment(self, host: str, interface: str) -> str:
        """The segment a host port sits on in the simulated switch-port map."""
        async with self.server.app.store.read() as tx:
            row = (await tx.conn.execute(select(sim_fabric_ports.c.segment_id).where(
                sim_fabric_ports.c.host_name == host, sim_fabric_ports.c.interface == interface))).one()
        return str(row[0])

    async def default_subnet(self) -> dict[str, Any]:
        [subnet] = (await self.alice.request("GET", f"{PUBLIC}/subnets")).json()["items"]
        return dict(subnet)

    async def allocations(self, bmi_id: str) -> list[str]:
        from osac.ipam import allocator

        async with self.server.app.store.read() as tx:
            held = await allocator.allocations_of(tx, "bare_metal_instance", bmi_id)
        return [a.address for a in held]


@pytest.fixture
async def bmaas(db_url: str, tmp_path: Path, request: pytest.FixtureRequest) -> AsyncIterator[Bmaas]:
    config = getattr(request, "param", FAST_GATES)
    async with running_server(tmp_path, db_url, controllers=True, config=config) as server:
        admin = server.rest(server.token(Role.PROVIDER_ADMIN, user="root"))
        alice = server.rest(server.token(Role.TENANT_ADMIN, ("acme",), user="alice"))
        async with admin, alice:
            await ready_catalogue(admin)
            tenant = (await admin.request("POST", f"{PUBLIC}/tenants", json={"metadata": {"name": "acme"}})).json()
            await wait_for(admin, f"{PUBLIC}/tenants/{tenant['id']}",
                           lambda t: t["status"]["state"] == "TENANT_STATE_READY")
            yield Bmaas(server, admin, alice)


def condition(bmi: dict[str, Any], name: str) -> dict[str, Any]:
    return next(c for c in bmi["status"]["conditions"] if c["type"] == f"BARE_METAL_INSTANCE_CONDITION_TYPE_{name}")


def steps(bmi: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {step["gate"]: step for step in bmi["status"].get("provisioning_steps", [])}


def step_status(bmi: dict[str, Any], gate: str) -> str:
    return str(steps(bmi).get(gate, {}).get("status", "")).rsplit("_", 1)[-1]


def at(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def port_of(fabric: dict[str, Any], host: str, interface: str) -> dict[str, Any] | None:
    return next((p for p in fabric["ports"] if p["host_name"] == host and p["interface"] == interface), None)


def sample(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


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
