"""compute.md §6 scenarios 4, 5, 6 and 14 end to end: a server whose controllers and simulator
share a ``FakeClock`` that only ``Simulator.AdvanceClock`` moves (speed 1 without jitter, so every
simulated duration is the table's: a VM stops in 10 s, waits 1 s and starts in 20 s). Requests go
through the public REST API as ``osac restart`` sends them, faults through the simulator admin
API, and every status version a watcher would see is read back from the public watch stream.

The derivation side of the same scenarios is in ``tests/status``; these tests check that the
reconcilers, the simulator and the service together produce it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from osac.auth.subject import Role
from osac.clock import FakeClock
from osac.server.settings import DEFAULT_CONFIG, merge_config
from tests.support.server import RestClient, ServerHandle, running_server
from tests.support.watching import payload, read_events

PUBLIC = "/api/fulfillment/v1"
PRIVATE = "/api/private/v1"
VMS = f"{PUBLIC}/compute_instances"
BMIS = f"{PUBLIC}/baremetal_instances"
START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
CONFIG = merge_config(DEFAULT_CONFIG, {"simulator": {"speed": 1, "jitter": 0}})
SECOND = timedelta(seconds=1)
MINUTE = timedelta(minutes=1)
#: compute.md §2.5 step 4: a restart not done within this fails.
RESTART_TIMEOUT = timedelta(minutes=10)
#: simulator.md §3.2 at speed 1: ``Stopping`` 10 s, 1 s between stop and start.
STOP = timedelta(seconds=10)
GAP = SECOND


@dataclass
class Driver:
    """A provider admin and a tenant admin of ``acme`` (READY) on a fake-clock server."""

    server: ServerHandle
    clock: FakeClock
    admin: RestClient
    alice: RestClient

    # -- time ---------------------------------------------------------------------------------------

    async def advance(self, delta: timedelta = timedelta(0)) -> datetime:
        """Move the clock through every due simulator step and controller timer, waiting for the
        service at each; ``advance()`` only lets the service act on what was just requested."""
        response = await self.admin.request("POST", f"{PRIVATE}/simulator/advance_clock",
                                            json={"duration": f"{delta.total_seconds():g}s"})
        assert response.status_code == 200, response.text
        return self.clock.now()

    async def advance_to(self, moment: datetime) -> None:
        assert moment >= self.clock.now(), f"{moment} is in the past ({self.clock.now()})"
        await self.advance(moment - self.clock.now())

    async def advance_until(self, path: str, predicate: Callable[[dict[str, Any]], bool], *,
                            step: timedelta = timedelta(seconds=5), limit: timedelta = timedelta(minutes=30),
                            client: RestClient | None = None) -> dict[str, Any]:
        deadline = self.clock.now() + limit
        while not predicate(found := await self.get(path, client)):
            assert self.clock.now() < deadline, f"{path} never matched within {limit}; last: {found}"
            await self.advance(step)
        return found

    # -- the API --------------------------------------------------------------------------------------

    async def get(self, path: str, client: RestClient | None = None) -> dict[str, Any]:
        response = await (client or self.alice).request("GET", path)
        assert response.status_code == 200, response.text
        return dict(response.json())

    async def create(self, collection: str, body: dict[str, Any], client: RestClient | None = None) -> dict[str, Any]:
        response = await (client or self.alice).request("POST", collection, json=body)
        assert response.status_code == 200, response.text
        return dict(response.json())

    async def update(self, path: str, spec: dict[str, Any], mask: str) -> dict[str, Any]:
        response = await self.alice.request("PATCH", path, params={"update_mask": mask}, json={"spec": spec})
        assert response.status_code == 200, response.text
        return dict(response.json())

    async def restart_vm(self, vm_id: str) -> dict[str, Any]:
        """``osac restart computeinstance``: ``spec.restart_requested_at`` := now (the fake now)."""
        return await self.update(f"{VMS}/{vm_id}", {"restart_requested_at": stamp(self.clock.now())},
                                 "spec.restart_requested_at")

    async def restart_bmi(self, bmi_id: str) -> dict[str, Any]:
        """``osac restart baremetalinstance``: ``spec.restart_trigger`` one above spec and status."""
        stored = await self.get(f"{BMIS}/{bmi_id}")
        trigger = max(int(stored["spec"].get("restart_trigger", 0)), int(stored["status"].get("restart_trigger", 0)))
        return await self.update(f"{BMIS}/{bmi_id}", {"restart_trigger": str(trigger + 1)}, "spec.restart_trigger")

    async def revision(self) -> int:
        return int((await self.get(f"{PUBLIC}/tenants", self.admin))["revision"])

    async def history(self, field: str, object_id: str, after: int) -> list[dict[str, Any]]:
        """Every version of an object written after revision ``after``, in order, as the public
        watch stream delivers them (``field``: the event's payload, e.g. ``compute_instance``)."""
        token = self.server.token(Role.TENANT_ADMIN, ("acme",), user="alice")
        lines = await read_events(self.server.http_url, token, idle=0.5, params={
            "after_revision": str(after), "filter": f"has(event.{field}) && event.{field}.id == '{object_id}'"})
        assert all("result" in line for line in lines), lines
        return [payload(line)[1] for line in lines]

    async def events(self, object_id: str) -> list[dict[str, Any]]:
        return list((await self.get(f"{PUBLIC}/lifecycle_events?filter=this.object_id == '{object_id}'"))["items"])

    async def warnings(self, object_id: str) -> list[tuple[str, str, datetime]]:
        """(reason, message, time) of the Warning lifecycle events of an object."""
        return [(e["reason"], e["message"], when(e["timestamp"])) for e in await self.events(object_id)
                if e["type"] == "LIFECYCLE_EVENT_TYPE_WARNING"]

    async def reasons(self, object_id: str) -> list[str]:
        return [e["reason"] for e in await self.events(object_id)]

    # -- the simulator admin API ------------------------------------------------------------------------

    async def observation(self, kind: str, key: str) -> dict[str, Any]:
        response = await self.admin.request("POST", f"{PRIVATE}/simulator/get_observation",
                                            json={"kind": kind, "key": key})
        assert response.status_code == 200, response.text
        return dict(response.json()["observation"])

    async def fault(self, fault: str, target_kind: str, target_id: str, **params: Any) -> str:
        body = {"fault": fault, "target_kind": target_kind, "target_id": target_id, "params": params}
        return str((await self.create(f"{PRIVATE}/simulator/faults", body, self.admin))["id"])

    async def faults(self) -> list[str]:
        return [f["id"] for f in (await self.get(f"{PRIVATE}/simulator/faults", self.admin))["items"]]

    async def clear(self, fault_id: str) -> None:
        response = await self.admin.request("DELETE", f"{PRIVATE}/simulator/faults/{fault_id}")
        assert response.status_code == 200, response.text

    # -- set-up -------------------------------------------------------------------------------------------

    async def onboard(self) -> None:
        await self.advance_until(f"{PRIVATE}/network_classes", lambda page: page["items"][0].get("status", {})
                                 .get("state") == "NETWORK_CLASS_STATE_READY", client=self.admin)
        # the default NAT of a tenant needs an address from a READY pool
        await self.advance_until(f"{PRIVATE}/external_ip_pools", lambda page: page["items"][0].get("status", {})
                                 .get("state") == "EXTERNAL_IP_POOL_STATE_READY", client=self.admin)
        tenant = await self.create(f"{PUBLIC}/tenants", {"metadata": {"name": "acme"}}, self.admin)
        await self.advance_until(f"{PUBLIC}/tenants/{tenant['id']}",
                                 lambda t: t["status"]["state"] == "TENANT_STATE_READY", client=self.admin)

    async def running_vm(self, name: str) -> dict[str, Any]:
        created = await self.create(VMS, {"metadata": {"name": name}, "spec": {"template": "fedora"}})
        return await self.advance_until(f"{VMS}/{created['id']}", is_reachable)

    async def running_bmi(self, name: str) -> dict[str, Any]:
        """The private view (with ``status.host``) once RUNNING."""
        created = await self.create(BMIS, {"metadata": {"name": name}, "spec": {"host_type": "bm-standard"}})
        return await self.advance_until(f"{PRIVATE}/baremetal_instances/{created['id']}",
                                        lambda b: state(b) == "RUNNING", step=timedelta(seconds=30), client=self.admin)

    async def vmi(self, vm_id: str) -> dict[str, Any] | None:
        found = (await self.observation("compute_instance", vm_id))["virtual_machine_instance"]
        return None if found is None else dict(found)


@pytest.fixture
async def driver(db_url: str, tmp_path: Path) -> AsyncIterator[Driver]:
    clock = FakeClock(START)
    async with running_server(tmp_path, db_url, controllers=True, config=CONFIG, clock=clock) as server:
        admin = server.rest(server.token(Role.PROVIDER_ADMIN, user="root"))
        alice = server.rest(server.token(Role.TENANT_ADMIN, ("acme",), user="alice"))
        async with admin, alice:
            onboarded = Driver(server, clock, admin, alice)
            await onboarded.onboard()
            yield onboarded


# -- reading statuses ----------------------------------------------------------------------------------


def stamp(moment: datetime) -> str:
    """A timestamp as the API renders it (the fake clock moves in whole seconds here)."""
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def when(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def state(obj: dict[str, Any]) -> str:
    return str(obj["status"]["state"]).rsplit("_STATE_", 1)[-1]


def condition(obj: dict[str, Any], name: str) -> tuple[str, str, str]:
    """(status, reason, message) of a condition of a compute or bare-metal instance."""
    [found] = [c for c in obj["status"]["conditions"] if c["type"].endswith(f"_CONDITION_TYPE_{name}")]
    return found["status"].removeprefix("CONDITION_STATUS_"), found.get("reason", ""), found.get("message", "")


def restarting(obj: dict[str, Any]) -> tuple[str, str]:
    """(state, RESTART_IN_PROGRESS reason)."""
    return state(obj), condition(obj, "RESTART_IN_PROGRESS")[1]


def is_reachable(vm: dict[str, Any]) -> bool:
    return state(vm) == "RUNNING" and bool(vm["status"].get("internal_ip_address"))


def changes(values: list[Any]) -> list[Any]:
    """``values`` without consecutive repeats."""
    return [value for i, value in enumerate(values) if i == 0 or value != values[i - 1]]


def assert_transition_times_follow_states(history: list[dict[str, Any]]) -> None:
    """``state_transition_time`` is stamped on every state change and only then (compute.md §1);
    two changes at one instant of the fake clock carry the same time."""
    for before, after in zip(history, history[1:], strict=False):
        earlier, later = (when(v["status"]["state_transition_time"]) for v in (before, after))
        if state(after) == state(before):
            assert later == earlier, (before["status"], after["status"])
        else:
            assert later >= earlier, (before["status"], after["status"])


# -- scenario 4 -------------------------------------------------------------------------------------------

#: One restart as a watcher sees it: RestartRequested while the VM still runs, RestartInProgress
#: from the first STOPPING (compute.md §2.5 step 2), RestartCompleted once a new VMI runs.
ONE_RESTART = [("RUNNING", "RestartRequested"), ("STOPPING", "RestartInProgress"), ("STOPPED", "RestartInProgress"),
               ("STARTING", "RestartInProgress"), ("RUNNING", "RestartCompleted")]


async def test_scenario_4_two_requests_during_a_restart_give_exactly_one_more(driver: Driver) -> None:
    vm = await driver.running_vm("app")
    vm_id, path = vm["id"], f"{VMS}/{vm['id']}"
    first_vmi = await driver.vmi(vm_id)
    assert first_vmi is not None
    after = await driver.revision()

    # Given a restart requested at T, when two more come while it runs (stopping, then starting)...
    started = driver.clock.now()
    await driver.restart_vm(vm_id)
    await driver.advance(5 * SECOND)
    assert restarting(await driver.get(path)) == ("STOPPING", "RestartInProgress")
    await driver.restart_vm(vm_id)
    await driver.advance(STOP + GAP + 4 * SECOND)
    assert restarting(await driver.get(path)) == ("STARTING", "RestartInProgress")
    last_request = driver.clock.now()
    accepted = await driver.restart_vm(vm_id)
    assert accepted["spec"]["restart_requested_at"] == stamp(last_request)  # only the latest is kept
    assert when(accepted["status"]["last_restarted_at"]) == started
    await driver.advance(30 * MINUTE)

    # ...then the VM restarts exactly twice: the first restart, then one more after it.
    history = await driver.history("compute_instance", vm_id, after)
    assert changes([restarting(v) for v in history]) == [("RUNNING", "AsExpected"), *ONE_RESTART, *ONE_RESTART]
    starts = changes([when(v["status"]["last_restarted_at"]) for v in history if v["status"].get("last_restarted_at")])
    [first_done] = [when(v["status"]["state_transition_time"]) for v in history
                    if restarting(v) == ("RUNNING", "RestartCompleted") and when(v["status"]["last_restarted_at"]) == started]
    assert len(starts) == 2 and starts[0] == started
    assert starts[1] == first_done  # the pending request is served as soon as the first restart ends
    assert first_done == started + STOP + GAP + timedelta(seconds=20)
    assert_transition_times_follow_states(history)

    # The simulated VM runs a third incarnation, started by the second restart.
    final = await driver.get(path)
    assert is_reachable(final) and condition(final, "RESTART_FAILED")[:2] == ("FALSE", "AsExpected")
    assert condition(final, "RESTART_IN_PROGRESS") == (
        "FALSE", "RestartCompleted", f"restart started at {starts[1]:%Y-%m-%dT%H:%M:%SZ} completed")
    last_vmi = await driver.vmi(vm_id)
    assert last_vmi is not None and last_vmi["metadata"]["uid"] != first_vmi["metadata"]["uid"]
    assert when(last_vmi["metadata"]["creationTimestamp"]) == starts[1] + STOP + GAP
    reasons = await driver.reasons(vm_id)
    # Ready again at its address after the second restart; the first one's incarnation was
    # restarted as soon as it ran, before it reported an address (5 s later).
    assert reasons.count("Ready") == 2 and "RestartFailed" not in reasons

    # A request older than the last restart's start changes nothing.
    stale = await driver.update(path, {"restart_requested_at": stamp(last_request)}, "spec.restart_requested_at")
    assert stale["spec"]["restart_requested_at"] == stamp(last_request) and stale["status"] == final["status"]


# -- scenario 5 -------------------------------------------------------------------------------------------


async def test_scenario_5_a_failed_restart_fails_the_vm_until_a_new_request_after_the_fault(driver: Driver) -> None:
    vm = await driver.running_vm("app")
    vm_id, path = vm["id"], f"{VMS}/{vm['id']}"
    fault = await driver.fault("restart_fail", "compute_instance", vm_id)
    after = await driver.revision()

    # Given a restart the simulated KubeVirt never finishes (the VM stays Stopped)...
    started = driver.clock.now()
    await driver.restart_vm(vm_id)
    await driver.advance_to(started + RESTART_TIMEOUT - SECOND)
    stuck = await driver.get(path)
    assert restarting(stuck) == ("STOPPED", "RestartInProgress")
    assert condition(stuck, "RESTART_FAILED")[:2] == ("FALSE", "AsExpected")

    # ...then it fails exactly at the timeout: FAILED, RESTART_FAILED TRUE, one Warning.
    await driver.advance(SECOND)
    failed = await driver.get(path)
    message = f"restart started at {started:%Y-%m-%dT%H:%M:%SZ} did not complete within 10m"
    assert state(failed) == "FAILED" and when(failed["status"]["state_transition_time"]) == started + RESTART_TIMEOUT
    assert condition(failed, "RESTART_FAILED") == ("TRUE", "RestartFailed", message)
    assert condition(failed, "RESTART_IN_PROGRESS") == ("FALSE", "RestartFailed", message)
    assert condition(failed, "READY")[:2] == ("FALSE", "Stopped")
    assert condition(failed, "PROVISIONED")[:2] == ("TRUE", "InfrastructureReady")  # sticky
    assert await driver.warnings(vm_id) == [("RestartFailed", message, started + RESTART_TIMEOUT)]

    # Nothing restarts it behind the tenant's back, and the warning is not repeated.
    await driver.advance(30 * MINUTE)
    assert (await driver.get(path))["status"] == failed["status"]
    assert len(await driver.warnings(vm_id)) == 1
    history = await driver.history("compute_instance", vm_id, after)
    assert changes([restarting(v) for v in history]) == [
        ("RUNNING", "AsExpected"), *ONE_RESTART[:3], ("FAILED", "RestartFailed")]

    # Once the fault is cleared, a new request (the tenant's retry) runs the VM again and clears
    # RESTART_FAILED.
    await driver.clear(fault)
    retried_at = driver.clock.now()
    await driver.restart_vm(vm_id)
    recovered = await driver.advance_until(path, is_reachable, step=SECOND, limit=MINUTE)
    assert condition(recovered, "RESTART_FAILED")[:2] == ("FALSE", "AsExpected")
    assert condition(recovered, "RESTART_IN_PROGRESS")[:2] == ("FALSE", "RestartCompleted")
    assert when(recovered["status"]["last_restarted_at"]) == retried_at
    assert when(recovered["status"]["state_transition_time"]) == retried_at + GAP + timedelta(seconds=20)
    assert len(await driver.warnings(vm_id)) == 1
    vmi = await driver.vmi(vm_id)
    assert vmi is not None and vmi["status"]["phase"] == "Running"


# -- scenario 6 -------------------------------------------------------------------------------------------


async def test_scenario_6_a_paused_vm_is_paused_and_runs_again_when_resumed(driver: Driver) -> None:
    vm = await driver.running_vm("app")
    vm_id, path = vm["id"], f"{VMS}/{vm['id']}"
    after = await driver.revision()

    pause = await driver.fault("vm_status", "compute_instance", vm_id, printable_status="Paused")
    await driver.advance()
    paused = await driver.get(path)
    assert state(paused) == "PAUSED"
    assert condition(paused, "READY")[:2] == ("FALSE", "Paused")
    assert when(paused["status"]["state_transition_time"]) == driver.clock.now()
    # A paused instance is never mistaken for a failed one, and a restart may be requested.
    assert condition(paused, "RESTART_FAILED")[:2] == ("FALSE", "AsExpected")
    assert condition(paused, "PROVISIONED")[:2] == ("TRUE", "InfrastructureReady")

    await driver.advance(5 * MINUTE)
    await driver.clear(pause)
    await driver.advance()
    resumed = await driver.get(path)
    assert is_reachable(resumed) and condition(resumed, "READY")[:2] == ("TRUE", "AsExpected")
    history = [vm, *await driver.history("compute_instance", vm_id, after)]
    assert changes([state(v) for v in history]) == ["RUNNING", "PAUSED", "RUNNING"]  # no Pausing state
    assert_transition_times_follow_states(history)
    assert "RestartFailed" not in await driver.reasons(vm_id)


async def test_scenario_6_restart_required_is_mirrored_until_a_restart(driver: Driver) -> None:
    vm = await driver.running_vm("app")
    vm_id, path = vm["id"], f"{VMS}/{vm['id']}"
    assert condition(vm, "RESTART_REQUIRED") == ("FALSE", "AsExpected", "")
    type_path = f"{PRIVATE}/instance_types/{vm['spec']['instance_type']}"
    instance_type = await driver.get(type_path, driver.admin)

    # Given the provider resizes the VM's instance type: KubeVirt applies more cores only on a reboot.
    cores = int(instance_type["spec"]["cores"]) + 2
    response = await driver.admin.request("PATCH", type_path, params={"update_mask": "spec.cores"},
                                          json={"spec": {"cores": cores}})
    assert response.status_code == 200, response.text
    required = await driver.advance_until(path, lambda v: condition(v, "RESTART_REQUIRED")[0] == "TRUE",
                                          step=10 * SECOND, limit=MINUTE)
    assert condition(required, "RESTART_REQUIRED") == (
        "TRUE", "NonLiveUpdatableFieldsChanged", "a non-live-updatable field was changed in the template spec")
    assert state(required) == "RUNNING" and condition(required, "READY")[:2] == ("TRUE", "AsExpected")
    assert condition(required, "CONFIGURATION_APPLIED")[:2] == ("TRUE", "ConfigurationApplied")
    machine = (await driver.observation("compute_instance", vm_id))["virtual_machine"]
    assert machine["spec"]["template"]["spec"]["domain"]["cpu"]["cores"] == cores
    [mirrored] = [c for c in machine["status"]["conditions"] if c["type"] == "RestartRequired"]
    assert (mirrored["status"], mirrored["reason"]) == ("True", "NonLiveUpdatableFieldsChanged")

    # When it restarts, the new incarnation boots with the new size and the condition clears.
    await driver.restart_vm(vm_id)
    restarted = await driver.advance_until(
        path, lambda v: condition(v, "RESTART_IN_PROGRESS")[1] == "RestartCompleted", step=SECOND, limit=MINUTE)
    assert condition(restarted, "RESTART_REQUIRED") == ("FALSE", "AsExpected", "")
    machine = (await driver.observation("compute_instance", vm_id))["virtual_machine"]
    assert [c for c in machine["status"]["conditions"] if c["type"] == "RestartRequired"] == []


# -- scenario 14 ------------------------------------------------------------------------------------------


async def test_scenario_14_three_power_faults_fail_the_restart_and_a_new_trigger_recovers(driver: Driver) -> None:
    bmi = await driver.running_bmi("box")
    bmi_id, host = bmi["id"], bmi["status"]["host"]
    path = f"{PRIVATE}/baremetal_instances/{bmi_id}"
    await driver.fault("power_fail", "host", host, times=3)
    readies = (await driver.reasons(bmi_id)).count("Ready")
    after = await driver.revision()

    # Given a BMC that refuses the power cycle three times (retried after 1 s, then 2 s)...
    requested = driver.clock.now()
    assert (await driver.restart_bmi(bmi_id))["spec"]["restart_trigger"] == "1"
    await driver.advance(10 * SECOND)

    # ...then the restart failed: RESTART_FAILED TRUE, FAILED, the trigger consumed, one Warning.
    failed = await driver.get(path, driver.admin)
    message = condition(failed, "RESTART_FAILED")[2]
    assert message.startswith(f"power cycle failed after 3 attempt(s): simulated failure: reboot of host {host}")
    assert condition(failed, "RESTART_FAILED") == ("TRUE", "RestartFailed", message)
    assert condition(failed, "RESTART_IN_PROGRESS") == ("FALSE", "RestartFailed", message)
    assert state(failed) == "FAILED"
    assert when(failed["status"]["state_transition_time"]) == requested + 3 * SECOND
    assert failed["status"]["restart_trigger"] == "1"
    assert await driver.warnings(bmi_id) == [("RestartFailed", message, requested + 3 * SECOND)]
    assert await driver.faults() == []  # all three applications used
    observed = (await driver.observation("host", host))["host"]
    assert observed["status"]["poweredOn"] is True  # the cycle never began

    # It stays FAILED (the host is not power-cycled in a loop) until the tenant asks again.
    await driver.advance(30 * MINUTE)
    assert (await driver.get(path, driver.admin))["status"] == failed["status"]
    history = await driver.history("bare_metal_instance", bmi_id, after)
    assert changes([restarting(b) for b in history]) == [("RUNNING", "AsExpected"), ("FAILED", "RestartFailed")]

    retried = driver.clock.now()
    assert (await driver.restart_bmi(bmi_id))["spec"]["restart_trigger"] == "2"
    recovered = await driver.advance_until(
        path, lambda b: condition(b, "RESTART_IN_PROGRESS")[1] == "RestartCompleted", step=10 * SECOND,
        limit=5 * MINUTE, client=driver.admin)
    assert state(recovered) == "RUNNING" and recovered["status"]["restart_trigger"] == "2"
    assert condition(recovered, "RESTART_FAILED")[:2] == ("FALSE", "AsExpected")
    assert condition(recovered, "READY")[:2] == ("TRUE", "AsExpected")
    assert when(recovered["status"]["state_transition_time"]) > retried
    assert recovered["status"]["host"] == host
    reasons = await driver.reasons(bmi_id)
    assert reasons.count("RestartFailed") == 1 and reasons.count("Ready") == readies + 1  # went down and came back
