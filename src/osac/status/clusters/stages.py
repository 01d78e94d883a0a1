"""Lifecycle state transitions (§3) and where a cluster stands in its track (§7, §9.2).

The stage is read from the furthest-advanced signal that is definitely True. An Unknown (or
absent) signal never moves the stage: when the signal that established the current stage turns
Unknown the stage is kept and flagged unknown, while a definite False regresses it. Teardown only
moves forward.
"""

from __future__ import annotations

from dataclasses import dataclass

from osac.status.clusters.inputs import ClusterContext
from osac.status.clusters.node_sets import NodeSets
from osac.status.clusters.signals import (
    CLOUD_RESOURCES_DESTROYED,
    HC_AVAILABLE,
    HOSTED_CLUSTER_DESTROYED,
    INFRASTRUCTURE_READY,
    KUBE_API_SERVER_AVAILABLE,
    HostedClusterSignals,
    Observation,
    Signal,
)
from osac.status.clusters.terms import (
    CONTROL_PLANE_STARTING,
    DESTROYING_CLOUD_RESOURCES,
    DESTROYING_CONTROL_PLANE,
    PREPARING_INFRASTRUCTURE,
    PROVISIONING_STAGES,
    SCALING,
    STATE_DELETE_FAILED,
    STATE_DELETING,
    STATE_FAILED,
    STATE_PROGRESSING,
    STATE_READY,
    STATE_UNSPECIFIED,
    TEARDOWN_STAGES,
    TEARDOWN_STATES,
    WORKERS_JOINING,
    stage_rank,
)


@dataclass(frozen=True)
class StagePosition:
    """The stage to store and, when the signals cannot tell, what is missing (§9.2). An unknown
    position keeps the last known stage, so its age and the stall clock are not reset."""

    stage: str
    missing: str = ""

    @property
    def is_unknown(self) -> bool:
        return bool(self.missing)


def next_state(previous_state: int, context: ClusterContext) -> int:
    """The lifecycle state after the deletion and failure triggers of §3 (the readiness gate is
    applied later, once conditions are known). Triggers chain until none applies, so the result
    is the same whether the reconciler ran once or many times in between."""
    state = previous_state
    while True:
        following = _transition(state, context)
        if following == state:
            return state
        state = following


def _transition(state: int, context: ClusterContext) -> int:
    if state == STATE_UNSPECIFIED:
        return STATE_PROGRESSING
    if state not in TEARDOWN_STATES and context.deletion_requested:
        return STATE_DELETING
    if state == STATE_DELETE_FAILED and context.failure_in("teardown") is None:
        return STATE_DELETING
    if state == STATE_DELETING and context.failure_in("teardown") is not None:
        return STATE_DELETE_FAILED
    if state == STATE_PROGRESSING and context.failure_in("provision") is not None:
        return STATE_FAILED
    return state


def held_stage(state: int, previous_stage: str) -> str:
    """The previous stage as far as ``state`` can hold it: provisioning tokens while provisioning
    (or failed), ``Scaling`` when READY, teardown tokens in teardown, ``""`` otherwise. Judging
    from a token the state cannot carry (a stage from a newer version, or the last provisioning
    stage on the way into teardown) would make the next derivation disagree with this one."""
    if state in (STATE_PROGRESSING, STATE_FAILED):
        allowed: frozenset[str] = PROVISIONING_STAGES
    elif state == STATE_READY:
        allowed = frozenset({SCALING})
    elif state in TEARDOWN_STATES:
        allowed = TEARDOWN_STAGES
    else:
        allowed = frozenset()
    return previous_stage if previous_stage in allowed else ""


def is_hosted_cluster_absence_expected(state: int, previous_stage: str) -> bool:
    """Before the control plane starts the HostedCluster may not exist yet; afterwards (or once
    READY) its absence is a lost signal, not a fact about the cluster."""
    return state in (STATE_PROGRESSING, STATE_FAILED) and stage_rank(held_stage(state, previous_stage)) <= 1


def control_plane_signal(observation: Observation) -> Signal:
    """KubeAPIServerAvailable AND Available as one signal: a definite False beats Unknown."""
    hc = observation.hosted_cluster
    if not observation.is_readable or hc is None:
        return Signal.UNKNOWN
    parts = (hc.signal(KUBE_API_SERVER_AVAILABLE), hc.signal(HC_AVAILABLE))
    if all(part.is_true for part in parts):
        return Signal.TRUE
    if any(part.is_false for part in parts):
        return Signal.FALSE
    return Signal.UNKNOWN


