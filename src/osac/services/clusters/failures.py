"""Where a cluster's terminal failure is recorded, and how Delete and Signal clear a teardown
failure (cluster-status.md §3, §5.5, §10).

**The record is the FAILED condition itself.** The derivation turns a terminal provider error
into ``FAILED`` TRUE with reason ``ProvisioningFailed`` (state FAILED) or ``TeardownFailed``
(state DELETE_FAILED) and the provider's message; the condition is stored with the status, so it
survives restarts and is visible to every reader, and the reconciler rebuilds the derivation's
``terminal_failure`` input from it (``recorded_failure``) on every pass. Nothing else (no
annotation, no side table) carries it.

**Clearing.** Delete on a DELETE_FAILED cluster, or a private Signal, sets that condition to
FALSE with reason ``TeardownRestarted`` in the same write. The next derivation then sees
DELETE_FAILED without a recorded failure and moves the state to DELETING (the service never
writes the state of a cluster), and the reconciler retries teardown with a fresh budget. A
provisioning failure is never cleared: FAILED exits only by deletion.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

from google.protobuf.message import Message

from osac.api.private.v1 import cluster_type_pb2 as pb
from osac.api.private.v1 import condition_status_type_pb2 as condition_status
from osac.model.shape import as_kind

PROVISIONING_FAILED = "ProvisioningFailed"
TEARDOWN_FAILED = "TeardownFailed"
TEARDOWN_RESTARTED = "TeardownRestarted"
_PHASES: dict[str, Literal["provision", "teardown"]] = {PROVISIONING_FAILED: "provision", TEARDOWN_FAILED: "teardown"}


@dataclass(frozen=True)
class RecordedFailure:
    """A terminal failure as the stored status records it: the phase it ended, the provider's
    message (as the derivation wrote it) and when it was recorded."""

    phase: Literal["provision", "teardown"]
    message: str
    at: datetime | None


def _failed_condition(cluster: Message) -> pb.ClusterCondition | None:
    for condition in as_kind(cluster, pb.Cluster).status.conditions:
        if condition.type == pb.CLUSTER_CONDITION_TYPE_FAILED:
            return condition
    return None


def recorded_failure(cluster: Message) -> RecordedFailure | None:
    """The terminal failure the stored status records, if any."""
    condition = _failed_condition(cluster)
    if condition is None or condition.status != condition_status.CONDITION_STATUS_TRUE:
        return None
    phase = _PHASES.get(condition.reason)
    if phase is None:
        return None
    at = (
        condition.last_transition_time.ToDatetime(tzinfo=UTC)
        if condition.HasField("last_transition_time")
        else None
    )
    return RecordedFailure(phase, condition.message, at)


def clear_teardown_failure(cluster: Message, now: datetime, by: str) -> bool:
    """Clear a recorded teardown failure so the derivation resumes teardown; ``by`` names what
    asked (``Delete``, ``Signal``). Returns whether ``cluster`` changed."""
    failure = recorded_failure(cluster)
    if failure is None or failure.phase != "teardown":
        return False
    condition = _failed_condition(cluster)
    assert condition is not None
    condition.status = condition_status.CONDITION_STATUS_FALSE
    condition.reason = TEARDOWN_RESTARTED
    condition.message = f"teardown restarted by {by} after: {failure.message}"
    condition.last_transition_time.FromDatetime(now)
    return True
