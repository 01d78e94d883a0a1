"""Lifecycle transitions (§3), stage precedence, regression and teardown (§7, §10, §12)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from osac.status.clusters.derivation import (
    ClusterContext,
    ClusterDerivation,
    ClusterStatusView,
    NodeSetStatusView,
    StallThresholds,
    TerminalFailure,
    derive_cluster_status,
)
from osac.status.clusters.terms import (
    CONTROL_PLANE_AVAILABLE,
    DEGRADED,
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
from osac.status.conditions.views import FALSE, TRUE
from tests.status.conftest import (
    T0,
    cond,
    context,
    hc_at,
    hosted_cluster,
    joining_pool,
    node_pool,
    ready_pool,
    reasons,
)

ENTERED = T0 - timedelta(minutes=5)
READY_SET = NodeSetStatusView(host_type="bm-standard", size=3, desired_replicas=3, current_replicas=3,
                              ready_replicas=3, state=NODE_SET_READY, first_ready_time=ENTERED)

JOINING_SET = NodeSetStatusView(host_type="bm-standard", size=3, desired_replicas=3, current_replicas=2,
                                state=NODE_SET_PROVISIONING)


def _previous(state: int, stage: str, **fields: Any) -> ClusterStatusView:
    """A status written earlier; node sets still joining while provisioning, READY otherwise."""
    fields.setdefault("node_sets", {"workers": JOINING_SET if state in (0, STATE_PROGRESSING) else READY_SET})
    return ClusterStatusView(state=state, state_transition_time=ENTERED, stage=stage, stage_entered_at=ENTERED,
                             **fields)


def _derive(hc: dict[str, Any] | None, pools: list[dict[str, Any]], previous: ClusterStatusView,
            ctx: ClusterContext | None = None) -> ClusterDerivation:
    return derive_cluster_status(hc, pools, previous, T0, StallThresholds.DEFAULT, ctx or context())


READY_POOLS = [ready_pool("workers", 3)]
JOINING_POOLS = [joining_pool("workers", 3, 2)]

# -- §3 lifecycle -------------------------------------------------------------------------------------

PROVISION_FAILURE = TerminalFailure("provision", "InvalidReleaseImage", "no such image")
TEARDOWN_FAILURE = TerminalFailure("teardown", "DeleteRejected", "hub refused")

TRANSITIONS: list[tuple[str, int, dict[str, Any], int]] = [
    ("unspecified-first-derivation", 0, {}, STATE_PROGRESSING),
    ("progressing-deleted", STATE_PROGRESSING, {"deletion_requested": True}, STATE_DELETING),
    ("ready-deleted", STATE_READY, {"deletion_requested": True}, STATE_DELETING),
    ("failed-deleted", STATE_FAILED, {"deletion_requested": True}, STATE_DELETING),
    ("deletion-beats-provision-failure", STATE_PROGRESSING,
     {"deletion_requested": True, "terminal_failure": PROVISION_FAILURE}, STATE_DELETING),
    ("delete-failed-cleared", STATE_DELETE_FAILED, {"deletion_requested": True}, STATE_DELETING),
    ("deleting-teardown-failure", STATE_DELETING,
     {"deletion_requested": True, "terminal_failure": TEARDOWN_FAILURE}, STATE_DELETE_FAILED),
    ("progressing-provision-failure", STATE_PROGRESSING, {"terminal_failure": PROVISION_FAILURE}, STATE_FAILED),
    ("ready-ignores-provision-failure", STATE_READY, {"terminal_failure": PROVISION_FAILURE}, STATE_READY),
    ("failed-stays-failed", STATE_FAILED, {}, STATE_FAILED),
    ("delete-failed-stays", STATE_DELETE_FAILED,
     {"deletion_requested": True, "terminal_failure": TEARDOWN_FAILURE}, STATE_DELETE_FAILED),
]


@pytest.mark.parametrize(("before", "ctx", "after"), [row[1:] for row in TRANSITIONS],
                         ids=[row[0] for row in TRANSITIONS])
def test_lifecycle_transitions(before: int, ctx: dict[str, Any], after: int) -> None:
    stage = {STATE_DELETING: "DestroyingCloudResources", STATE_DELETE_FAILED: "DestroyingCloudResources",
             STATE_READY: "", 0: ""}.get(before, "ControlPlaneStarting")
    result = _derive(hc_at(2), [], _previous(before, stage), context(**ctx))
    assert result.status.state == after
    if after != before:
        assert result.status.state_transition_time == T0
    else:
        assert result.status.state_transition_time == ENTERED


def test_readiness_gate_needs_cluster_version() -> None:
    previous = _previous(STATE_PROGRESSING, "WorkersJoining")
    waiting = _derive(hc_at(4), READY_POOLS, previous)
    assert (waiting.status.state, waiting.status.stage) == (STATE_PROGRESSING, "WorkersJoining")
    assert cond(waiting.status, WORKERS_READY).status == TRUE
    assert cond(waiting.status, PROGRESSING).message.startswith("Workers ready; waiting for cluster version rollout")
    ready = _derive(hc_at(9), READY_POOLS, previous)
    assert (ready.status.state, ready.status.stage) == (STATE_READY, "")
    assert (cond(ready.status, PROGRESSING).status, cond(ready.status, PROGRESSING).reason) == (FALSE, "AsExpected")


@pytest.mark.parametrize(
    ("hc", "pools", "ctx"),
    [
        (hc_at(9, degraded=("True", "Etcd", "slow")), READY_POOLS, None),
        (hc_at(9), [node_pool("workers", replicas=3, available=2, ready="True", machines="True", nodes="True")],
         None),
        (hc_at(9), READY_POOLS, context({"workers": 5})),
        (None, [], context(observation_readable=False)),
        (hc_at(9, kube_api="False"), READY_POOLS, None),
        (None, [], None),
    ],
    ids=["hc-degraded", "node-lost", "scaling", "unreadable", "api-down", "hc-vanished"],
)
def test_ready_stays_ready(hc: Any, pools: Any, ctx: Any) -> None:
    result = _derive(hc, pools, _previous(STATE_READY, ""), ctx)
    assert result.status.state == STATE_READY
    assert result.status.state_transition_time == ENTERED
    assert "ClusterReady" not in reasons(result)


def test_ready_ignores_cluster_version_after_the_first_ready() -> None:
    result = _derive(hc_at(4, version=("False", "UpgradeFailed")), READY_POOLS, _previous(STATE_READY, ""))
    assert result.status.stage == ""
    assert cond(result.status, PROGRESSING).reason == "AsExpected"


# -- §7 precedence ------------------------------------------------------------------------------------

PRECEDENCE: list[tuple[str, str, Any, str]] = [
    ("cp-true-wins-over-infra-false", "PreparingInfrastructure",
     hc_at(4, infrastructure="False"), "WorkersJoining"),
    ("cp-true-wins-over-infra-unknown", "ControlPlaneStarting",
     hc_at(4, infrastructure="Unknown"), "WorkersJoining"),
    ("infra-true", "PreparingInfrastructure", hc_at(2), "ControlPlaneStarting"),
    ("infra-false", "PreparingInfrastructure", hc_at(1), "PreparingInfrastructure"),
    ("infra-unknown-early", "PreparingInfrastructure", hc_at(1, infrastructure="Unknown"), "PreparingInfrastructure"),
    ("infra-absent-first", "", hc_at(1, infrastructure=None), "PreparingInfrastructure"),
    ("hc-not-found-early", "PreparingInfrastructure", None, "PreparingInfrastructure"),
]


@pytest.mark.parametrize(("before", "hc", "after"), [row[1:] for row in PRECEDENCE],
                         ids=[row[0] for row in PRECEDENCE])
def test_furthest_advanced_stage_wins(before: str, hc: Any, after: str) -> None:
    result = _derive(hc, JOINING_POOLS, _previous(STATE_PROGRESSING if before else 0, before))
    assert result.status.stage == after
    assert cond(result.status, PROGRESSING).reason == after


UNKNOWN_CASES: list[tuple[str, str, Any]] = [
    ("infra-unknown-later", "ControlPlaneStarting", hc_at(1, infrastructure="Unknown")),
    ("infra-absent-later", "ControlPlaneStarting", hc_at(1, infrastructure=None)),
    ("hc-not-found-later", "ControlPlaneStarting", None),
    ("cp-unknown-regression", "WorkersJoining", hc_at(4, available="Unknown")),
    ("cp-absent-regression", "WorkersJoining", hc_at(4, kube_api=None)),
]


@pytest.mark.parametrize(("before", "hc"), [row[1:] for row in UNKNOWN_CASES], ids=[row[0] for row in UNKNOWN_CASES])
def test_a_lost_establishing_signal_keeps_the_stage_as_unknown(before: str, hc: Any) -> None:
    result = _derive(hc, JOINING_POOLS, _previous(STATE_PROGRESSING, before))
    progressing = cond(result.status, PROGRESSING)
    assert (progressing.status, progressing.reason) == (TRUE, "StageUnknown")
    assert f"last known stage: {before}" in progressing.message
    assert (result.status.stage, result.status.stage_entered_at) == (before, ENTERED)
    assert "StageChanged" not in reasons(result)
    assert reasons(result) == ["StageUnknown"]


@pytest.mark.parametrize(
    ("before", "hc", "after"),
    [
        ("WorkersJoining", hc_at(4, kube_api="False"), "ControlPlaneStarting"),
        ("WorkersJoining", hc_at(4, kube_api="False", infrastructure="False"), "PreparingInfrastructure"),
        ("ControlPlaneStarting", hc_at(1), "PreparingInfrastructure"),
    ],
    ids=["cp-false", "cp-and-infra-false", "infra-false"],
)
def test_a_definitely_false_signal_regresses_the_stage(before: str, hc: Any, after: str) -> None:
    result = _derive(hc, JOINING_POOLS, _previous(STATE_PROGRESSING, before))
    assert (result.status.stage, result.status.stage_entered_at) == (after, T0)
    assert [(e.reason, e.message) for e in result.events] == [("StageChanged", f"{before} → {after}")]


def test_failed_keeps_the_stage_where_it_failed() -> None:
    failure = TerminalFailure("provision", "Quota", "out of quota")
    # The signals now point at an earlier stage: FAILED does not follow them.
    result = _derive(hc_at(2), [], _previous(STATE_PROGRESSING, "WorkersJoining"), context(terminal_failure=failure))
    assert (result.status.state, result.status.stage, result.status.stage_entered_at) == (
        STATE_FAILED, "WorkersJoining", ENTERED)
    assert (cond(result.status, PROGRESSING).status, cond(result.status, PROGRESSING).reason) == (FALSE, "Failed")
    assert reasons(result) == ["ProvisioningFailed"]


# -- teardown (§7, §10) -------------------------------------------------------------------------------


def _deleting(hc: Any, pools: list[dict[str, Any]], previous: ClusterStatusView, **ctx: Any) -> ClusterDerivation:
    return _derive(hc, pools, previous, context(deletion_requested=True, **ctx))


def test_deletion_enters_destroying_cloud_resources_with_one_deleting_event() -> None:
    result = _deleting(hc_at(9), READY_POOLS, _previous(STATE_READY, ""))
    assert (result.status.state, result.status.stage) == (STATE_DELETING, "DestroyingCloudResources")
    assert reasons(result) == ["StageChanged", "Deleting"]
    for condition_type in (DEGRADED, CONTROL_PLANE_AVAILABLE, WORKERS_READY):
        assert (cond(result.status, condition_type).status, cond(result.status, condition_type).reason) == (
            FALSE, "Deleting")
    assert (cond(result.status, PROGRESSING).status, cond(result.status, PROGRESSING).reason) == (
        TRUE, "DestroyingCloudResources")
    assert result.teardown_complete is False


def test_deleting_while_unreadable_still_leaves_provisioning_tokens() -> None:
    result = _deleting(None, [], _previous(STATE_PROGRESSING, "WorkersJoining"), observation_readable=False)
    assert (result.status.state, result.status.stage) == (STATE_DELETING, "DestroyingCloudResources")
    assert cond(result.status, PROGRESSING).reason == "StageUnknown"
    assert cond(result.status, PROGRESSING).status == TRUE
    assert result.teardown_complete is False


@pytest.mark.parametrize(
    ("before", "hc", "pools", "cleanup", "after"),
    [
        ("DestroyingCloudResources", hc_at(9, deleting=True, cloud_destroyed="False"), READY_POOLS, (),
         "DestroyingCloudResources"),
        ("DestroyingCloudResources", hc_at(9, deleting=True, cloud_destroyed="True"), READY_POOLS, (),
         "DestroyingControlPlane"),
        ("DestroyingCloudResources", None, READY_POOLS, (), "DestroyingControlPlane"),
        ("DestroyingCloudResources", None, [], ("eip-1",), "DestroyingControlPlane"),
        ("DestroyingCloudResources", hc_at(9, hc_destroyed="True"), READY_POOLS, (), "DestroyingControlPlane"),
        ("DestroyingControlPlane", hc_at(9, deleting=True, cloud_destroyed="False"), READY_POOLS, (),
         "DestroyingControlPlane"),
        ("DestroyingControlPlane", hc_at(9, deleting=True, cloud_destroyed="Unknown"), READY_POOLS, (),
         "DestroyingControlPlane"),
    ],
    ids=["cloud-not-destroyed", "cloud-destroyed", "hc-gone-pools-left", "hc-gone-cleanup-left",
         "hc-destroyed-pools-left", "never-regresses", "never-regresses-on-unknown"],
)
def test_teardown_stages(before: str, hc: Any, pools: Any, cleanup: tuple[str, ...], after: str) -> None:
    result = _deleting(hc, pools, _previous(STATE_DELETING, before), cleanup_pending=cleanup)
    assert result.status.stage == after
    assert result.status.state == STATE_DELETING
    assert result.teardown_complete is False


@pytest.mark.parametrize(
    ("hc", "pools", "ctx", "complete"),
    [
        (None, [], {}, True),
        (hc_at(9, hc_destroyed="True"), [], {}, True),
        (None, [], {"cleanup_pending": ("host bm-7",)}, False),
        (None, READY_POOLS, {}, False),
        (None, [node_pool(None, replicas=0)], {}, False),
        (hc_at(9, hc_destroyed="False"), [], {}, False),
        (None, [], {"observation_readable": False}, False),
        (None, [{"metadata": "garbage"}], {}, False),
        (None, [], {"terminal_failure": TEARDOWN_FAILURE}, False),
    ],
    ids=["hc-gone", "hc-destroyed", "cleanup-pending", "node-pool-left", "unlabelled-node-pool-left",
         "hc-not-destroyed", "unreadable", "malformed", "teardown-failed"],
)
def test_teardown_completion(hc: Any, pools: Any, ctx: dict[str, Any], complete: bool) -> None:
    result = _deleting(hc, pools, _previous(STATE_DELETING, "DestroyingControlPlane"), **ctx)
    assert result.teardown_complete is complete
    assert ("TeardownComplete" in reasons(result)) is complete
    if complete:
        assert result.events[-1].reason == "TeardownComplete"
        assert result.status.state == STATE_DELETING


def test_delete_again_resumes_deleting_from_the_failed_stage() -> None:
    previous = _previous(STATE_DELETE_FAILED, "DestroyingControlPlane")
    result = _deleting(hosted_cluster(deleting=True, cloud_destroyed="True"), [], previous)
    assert (result.status.state, result.status.stage) == (STATE_DELETING, "DestroyingControlPlane")
    assert reasons(result) == ["Deleting"]
    assert (cond(result.status, PROGRESSING).status, cond(result.status, PROGRESSING).reason) == (
        TRUE, "DestroyingControlPlane")


def test_teardown_failure_event_and_stage() -> None:
    previous = _previous(STATE_DELETING, "DestroyingControlPlane")
    result = _deleting(None, READY_POOLS, previous, terminal_failure=TEARDOWN_FAILURE)
    assert (result.status.state, result.status.stage) == (STATE_DELETE_FAILED, "DestroyingControlPlane")
    assert [(e.reason, e.message) for e in result.events] == [("DeleteFailed", "DeleteRejected: hub refused")]


# -- §12 single writer ---------------------------------------------------------------------------------


def test_stage_changes_never_touch_state_transition_time() -> None:
    result = _derive(hc_at(2), [], _previous(STATE_PROGRESSING, "PreparingInfrastructure"))
    assert result.status.stage == "ControlPlaneStarting"
    assert result.status.stage_entered_at == T0
    assert result.status.state_transition_time == ENTERED


def test_a_misspelt_failure_phase_is_refused() -> None:
    with pytest.raises(ValueError, match="terminal failure phase 'provisioning'"):
        TerminalFailure("provisioning", "Quota")  # type: ignore[arg-type]