def locate_stage(
    state: int,
    previous_stage: str,
    observation: Observation,
    node_sets: NodeSets,
    context: ClusterContext,
) -> StagePosition:
    previous_stage = held_stage(state, previous_stage)
    if state == STATE_PROGRESSING:
        return _provisioning(previous_stage, observation, node_sets)
    if state == STATE_READY:
        return _ready(previous_stage, observation, node_sets)
    if state == STATE_DELETING:
        return _teardown(previous_stage, observation, context)
    if state == STATE_DELETE_FAILED:
        return StagePosition(_teardown_floor(previous_stage))
    # FAILED keeps the stage where provisioning failed.
    return StagePosition(previous_stage or PREPARING_INFRASTRUCTURE)


def _provisioning(previous_stage: str, observation: Observation, node_sets: NodeSets) -> StagePosition:
    previous_rank = stage_rank(previous_stage)
    kept = previous_stage or PREPARING_INFRASTRUCTURE
    if not observation.is_readable:
        return StagePosition(kept, f"the observation is unreadable ({observation.error})")
    hc = observation.hosted_cluster
    if hc is None:
        if previous_rank <= 1:
            return StagePosition(PREPARING_INFRASTRUCTURE)
        return StagePosition(kept, "the HostedCluster is not found")
    control_plane = control_plane_signal(observation)
    infrastructure = hc.signal(INFRASTRUCTURE_READY)
    if control_plane is Signal.TRUE:
        candidate = WORKERS_JOINING
    elif infrastructure.is_true:
        candidate = CONTROL_PLANE_STARTING
    elif infrastructure.is_false or previous_rank <= 1:
        candidate = PREPARING_INFRASTRUCTURE
    else:
        return StagePosition(kept, infrastructure.describe())
    if previous_stage == WORKERS_JOINING and candidate != WORKERS_JOINING and control_plane is Signal.UNKNOWN:
        return StagePosition(kept, _control_plane_unknowns(hc))
    if candidate == WORKERS_JOINING and node_sets.unknown:
        return StagePosition(kept, _unknown_node_sets(node_sets))
    return StagePosition(candidate)


def _ready(previous_stage: str, observation: Observation, node_sets: NodeSets) -> StagePosition:
    kept = previous_stage
    if not observation.is_readable:
        return StagePosition(kept, f"the observation is unreadable ({observation.error})")
    if observation.hosted_cluster is None:
        return StagePosition(kept, "the HostedCluster is not found")
    if node_sets.unknown:
        return StagePosition(kept, _unknown_node_sets(node_sets))
    return StagePosition(SCALING if node_sets.are_changing else "")


def _teardown(previous_stage: str, observation: Observation, context: ClusterContext) -> StagePosition:
    floor = _teardown_floor(previous_stage)
    if not observation.is_readable:
        return StagePosition(floor, f"the observation is unreadable ({observation.error})")
    hc = observation.hosted_cluster
    is_cloud_gone = hc is not None and hc.signal(CLOUD_RESOURCES_DESTROYED).is_true
    is_control_plane_going = hc is None or hc.signal(HOSTED_CLUSTER_DESTROYED).is_true
    remaining = observation.pool_count > 0 or bool(context.cleanup_pending)
    if is_cloud_gone or (is_control_plane_going and remaining):
        candidate = DESTROYING_CONTROL_PLANE
    else:
        candidate = DESTROYING_CLOUD_RESOURCES
    return StagePosition(max(floor, candidate, key=stage_rank))


def _teardown_floor(previous_stage: str) -> str:
    """Entering teardown starts at ``DestroyingCloudResources``; a later teardown stage is kept."""
    return previous_stage or DESTROYING_CLOUD_RESOURCES


def _control_plane_unknowns(hc: HostedClusterSignals) -> str:
    signals = (hc.signal(KUBE_API_SERVER_AVAILABLE), hc.signal(HC_AVAILABLE))
    return ", ".join(signal.describe() for signal in signals if signal.is_unknown)


def _unknown_node_sets(node_sets: NodeSets) -> str:
    return "; ".join(f"node set {item.key} is unknown: {item.note}" for item in node_sets.unknown)
