"""Restarts (compute.md §2.5, scenarios 4 and 5): the conditions, ``last_restarted_at``, the
timeout as ``requeue_after``, and the rules the service and the reconciler apply to requests."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest

from osac.status.compute.derivation import (
    RESTART_REQUIRES_RUNNING,
    ComputeInstanceStatusView,
    ComputeRestart,
    needs_restart,
    restart_request_refusal,
)
from osac.status.compute.views import (
    DELETING,
    FAILED,
    PAUSED,
    RESTART_FAILED,
    RESTART_IN_PROGRESS,
    RUNNING,
    STARTING,
    STOPPED,
    STOPPING,
)
from osac.status.conditions.views import FALSE, TRUE
from tests.support.compute_status import DONE, T0, Instance, cond, dvs, vm, vmi

S = timedelta(seconds=1)
M = timedelta(minutes=1)


def running_instance() -> Instance:
    ci = Instance()
    ci.observe(vm("Running"), vmi(1 * M), dvs(*DONE), at=2 * M)
    assert ci.status.state == RUNNING
    return ci


def restart(ci: Instance, requested: timedelta, started: timedelta) -> None:
    """The reconcile that accepts the request and calls ``restart_virtual_machine``."""
    assert needs_restart(T0 + requested, ci.status)
    ci.observe(vm("Running"), vmi(1 * M), dvs(*DONE), at=started,
               restart=ComputeRestart(requested_at=T0 + requested, started_at=T0 + started))
    ci.ctx = replace(ci.ctx, restart=ComputeRestart(requested_at=T0 + requested))


def test_scenario_4_restart_walks_the_states_and_reasons() -> None:
    ci = running_instance()
    restart(ci, requested=10 * M, started=10 * M + S)
    assert ci.status.last_restarted_at == T0 + 10 * M + S
    assert cond(ci.status, RESTART_IN_PROGRESS).reason == "RestartRequested"
    assert ci.history[-1].requeue_after == timedelta(minutes=10)

    ci.observe(vm("Running"), vmi(1 * M), dvs(*DONE), at=10 * M + 2 * S)  # VM has not reacted yet
    assert cond(ci.status, RESTART_IN_PROGRESS).reason == "RestartRequested"
    ci.observe(vm("Stopping"), vmi(1 * M), dvs(*DONE), at=10 * M + 3 * S)
    assert cond(ci.status, RESTART_IN_PROGRESS).reason == "RestartInProgress"
    ci.observe(vm("Stopped"), None, dvs(*DONE), at=10 * M + 13 * S)
    ci.observe(vm("Starting"), None, dvs(*DONE), at=10 * M + 14 * S)
    assert cond(ci.status, RESTART_IN_PROGRESS).reason == "RestartInProgress"
    ci.observe(vm("Running", ready=False), vmi(10 * M + 34 * S, uid="vmi-2"), dvs(*DONE), at=10 * M + 34 * S)
    assert cond(ci.status, RESTART_IN_PROGRESS).is_true  # READY not yet TRUE
    result = ci.observe(vm("Running"), vmi(10 * M + 34 * S, uid="vmi-2"), dvs(*DONE), at=10 * M + 35 * S)

    in_progress = cond(ci.status, RESTART_IN_PROGRESS)
    assert (in_progress.status, in_progress.reason) == (FALSE, "RestartCompleted")
    assert cond(ci.status, RESTART_FAILED).status == FALSE
    assert result.requeue_after is None
    assert ci.status.last_restarted_at == T0 + 10 * M + S
    assert ci.states() == [RUNNING, STOPPING, STOPPED, STARTING, RUNNING]
    assert ci.reasons(RESTART_IN_PROGRESS) == ["AsExpected", "RestartRequested", "RestartInProgress", "RestartCompleted"]
    assert not needs_restart(T0 + 10 * M, ci.status)


def test_scenario_4_two_requests_during_a_restart_give_exactly_one_more() -> None:
    ci = running_instance()
    restart(ci, requested=10 * M, started=10 * M)
    for request in (10 * M + 5 * S, 10 * M + 9 * S):  # both stored by the service
        assert restart_request_refusal(T0 + request, ci.status) is None
        assert not needs_restart(T0 + request, ci.status)
    latest = T0 + 10 * M + 9 * S
    ci.observe(vm("Stopping"), vmi(1 * M), dvs(*DONE), at=10 * M + 10 * S, restart=ComputeRestart(requested_at=latest))
    assert "restarts once more" in cond(ci.status, RESTART_IN_PROGRESS).message
    ci.observe(vm("Running"), vmi(10 * M + 40 * S, uid="vmi-2"), dvs(*DONE), at=10 * M + 40 * S)
    assert cond(ci.status, RESTART_IN_PROGRESS).reason == "RestartCompleted"

    assert needs_restart(latest, ci.status)  # the one more restart
    restart(ci, requested=10 * M + 9 * S, started=11 * M)
    ci.observe(vm("Stopping"), vmi(10 * M + 40 * S, uid="vmi-2"), dvs(*DONE), at=11 * M + 1 * S)
    ci.observe(vm("Running"), vmi(11 * M + 30 * S, uid="vmi-3"), dvs(*DONE), at=11 * M + 30 * S)
    assert cond(ci.status, RESTART_IN_PROGRESS).reason == "RestartCompleted"
    assert not needs_restart(latest, ci.status)  # and no more
    assert ci.status.last_restarted_at == T0 + 11 * M


def test_an_older_request_during_a_restart_is_ignored() -> None:
    ci = running_instance()
    restart(ci, requested=10 * M, started=10 * M)
    assert restart_request_refusal(T0 + 5 * M, ci.status) is None
    ci.observe(vm("Running"), vmi(10 * M + 40 * S, uid="vmi-2"), dvs(*DONE), at=10 * M + 40 * S,
               restart=ComputeRestart(requested_at=T0 + 5 * M))
    assert not needs_restart(T0 + 5 * M, ci.status)


@pytest.mark.parametrize(
    ("state", "refused"),
    [(RUNNING, False), (PAUSED, False), (STOPPED, True), (STARTING, True), (STOPPING, True), (FAILED, True),
     (DELETING, True)],
    ids=["running", "paused", "stopped", "starting", "stopping", "failed", "deleting"],
)
def test_restart_requires_a_running_instance(state: int, refused: bool) -> None:
    status = ComputeInstanceStatusView(state=state)
    assert restart_request_refusal(T0, status) == (RESTART_REQUIRES_RUNNING if refused else None)
    assert needs_restart(T0, status) is not refused


def test_a_request_not_newer_than_the_last_restart_is_refused() -> None:
    status = ComputeInstanceStatusView(state=RUNNING, last_restarted_at=T0)
    refusal = restart_request_refusal(T0, status)
    assert refusal is not None and "newer than the last restart" in refusal
    assert restart_request_refusal(T0 + S, status) is None
    assert not needs_restart(T0, status) and needs_restart(T0 + S, status)


def test_scenario_5_restart_timeout_fails_once_and_recovers_with_a_new_request() -> None:
    ci = running_instance()
    restart(ci, requested=10 * M, started=10 * M)
    ci.observe(vm("Stopping"), vmi(1 * M), dvs(*DONE), at=10 * M + 5 * S)
    stuck = ci.observe(vm("Stopped"), None, dvs(*DONE), at=15 * M)
    assert stuck.requeue_after == timedelta(minutes=5)  # the timeout, not a poll
    result = ci.observe(vm("Stopped"), None, dvs(*DONE), at=20 * M)
    assert ci.status.state == FAILED
    failed = cond(ci.status, RESTART_FAILED)
    assert (failed.status, failed.reason) == (TRUE, "RestartFailed")
    assert "did not complete within 10m" in failed.message
    assert cond(ci.status, RESTART_IN_PROGRESS).reason == "RestartFailed"
    assert [(e.type, e.reason) for e in result.events] == [(2, "RestartFailed")]
    assert result.requeue_after is None
    ci.observe(vm("Stopped"), None, dvs(*DONE), at=21 * M)
    assert ci.events.count("RestartFailed") == 1

    # A new request retries the failed restart (accepted while FAILED by it); here the VM runs first.
    assert restart_request_refusal(T0 + 22 * M, ci.status) is None and needs_restart(T0 + 22 * M, ci.status)
    ci.observe(vm("Running"), vmi(23 * M, uid="vmi-2"), dvs(*DONE), at=23 * M)  # fault cleared, VM runs again
    assert ci.status.state == RUNNING and cond(ci.status, RESTART_FAILED).is_true
    restart(ci, requested=24 * M, started=24 * M)
    ci.observe(vm("Stopping"), vmi(23 * M, uid="vmi-2"), dvs(*DONE), at=24 * M + S)
    ci.observe(vm("Running"), vmi(24 * M + 30 * S, uid="vmi-3"), dvs(*DONE), at=24 * M + 30 * S)
    assert ci.status.state == RUNNING
    assert cond(ci.status, RESTART_FAILED).status == FALSE
    assert ci.events.count("RestartFailed") == 1


def test_a_provider_error_fails_the_restart_and_consumes_the_request() -> None:
    ci = running_instance()
    ci.observe(vm("Running"), vmi(1 * M), dvs(*DONE), at=10 * M,
               restart=ComputeRestart(requested_at=T0 + 10 * M, started_at=T0 + 10 * M, error="VM is locked"))
    assert cond(ci.status, RESTART_FAILED).message == "VM is locked"
    assert ci.status.state == RUNNING  # the VM still runs (row 4 needs it not Running)
    assert ci.status.last_restarted_at == T0 + 10 * M
    assert not needs_restart(T0 + 10 * M, ci.status)
    assert ci.events.count("RestartFailed") == 1


def test_a_restart_that_runs_while_the_provider_is_unreadable_is_left_alone() -> None:
    ci = running_instance()
    restart(ci, requested=10 * M, started=10 * M)
    before = ci.status
    result = ci.observe(None, None, [], at=30 * M, readable=False)
    assert result.status == before
    assert cond(ci.status, RESTART_IN_PROGRESS).is_true


def test_restart_conditions_keep_their_transition_time_while_reasons_change() -> None:
    ci = running_instance()
    restart(ci, requested=10 * M, started=10 * M)
    ci.observe(vm("Stopping"), vmi(1 * M), dvs(*DONE), at=10 * M + 5 * S)
    assert cond(ci.status, RESTART_IN_PROGRESS).last_transition_time == T0 + 10 * M
