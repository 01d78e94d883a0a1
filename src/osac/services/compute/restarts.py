"""Accepting a ComputeInstance restart request (compute.md §2.5 step 1 and 5).

``spec.restart_requested_at`` is a one-shot trigger holding only the latest request. An Update
that moves it forward is accepted when the VM runs (RUNNING or PAUSED), a restart is already
in progress (the new request then gives exactly one more restart after it) or the last restart
failed (FAILED with RESTART_FAILED TRUE: the request retries it); otherwise it fails with
FAILED_PRECONDITION, so a restart of a stopped or otherwise failed VM is refused rather than
silently pending. A request that is not newer than both the stored request and ``last_restarted_at`` is
ignored: the stored value is kept, so a late or replayed request never cancels a pending one,
and leaving the field out of an Update never clears it.
"""

from __future__ import annotations

from typing import Any

from google.protobuf.timestamp_pb2 import Timestamp

from osac.api.private.v1 import compute_instance_type_pb2 as compute
from osac.api.private.v1 import condition_status_type_pb2 as conditions
from osac.model.kinds import Kind
from osac.services.core.errors import FailedPrecondition
from osac.services.networking import state_machines
from osac.store.objects import object_label

RESTART_REQUIRES_RUNNING = "restart requires a running instance"
_RUNNING_STATES = (compute.COMPUTE_INSTANCE_STATE_RUNNING, compute.COMPUTE_INSTANCE_STATE_PAUSED)


def accept_restart_request(kind: Kind, stored: Any, merged: Any) -> None:
    """Keep the stored request unless ``merged`` carries a newer one that may be accepted.

    :raises FailedPrecondition: ``restart requires a running instance: ComputeInstance 'web' is
        STOPPED`` for a new request on an instance neither running nor restarting.
    """
    requested = _time(merged.spec, "restart_requested_at")
    newest = max(
        (t for t in (_time(stored.spec, "restart_requested_at"), _time(stored.status, "last_restarted_at")) if t),
        default=None,
    )
    if requested is None or (newest is not None and requested <= newest):
        _keep(stored.spec, merged.spec)
        return
    status = stored.status
    if status.state in _RUNNING_STATES or is_restart_in_progress(status) or is_failed_by_restart(status):
        return
    raise FailedPrecondition(
        f"{RESTART_REQUIRES_RUNNING}: {object_label(kind, stored)} is {state_machines.short_state(kind, status.state)}"
    )


def is_restart_in_progress(status: Any) -> bool:
    return _is_true(status, compute.COMPUTE_INSTANCE_CONDITION_TYPE_RESTART_IN_PROGRESS)


def is_failed_by_restart(status: Any) -> bool:
    """FAILED with RESTART_FAILED TRUE: a new request is how the tenant retries the failed restart
    once its cause is gone (compute.md §6 scenario 5)."""
    return bool(status.state == compute.COMPUTE_INSTANCE_STATE_FAILED
                and _is_true(status, compute.COMPUTE_INSTANCE_CONDITION_TYPE_RESTART_FAILED))


def _is_true(status: Any, condition_type: int) -> bool:
    return any(c.type == condition_type and c.status == conditions.CONDITION_STATUS_TRUE for c in status.conditions)


def _time(message: Any, name: str) -> tuple[int, int] | None:
    if not message.HasField(name):
        return None
    stamp: Timestamp = getattr(message, name)
    return (stamp.seconds, stamp.nanos)


def _keep(stored_spec: Any, merged_spec: Any) -> None:
    if stored_spec.HasField("restart_requested_at"):
        merged_spec.restart_requested_at.CopyFrom(stored_spec.restart_requested_at)
    else:
        merged_spec.ClearField("restart_requested_at")
