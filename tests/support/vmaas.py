"""What the tests of ``tests/workloads/test_vm_lifecycle.py`` and the tests that share its set-up use: moved here from that module so that no test module imports another."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from osac.auth.subject import Role
from osac.server.settings import merge_config
from tests.support.onboarding import INSTANT, ready_catalogue, wait_for
from tests.support.server import RestClient, ServerHandle, running_server
from tests.support.waiting import until, until_gone, wakeup_of

PUBLIC = "/api/fulfillment/v1"
PRIVATE = "/api/private/v1"
VMS = f"{PUBLIC}/compute_instances"
#: Quick retries so that retry limits are reached in well under a second.
FAST_RETRIES = merge_config(INSTANT, {"networking": {"cleanup_retry_limit": 3, "retry_backoff_seconds": 0.05}})


@dataclass
class Vmaas:
    """A server with controllers at instant speed, a READY catalogue and tenant ``acme`` READY;
    ``admin`` is a provider admin, ``alice`` a tenant admin of ``acme``."""

    server: ServerHandle
    admin: RestClient
    alice: RestClient

    async def create(self, name: str, **spec: Any) -> dict[str, Any]:
        response = await self.alice.request("POST", VMS, json={"metadata": {"name": name},
                                                               "spec": {"template": "fedora", **spec}})
        assert response.status_code == 200, response.text
        return dict(response.json())

    async def until(self, vm_id: str, predicate: Callable[[dict[str, Any]], bool], timeout: float = 20.0) -> dict[str, Any]:
        return await wait_for(self.alice, f"{VMS}/{vm_id}", predicate, timeout=timeout)

    async def until_state(self, vm_id: str, state: str, timeout: float = 20.0) -> dict[str, Any]:
        return await self.until(vm_id, lambda vm: vm["status"]["state"] == f"COMPUTE_INSTANCE_STATE_{state}", timeout)

    async def update(self, vm_id: str, spec: dict[str, Any], mask: str) -> dict[str, Any]:
        response = await self.alice.request("PATCH", f"{VMS}/{vm_id}", params={"update_mask": mask},
                                            json={"spec": spec})
        assert response.status_code == 200, response.text
        return dict(response.json())

    async def signal(self, vm_id: str) -> None:
        """Reconcile now: faults change observations without a notice (simulator.md §5)."""
        response = await self.admin.request("POST", f"{PRIVATE}/compute_instances/{vm_id}/signal")
        assert response.status_code == 200, response.text

    async def event_items(self, object_id: str) -> list[dict[str, Any]]:
        response = await self.alice.request("GET", f"{PUBLIC}/lifecycle_events",
                                            params={"filter": f"this.object_id == '{object_id}'"})
        return list(response.json()["items"])

    async def events(self, object_id: str) -> list[str]:
        return [e["reason"] for e in await self.event_items(object_id)]

    async def until_events(self, object_id: str, predicate: Callable[[list[str]], bool], timeout: float = 20.0) -> None:
        async def check() -> tuple[bool, list[str]]:
            reasons = await self.events(object_id)
            return predicate(reasons), reasons

        async def failure(last: list[str] | None) -> str:
            return f"timed out waiting for the events of {object_id}; last: {last}"

        await until(wakeup_of(self.alice), check, timeout, failure)

    async def observation(self, kind: str, key: str) -> dict[str, Any]:
        response = await self.admin.request("POST", f"{PRIVATE}/simulator/get_observation",
                                            json={"kind": kind, "key": key})
        assert response.status_code == 200, response.text
        return dict(response.json()["observation"])

    async def fault(self, vm_id: str, name: str, **params: Any) -> str:
        response = await self.admin.request("POST", f"{PRIVATE}/simulator/faults", json={
            "fault": name, "target_kind": "compute_instance", "target_id": vm_id, "params": params})
        assert response.status_code == 200, response.text
        return str(response.json()["id"])

    async def clear(self, fault_id: str) -> None:
        assert (await self.admin.request("DELETE", f"{PRIVATE}/simulator/faults/{fault_id}")).status_code == 200

    async def get(self, path: str) -> dict[str, Any]:
        response = await self.alice.request("GET", path)
        assert response.status_code == 200, response.text
        return dict(response.json())

    async def archived(self, vm_id: str, timeout: float = 20.0) -> None:
        await until_gone(self.alice, f"{VMS}/{vm_id}", timeout)


@asynccontextmanager
async def serving_vmaas(db_url: str, tmp_path: Path, config: dict[str, Any] = FAST_RETRIES) -> AsyncIterator[Vmaas]:
    """A server with controllers on ``config``, the catalogue READY and tenant ``acme`` READY."""
    async with running_server(tmp_path, db_url, controllers=True, config=config) as server:
        admin = server.rest(server.token(Role.PROVIDER_ADMIN, user="root"))
        alice = server.rest(server.token(Role.TENANT_ADMIN, ("acme",), user="alice"))
        async with admin, alice:
            await ready_catalogue(admin)
            tenant = (await admin.request("POST", f"{PUBLIC}/tenants", json={"metadata": {"name": "acme"}})).json()
            await wait_for(admin, f"{PUBLIC}/tenants/{tenant['id']}",
                           lambda t: t["status"]["state"] == "TENANT_STATE_READY")
            yield Vmaas(server, admin, alice)


@pytest.fixture
async def vmaas(db_url: str, tmp_path: Path) -> AsyncIterator[Vmaas]:
    async with serving_vmaas(db_url, tmp_path) as found:
        yield found


def condition(vm: dict[str, Any], name: str) -> dict[str, Any]:
    return next(c for c in vm["status"]["conditions"] if c["type"] == f"COMPUTE_INSTANCE_CONDITION_TYPE_{name}")


def is_true(vm: dict[str, Any], name: str) -> bool:
    return bool(condition(vm, name)["status"] == "CONDITION_STATUS_TRUE")


def is_reachable(vm: dict[str, Any]) -> bool:
    return vm["status"]["state"] == "COMPUTE_INSTANCE_STATE_RUNNING" and bool(vm["status"].get("internal_ip_address"))


async def metric(vmaas: Vmaas, name: str) -> float:
    """A sample of the process's /metrics (0 when absent): the registry is process-wide, so
    tests compare before and after."""
    text = (await vmaas.admin.request("GET", "/metrics")).text
    values = [float(line.split()[-1]) for line in text.splitlines() if line.startswith(f"{name} ")]
    return values[0] if values else 0.0
