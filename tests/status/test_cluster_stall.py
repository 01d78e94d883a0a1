"""Stalled, measured from stage entry (cluster-status.md §9.1; scenarios 2, 3, 4, 10)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from osac.api.private.v1 import cluster_type_pb2
from osac.status.clusters.derivation import StallThresholds, apply_view_to_status, view_from_status
from osac.status.clusters.terms import FAILED, PROGRESSING, STATE_DELETING, STATE_PROGRESSING, STATE_READY
from osac.status.conditions.views import FALSE, TRUE, WARNING
from tests.status.conftest import Cluster, cond, context, hc_at, joining_pool, node_pool, ready_pool

MIN = timedelta(minutes=1)
SEC = timedelta(seconds=1)


def _in_control_plane_starting() -> Cluster:
    """Scenario 2's set-up: 10 minutes in PreparingInfrastructure, then ControlPlaneStarting at T = 10m."""
    cluster = Cluster()
    cluster.observe(None, [])
    cluster.observe(hc_at(1), [node_pool("workers", replicas=3)], at=5 * SEC)
    entered = cluster.observe(hc_at(2), [node_pool("workers", replicas=3)], at=10 * MIN)
    assert entered.status.stage == "ControlPlaneStarting"
    assert entered.requeue_after == 30 * MIN
    return cluster


def test_scenario_2_stall_from_stage_entry() -> None:
    cluster = _in_control_plane_starting()
    pools = [node_pool("workers", replicas=3)]
    for offset in (20 * MIN, 29 * MIN + 59 * SEC):
        result = cluster.observe(hc_at(2), pools, at=10 * MIN + offset)
        assert cond(result.status, PROGRESSING).reason == "ControlPlaneStarting"
        assert result.requeue_after == 30 * MIN - offset
        assert result.events == ()

    stalled = cluster.observe(hc_at(2), pools, at=40 * MIN)
    progressing = cond(stalled.status, PROGRESSING)
    assert (progressing.status, progressing.reason) == (TRUE, "Stalled")
    assert progressing.message == (
        "ControlPlaneStarting for 30m (threshold 30m): KubeAPIServerAvailable Unknown (StatusUnknown), "
        "Available False (WaitingForAvailable)"
    )
    assert [(e.type, e.reason, e.message) for e in stalled.events] == [
        (WARNING, "Stalled", "ControlPlaneStarting exceeded 30m")]
    assert stalled.requeue_after is None
    assert (stalled.status.state, stalled.status.stage) == (STATE_PROGRESSING, "ControlPlaneStarting")

    later = cluster.observe(hc_at(2), pools, at=3 * 60 * MIN + 10 * MIN)
    assert later.status.state == STATE_PROGRESSING
    assert cond(later.status, FAILED).status == FALSE
    assert later.events == ()
    assert cond(later.status, PROGRESSING).message.startswith("ControlPlaneStarting for 3h (threshold 30m)")

    cleared = cluster.observe(hc_at(4), pools, at=3 * 60 * MIN + 11 * MIN)
    assert cleared.status.stage == "WorkersJoining"
    assert cluster.events.count("StallCleared") == 1
    assert cluster.events.count("Stalled") == 1


def test_scenario_3_stall_survives_a_restart() -> None:
    cluster = _in_control_plane_starting()
    pools = [node_pool("workers", replicas=3)]
    cluster.observe(hc_at(2), pools, at=25 * MIN)
    entered_at = cluster.status.stage_entered_at
    # Stopped at T+15m, restarted at T+25m: the status comes back from storage.
    stored = cluster_type_pb2.ClusterStatus(hub="simulated")
    apply_view_to_status(cluster.status, stored)
    cluster.status = view_from_status(cluster_type_pb2.ClusterStatus.FromString(stored.SerializeToString()))
    resumed = cluster.observe(hc_at(2), pools, at=35 * MIN)
    assert resumed.status.stage_entered_at == entered_at
    assert resumed.requeue_after == 5 * MIN
    stalled = cluster.observe(hc_at(2), pools, at=40 * MIN)
    assert cond(stalled.status, PROGRESSING).reason == "Stalled"


