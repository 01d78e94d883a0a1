"""Restarts of a compute instance (compute.md §2.5): the two restart conditions, the restart's
start time, and the rules the service and the reconciler apply to ``spec.restart_requested_at``.

A restart exists in the status only once ``restart_virtual_machine`` was called: RESTART_IN_PROGRESS
TRUE always means "the restart that began at ``last_restarted_at`` has not finished". That makes
the field alone enough to tell an accepted request from a running restart and gives step 5 (one
more restart for a newer request) without a queue.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from osac.status.compute.kubevirt import PAUSED_STATUS, RUNNING_STATUS, ComputeObservation
from osac.status.compute.views import (
    FAILED,
    PAUSED,
    RESTART_FAILED,
    RESTART_IN_PROGRESS,
    RUNNING,
    ComputeInstanceStatusView,
    ComputeRestart,
)
from osac.status.conditions.views import TRUE, ConditionView
from osac.status.workloads.shared import RESTART_IN_PROGRESS as RESTART_IN_PROGRESS_REASON
from osac.status.workloads.shared import (
    RESTART_REQUESTED,
    RestartConditionTypes,
    duration_text,
    is_true,
    timestamp_text,
)

#: The FAILED_PRECONDITION message of compute.md §2.5 step 1.
RESTART_REQUIRES_RUNNING = "restart requires a running instance"

_RESTARTABLE_STATES = frozenset({RUNNING, PAUSED})
_TYPES = RestartConditionTypes(RESTART_IN_PROGRESS, RESTART_FAILED)


@dataclass(frozen=True)
class RestartConditions:
    """RESTART_IN_PROGRESS and RESTART_FAILED (unstamped), the start of the last restart, and the
    time at which a running restart fails for lack of progress."""

    in_progress: ConditionView
    failed: ConditionView
    last_restarted_at: datetime | None
    deadline: datetime | None


def is_restart_running(status: ComputeInstanceStatusView) -> bool:
    return is_true(status.conditions, RESTART_IN_PROGRESS)


def is_restartable(status: ComputeInstanceStatusView) -> bool:
    """RUNNING or PAUSED, or FAILED by its last restart (RESTART_FAILED TRUE): a new request is
    how the tenant retries a failed restart once its cause is gone (compute.md §6 scenario 5)."""
    if status.state in _RESTARTABLE_STATES:
        return True
    return status.state == FAILED and is_true(status.conditions, RESTART_FAILED)


def restart_request_refusal(requested_at: datetime, status: ComputeInstanceStatusView) -> str | None:
    """Why an Update may not store ``requested_at`` as ``spec.restart_requested_at``; None when it may.

    Called by the service only when the Update changes the field. While a restart runs every
    value is stored: a newer one gives one more restart, an older one is ignored (step 5)."""
    if is_restart_running(status):
        return None
    if not is_restartable(status):
        return RESTART_REQUIRES_RUNNING
    last = status.last_restarted_at
    if last is not None and requested_at <= last:
        return (
            f"restart_requested_at ({timestamp_text(requested_at)}) must be newer than the last restart "
            f"({timestamp_text(last)})"
        )
    return None


def needs_restart(requested_at: datetime | None, status: ComputeInstanceStatusView) -> bool:
    """Whether the reconciler should call ``restart_virtual_machine`` now.

    A request newer than the last restart's start waits while a restart runs and is served once
    the instance is RUNNING or PAUSED again (or FAILED by that restart), so any number of
    requests during one restart give exactly one more."""
    if requested_at is None or is_restart_running(status) or not is_restartable(status):
        return False
    last = status.last_restarted_at
    return last is None or requested_at > last


def derive_restart(
    previous: ComputeInstanceStatusView,
    observation: ComputeObservation,
    is_ready: bool,
    restart: ComputeRestart,
    timeout: timedelta,
    now: datetime,
) -> RestartConditions:
    """Steps 2 to 4 of compute.md §2.5 for one reconcile; ``is_ready`` is the new READY."""
    previous_in_progress, failed_kept = _TYPES.read_previous(previous.conditions)

    if restart.started_at is not None:
        start = restart.started_at
        if restart.error:
            return _failure(restart.error, start)
        if now >= start + timeout:
            return _timed_out(start, timeout)
        in_progress = ConditionView(
            RESTART_IN_PROGRESS, TRUE, RESTART_REQUESTED, _running_message(start, restart.requested_at)
        )
        return RestartConditions(in_progress, failed_kept, start, start + timeout)

    if previous_in_progress is None or not previous_in_progress.is_true:
        return RestartConditions(_TYPES.idle(previous_in_progress), failed_kept, previous.last_restarted_at, None)

    start = previous.last_restarted_at or previous_in_progress.last_transition_time or now
    if restart.error:
        return _failure(restart.error, start)
    if _has_completed(observation, start, is_ready):
        in_progress, failed = _TYPES.completion(f"restart started at {timestamp_text(start)} completed")
        return RestartConditions(in_progress, failed, start, None)
    deadline = start + timeout
    if now >= deadline:
        return _timed_out(start, timeout)
    has_begun = previous_in_progress.reason == RESTART_IN_PROGRESS_REASON or _has_left_running(observation, start)
    reason = RESTART_IN_PROGRESS_REASON if has_begun else RESTART_REQUESTED
    in_progress = ConditionView(RESTART_IN_PROGRESS, TRUE, reason, _running_message(start, restart.requested_at))
    return RestartConditions(in_progress, failed_kept, start, deadline)


def _failure(message: str, start: datetime) -> RestartConditions:
    """A failed restart consumes its request: ``last_restarted_at`` keeps its start, so only a
    newer request restarts again."""
    in_progress, failed = _TYPES.failure(message)
    return RestartConditions(in_progress, failed, start, None)


def _timed_out(start: datetime, timeout: timedelta) -> RestartConditions:
    return _failure(f"restart started at {timestamp_text(start)} did not complete within {duration_text(timeout)}", start)


def _has_completed(observation: ComputeObservation, start: datetime, is_ready: bool) -> bool:
    """Step 3: an incarnation created after the restart began runs, and the VM is ready."""
    instance = observation.virtual_machine_instance
    return (
        is_ready
        and instance is not None
        and instance.phase == RUNNING_STATUS
        and instance.created_at is not None
        and instance.created_at > start
    )


def _has_left_running(observation: ComputeObservation, start: datetime) -> bool:
    """The stop half of the restart is visible: the VM no longer runs its old incarnation."""
    machine = observation.virtual_machine
    instance = observation.virtual_machine_instance
    if machine is None or instance is None:
        return True
    if instance.created_at is not None and instance.created_at > start:
        return True
    return machine.printable_status not in (RUNNING_STATUS, PAUSED_STATUS)


def _running_message(start: datetime, requested_at: datetime | None) -> str:
    message = f"restart started at {timestamp_text(start)}"
    if requested_at is not None and requested_at > start:
        message += f"; the request of {timestamp_text(requested_at)} restarts once more afterwards"
    return message

