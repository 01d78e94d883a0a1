"""What the tests of ``tests/workloads/test_bmi_lifecycle.py`` and the tests that share its set-up use: moved here from that module so that no test module imports another."""

from __future__ import annotations

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
from tests.support.onboarding import INSTANT, ready_catalogue, wait_for
from tests.support.server import RestClient, ServerHandle, running_server
from tests.support.waiting import until_gone

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
        await until_gone(self.alice, f"{BMIS}/{bmi_id}", timeout)

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
