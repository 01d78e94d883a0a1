"""Scenario 21 of networking.md §14 (*defaults first*) for a ComputeInstance, on a fake clock.

The simulated fabric takes 5 s of clock time for ``create_subnet`` (``fabric_latency``): right
after onboarding the tenant's default subnet is still PENDING, so a VM created without
networking is refused with the §6.4 not-ready message and nothing is stored; once the tenant is
READY the same request succeeds and stores the default attachment.

The server's simulator and controllers share a ``FakeClock``. The catalogue is brought READY
through ``Simulator.AdvanceClock`` while the service is idle; the held fabric call is then
released by moving the clock itself (an AdvanceClock would first wait for the busy subnet
controller to go idle), after which every step is event-driven.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from osac.auth.subject import Role
from osac.clock import FakeClock
from tests.support.onboarding import INSTANT, wait_for
from tests.support.server import RestClient, ServerHandle, running_server
from tests.workloads.conftest import failure

PUBLIC = "/api/fulfillment/v1"
PRIVATE = "/api/private/v1"
START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
LATENCY = timedelta(seconds=5)
#: Most one-second clock moves to wait for onboarding after the latency (a loaded machine may
#: start the subnet's fabric call a few moves late).
RELEASE_STEPS = 60
NOT_READY = "Default networking is not ready: Subnet 'default' is PENDING"


@dataclass
class Onboarding:
    server: ServerHandle
    clock: FakeClock
    admin: RestClient
    alice: RestClient

    async def advance(self, delta: timedelta) -> None:
        response = await self.admin.request("POST", f"{PRIVATE}/simulator/advance_clock",
                                            json={"duration": f"{delta.total_seconds():g}s"})
        assert response.status_code == 200, response.text

    async def first(self, collection: str) -> dict[str, Any]:
        page = (await self.admin.request("GET", f"{PRIVATE}/{collection}")).json()
        return dict(page["items"][0]) if page["items"] else {}

    async def create_vm(self, name: str) -> Any:
        return await self.alice.request("POST", f"{PUBLIC}/compute_instances",
                                        json={"metadata": {"name": name}, "spec": {"template": "fedora"}})

    async def release_until(self, path: str, predicate: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """Move the clock a second at a time (real time between moves for the released calls'
        writes) until ``predicate`` holds for the object at ``path``."""
        for _ in range(RELEASE_STEPS):
            found = dict((await self.admin.request("GET", path)).json())
            if predicate(found):
                return found
            self.clock.advance(timedelta(seconds=1))
            await asyncio.sleep(0.1)
        raise AssertionError(f"{path} never matched; last: {found}")

    async def vm_names(self) -> list[str]:
        page = (await self.admin.request("GET", f"{PRIVATE}/compute_instances")).json()
        return [item["metadata"]["name"] for item in page["items"]]


@pytest.fixture
async def onboarding(db_url: str, tmp_path: Path) -> AsyncIterator[Onboarding]:
    clock = FakeClock(START)
    async with running_server(tmp_path, db_url, controllers=True, config=INSTANT, clock=clock) as server:
        admin = server.rest(server.token(Role.PROVIDER_ADMIN, user="root"))
        alice = server.rest(server.token(Role.TENANT_ADMIN, ("acme",), user="alice"))
        async with admin, alice:
            driver = Onboarding(server, clock, admin, alice)
            for collection, ready in (("network_classes", "NETWORK_CLASS_STATE_READY"),
                                      ("external_ip_pools", "EXTERNAL_IP_POOL_STATE_READY")):
                for _ in range(30):
                    if (await driver.first(collection)).get("status", {}).get("state") == ready:
                        break
                    await driver.advance(timedelta(seconds=1))
                else:
                    raise AssertionError(f"{collection} never became READY")
            try:
                yield driver
            finally:
                # Stopping gives in-flight reconciles a grace period before cancelling them:
                # release a fabric call still held by the injected latency so the stop is quick.
                clock.advance(timedelta(hours=1))


async def test_vm_without_networking_waits_for_the_default_subnet(onboarding: Onboarding) -> None:
    # Given create_subnet takes 5 s of clock time on the fabric
    fault = await onboarding.admin.request("POST", f"{PRIVATE}/simulator/faults", json={
        "fault": "fabric_latency", "params": {"operation": "create_subnet", "seconds": LATENCY.total_seconds()}})
    assert fault.status_code == 200, fault.text
    # And tenant acme onboarded a moment ago
    created = await onboarding.admin.request("POST", f"{PUBLIC}/tenants", json={"metadata": {"name": "acme"}})
    assert created.status_code == 200, created.text
    tenant = created.json()
    onboarded_at = onboarding.clock.now()

    # When alice creates a VM without networking right away
    refused = await onboarding.create_vm("early")
    # Then it is refused with the §6.4 not-ready message and nothing is stored
    assert failure(refused) == ("FAILED_PRECONDITION", NOT_READY)
    assert await onboarding.vm_names() == []

    # While the fabric call is held the subnet stays PENDING and so does the tenant
    await wait_for(onboarding.admin, f"{PRIVATE}/virtual_networks",
                   lambda page: page["items"][0]["status"]["state"] == "VIRTUAL_NETWORK_STATE_READY")
    onboarding.clock.advance(LATENCY - timedelta(seconds=1))
    await asyncio.sleep(0.2)  # real time for a (wrongly) released call to be written
    assert (await onboarding.first("subnets"))["status"]["state"] == "SUBNET_STATE_PENDING"
    path = f"{PUBLIC}/tenants/{tenant['id']}"
    waiting = (await onboarding.admin.request("GET", path)).json()
    assert waiting["status"]["state"] == "TENANT_STATE_PENDING"
    assert failure(await onboarding.create_vm("still-early")) == ("FAILED_PRECONDITION", NOT_READY)

    # When the clock passes the fabric's 5 s (counted from when the subnet's call began)
    ready = await onboarding.release_until(path, lambda t: t["status"]["state"] == "TENANT_STATE_READY")
    [condition] = ready["status"]["conditions"]
    assert (condition["status"], condition["reason"]) == ("CONDITION_STATUS_TRUE", "Ready")
    became_ready = datetime.fromisoformat(condition["last_transition_time"])
    assert became_ready >= onboarded_at + LATENCY

    # Then the same request succeeds and stores the tenant's default attachment
    accepted = await onboarding.create_vm("early")
    assert accepted.status_code == 200, accepted.text
    subnet, group = await onboarding.first("subnets"), await onboarding.first("security_groups")
    assert accepted.json()["spec"]["compute_network_attachments"] == [
        {"subnet": subnet["id"], "security_groups": [group["id"]], "primary": True}]
    assert await onboarding.vm_names() == ["early"]



async def test_stopping_cancels_a_reconcile_held_by_injected_latency(db_url: str, tmp_path: Path) -> None:
    """A provider call held by latency on a fake clock never returns by itself: stopping the
    process waits for it only the grace period, then cancels it."""
    clock = FakeClock(START)
    async with asyncio.timeout(60):
        async with running_server(tmp_path, db_url, controllers=True, config=INSTANT, clock=clock,
                                  controller_stop_grace=0.5) as server:
            admin = server.rest(server.token(Role.PROVIDER_ADMIN, user="root"))
            async with admin:
                driver = Onboarding(server, clock, admin, admin)
                # the catalogue READY: the default NAT of a tenant needs an address from a READY pool
                while ((await driver.first("network_classes")).get("status", {}).get("state") != "NETWORK_CLASS_STATE_READY"
                       or (await driver.first("external_ip_pools")).get("status", {}).get("state")
                       != "EXTERNAL_IP_POOL_STATE_READY"):
                    await driver.advance(timedelta(seconds=1))
                fault = await admin.request("POST", f"{PRIVATE}/simulator/faults", json={
                    "fault": "fabric_latency", "params": {"operation": "create_virtual_network", "seconds": 3600}})
                assert fault.status_code == 200, fault.text
                tenant = await admin.request("POST", f"{PUBLIC}/tenants", json={"metadata": {"name": "acme"}})
                assert tenant.status_code == 200, tenant.text
                simulator = server.app.managers.simulator
                while not simulator.latency_deadlines:  # the default VN's fabric call is held
                    await asyncio.sleep(0.05)
            stopping = asyncio.get_running_loop().time()
        stopped = asyncio.get_running_loop().time()
    assert stopped - stopping < 5, f"stopping took {stopped - stopping:.1f} s"
    assert simulator.latency_deadlines == []  # the held call was cancelled
