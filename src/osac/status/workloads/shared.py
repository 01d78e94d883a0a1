"""What the compute-instance and bare-metal derivations share (compute.md §1).

Both kinds wait for their tenant the same way, stamp ``state_transition_time`` by the same rule
and guard their events by the same diffs, so those rules live once here rather than drifting
apart in two modules.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from osac.status.conditions.views import FALSE, TRUE, ConditionView, condition

#: PROVISIONED reason of both kinds while the tenant is not READY (nothing provisioned yet).
TENANT_NOT_READY = "TenantNotReady"
#: PROVISIONED TRUE reason and message of both kinds.
INFRASTRUCTURE_READY = "InfrastructureReady"
INFRASTRUCTURE_READY_MESSAGE = "All infrastructure resources provisioned successfully"
#: PROVISIONED FALSE reason of a freshly created object.
INITIALIZED = "Initialized"

#: Reasons shared by the condition tables of both kinds.
AS_EXPECTED = "AsExpected"
CONFIGURATION_APPLIED = "ConfigurationApplied"
APPLYING_CONFIGURATION = "ApplyingConfiguration"
CONFIGURATION_FAILED = "ConfigurationFailed"
RESTART_REQUESTED = "RestartRequested"
RESTART_IN_PROGRESS = "RestartInProgress"
RESTART_COMPLETED = "RestartCompleted"
RESTART_FAILED = "RestartFailed"

#: Event reasons shared by both kinds.
EVENT_READY = "Ready"
EVENT_RESTART_FAILED = "RestartFailed"
EVENT_DELETE_FAILED = "DeleteFailed"


@dataclass(frozen=True)
class TenantReadiness:
    """The owning tenant as the reconciler read it: ``phase`` is its state's short name
    (``PENDING``, ``READY``, ...) and only appears in messages."""

    name: str
    ready: bool
    phase: str = ""


def tenant_not_ready_message(tenant: TenantReadiness) -> str:
    """The exact PROVISIONED message of compute.md §2.3, shared with bare metal."""
    return f"Tenant '{tenant.name}' is not ready (phase: {tenant.phase})"


def delete_failed_message(leftovers: Sequence[str]) -> str:
    """Why cleanup stopped, naming what is left so the provider admin knows what to clear."""
    if not leftovers:
        return "cleanup gave up after its retry limit"
    return "cleanup gave up after its retry limit; left over: " + ", ".join(leftovers)


def stamped_transition_time(
    previous_state: int, previous_time: datetime | None, state: int, now: datetime
) -> datetime:
    """``state_transition_time`` is ``now`` exactly when ``state`` changes (cluster-status.md §12).

    A previous status that lacks the time (written by an older version) gets ``now`` once, after
    which the value is stable again."""
    if state != previous_state or previous_time is None:
        return now
    return previous_time


def is_true(conditions: Sequence[ConditionView], condition_type: int) -> bool:
    found = condition(conditions, condition_type)
    return found is not None and found.is_true


def reason_of(conditions: Sequence[ConditionView], condition_type: int) -> str:
    found = condition(conditions, condition_type)
    return "" if found is None else found.reason


def without_time(found: ConditionView | None) -> ConditionView | None:
    """A kept condition, to be stamped again: an unchanged status keeps its old transition time."""
    return None if found is None else ConditionView(found.type, found.status, found.reason, found.message)


def turned_true(previous: Sequence[ConditionView], new: Sequence[ConditionView], condition_type: int) -> bool:
    """The guard of every "X turns TRUE" event: a replayed derivation finds it TRUE already."""
    return is_true(new, condition_type) and not is_true(previous, condition_type)


@dataclass(frozen=True)
class RestartConditionTypes:
    """One kind's numbers of the RESTART_IN_PROGRESS and RESTART_FAILED condition types, and the
    condition pairs both kinds' restart derivations build from them (unstamped)."""

    in_progress: int
    failed: int

    def read_previous(self, conditions: Sequence[ConditionView]) -> tuple[ConditionView | None, ConditionView]:
        """The stored RESTART_IN_PROGRESS (None when absent) and RESTART_FAILED as a restart that
        does not fail keeps it (``AsExpected`` when absent)."""
        failed = without_time(condition(conditions, self.failed)) or ConditionView(self.failed, FALSE, AS_EXPECTED)
        return condition(conditions, self.in_progress), failed

    def idle(self, previous_in_progress: ConditionView | None) -> ConditionView:
        """RESTART_IN_PROGRESS while no restart runs: kept as stored, else ``AsExpected``."""
        return without_time(previous_in_progress) or ConditionView(self.in_progress, FALSE, AS_EXPECTED)

    def failure(self, message: str) -> tuple[ConditionView, ConditionView]:
        """A restart that failed: no longer in progress, RESTART_FAILED TRUE, both saying why."""
        return (
            ConditionView(self.in_progress, FALSE, RESTART_FAILED, message),
            ConditionView(self.failed, TRUE, RESTART_FAILED, message),
        )

    def completion(self, message: str) -> tuple[ConditionView, ConditionView]:
        """A restart that completed: no longer in progress, and RESTART_FAILED cleared."""
        return (
            ConditionView(self.in_progress, FALSE, RESTART_COMPLETED, message),
            ConditionView(self.failed, FALSE, AS_EXPECTED),
        )


def timestamp_text(value: datetime) -> str:
    """RFC 3339 in UTC with ``Z``, as the API prints timestamps."""
    return value.astimezone(UTC).isoformat().replace("+00:00", "Z")


def duration_text(value: timedelta) -> str:
    """``10m``, ``90s``, ``1h30m``: short enough for a condition message."""
    seconds = int(value.total_seconds())
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    parts = [f"{hours}h" if hours else "", f"{minutes}m" if minutes else "", f"{seconds}s" if seconds else ""]
    return "".join(parts) or "0s"
