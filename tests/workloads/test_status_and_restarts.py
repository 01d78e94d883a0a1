"""Instance status belongs to the derivation (compute.md §1, api.md §2.5): API writes to it are
dropped, even privately; and the restart request of compute.md §2.5 step 1 and 5."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from osac.api.private.v1 import compute_instance_type_pb2 as compute
from osac.api.private.v1 import condition_status_type_pb2 as conditions
from tests.workloads.conftest import BMS, VMS, Workloads, failure

T0 = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)


def stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


async def test_api_writes_to_status_are_dropped(wl: Workloads) -> None:
    running = {"state": "COMPUTE_INSTANCE_STATE_RUNNING", "internal_ip_address": "10.0.0.99", "hub": "elsewhere"}
    public = await wl.create(VMS, {"metadata": {"name": "public"}, "spec": {"template": "fedora"},
                                   "status": {k: v for k, v in running.items() if k != "hub"}})
    private = await wl.create(VMS, {"metadata": {"name": "private", "tenant": "acme"}, "spec": {"template": "fedora"},
                                    "status": running}, private=True)
    for created in (public, private):
        assert created["status"]["state"] == "COMPUTE_INSTANCE_STATE_STARTING"
        assert "internal_ip_address" not in created["status"] and "hub" not in created["status"]

    vm = await wl.get(VMS, private["id"], private=True)
    for body, mask, is_private in (
        ({"status": {"state": "COMPUTE_INSTANCE_STATE_FAILED"}}, "status.state", False),
        ({"status": {"state": "COMPUTE_INSTANCE_STATE_FAILED"}}, "status.state", True),
        ({"status": {"conditions": [], "state_transition_time": stamp(T0)}}, "status", True),
        ({**vm, "status": {**vm["status"], "state": "COMPUTE_INSTANCE_STATE_PAUSED", "hub": "x"}}, None, True),
    ):
        response = await wl.patch(VMS, vm["id"], body, mask, private=is_private)
        assert response.status_code == 200, response.text
        assert response.json() == vm  # no-op: nothing stored, no version, no event

    relabelled = {**vm, "metadata": {**vm["metadata"], "labels": {"env": "dev"}},
                  "status": {**vm["status"], "state": "COMPUTE_INSTANCE_STATE_RUNNING"}}
    updated = (await wl.patch(VMS, vm["id"], relabelled, None, private=True)).json()
    assert updated["metadata"]["labels"] == {"env": "dev"} and updated["status"] == vm["status"]

    server = await wl.create(BMS, {"metadata": {"name": "bm"}, "spec": {"host_type": "bm-standard"}})
    stored = await wl.get(BMS, server["id"], private=True)
    steps = [{"gate": "InventoryAssigned", "status": "BARE_METAL_INSTANCE_PROVISIONING_STEP_STATUS_COMPLETED"}]
    for body, mask in (({"status": {"host": "bm-std-001"}}, "status.host"),
                       ({"status": {"provisioning_steps": steps}}, "status.provisioning_steps"),
                       ({"status": {"restart_trigger": "5", "state": "BARE_METAL_INSTANCE_STATE_RUNNING"}}, "status")):
        response = await wl.patch(BMS, server["id"], body, mask, private=True)
        assert response.status_code == 200, response.text
        assert response.json() == stored


def _set(state: int, *, restarting: bool | None = None, last_restarted_at: datetime | None = None) -> Any:
    def change(vm: Any) -> None:
        vm.status.state = state
        if last_restarted_at is not None:
            vm.status.last_restarted_at.FromDatetime(last_restarted_at)
        if restarting is not None:
            for condition in vm.status.conditions:
                if condition.type == compute.COMPUTE_INSTANCE_CONDITION_TYPE_RESTART_IN_PROGRESS:
                    condition.status = conditions.CONDITION_STATUS_TRUE if restarting else conditions.CONDITION_STATUS_FALSE
    return change


async def test_restart_requests_need_a_running_instance_and_only_move_forward(wl: Workloads) -> None:
    created = await wl.create(VMS, {"metadata": {"name": "web"}, "spec": {
        "template": "fedora", "restart_requested_at": stamp(T0)}})
    assert "restart_requested_at" not in created["spec"]  # a new instance has nothing to restart
    vm_id = created["id"]
    mask = "spec.restart_requested_at"

    async def request(moment: datetime) -> Any:
        return await wl.patch(VMS, vm_id, {"spec": {"restart_requested_at": stamp(moment)}}, mask)

    async def requested() -> str | None:
        return (await wl.get(VMS, vm_id))["spec"].get("restart_requested_at")

    assert failure(await request(T0)) == (
        "FAILED_PRECONDITION", "restart requires a running instance: ComputeInstance 'web' is STARTING")

    await wl.derive("compute_instance", vm_id, _set(compute.COMPUTE_INSTANCE_STATE_RUNNING))
    assert (await request(T0 + timedelta(minutes=1))).status_code == 200
    assert await requested() == stamp(T0 + timedelta(minutes=1))
    older = await request(T0)  # older than the stored request: ignored, nothing written
    assert older.status_code == 200 and older.json()["spec"]["restart_requested_at"] == stamp(T0 + timedelta(minutes=1))

    # The reconciler started the restart at T0+2m; the instance is stopping on the way.
    started = T0 + timedelta(minutes=2)
    await wl.derive("compute_instance", vm_id, _set(compute.COMPUTE_INSTANCE_STATE_STOPPING, restarting=True,
                                                     last_restarted_at=started))
    assert (await request(T0 + timedelta(seconds=90))).status_code == 200  # older than the restart: ignored
    assert await requested() == stamp(T0 + timedelta(minutes=1))
    assert (await request(T0 + timedelta(minutes=3))).status_code == 200  # newer, during the restart: one more
    assert await requested() == stamp(T0 + timedelta(minutes=3))

    await wl.derive("compute_instance", vm_id, _set(compute.COMPUTE_INSTANCE_STATE_STOPPED, restarting=False))
    assert failure(await request(T0 + timedelta(minutes=4))) == (
        "FAILED_PRECONDITION", "restart requires a running instance: ComputeInstance 'web' is STOPPED")
    await wl.derive("compute_instance", vm_id, _set(compute.COMPUTE_INSTANCE_STATE_FAILED))
    assert failure(await request(T0 + timedelta(minutes=4)))[0] == "FAILED_PRECONDITION"
    await wl.derive("compute_instance", vm_id, _set(compute.COMPUTE_INSTANCE_STATE_PAUSED))
    assert (await request(T0 + timedelta(minutes=4))).status_code == 200

    # Leaving the field out of an update never clears the pending request.
    halted = await wl.patch(VMS, vm_id, {"spec": {"run_strategy": "Halted"}}, "spec.run_strategy")
    assert halted.json()["spec"]["restart_requested_at"] == stamp(T0 + timedelta(minutes=4))
    cleared = await wl.patch(VMS, vm_id, {"spec": {}}, mask)
    assert cleared.json()["spec"]["restart_requested_at"] == stamp(T0 + timedelta(minutes=4))


async def test_bare_metal_power_settings_are_mutable(wl: Workloads) -> None:
    server = await wl.create(BMS, {"metadata": {"name": "bm"}, "spec": {"host_type": "bm-standard", "restart_trigger": "2"}})
    assert server["spec"]["run_strategy"] == "BARE_METAL_INSTANCE_RUN_STRATEGY_ALWAYS"
    assert server["status"]["restart_trigger"] == "2"  # nothing to power-cycle on a new host
    halted = await wl.patch(BMS, server["id"], {"spec": {"run_strategy": "BARE_METAL_INSTANCE_RUN_STRATEGY_HALTED",
                                                          "restart_trigger": "3"}}, "spec.run_strategy,spec.restart_trigger")
    assert halted.status_code == 200, halted.text
    assert (halted.json()["spec"]["run_strategy"], halted.json()["spec"]["restart_trigger"]) == (
        "BARE_METAL_INSTANCE_RUN_STRATEGY_HALTED", "3")
    kept = await wl.patch(BMS, server["id"], {"spec": {}}, "spec.run_strategy")  # UNSPECIFIED keeps the stored one
    assert kept.json()["spec"]["run_strategy"] == "BARE_METAL_INSTANCE_RUN_STRATEGY_HALTED"
    bad = await wl.patch(BMS, server["id"], {"spec": {"run_strategy": 7}}, "spec.run_strategy")
    assert failure(bad) == ("INVALID_ARGUMENT", "spec.run_strategy: 7 is not a run strategy; use "
                            "BARE_METAL_INSTANCE_RUN_STRATEGY_ALWAYS or BARE_METAL_INSTANCE_RUN_STRATEGY_HALTED")


async def test_delete_shows_deleting_at_once_for_every_instance_kind(wl: Workloads) -> None:
    """cluster-status.md scenario 9's "at once" for every kind a reconciler tears down: a Get
    right after the Delete answers DELETING (no reconciler runs here), stamped with the Delete."""
    vm = await wl.create(VMS, {"metadata": {"name": "web"}, "spec": {"template": "fedora"}})
    await wl.derive("compute_instance", vm["id"], _set(compute.COMPUTE_INSTANCE_STATE_RUNNING))
    server = await wl.create(BMS, {"metadata": {"name": "bm"}, "spec": {"host_type": "bm-standard"}})
    for collection, made, prefix in ((VMS, vm, "COMPUTE_INSTANCE"), (BMS, server, "BARE_METAL_INSTANCE")):
        held = await wl.patch(collection, made["id"], {"metadata": {"finalizers": ["fulfillment-controller"]}},
                              "metadata.finalizers", private=True)
        assert held.status_code == 200, held.text
        assert (await wl.delete(collection, made["id"])).status_code == 200
        got = await wl.get(collection, made["id"])
        assert got["status"]["state"] == f"{prefix}_STATE_DELETING"
        assert got["status"]["state_transition_time"] == got["metadata"]["deletion_timestamp"]


async def test_a_status_write_that_changes_the_spec_is_refused_and_writes_nothing(wl: Workloads) -> None:
    """A reconciler writes the status and the finalizers only (``KindService.write_status``)."""
    vm_id = (await wl.create(VMS, {"metadata": {"name": "web"}, "spec": {"template": "fedora"}}))["id"]
    before = await wl.get(VMS, vm_id)
    revision = await wl.revision()

    def spec_and_status(obj: Any) -> None:
        obj.status.state = compute.COMPUTE_INSTANCE_STATE_RUNNING
        obj.spec.run_strategy = "Halted"
        obj.metadata.labels["sneaked"] = "in"

    with pytest.raises(ValueError, match=r"write_status of compute_instance \S+: a reconciler writes only "
                                         r"status, metadata\.finalizers, not metadata\.labels, spec$"):
        await wl.derive("compute_instance", vm_id, spec_and_status)
    assert await wl.get(VMS, vm_id) == before
    assert await wl.revision() == revision
