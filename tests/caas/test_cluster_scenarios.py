"""cluster-status.md §20 scenarios end to end: the reconciler, the simulated HyperShift (instant
speed) and simulator faults through the admin API. Time-critical rules (stall thresholds from
stage entry, host-type overrides) are covered exactly by the derivation's tests with a fixed
clock; here the thresholds are configured short so a real stall happens within seconds."""

from __future__ import annotations

import asyncio

from osac.server.settings import merge_config
from tests.support.cluster_scenarios import (
    PUBLIC,
    READY,
    archived,
    clear,
    condition,
    create,
    events,
    fault,
    live,
    observation,
    reason,
    reasons,
)
from tests.support.onboarding import INSTANT, wait_for


async def test_scaling_is_separate_from_state(db_url, tmp_path) -> None:
    """Scenario 7: READY stays READY while a node set grows; stage Scaling, then back to ""."""
    async with live(db_url, tmp_path) as (admin, alice):
        cluster = await create(alice)
        path = f"{PUBLIC}/clusters/{cluster['id']}"
        ready = await wait_for(alice, path, lambda c: c["status"]["state"] == READY, timeout=60)
        since = ready["status"]["state_transition_time"]
        patch = {"spec": {"node_sets": {"workers": {"host_type": "vm-standard", "size": 5}}}}
        response = await alice.request("PATCH", path, params={"update_mask": "spec.node_sets"}, json=patch)
        assert response.status_code == 200, response.text
        try:
            scaled = await wait_for(alice, path, lambda c: c["status"]["node_sets"]["workers"].get("ready_replicas", 0) == 5
                                    and c["status"].get("stage", "") == "", timeout=60)
        except AssertionError as error:
            raise AssertionError(f"{error}\nsimulated cluster: {await observation(admin, cluster['id'])}") from None
        assert scaled["status"]["state"] == READY
        assert scaled["status"]["state_transition_time"] == since
        assert condition(scaled, "WORKERS_READY")["reason"] == "Ready"
        changes = [e["message"] for e in await events(alice, cluster["id"]) if e["reason"] == "StageChanged"]
        assert changes[-2:] == ["→ Scaling", "Scaling → "] or any("Scaling" in m for m in changes), changes


async def test_terminal_provisioning_failure_fails_once(db_url, tmp_path) -> None:
    """Scenario 11: a terminal provider error before READY → FAILED with one Warning."""
    async with live(db_url, tmp_path) as (admin, alice):
        await fault(admin, "provision_fail", terminal=True, reason="InvalidReleaseImage")
        cluster = await create(alice)
        failed = await wait_for(alice, f"{PUBLIC}/clusters/{cluster['id']}",
                                lambda c: c["status"]["state"] == "CLUSTER_STATE_FAILED")
        assert condition(failed, "FAILED")["status"] == "CONDITION_STATUS_TRUE"
        assert condition(failed, "FAILED")["reason"] == "ProvisioningFailed"
        assert condition(failed, "PROGRESSING")["reason"] == "Failed"
        assert failed["status"]["stage"] == "PreparingInfrastructure"
        await asyncio.sleep(0.5)  # further passes add nothing
        assert (await reasons(alice, cluster["id"])).count("ProvisioningFailed") == 1


async def test_teardown_failure_is_visible_and_resumable(db_url, tmp_path) -> None:
    """Scenario 10: a terminal teardown fault → DELETE_FAILED, row visible; Delete again after
    clearing → archived."""
    async with live(db_url, tmp_path) as (admin, alice):
        cluster = await create(alice)
        path = f"{PUBLIC}/clusters/{cluster['id']}"
        await wait_for(alice, path, lambda c: c["status"]["state"] == READY, timeout=60)
        fault_id = await fault(admin, "teardown_fail", terminal=True)
        assert (await alice.request("DELETE", path)).status_code == 200
        failed = await wait_for(alice, path, lambda c: c["status"]["state"] == "CLUSTER_STATE_DELETE_FAILED")
        assert condition(failed, "FAILED")["reason"] == "TeardownFailed"
        assert "DeleteFailed" in await reasons(alice, cluster["id"])
        await clear(admin, fault_id)
        assert (await alice.request("DELETE", path)).status_code == 200
        await archived(alice, path)
        assert (await reasons(alice, cluster["id"]))[-1] == "TeardownComplete"


