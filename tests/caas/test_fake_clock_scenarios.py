"""cluster-status.md §20 scenarios 1-4 end to end on a fake clock: a running server whose
simulator and controllers share a ``FakeClock`` that only ``Simulator.AdvanceClock`` moves. The
advance steps through every due simulator step and controller timer and waits for the service
at each (simulator.md §4), so the stall thresholds are the real ones (30 m, 60 m) and no test
sleeps through them."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from osac.auth.subject import Role
from osac.clock import FakeClock
from osac.server.settings import DEFAULT_CONFIG, merge_config
from tests.caas.conftest import PULL_SECRET, RELEASE_IMAGE, ssh_key
from tests.support.server import RestClient, ServerHandle, running_server

PUBLIC = "/api/fulfillment/v1"
PRIVATE = "/api/private/v1"
START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
READY = "CLUSTER_STATE_READY"
#: Realistic simulated durations (speed 1; infrastructure takes 10 m), a GPU host type whose
#: WorkersJoining threshold is 60 m, and a resync bound of 10 m instead of 30 s so that hours of
#: clock time take fewer steps (stall timers come from the derivation, not from the resync).
CONFIG = merge_config(DEFAULT_CONFIG, {
    "simulator": {"speed": 1, "jitter": 0, "durations": {"cluster.2": "10m"}},
    "cluster_status": {"host_type_overrides": {"vm-gpu": {"WorkersJoining": "60m"}}, "resync_interval": "10m"},
})


@asynccontextmanager
async def fake_clock_server(db_url: str, tmp_path: Any, clock: FakeClock,
                            config: dict[str, Any] = CONFIG) -> AsyncIterator[ServerHandle]:
    async with running_server(tmp_path, db_url, controllers=True, config=config, clock=clock) as server:
        yield server


@pytest.fixture
async def driver(db_url: str, tmp_path: Any) -> AsyncIterator[Driver]:
    """An onboarded fake-clock server's driver."""
    clock = FakeClock(START)
    async with fake_clock_server(db_url, tmp_path, clock) as server:
        onboarded = Driver(server, clock)
        await onboarded.onboard()
        yield onboarded