def _joining_with_gpu_override() -> Cluster:
    thresholds = StallThresholds.from_section({"host_type_overrides": {"bm-h100": {"WorkersJoining": "60m"}}})
    cluster = Cluster(ctx=context({"workers": ("bm-standard", 3), "gpu": ("bm-h100", 3)}), thresholds=thresholds)
    cluster.observe(None, [])
    cluster.observe(hc_at(4), [joining_pool("workers", 3, 0), joining_pool("gpu", 3, 0)], at=10 * MIN)
    assert cluster.status.stage == "WorkersJoining"
    return cluster


def test_scenario_4_host_type_override_while_only_gpu_lags() -> None:
    cluster = _joining_with_gpu_override()
    pools = [ready_pool("workers", 3), joining_pool("gpu", 3, 2)]
    waiting = cluster.observe(hc_at(4), pools, at=10 * MIN + 59 * MIN)
    assert cond(waiting.status, PROGRESSING).reason == "WorkersJoining"
    assert waiting.requeue_after == MIN
    stalled = cluster.observe(hc_at(4), pools, at=10 * MIN + 60 * MIN)
    progressing = cond(stalled.status, PROGRESSING)
    assert (progressing.reason, progressing.message) == ("Stalled", "WorkersJoining for 1h (threshold 1h): gpu 2/3")


def test_scenario_4_default_threshold_while_only_workers_lag() -> None:
    cluster = _joining_with_gpu_override()
    pools = [joining_pool("workers", 3, 2), ready_pool("gpu", 3)]
    waiting = cluster.observe(hc_at(4), pools, at=10 * MIN + 19 * MIN)
    assert cond(waiting.status, PROGRESSING).reason == "WorkersJoining"
    stalled = cluster.observe(hc_at(4), pools, at=10 * MIN + 20 * MIN)
    assert cond(stalled.status, PROGRESSING).message == "WorkersJoining for 20m (threshold 20m): workers 2/3"


def test_the_largest_override_of_lagging_node_sets_wins() -> None:
    cluster = _joining_with_gpu_override()
    result = cluster.observe(hc_at(4), [joining_pool("workers", 3, 1), joining_pool("gpu", 3, 1)], at=10 * MIN)
    assert result.requeue_after == 60 * MIN


def test_progress_inside_the_stage_does_not_reset_the_clock() -> None:
    cluster = _joining_with_gpu_override()
    for minute, joined in ((5, 1), (12, 2)):
        cluster.observe(hc_at(4), [joining_pool("workers", 3, joined), ready_pool("gpu", 3)], at=(10 + minute) * MIN)
    stalled = cluster.observe(hc_at(4), [joining_pool("workers", 3, 2), ready_pool("gpu", 3)], at=30 * MIN)
    assert cond(stalled.status, PROGRESSING).reason == "Stalled"


def test_raising_the_threshold_clears_the_stall() -> None:
    cluster = _in_control_plane_starting()
    pools = [node_pool("workers", replicas=3)]
    cluster.observe(hc_at(2), pools, at=45 * MIN)
    assert cond(cluster.status, PROGRESSING).reason == "Stalled"
    cluster.thresholds = StallThresholds.from_section({"stall_thresholds": {"ControlPlaneStarting": "1h"}})
    cleared = cluster.observe(hc_at(2), pools, at=46 * MIN)
    assert cond(cleared.status, PROGRESSING).reason == "ControlPlaneStarting"
    assert [e.reason for e in cleared.events] == ["StallCleared"]
    assert cleared.requeue_after == 24 * MIN


