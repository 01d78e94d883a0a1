"""Power cycles of a bare-metal instance requested through ``spec.restart_trigger`` (compute.md §3.3).

The status has no start time for a power cycle: RESTART_IN_PROGRESS turning TRUE is the start,
so its ``last_transition_time`` bounds the wait for the host to be READY again. A cycle counts as
done only after the host was seen leaving READY and coming back, so a reconcile that runs right
after ``reboot_host`` cannot mistake the not-yet-rebooted host for a finished cycle.

A handled trigger is copied to ``status.restart_trigger`` whether the cycle completed or failed:
the request is consumed, and only a further increment power-cycles again, so a failing host is
not rebooted in a loop.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from osac.status.baremetal.metal3 import HostReading
from osac.status.baremetal.views import (
    RESTART_FAILED,
    RESTART_IN_PROGRESS,
    RUNNING,
    BareMetalContext,
    BareMetalInstanceStatusView,
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

_TYPES = RestartConditionTypes(RESTART_IN_PROGRESS, RESTART_FAILED)


@dataclass(frozen=True)
class PowerCycleConditions:
    """RESTART_IN_PROGRESS and RESTART_FAILED (unstamped), the handled trigger value, and when a
    running cycle fails for lack of progress."""

    in_progress: ConditionView
    failed: ConditionView
    restart_trigger: int
    deadline: datetime | None


def is_power_cycle_running(status: BareMetalInstanceStatusView) -> bool:
    return is_true(status.conditions, RESTART_IN_PROGRESS)


def needs_power_cycle(spec_trigger: int, status: BareMetalInstanceStatusView) -> bool:
    """Whether the reconciler should call ``reboot_host`` now: a higher trigger and a RUNNING host."""
    return spec_trigger > status.restart_trigger and status.state == RUNNING and not is_power_cycle_running(status)


def derive_power_cycle(
    previous: BareMetalInstanceStatusView,
    host: HostReading | None,
    is_ready: bool,
    context: BareMetalContext,
    now: datetime,
) -> PowerCycleConditions:
    """The restart conditions for one reconcile; ``is_ready`` is the new READY."""
    previous_in_progress, failed_kept = _TYPES.read_previous(previous.conditions)
    trigger = context.restart_trigger
    timeout = context.restart_timeout

    if context.restart.started_at is not None:
        if context.restart.error:
            return _failure(context.restart.error, trigger)
        if now >= context.restart.started_at + timeout:
            return _timed_out(context.restart.started_at, timeout, trigger)
        requested = ConditionView(
            RESTART_IN_PROGRESS, TRUE, RESTART_REQUESTED, f"power cycle for restart_trigger {trigger} requested"
        )
        return PowerCycleConditions(requested, failed_kept, previous.restart_trigger, context.restart.started_at + timeout)

    if previous_in_progress is None or not previous_in_progress.is_true:
        return PowerCycleConditions(_TYPES.idle(previous_in_progress), failed_kept, previous.restart_trigger, None)

    if context.restart.error:
        return _failure(context.restart.error, trigger)
    has_gone_down = previous_in_progress.reason == RESTART_IN_PROGRESS_REASON
    if is_ready and has_gone_down:
        in_progress, failed = _TYPES.completion(f"power cycle for restart_trigger {trigger} completed")
        return PowerCycleConditions(in_progress, failed, trigger, None)
    start = previous_in_progress.last_transition_time or now
    deadline = start + timeout
    if now >= deadline:
        return _timed_out(start, timeout, trigger)
    if has_gone_down or not is_ready or host is None or not host.powered_on:
        reason, verb = RESTART_IN_PROGRESS_REASON, "in progress"
    else:
        reason, verb = RESTART_REQUESTED, "requested"
    running = ConditionView(RESTART_IN_PROGRESS, TRUE, reason, f"power cycle for restart_trigger {trigger} {verb}")
    return PowerCycleConditions(running, failed_kept, previous.restart_trigger, deadline)


def _timed_out(start: datetime, timeout: timedelta, trigger: int) -> PowerCycleConditions:
    return _failure(
        f"host not ready within {duration_text(timeout)} of the power cycle started at {timestamp_text(start)}", trigger
    )


def _failure(message: str, trigger: int) -> PowerCycleConditions:
    in_progress, failed = _TYPES.failure(message)
    return PowerCycleConditions(in_progress, failed, trigger, None)

