"""The PROGRESSING condition: stage, stall and stage-unknown (cluster-status.md §5.8, §9.1, §9.2).

A stall is measured from ``stage_entered_at``, not from the last change of any signal: rising
node counts inside a stage are progress for people, yet a stage that never ends is still stuck.
Because only the clock moves a cluster into ``Stalled``, the derivation reports how long until
that happens (``requeue_after``) so the reconciler wakes up on time without an infrastructure
change.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from osac.status.clusters.inputs import ClusterContext
from osac.status.clusters.node_sets import NodeSets
from osac.status.clusters.signals import (
    CLOUD_RESOURCES_DESTROYED,
    CLUSTER_VERSION_SUCCEEDING,
    HC_AVAILABLE,
    HOSTED_CLUSTER_DESTROYED,
    INFRASTRUCTURE_READY,
    KUBE_API_SERVER_AVAILABLE,
    Observation,
)
from osac.status.clusters.stages import StagePosition
from osac.status.clusters.terms import (
    AS_EXPECTED,
    CONTROL_PLANE_STARTING,
    DESTROYING_CLOUD_RESOURCES,
    DESTROYING_CONTROL_PLANE,
    NODE_SET_STAGES,
    PREPARING_INFRASTRUCTURE,
    PROGRESSING,
    SCALING,
    STAGE_UNKNOWN,
    STALLED,
    STATE_DELETE_FAILED,
    STATE_DELETING,
    STATE_FAILED,
    STATE_PROGRESSING,
    STATE_READY,
    WORKERS_JOINING,
)
from osac.status.clusters.thresholds import NEVER, StallThresholds
from osac.status.conditions.views import FALSE, TRUE, ConditionView


@dataclass(frozen=True)
class StallCheck:
    """A stage's age against its threshold at ``now``."""

    stage: str
    age: timedelta
    threshold: timedelta

    @property
    def is_stalled(self) -> bool:
        return self.age >= self.threshold

    @property
    def requeue_after(self) -> timedelta | None:
        """Time until the stall begins; None once stalled or for a stage without a threshold."""
        if self.is_stalled or self.threshold == NEVER:
            return None
        return max(timedelta(0), self.threshold - self.age)


def is_stall_watched(state: int, position: StagePosition) -> bool:
    """Stalls are judged only where PROGRESSING would carry the stage token; never while the
    stage is unknown (its age is not evidence of anything then)."""
    if position.is_unknown or not position.stage:
        return False
    return state in (STATE_PROGRESSING, STATE_DELETING) or (state == STATE_READY and position.stage == SCALING)


def check_stall(
    stage: str, entered_at: datetime, now: datetime, thresholds: StallThresholds, node_sets: NodeSets
) -> StallCheck:
    host_types = sorted({item.view.host_type for item in node_sets.not_ready})
    return StallCheck(stage, now - entered_at, thresholds.for_stage(stage, host_types))


def progressing(
    state: int,
    is_new_state: bool,
    position: StagePosition,
    stall: StallCheck | None,
    stage_text: StageText,
    failure_message: str,
    previous: ConditionView | None,
) -> ConditionView:
    """§5.8 with the overrides of §7: StageUnknown, then Stalled, then the stage itself."""
    if state in (STATE_FAILED, STATE_DELETE_FAILED):
        return ConditionView(PROGRESSING, FALSE, "Failed", failure_message)
    is_in_progress = state != STATE_READY or position.stage == SCALING
    if position.is_unknown:
        # The status is left alone: an unknown signal says nothing about whether work goes on.
        status = previous.status if previous is not None and not is_new_state else TRUE if is_in_progress else FALSE
        last = position.stage or "none"
        return ConditionView(PROGRESSING, status, STAGE_UNKNOWN,
                             f"Stage unknown: {position.missing}; last known stage: {last}")
    if stall is not None and stall.is_stalled:
        message = f"{stall.stage} for {format_age(stall.age)} (threshold {format_duration(stall.threshold)})"
        tail = stage_text.lagging or stage_text.progress
        return ConditionView(PROGRESSING, TRUE, STALLED, f"{message}: {tail}" if tail else message)
    if is_in_progress:
        return ConditionView(PROGRESSING, TRUE, position.stage, stage_text.message)
    return ConditionView(PROGRESSING, FALSE, AS_EXPECTED)