def test_unknown_signals_suspend_the_stall_without_resetting_the_stage_age() -> None:
    cluster = _in_control_plane_starting()
    pools = [node_pool("workers", replicas=3)]
    unknown = cluster.observe(None, [], at=50 * MIN, observation_readable=False, observation_error="hub down")
    assert cond(unknown.status, PROGRESSING).reason == "StageUnknown"
    assert unknown.requeue_after is None
    recovered = cluster.observe(hc_at(2), pools, at=51 * MIN, observation_readable=True, observation_error="")
    assert cond(recovered.status, PROGRESSING).reason == "Stalled"
    assert [e.reason for e in recovered.events] == ["Stalled", "SignalsRecovered"]


def test_scenario_10_teardown_stall_never_escalates() -> None:
    cluster = Cluster()
    cluster.observe(None, [])
    deleting = cluster.observe(hc_at(4, deleting=True, cloud_destroyed="False"), [], at=MIN,
                               deletion_requested=True)
    assert deleting.status.stage == "DestroyingCloudResources"
    assert deleting.requeue_after == 20 * MIN
    cluster.observe(hc_at(4, deleting=True, cloud_destroyed="False"), [], at=21 * MIN - SEC)
    assert cond(cluster.status, PROGRESSING).reason == "DestroyingCloudResources"
    stalled = cluster.observe(hc_at(4, deleting=True, cloud_destroyed="False"), [], at=21 * MIN)
    assert cond(stalled.status, PROGRESSING).reason == "Stalled"
    assert [e.reason for e in stalled.events] == ["Stalled"]
    forever = cluster.observe(hc_at(4, deleting=True, cloud_destroyed="False"), [], at=24 * 60 * MIN)
    assert forever.status.state == STATE_DELETING
    assert forever.events == ()


def test_scaling_on_a_ready_cluster_stalls_with_the_scaling_threshold() -> None:
    thresholds = StallThresholds.from_section({"stall_thresholds": {"Scaling": "30m"}})
    cluster = Cluster(thresholds=thresholds)
    cluster.observe(None, [])
    cluster.observe(hc_at(9), [ready_pool("workers", 3)], at=MIN)
    assert cluster.status.state == STATE_READY
    cluster.ctx = context({"workers": 5})
    scaling = cluster.observe(hc_at(9), [joining_pool("workers", 5, 3)], at=2 * MIN)
    assert (scaling.status.stage, scaling.requeue_after) == ("Scaling", 30 * MIN)
    stalled = cluster.observe(hc_at(9), [joining_pool("workers", 5, 4)], at=32 * MIN)
    progressing = cond(stalled.status, PROGRESSING)
    assert (progressing.reason, progressing.message) == ("Stalled", "Scaling for 30m (threshold 30m): workers 4/5")
    assert stalled.status.state == STATE_READY


@pytest.mark.parametrize("threshold", [timedelta(minutes=20), timedelta(seconds=90)])
def test_not_stalled_one_second_before_and_stalled_at_the_threshold(threshold: timedelta) -> None:
    thresholds = StallThresholds.from_section({"stall_thresholds": {"PreparingInfrastructure": threshold.total_seconds()}})
    cluster = Cluster(thresholds=thresholds)
    cluster.observe(None, [])
    before = cluster.observe(None, [], at=threshold - SEC)
    assert cond(before.status, PROGRESSING).reason == "PreparingInfrastructure"
    assert before.requeue_after == SEC
    at = cluster.observe(None, [], at=threshold)
    assert cond(at.status, PROGRESSING).reason == "Stalled"


def test_overrides_configured_by_name_apply_to_node_sets_that_store_the_id() -> None:
    thresholds = StallThresholds.from_section({"host_type_overrides": {"bm-h100": {"WorkersJoining": "60m"}}})
    by_id = thresholds.with_host_type_ids({"01-h100": "bm-h100", "02-std": "bm-standard"})
    assert by_id.for_stage("WorkersJoining", ["01-h100"]) == 60 * MIN
    assert by_id.for_stage("WorkersJoining", ["02-std"]) == 20 * MIN
    assert thresholds.for_stage("WorkersJoining", ["01-h100"]) == 20 * MIN  # the id alone is unknown
    assert thresholds.with_host_type_ids({"02-std": "bm-standard"}) is thresholds
