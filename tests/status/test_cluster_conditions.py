"""WORKERS_READY, DEGRADED, FAILED and the AVAILABLE rollup, row by row (cluster-status.md §5.3–§5.6)."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from typing import Any

import pytest

from osac.status.clusters.derivation import (
    ClusterContext,
    ClusterStatusView,
    NodeSetStatusView,
    StallThresholds,
    TerminalFailure,
    derive_cluster_status,
)
from osac.status.clusters.health import available
from osac.status.clusters.terms import (
    AVAILABLE,
    CONTROL_PLANE_AVAILABLE,
    DEGRADED,
    FAILED,
    NODE_SET_PROVISIONING,
    NODE_SET_READY,
    PROGRESSING,
    STATE_DELETE_FAILED,
    STATE_DELETING,
    STATE_FAILED,
    STATE_PROGRESSING,
    STATE_READY,
    WORKERS_READY,
)
from osac.status.conditions.views import FALSE, TRUE, ConditionView
from tests.status.conftest import T0, cond, context, hc_at, joining_pool, node_pool, ready_pool

EARLIER = T0 - timedelta(hours=1)
SIZES = {"workers": 3, "gpu": 2}


def _node_set(size: int, state: int = NODE_SET_PROVISIONING, ever_ready: bool = False) -> NodeSetStatusView:
    return NodeSetStatusView(host_type="bm-standard", size=size, desired_replicas=size, state=state,
                             current_replicas=size if ever_ready else 0, ready_replicas=size if ever_ready else 0,
                             first_ready_time=EARLIER if ever_ready else None)


def _previous(state: int = STATE_PROGRESSING, stage: str = "WorkersJoining", ever_ready: bool = False) -> ClusterStatusView:
    node_state = NODE_SET_READY if ever_ready else NODE_SET_PROVISIONING
    return ClusterStatusView(
        state=state, state_transition_time=EARLIER, stage=stage, stage_entered_at=EARLIER,
        node_sets={"workers": _node_set(3, node_state, ever_ready), "gpu": _node_set(2, node_state, ever_ready)},
    )


def _derive(hc: dict[str, Any] | None, pools: list[dict[str, Any]], previous: ClusterStatusView,
            ctx: ClusterContext | None = None) -> ClusterStatusView:
    return derive_cluster_status(hc, pools, previous, T0, StallThresholds.DEFAULT, ctx or context(SIZES)).status


def _degraded_gpu() -> dict[str, Any]:
    return node_pool("gpu", replicas=2, available=1, machines=("False", "InstanceProvisionFailed", "Machine m-2: gone"))


# -- WORKERS_READY ------------------------------------------------------------------------------------

WR_ROWS: list[tuple[str, Any, Any, Any, Any, str]] = [
    ("1-unreadable", None, [], _previous(), context(SIZES, observation_readable=False), "StageUnknown"),
    ("1-hc-missing-when-expected", None, [], _previous(), None, "StageUnknown"),
    ("1-node-set-unknown", hc_at(4), [ready_pool("workers", 3), ready_pool("gpu", 2), ready_pool("gpu", 2)],
     _previous(), None, "StageUnknown"),
    ("1-beats-2", hc_at(4), [_degraded_gpu(), joining_pool("workers", 3, 1), joining_pool("workers", 3, 1)],
     _previous(), None, "StageUnknown"),
    ("2-degraded", hc_at(4), [ready_pool("workers", 3), _degraded_gpu()], _previous(), None, "WorkersDegraded"),
    ("3-all-ready", hc_at(4), [ready_pool("workers", 3), ready_pool("gpu", 2)], _previous(), None, "Ready"),
    ("4-ready-cluster", hc_at(9), [ready_pool("workers", 3), ready_pool("gpu", 2)],
     _previous(STATE_READY, "", ever_ready=True), context({"workers": 5, "gpu": 2}), "Scaling"),
    ("5-before-workers-joining", hc_at(2), [], _previous(stage="ControlPlaneStarting"), None,
     "WaitingForControlPlane"),
    ("6-joining", hc_at(4), [ready_pool("workers", 3), joining_pool("gpu", 2, 0)], _previous(), None,
     "WorkersJoining"),
]


@pytest.mark.parametrize(("hc", "pools", "previous", "ctx", "reason"), [row[1:] for row in WR_ROWS],
                         ids=[row[0] for row in WR_ROWS])
def test_workers_ready_rows(hc: Any, pools: Any, previous: Any, ctx: Any, reason: str) -> None:
    workers = cond(_derive(hc, pools, previous, ctx), WORKERS_READY)
    assert workers.reason == reason
    assert workers.status == (TRUE if reason == "Ready" else FALSE)


def test_workers_joining_message_shows_progress_per_node_set() -> None:
    fresh = replace(_previous(), stage_entered_at=T0 - timedelta(minutes=5))
    status = _derive(hc_at(4), [ready_pool("workers", 3), joining_pool("gpu", 2, 0)], fresh)
    assert cond(status, WORKERS_READY).message == "Workers joining: 3 of 5 nodes (gpu 0/2, workers 3/3)"
    assert cond(status, PROGRESSING).message == "Workers joining: 3 of 5 nodes (gpu 0/2, workers 3/3)"


def test_workers_degraded_message_lists_the_keys() -> None:
    status = _derive(hc_at(4), [ready_pool("workers", 3), _degraded_gpu()], _previous())
    assert cond(status, WORKERS_READY).message == "Node set gpu degraded (1/2 available)"


# -- DEGRADED -----------------------------------------------------------------------------------------

DEGRADED_ROWS: list[tuple[str, Any, bool, int, str]] = [
    ("hc-true-no-node-set", ("True", "EtcdDegraded", "etcd slow"), False, TRUE, "ControlPlaneDegraded"),
    ("hc-true-node-set", ("True", "EtcdDegraded", "etcd slow"), True, TRUE, "ControlPlaneDegraded"),
    ("hc-false-node-set", "False", True, TRUE, "NodeSetDegraded:gpu"),
    ("hc-unknown-node-set", "Unknown", True, TRUE, "NodeSetDegraded:gpu"),
    ("hc-absent-node-set", None, True, TRUE, "NodeSetDegraded:gpu"),
    ("hc-false-none", "False", False, FALSE, "AsExpected"),
    ("hc-unknown-none", "Unknown", False, FALSE, "StageUnknown"),
    ("hc-absent-none", None, False, FALSE, "StageUnknown"),
]


@pytest.mark.parametrize(("hc_degraded", "node_set_degraded", "status", "reason"),
                         [row[1:] for row in DEGRADED_ROWS], ids=[row[0] for row in DEGRADED_ROWS])
def test_degraded_rows(hc_degraded: Any, node_set_degraded: bool, status: int, reason: str) -> None:
    gpu = _degraded_gpu() if node_set_degraded else joining_pool("gpu", 2, 1)
    result = _derive(hc_at(4, degraded=hc_degraded), [ready_pool("workers", 3), gpu], _previous())
    degraded = cond(result, DEGRADED)
    assert (degraded.status, degraded.reason) == (status, reason)
    assert result.state == STATE_PROGRESSING and result.stage == "WorkersJoining"


def test_control_plane_degraded_message_is_hc_message_then_node_sets() -> None:
    result = _derive(hc_at(4, degraded=("True", "EtcdDegraded", "etcd slow")),
                     [ready_pool("workers", 3), _degraded_gpu()], _previous())
    assert cond(result, DEGRADED).message == "etcd slow; gpu: Machine m-2: gone"


def test_node_set_degraded_reason_lists_sorted_keys() -> None:
    sizes = {"b": 2, "a": 2, "c": 2}
    pools = [node_pool(key, replicas=2, available=1, nodes=("False", "NodeConditionsFailed")) for key in ("c", "a")]
    previous = ClusterStatusView(state=STATE_PROGRESSING, stage="WorkersJoining", stage_entered_at=EARLIER,
                                 state_transition_time=EARLIER)
    degraded = cond(_derive(hc_at(4), pools, previous, context(sizes)), DEGRADED)
    assert degraded.reason == "NodeSetDegraded:a,c"
    key_list = degraded.reason.split(":", 1)[1].split(",")
    assert key_list == ["a", "c"]


def test_hc_only_degradation_does_not_block_readiness() -> None:
    hc = hc_at(9, degraded=("True", "EtcdDegraded", "etcd slow"))
    result = _derive(hc, [ready_pool("workers", 3), ready_pool("gpu", 2)], _previous())
    assert result.state == STATE_READY
    assert (cond(result, AVAILABLE).status, cond(result, AVAILABLE).reason) == (FALSE, "Degraded")


def test_a_degraded_node_set_blocks_readiness() -> None:
    result = _derive(hc_at(9), [ready_pool("workers", 3), _degraded_gpu()], _previous())
    assert result.state == STATE_PROGRESSING


# -- FAILED -------------------------------------------------------------------------------------------


def test_terminal_provisioning_failure_before_ready() -> None:
    failure = TerminalFailure("provision", "InvalidReleaseImage", "image not found", T0)
    result = _derive(hc_at(2), [], _previous(stage="ControlPlaneStarting"), context(SIZES, terminal_failure=failure))
    failed = cond(result, FAILED)
    assert (result.state, failed.status, failed.reason) == (STATE_FAILED, TRUE, "ProvisioningFailed")
    assert failed.message == "InvalidReleaseImage: image not found"
    assert result.stage == "ControlPlaneStarting"


def test_terminal_provisioning_failure_after_ready_changes_nothing() -> None:
    failure = TerminalFailure("provision", "InvalidReleaseImage", "image not found", T0)
    result = _derive(hc_at(9), [ready_pool("workers", 3), ready_pool("gpu", 2)],
                     _previous(STATE_READY, "", ever_ready=True), context(SIZES, terminal_failure=failure))
    assert result.state == STATE_READY
    assert (cond(result, FAILED).status, cond(result, FAILED).reason) == (FALSE, "AsExpected")
    assert cond(result, AVAILABLE).status == TRUE


def test_terminal_teardown_failure() -> None:
    failure = TerminalFailure("teardown", "TeardownStuck", "finalizer on hc", T0)
    previous = _previous(STATE_DELETING, "DestroyingCloudResources", ever_ready=True)
    result = _derive(hc_at(9, deleting=True), [], previous,
                     context(SIZES, deletion_requested=True, terminal_failure=failure))
    failed = cond(result, FAILED)
    assert (result.state, failed.status, failed.reason) == (STATE_DELETE_FAILED, TRUE, "TeardownFailed")
    assert result.stage == "DestroyingCloudResources"
    assert (cond(result, PROGRESSING).status, cond(result, PROGRESSING).reason) == (FALSE, "Failed")


def test_no_failure_recorded() -> None:
    failed = cond(_derive(hc_at(4), [], _previous()), FAILED)
    assert (failed.status, failed.reason, failed.message) == (FALSE, "AsExpected", "")


# -- AVAILABLE rollup (§5.6), rows in order -----------------------------------------------------------


def _c(condition_type: int, status: int, reason: str) -> ConditionView:
    return ConditionView(condition_type, status, reason, f"{reason} message")


OK_FAILED = _c(FAILED, FALSE, "AsExpected")
PROG_IDLE = _c(PROGRESSING, FALSE, "AsExpected")
CP_TRUE = _c(CONTROL_PLANE_AVAILABLE, TRUE, "Available")
WR_TRUE = _c(WORKERS_READY, TRUE, "Ready")
DG_FALSE = _c(DEGRADED, FALSE, "AsExpected")

AVAILABLE_ROWS: list[tuple[str, int, tuple[ConditionView, ...], int, str]] = [
    ("1-deleting", STATE_DELETING,
     (_c(FAILED, TRUE, "ProvisioningFailed"), PROG_IDLE, CP_TRUE, WR_TRUE, DG_FALSE), FALSE, "Deleting"),
    ("2-failed", STATE_FAILED, (_c(FAILED, TRUE, "ProvisioningFailed"), _c(PROGRESSING, FALSE, "Failed"),
                                CP_TRUE, WR_TRUE, DG_FALSE), FALSE, "Failed"),
    ("2-delete-failed", STATE_DELETE_FAILED, (_c(FAILED, TRUE, "TeardownFailed"), _c(PROGRESSING, FALSE, "Failed"),
                                              CP_TRUE, WR_TRUE, DG_FALSE), FALSE, "Failed"),
    ("3-stage-unknown", STATE_READY, (OK_FAILED, _c(PROGRESSING, FALSE, "StageUnknown"), CP_TRUE, WR_TRUE,
                                      _c(DEGRADED, TRUE, "ControlPlaneDegraded")), FALSE, "StageUnknown"),
    ("4-available", STATE_READY, (OK_FAILED, PROG_IDLE, CP_TRUE, WR_TRUE, DG_FALSE), TRUE, "Available"),
    ("5-degraded-ready", STATE_READY, (OK_FAILED, PROG_IDLE, CP_TRUE, _c(WORKERS_READY, FALSE, "WorkersDegraded"),
                                       _c(DEGRADED, TRUE, "NodeSetDegraded:gpu")), FALSE, "Degraded"),
    ("5-degraded-progressing", STATE_PROGRESSING, (OK_FAILED, _c(PROGRESSING, TRUE, "WorkersJoining"), CP_TRUE,
                                                   _c(WORKERS_READY, FALSE, "WorkersDegraded"),
                                                   _c(DEGRADED, TRUE, "NodeSetDegraded:gpu")), FALSE, "Degraded"),
    ("6-provisioning", STATE_PROGRESSING, (OK_FAILED, _c(PROGRESSING, TRUE, "WorkersJoining"),
                                           _c(CONTROL_PLANE_AVAILABLE, FALSE, "StageUnknown"),
                                           _c(WORKERS_READY, FALSE, "WorkersJoining"), DG_FALSE), FALSE, "Provisioning"),
    ("7-cp-unknown", STATE_READY, (OK_FAILED, PROG_IDLE, _c(CONTROL_PLANE_AVAILABLE, FALSE, "StageUnknown"),
                                   WR_TRUE, DG_FALSE), FALSE, "StageUnknown"),
    ("7-degraded-unknown", STATE_READY, (OK_FAILED, PROG_IDLE, CP_TRUE, WR_TRUE,
                                         _c(DEGRADED, FALSE, "StageUnknown")), FALSE, "StageUnknown"),
    ("7-beats-8", STATE_READY, (OK_FAILED, _c(PROGRESSING, TRUE, "Scaling"),
                                _c(CONTROL_PLANE_AVAILABLE, FALSE, "StageUnknown"),
                                _c(WORKERS_READY, FALSE, "Scaling"), DG_FALSE), FALSE, "StageUnknown"),
    ("8-scaling", STATE_READY, (OK_FAILED, _c(PROGRESSING, TRUE, "Scaling"), CP_TRUE,
                                _c(WORKERS_READY, FALSE, "Scaling"), DG_FALSE), FALSE, "Scaling"),
    ("9-control-plane", STATE_READY, (OK_FAILED, PROG_IDLE, _c(CONTROL_PLANE_AVAILABLE, FALSE, "NotYetAvailable"),
                                      WR_TRUE, DG_FALSE), FALSE, "ControlPlaneUnavailable"),
    ("10-workers", STATE_READY, (OK_FAILED, PROG_IDLE, CP_TRUE, _c(WORKERS_READY, FALSE, "WorkersJoining"),
                                 DG_FALSE), FALSE, "WorkersNotReady"),
]


@pytest.mark.parametrize(("state", "conditions", "status", "reason"), [row[1:] for row in AVAILABLE_ROWS],
                         ids=[row[0] for row in AVAILABLE_ROWS])
def test_available_rollup_rows(state: int, conditions: tuple[ConditionView, ...], status: int, reason: str) -> None:
    failed, progressing, control_plane, workers, degradation = conditions
    rollup = available(state, failed, progressing, control_plane, workers, degradation)
    assert (rollup.type, rollup.status, rollup.reason) == (AVAILABLE, status, reason)


def test_degraded_ready_cluster_says_which_node_set() -> None:
    previous = _previous(STATE_READY, "", ever_ready=True)
    lost = node_pool("gpu", replicas=2, available=1, ready="True", machines="True",
                     nodes=("False", "NodeConditionsFailed", "node gpu-1 NotReady"))
    result = _derive(hc_at(9), [ready_pool("workers", 3), lost], previous)
    assert result.state == STATE_READY
    rollup = cond(result, AVAILABLE)
    assert (rollup.status, rollup.reason, rollup.message) == (FALSE, "Degraded", "Node set gpu is degraded")