async def test_stall_is_reported_then_cleared(db_url, tmp_path) -> None:
    """Scenario 2 with a short configured threshold: Stalled from stage entry, one Warning,
    never FAILED; clearing the fault advances the stage and emits StallCleared once."""
    config = merge_config(INSTANT, {"cluster_status": {"stall_thresholds": {"ControlPlaneStarting": "2s"}}})
    async with live(db_url, tmp_path, config) as (admin, alice):
        fault_id = await fault(admin, "stall", stage="ControlPlaneStarting")
        cluster = await create(alice)
        path = f"{PUBLIC}/clusters/{cluster['id']}"
        stalled = await wait_for(alice, path, reason("PROGRESSING", "Stalled"), timeout=20)
        assert stalled["status"]["state"] == "CLUSTER_STATE_PROGRESSING"
        assert stalled["status"]["stage"] == "ControlPlaneStarting"
        assert condition(stalled, "FAILED")["status"] == "CONDITION_STATUS_FALSE"
        assert "threshold" in condition(stalled, "PROGRESSING")["message"]
        await clear(admin, fault_id)
        await wait_for(alice, path, lambda c: c["status"]["state"] == READY, timeout=60)
        found = await reasons(alice, cluster["id"])
        assert found.count("Stalled") == 1 and found.count("StallCleared") == 1


async def test_unreadable_signals_give_stage_unknown_not_failure(db_url, tmp_path) -> None:
    """Scenario 12 (READY variant): unreadable observations → StageUnknown, HEALTH Unknown, state
    kept; readable again → SignalsRecovered and AVAILABLE TRUE."""
    async with live(db_url, tmp_path) as (admin, alice):
        cluster = await create(alice)
        path = f"{PUBLIC}/clusters/{cluster['id']}"
        await wait_for(alice, path, lambda c: c["status"]["state"] == READY, timeout=60)
        fault_id = await fault(admin, "unreadable")
        unknown = await wait_for(alice, path, reason("PROGRESSING", "StageUnknown"))
        assert unknown["status"]["state"] == READY
        assert condition(unknown, "AVAILABLE")["reason"] == "StageUnknown"
        await clear(admin, fault_id)
        recovered = await wait_for(alice, path, reason("AVAILABLE", "Available"))
        assert recovered["status"]["state"] == READY
        found = await reasons(alice, cluster["id"])
        assert found.count("StageUnknown") == 1 and found.count("SignalsRecovered") == 1


async def test_degraded_node_set_is_independent_of_state(db_url, tmp_path) -> None:
    """Scenario 6 (READY variant): one unhealthy node → DEGRADED NodeSetDegraded:workers, state
    READY, AVAILABLE FALSE Degraded; clearing → DegradationCleared once."""
    async with live(db_url, tmp_path) as (admin, alice):
        cluster = await create(alice)
        path = f"{PUBLIC}/clusters/{cluster['id']}"
        await wait_for(alice, path, lambda c: c["status"]["state"] == READY, timeout=60)
        fault_id = await fault(admin, "node_pool_failure", node_set="workers", count=1, mode="unhealthy")
        degraded = await wait_for(alice, path, reason("DEGRADED", "NodeSetDegraded:workers"))
        assert degraded["status"]["state"] == READY
        assert condition(degraded, "AVAILABLE")["reason"] == "Degraded"
        assert degraded["status"]["node_sets"]["workers"]["state"] == "CLUSTER_NODE_SET_STATE_DEGRADED"
        await clear(admin, fault_id)
        await wait_for(alice, path, reason("DEGRADED", "AsExpected"))
        assert (await reasons(alice, cluster["id"])).count("DegradationCleared") == 1