@dataclass(frozen=True)
class StageText:
    """Human text for a stage: ``headline: progress``; ``lagging`` names what a stall waits for
    when node sets decide the stage (``gpu 2/3``)."""

    headline: str
    progress: str = ""
    lagging: str = ""

    @property
    def message(self) -> str:
        return f"{self.headline}: {self.progress}" if self.progress else self.headline


def describe_stage(
    stage: str, observation: Observation, node_sets: NodeSets, context: ClusterContext, are_workers_ready: bool
) -> StageText:
    hc = observation.hosted_cluster
    if stage == PREPARING_INFRASTRUCTURE:
        if hc is None:
            return StageText("Preparing infrastructure", "the HostedCluster is not created yet")
        infrastructure = hc.signal(INFRASTRUCTURE_READY)
        return StageText("Preparing infrastructure", "" if infrastructure.is_true else infrastructure.describe())
    if stage == CONTROL_PLANE_STARTING:
        waiting = [] if hc is None else [
            signal.describe() for signal in (hc.signal(KUBE_API_SERVER_AVAILABLE), hc.signal(HC_AVAILABLE))
            if not signal.is_true
        ]
        return StageText("Control plane starting", ", ".join(waiting))
    if stage == WORKERS_JOINING and are_workers_ready:
        rollout = "" if hc is None else hc.signal(CLUSTER_VERSION_SUCCEEDING).describe()
        return StageText("Workers ready; waiting for cluster version rollout", rollout)
    if stage in NODE_SET_STAGES:
        headline = "Workers joining" if stage == WORKERS_JOINING else "Scaling"
        return StageText(headline, node_sets.progress(), node_sets.lagging())
    if stage in (DESTROYING_CLOUD_RESOURCES, DESTROYING_CONTROL_PLANE):
        return _teardown_text(stage, observation, context)
    return StageText(stage)


def _teardown_text(stage: str, observation: Observation, context: ClusterContext) -> StageText:
    hc = observation.hosted_cluster
    parts: list[str] = []
    if stage == DESTROYING_CLOUD_RESOURCES:
        if hc is not None and not hc.is_deleting:
            parts.append("the HostedCluster deletion has not started")
        elif hc is not None and not hc.signal(CLOUD_RESOURCES_DESTROYED).is_true:
            parts.append(hc.signal(CLOUD_RESOURCES_DESTROYED).describe())
        headline = "Destroying cloud resources"
    else:
        if hc is None:
            parts.append("the HostedCluster is gone")
        elif not hc.signal(HOSTED_CLUSTER_DESTROYED).is_true:
            parts.append(hc.signal(HOSTED_CLUSTER_DESTROYED).describe())
        headline = "Destroying control plane"
    if observation.is_readable and observation.pool_count:
        parts.append(f"{observation.pool_count} NodePool{'s' if observation.pool_count > 1 else ''} remaining")
    if context.cleanup_pending:
        parts.append(f"waiting for cleanup of {', '.join(context.cleanup_pending)}")
    return StageText(headline, "; ".join(parts))


def format_duration(value: timedelta) -> str:
    """``20m``, ``1h30m``, ``90s`` → ``1m30s``: exact, for configured thresholds."""
    seconds = int(value.total_seconds())
    if seconds <= 0:
        return "0s"
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return "".join(f"{n}{unit}" for n, unit in ((hours, "h"), (minutes, "m"), (secs, "s")) if n)


def format_age(value: timedelta) -> str:
    """An age in whole minutes once past the first minute (``23m``, ``3h5m``), so a stalled
    cluster's message changes at most once a minute rather than on every reconcile."""
    seconds = int(value.total_seconds())
    if seconds < 60:
        return format_duration(value)
    return format_duration(timedelta(seconds=seconds - seconds % 60))