class Driver:
    """A provider admin and a tenant admin of ``acme`` on a fake-clock server."""

    def __init__(self, server: ServerHandle, clock: FakeClock) -> None:
        self.clock = clock
        self.admin = server.rest(server.token(Role.PROVIDER_ADMIN, user="root"))
        self.alice = server.rest(server.token(Role.TENANT_ADMIN, ("acme",), user="alice"))

    async def advance(self, delta: timedelta) -> datetime:
        response = await self.admin.request("POST", f"{PRIVATE}/simulator/advance_clock",
                                            json={"duration": f"{delta.total_seconds():g}s"})
        assert response.status_code == 200, response.text
        now = datetime.fromisoformat(response.json()["now"])
        assert now == self.clock.now()
        return now

    async def get(self, path: str, client: RestClient | None = None) -> dict[str, Any]:
        response = await (client or self.alice).request("GET", path)
        assert response.status_code == 200, response.text
        return dict(response.json())

    async def advance_until(self, path: str, predicate: Callable[[dict[str, Any]], bool], *,
                            step: timedelta = timedelta(seconds=10), limit: timedelta = timedelta(hours=2),
                            client: RestClient | None = None) -> dict[str, Any]:
        """Advance by ``step`` until ``predicate`` holds for the object at ``path`` (a fake-clock
        ``wait_for``: every advance has waited for the service, so one look per step suffices)."""
        deadline = self.clock.now() + limit
        while not predicate(found := await self.get(path, client)):
            assert self.clock.now() < deadline, f"{path} never matched within {limit}; last: {found}"
            await self.advance(step)
        return found

    async def onboard(self) -> None:
        """The catalogue READY, tenant ``acme`` READY, host type ``vm-gpu`` and template ``ocp-gpu``
        (``workers``: 3 vm-standard, ``gpu``: 2 vm-gpu)."""
        await self.advance_until(f"{PRIVATE}/network_classes", lambda page: page["items"][0].get("status", {})
                                 .get("state") == "NETWORK_CLASS_STATE_READY", client=self.admin)
        # the default NAT of a tenant needs an address from a READY pool
        await self.advance_until(f"{PRIVATE}/external_ip_pools", lambda page: page["items"][0].get("status", {})
                                 .get("state") == "EXTERNAL_IP_POOL_STATE_READY", client=self.admin)
        tenant = await self.create(f"{PUBLIC}/tenants", {"metadata": {"name": "acme"}}, self.admin)
        await self.advance_until(f"{PUBLIC}/tenants/{tenant['id']}",
                                 lambda t: t["status"]["state"] == "TENANT_STATE_READY", client=self.admin)
        await self.create(f"{PRIVATE}/host_types", {
            "metadata": {"name": "vm-gpu"}, "title": "GPU virtual machine node",
            "interfaces": [{"name": "nic-0", "role": "fabric"}]}, self.admin)
        await self.create(f"{PRIVATE}/cluster_templates", {
            "metadata": {"name": "ocp-gpu"}, "title": "OpenShift with GPU workers",
            "node_sets": {"workers": {"host_type": "vm-standard", "size": 3},
                          "gpu": {"host_type": "vm-gpu", "size": 2}}}, self.admin)

    async def create(self, collection: str, body: dict[str, Any], client: RestClient | None = None) -> dict[str, Any]:
        response = await (client or self.alice).request("POST", collection, json=body)
        assert response.status_code == 200, response.text
        return dict(response.json())

    async def cluster(self, name: str = "prod") -> dict[str, Any]:
        return await self.create(f"{PUBLIC}/clusters", {
            "metadata": {"name": name},
            "spec": {"template": "ocp-gpu", "release_image": RELEASE_IMAGE, "pull_secret": PULL_SECRET,
                     "ssh_public_key": ssh_key()}})

    async def events(self, object_id: str) -> list[dict[str, Any]]:
        page = await self.get(f"{PUBLIC}/lifecycle_events?filter=this.object_id == '{object_id}'")
        return list(page["items"])

    async def reasons(self, object_id: str) -> list[str]:
        return [e["reason"] for e in await self.events(object_id)]

    async def fault(self, cluster_id: str, fault: str, **params: Any) -> str:
        body = {"fault": fault, "target_kind": "cluster", "target_id": cluster_id, "params": params}
        return str((await self.create(f"{PRIVATE}/simulator/faults", body, self.admin))["id"])

    async def clear(self, fault_id: str) -> None:
        response = await self.admin.request("DELETE", f"{PRIVATE}/simulator/faults/{fault_id}")
        assert response.status_code == 200, response.text

    async def advance_to(self, when: datetime) -> None:
        assert when >= self.clock.now(), f"{when} is in the past ({self.clock.now()})"
        await self.advance(when - self.clock.now())


def when(text: str) -> datetime:
    return datetime.fromisoformat(text)


def condition(cluster: dict[str, Any], name: str) -> dict[str, Any]:
    return next(c for c in cluster["status"]["conditions"] if c["type"] == f"CLUSTER_CONDITION_TYPE_{name}")


def progressing(cluster: dict[str, Any]) -> str:
    return str(condition(cluster, "PROGRESSING")["reason"])


def changes(values: list[Any]) -> list[Any]:
    """``values`` without consecutive repeats."""
    return [value for i, value in enumerate(values) if i == 0 or value != values[i - 1]]


