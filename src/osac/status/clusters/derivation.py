"""Granular cluster status, derived from HyperShift signals (cluster-status.md).

``derive_cluster_status`` is the single writer of a cluster's ``state``, stage, conditions,
node-set counts, URLs and endpoints. It is a pure function of the observation, the previous
status, the clock reading it is given, the thresholds and the cluster's own facts: no I/O, no
clock or random reads. That is what lets the reconciler, the unit tests and the acceptance
harness share it, and what makes its guarantees checkable:

- deterministic: the same inputs give the same result;
- fixpoint: feeding ``status`` back as ``previous`` (same observation, same ``now``) returns it
  unchanged and no events (except ``TeardownComplete``, see ``cluster_events``);
- total: a malformed dict counts as an unreadable observation, nothing raises;
- preserving: condition types and enum numbers this version does not know pass through.

The work is split by section of the spec: ``cluster_signals`` reads the dicts,
``cluster_node_sets`` (§8), ``cluster_stages`` (§3, §7, §9.2), ``cluster_health`` (§5.2–§5.6),
``cluster_progress`` (§5.8, §9.1), ``cluster_endpoints`` (§11), ``cluster_events`` (§13).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

from osac.status.clusters.endpoints import derive_endpoints
from osac.status.clusters.events import lifecycle_events
from osac.status.clusters.health import (
    available,
    control_plane_available,
    degraded,
    deleting,
    failed,
    workers_ready,
)
from osac.status.clusters.inputs import ClusterContext, FailurePhase, NodeSetSpec, TerminalFailure
from osac.status.clusters.node_sets import derive_node_sets
from osac.status.clusters.progress import (
    StageText,
    check_stall,
    describe_stage,
    is_stall_watched,
    progressing,
)
from osac.status.clusters.proto import apply_view_to_status, view_from_status
from osac.status.clusters.signals import (
    CLUSTER_VERSION_SUCCEEDING,
    HOSTED_CLUSTER_DESTROYED,
    Observation,
    read_observation,
)
from osac.status.clusters.stages import (
    StagePosition,
    is_hosted_cluster_absence_expected,
    locate_stage,
    next_state,
)
from osac.status.clusters.terms import (
    CONTROL_PLANE_AVAILABLE,
    DEGRADED,
    DESTROYING_CLOUD_RESOURCES,
    FAILED,
    KNOWN_STATES,
    PROGRESSING,
    STATE_DELETING,
    STATE_FAILED,
    STATE_PROGRESSING,
    STATE_READY,
    TEARDOWN_STATES,
    WORKERS_READY,
)
from osac.status.clusters.thresholds import StallThresholds
from osac.status.clusters.views import ClusterDerivation, ClusterStatusView, NodeSetStatusView
from osac.status.conditions.views import stamp_conditions

__all__ = [
    "ClusterContext",
    "ClusterDerivation",
    "ClusterStatusView",
    "FailurePhase",
    "NodeSetSpec",
    "NodeSetStatusView",
    "StallThresholds",
    "TerminalFailure",
    "apply_view_to_status",
    "begin_teardown",
    "derive_cluster_status",
    "view_from_status",
]


def derive_cluster_status(
    hosted_cluster: Mapping[str, Any] | None,
    node_pools: Sequence[Mapping[str, Any]],
    previous: ClusterStatusView,
    now: datetime,
    thresholds: StallThresholds,
    context: ClusterContext,
) -> ClusterDerivation:
    """The new status of one cluster, the events it triggers, and when to look again.

    ``hosted_cluster`` is None when the provider answered that it does not exist; a provider
    that could not answer says so with ``context.observation_readable=False``. ``node_pools`` are
    the NodePools labelled with the cluster's id, in any order. ``previous`` is the last committed
    status (the empty view on create).

    :raises ValueError: ``now`` is not timezone-aware (a caller bug, not an observation problem).
    """
    if now.tzinfo is None or now.utcoffset() is None:
        raise ValueError("now must be a timezone-aware datetime")
    observation = read_observation(
        hosted_cluster, node_pools, context.observation_readable, context.observation_error
    )
    if previous.state not in KNOWN_STATES and not context.deletion_requested:
        # A state number from a newer version: that version owns this status until deletion.
        return ClusterDerivation(previous, unattributed_node_pools=observation.unattributed)

    state = next_state(previous.state, context)
    is_absence_expected = is_hosted_cluster_absence_expected(state, previous.stage)
    node_sets = derive_node_sets(
        observation, context.node_sets, previous.node_sets, thresholds.progress_reasons, now
    )
    position = locate_stage(state, previous.stage, observation, node_sets, context)
    control_plane = control_plane_available(observation, is_absence_expected)
    is_hc_missing = (
        observation.is_readable and observation.hosted_cluster is None and not is_absence_expected
        and state in (STATE_PROGRESSING, STATE_READY, STATE_FAILED)
    )
    workers = workers_ready(state, position.stage, observation, is_hc_missing, node_sets)
    degradation = degraded(observation, is_absence_expected, node_sets)
    if state == STATE_PROGRESSING and _passes_readiness_gate(position, observation, control_plane.is_true,
                                                             workers.is_true):
        state, position = STATE_READY, StagePosition("")

    stage = position.stage
    stage_entered_at = _keep_or_now(stage == previous.stage, previous.stage_entered_at, now)
    is_new_state = state != previous.state
    state_transition_time = _keep_or_now(not is_new_state, previous.state_transition_time, now)
    stall = (
        check_stall(stage, stage_entered_at, now, thresholds, node_sets)
        if is_stall_watched(state, position) else None
    )
    failure = failed(state, context, previous.condition(FAILED))
    stage_text = describe_stage(stage, observation, node_sets, context, workers.is_true)
    progress = progressing(state, is_new_state, position, stall, stage_text, failure.message,
                           previous.condition(PROGRESSING))
    if state in TEARDOWN_STATES:
        control_plane, degradation, workers = (
            deleting(CONTROL_PLANE_AVAILABLE), deleting(DEGRADED), deleting(WORKERS_READY)
        )
    rollup = available(state, failure, progress, control_plane, workers, degradation)
    endpoints = derive_endpoints(
        previous, observation.hosted_cluster, control_plane.is_true, state, context.reserved_vips
    )
    conditions = stamp_conditions(
        previous.conditions, (progress, rollup, failure, degradation, control_plane, workers), now
    )
    status = ClusterStatusView(
        state=state,
        state_transition_time=state_transition_time,
        stage=stage,
        stage_entered_at=stage_entered_at,
        stage_threshold=stall.threshold if stall is not None else None,
        conditions=conditions,
        node_sets=node_sets.views(),
        api_url=endpoints.api_url,
        console_url=endpoints.console_url,
        api_endpoint=endpoints.api_endpoint,
        ingress_endpoint=endpoints.ingress_endpoint,
    )
    is_complete = state == STATE_DELETING and _is_teardown_complete(observation, context)
    return ClusterDerivation(
        status=status,
        events=lifecycle_events(previous, status, stall, is_complete),
        requeue_after=stall.requeue_after if stall is not None else None,
        teardown_complete=is_complete,
        unattributed_node_pools=observation.unattributed,
    )


def begin_teardown(previous: ClusterStatusView, now: datetime) -> ClusterDerivation:
    """§10 step 1 as the Delete transaction writes it (scenario 9: DELETING at once): state
    DELETING, stage ``DestroyingCloudResources``, PROGRESSING TRUE on that stage, AVAILABLE and
    the health conditions FALSE ``Deleting``, FAILED FALSE, and the events of that change
    (``StageChanged``, ``Deleting``). Node sets and endpoints are kept. It needs no observation:
    entering teardown starts at ``DestroyingCloudResources`` whatever the provider shows, and the
    reconciler's next derivation carries on from there as from its own write (it finds DELETING
    already, so it emits neither event again). A cluster already in teardown is left alone."""
    if previous.state in TEARDOWN_STATES:
        return ClusterDerivation(previous)
    state, position = STATE_DELETING, StagePosition(DESTROYING_CLOUD_RESOURCES)
    failure = failed(state, ClusterContext(deletion_requested=True), previous.condition(FAILED))
    progress = progressing(state, True, position, None, StageText("Destroying cloud resources"), failure.message,
                           previous.condition(PROGRESSING))
    control_plane, degradation, workers = deleting(CONTROL_PLANE_AVAILABLE), deleting(DEGRADED), deleting(WORKERS_READY)
    rollup = available(state, failure, progress, control_plane, workers, degradation)
    conditions = stamp_conditions(
        previous.conditions, (progress, rollup, failure, degradation, control_plane, workers), now
    )
    status = replace(previous, state=state, state_transition_time=now, stage=position.stage, stage_entered_at=now,
                     stage_threshold=None, conditions=conditions)  # the threshold: the reconciler's first pass
    return ClusterDerivation(status=status, events=lifecycle_events(previous, status, None, False))


def _passes_readiness_gate(
    position: StagePosition, observation: Observation, is_control_plane_available: bool, are_workers_ready: bool
) -> bool:
    """Gate G (§5.7): control plane up, every node set READY, and the cluster version rolled out."""
    hc = observation.hosted_cluster
    return (
        not position.is_unknown and is_control_plane_available and are_workers_ready and hc is not None
        and hc.signal(CLUSTER_VERSION_SUCCEEDING).is_true
    )


def _is_teardown_complete(observation: Observation, context: ClusterContext) -> bool:
    """§10 step 4: the HostedCluster is gone (a readable answer, never a failed read), no
    NodePool of the cluster remains, and nothing on the OSAC side holds the finalizer."""
    if not observation.is_readable or observation.pool_count or context.cleanup_pending:
        return False
    hc = observation.hosted_cluster
    return hc is None or hc.signal(HOSTED_CLUSTER_DESTROYED).is_true


def _keep_or_now(is_unchanged: bool, previous: datetime | None, now: datetime) -> datetime:
    return previous if is_unchanged and previous is not None else now
