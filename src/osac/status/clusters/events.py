"""Lifecycle events of a cluster (cluster-status.md §13).

Every event is a guard on the difference between the previous and the new status, never on the
observation: the same status twice yields nothing, so replays, resyncs and a reconciler that
lost the optimistic lock and derived again cannot duplicate an event. The one exception is
``TeardownComplete``, which accompanies the write that archives the object, after which there is
no status left to derive from.
"""

from __future__ import annotations

from osac.status.clusters.progress import StallCheck, format_duration
from osac.status.clusters.terms import (
    CONTROL_PLANE_AVAILABLE,
    DEGRADED,
    FAILED,
    NODE_SET_READY,
    PROGRESSING,
    STAGE_UNKNOWN,
    STALLED,
    STATE_DELETE_FAILED,
    STATE_DELETING,
    STATE_FAILED,
    STATE_READY,
    TEARDOWN_STATES,
    WORKERS_READY,
)
from osac.status.clusters.views import ClusterStatusView
from osac.status.conditions.views import NORMAL, WARNING, LifecycleEventView


def lifecycle_events(
    previous: ClusterStatusView,
    current: ClusterStatusView,
    stall: StallCheck | None,
    is_teardown_complete: bool,
) -> tuple[LifecycleEventView, ...]:
    """The events of §13 that this status change triggers, in the order of the spec's table."""
    events: list[LifecycleEventView] = []

    def add(kind: int, reason: str, message: str) -> None:
        events.append(LifecycleEventView(kind, reason, message))

    def became_true(condition_type: int, was_true_before_unknown: bool) -> bool:
        """A real turn to TRUE: not the return from ``StageUnknown`` of a condition that was
        TRUE before its signals were lost (that recovery is ``SignalsRecovered``)."""
        old, new = previous.condition(condition_type), current.condition(condition_type)
        if new is None or not new.is_true:
            return False
        if old is not None and old.reason == STAGE_UNKNOWN and was_true_before_unknown:
            return False
        return old is None or not old.is_true

    def message_of(condition_type: int) -> str:
        found = current.condition(condition_type)
        return found.message if found is not None else ""

    old_progress, new_progress = previous.condition(PROGRESSING), current.condition(PROGRESSING)
    old_reason = old_progress.reason if old_progress is not None else ""
    new_reason = new_progress.reason if new_progress is not None else ""
    old_degraded, new_degraded = previous.condition(DEGRADED), current.condition(DEGRADED)
    is_new_state = current.state != previous.state

    if current.stage != previous.stage:
        add(NORMAL, "StageChanged", f"{_stage(previous.stage)} → {_stage(current.stage)}")
    # What was known before the signals were lost: the API URL is published when the control
    # plane first becomes available, and node sets keep their last known state while unknown.
    was_available = bool(previous.api_url)
    were_ready = bool(previous.node_sets) and all(ns.state == NODE_SET_READY for ns in previous.node_sets.values())
    if became_true(CONTROL_PLANE_AVAILABLE, was_available):
        add(NORMAL, "ControlPlaneAvailable", message_of(CONTROL_PLANE_AVAILABLE))
    if became_true(WORKERS_READY, were_ready):
        add(NORMAL, "WorkersReady", message_of(WORKERS_READY))
    if is_new_state and current.state == STATE_READY:
        add(NORMAL, "ClusterReady", f"The cluster is ready{_at(current.api_url)}")
    if not previous.api_endpoint and current.api_endpoint:
        add(NORMAL, "VIPsDiscovered", f"API {current.api_endpoint}, ingress {current.ingress_endpoint or '-'}")
    if new_reason == STALLED and old_reason != STALLED:
        threshold = f" {format_duration(stall.threshold)}" if stall is not None else " its threshold"
        add(WARNING, STALLED, f"{current.stage} exceeded{threshold}")
    if old_reason == STALLED and new_reason != STALLED:
        add(NORMAL, "StallCleared", f"{previous.stage} no longer stalled")
    if new_reason == STAGE_UNKNOWN and old_reason != STAGE_UNKNOWN:
        add(WARNING, STAGE_UNKNOWN, new_progress.message if new_progress is not None else "")
    if old_reason == STAGE_UNKNOWN and new_reason != STAGE_UNKNOWN:
        add(NORMAL, "SignalsRecovered", f"Signals readable again; stage {_stage(current.stage)}")
    if new_degraded is not None and new_degraded.is_true and (
        old_degraded is None or not old_degraded.is_true or old_degraded.reason != new_degraded.reason
    ):
        add(WARNING, "Degraded", new_degraded.reason)
    if (old_degraded is not None and old_degraded.is_true and new_degraded is not None and not new_degraded.is_true
            and current.state not in TEARDOWN_STATES):
        add(NORMAL, "DegradationCleared", "No longer degraded")
    if is_new_state and current.state == STATE_FAILED:
        add(WARNING, "ProvisioningFailed", message_of(FAILED))
    if is_new_state and current.state == STATE_DELETING:
        add(NORMAL, "Deleting", "Deletion requested; tearing the cluster down")
    if is_new_state and current.state == STATE_DELETE_FAILED:
        add(WARNING, "DeleteFailed", message_of(FAILED))
    if is_teardown_complete:
        add(NORMAL, "TeardownComplete", "Teardown complete; the cluster is removed")
    return tuple(events)


def _stage(stage: str) -> str:
    return stage if stage else '""'


def _at(url: str) -> str:
    return f" at {url}" if url else ""