async def test_scenario_1_stages_in_order(driver: Driver) -> None:
    created = await driver.cluster()
    path = f"{PUBLIC}/clusters/{created['id']}"
    history = [created]
    while history[-1]["status"]["state"] != READY:
        await driver.advance(timedelta(seconds=30))
        found = await driver.get(path)
        if found["status"] != history[-1]["status"]:
            history.append(found)

    assert changes([c["status"].get("stage", "") for c in history]) == [
        "PreparingInfrastructure", "ControlPlaneStarting", "WorkersJoining", ""]
    assert len(changes([c["status"]["state_transition_time"] for c in history])) == 2
    control_plane = next(i for i, c in enumerate(history)
                         if condition(c, "CONTROL_PLANE_AVAILABLE")["status"] == "CONDITION_STATUS_TRUE")
    workers = next(i for i, c in enumerate(history)
                   if condition(c, "WORKERS_READY")["status"] == "CONDITION_STATUS_TRUE")
    assert control_plane < workers
    for cluster in history:  # the API URL and both endpoints appear with the control plane
        has_endpoints = all(cluster["status"].get(f) for f in ("api_url", "api_endpoint", "ingress_endpoint"))
        assert has_endpoints == (history.index(cluster) >= control_plane), cluster["status"]
        assert bool(cluster["status"].get("console_url")) == (cluster["status"]["state"] == READY)

    reasons = await driver.reasons(created["id"])
    assert reasons.count("StageChanged") == 4, reasons
    for once in ("VIPsDiscovered", "ControlPlaneAvailable", "WorkersReady", "ClusterReady"):
        assert reasons.count(once) == 1, reasons
    # Each stage change happened at its simulated time, not when the test looked.
    entered = [when(c["status"]["stage_entered_at"]) for c in history if c["status"].get("stage_entered_at")]
    assert entered == sorted(entered) and entered[0] == when(created["metadata"]["creation_timestamp"])


async def stalling_cluster(driver: Driver) -> tuple[dict[str, Any], str, datetime]:
    """A cluster held in ControlPlaneStarting by a stall fault: (cluster, fault id, stage entry)."""
    created = await driver.cluster()
    stall = await driver.fault(created["id"], "stall", stage="ControlPlaneStarting")
    entered = await driver.advance_until(f"{PUBLIC}/clusters/{created['id']}",
                                         lambda c: c["status"]["stage"] == "ControlPlaneStarting",
                                         step=timedelta(minutes=1))
    stage_entry = when(entered["status"]["stage_entered_at"])
    assert stage_entry - when(created["metadata"]["creation_timestamp"]) >= timedelta(minutes=10)
    return created, stall, stage_entry


async def test_scenario_2_stall_measured_from_stage_entry(driver: Driver) -> None:
    created, stall, stage_entry = await stalling_cluster(driver)
    path = f"{PUBLIC}/clusters/{created['id']}"

    for at in (timedelta(minutes=20), timedelta(minutes=29, seconds=59)):
        await driver.advance_to(stage_entry + at)
        cluster = await driver.get(path)
        assert progressing(cluster) == "ControlPlaneStarting", (at, cluster["status"])
    await driver.advance_to(stage_entry + timedelta(minutes=30))
    stalled = await driver.get(path)
    assert progressing(stalled) == "Stalled"
    assert stalled["status"]["state"] == "CLUSTER_STATE_PROGRESSING"
    warnings = [e for e in await driver.events(created["id"]) if e["reason"] == "Stalled"]
    assert len(warnings) == 1 and warnings[0]["type"] == "LIFECYCLE_EVENT_TYPE_WARNING"
    assert when(warnings[0]["timestamp"]) == stage_entry + timedelta(minutes=30)

    await driver.advance_to(stage_entry + timedelta(hours=3))
    later = await driver.get(path)
    assert later["status"]["state"] == "CLUSTER_STATE_PROGRESSING" and progressing(later) == "Stalled"
    assert condition(later, "FAILED")["status"] == "CONDITION_STATUS_FALSE"
    assert (await driver.reasons(created["id"])).count("Stalled") == 1

    await driver.clear(stall)
    moved = await driver.advance_until(path, lambda c: c["status"]["stage"] != "ControlPlaneStarting",
                                       step=timedelta(minutes=1))
    assert moved["status"]["stage"] == "WorkersJoining" and progressing(moved) == "WorkersJoining"
    assert (await driver.reasons(created["id"])).count("StallCleared") == 1


async def test_scenario_3_stall_survives_a_restart(db_url, tmp_path) -> None:
    clock = FakeClock(START)
    async with fake_clock_server(db_url, tmp_path, clock) as server:
        driver = Driver(server, clock)
        await driver.onboard()
        created, _stall, stage_entry = await stalling_cluster(driver)
        path = f"{PUBLIC}/clusters/{created['id']}"
        await driver.advance_to(stage_entry + timedelta(minutes=15))
        assert progressing(await driver.get(path)) == "ControlPlaneStarting"

    clock.advance(timedelta(minutes=10))  # the service is down from T+15 m to T+25 m
    async with fake_clock_server(db_url, tmp_path, clock) as server:
        driver = Driver(server, clock)
        await driver.advance(timedelta(0))  # the restarted service catches up at T+25 m
        cluster = await driver.get(path)
        assert when(cluster["status"]["stage_entered_at"]) == stage_entry
        assert progressing(cluster) == "ControlPlaneStarting"
        await driver.advance_to(stage_entry + timedelta(minutes=29, seconds=59))
        assert progressing(await driver.get(path)) == "ControlPlaneStarting"
        await driver.advance_to(stage_entry + timedelta(minutes=30))
        stalled = await driver.get(path)
        assert progressing(stalled) == "Stalled"
        assert when(stalled["status"]["stage_entered_at"]) == stage_entry
        assert (await driver.reasons(created["id"])).count("Stalled") == 1


async def joining_with_one_stuck_node_set(driver: Driver, stuck: str, name: str) -> tuple[str, datetime]:
    """A cluster whose node set ``stuck`` never gets its last machine: (path, WorkersJoining entry)."""
    created = await driver.cluster(name)
    await driver.fault(created["id"], "node_pool_failure", node_set=stuck, count=1, mode="join")
    path = f"{PUBLIC}/clusters/{created['id']}"
    other = "workers" if stuck == "gpu" else "gpu"
    joined = await driver.advance_until(
        path, lambda c: c["status"].get("node_sets", {}).get(other, {}).get("state") == "CLUSTER_NODE_SET_STATE_READY",
        step=timedelta(minutes=1))
    assert joined["status"]["stage"] == "WorkersJoining"
    assert joined["status"]["node_sets"][stuck]["state"] != "CLUSTER_NODE_SET_STATE_READY"
    return path, when(joined["status"]["stage_entered_at"])


async def test_scenario_4_host_type_override_of_the_stuck_node_set(driver: Driver) -> None:
    # workers READY, gpu stuck: gpu's host type allows 60 m
    path, entry = await joining_with_one_stuck_node_set(driver, "gpu", "slow-gpu")
    await driver.advance_to(entry + timedelta(minutes=59))
    cluster = await driver.get(path)
    assert progressing(cluster) == "WorkersJoining", (entry, cluster["status"])
    await driver.advance_to(entry + timedelta(minutes=60))
    assert progressing(await driver.get(path)) == "Stalled"

    # gpu READY, workers stuck: the default 20 m applies
    path, entry = await joining_with_one_stuck_node_set(driver, "workers", "slow-workers")
    await driver.advance_to(entry + timedelta(minutes=19, seconds=59))
    assert progressing(await driver.get(path)) == "WorkersJoining"
    await driver.advance_to(entry + timedelta(minutes=20))
    stalled = await driver.get(path)
    assert progressing(stalled) == "Stalled"
    assert "20m" in condition(stalled, "PROGRESSING")["message"], condition(stalled, "PROGRESSING")
