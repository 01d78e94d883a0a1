"""The health conditions of a cluster: CONTROL_PLANE_AVAILABLE, WORKERS_READY, DEGRADED, FAILED
and the AVAILABLE rollup (cluster-status.md §5.2–§5.6).

Each function is one table of the spec, rows in order, first match wins. None of them can
produce TRUE from an Unknown input: Unknown becomes FALSE with reason ``StageUnknown``.
"""

from __future__ import annotations

from osac.status.clusters.inputs import ClusterContext
from osac.status.clusters.node_sets import NodeSets
from osac.status.clusters.signals import HC_AVAILABLE, HC_DEGRADED, KUBE_API_SERVER_AVAILABLE, Observation
from osac.status.clusters.terms import (
    AS_EXPECTED,
    AVAILABLE,
    CONTROL_PLANE_AVAILABLE,
    DEGRADED,
    DELETING,
    FAILED,
    NODE_SET_DEGRADED_PREFIX,
    STAGE_UNKNOWN,
    STATE_DELETE_FAILED,
    STATE_DELETING,
    STATE_FAILED,
    STATE_PROGRESSING,
    STATE_READY,
    WORKERS_JOINING,
    WORKERS_READY,
    stage_rank,
)
from osac.status.conditions.views import FALSE, TRUE, ConditionView

PROVISIONING_FAILED = "ProvisioningFailed"
TEARDOWN_FAILED = "TeardownFailed"
CONTROL_PLANE_DEGRADED = "ControlPlaneDegraded"
NOT_YET_AVAILABLE = "NotYetAvailable"
WORKERS_DEGRADED = "WorkersDegraded"

DEFAULT_API_PORT = 6443


def api_address(host: str, port: int) -> str:
    """``host:port`` with the OpenShift default port; an IPv6 host is bracketed."""
    shown = f"[{host}]" if ":" in host and not host.startswith("[") else host
    return f"{shown}:{port or DEFAULT_API_PORT}"


def control_plane_available(observation: Observation, is_hc_absence_expected: bool) -> ConditionView:
    """§5.2: KubeAPIServerAvailable AND Available; the message names every signal not True."""
    if not observation.is_readable:
        return ConditionView(CONTROL_PLANE_AVAILABLE, FALSE, STAGE_UNKNOWN,
                             f"The observation is unreadable: {observation.error}")
    hc = observation.hosted_cluster
    if hc is None:
        if is_hc_absence_expected:
            return ConditionView(CONTROL_PLANE_AVAILABLE, FALSE, NOT_YET_AVAILABLE, "The HostedCluster is not created yet")
        return ConditionView(CONTROL_PLANE_AVAILABLE, FALSE, STAGE_UNKNOWN, "The HostedCluster is not found")
    signals = (hc.signal(KUBE_API_SERVER_AVAILABLE), hc.signal(HC_AVAILABLE))
    if all(signal.is_true for signal in signals):
        where = f" at {api_address(hc.endpoint_host, hc.endpoint_port)}" if hc.endpoint_host else ""
        return ConditionView(CONTROL_PLANE_AVAILABLE, TRUE, "Available", f"API server reachable{where}")
    failing = "; ".join(signal.describe() for signal in signals if not signal.is_true)
    if any(signal.is_false for signal in signals):
        return ConditionView(CONTROL_PLANE_AVAILABLE, FALSE, NOT_YET_AVAILABLE, failing)
    return ConditionView(CONTROL_PLANE_AVAILABLE, FALSE, STAGE_UNKNOWN, failing)


def workers_ready(
    state: int, stage: str, observation: Observation, is_hc_missing: bool, node_sets: NodeSets
) -> ConditionView:
    """§5.3: TRUE only when every requested node set is READY and no removed one still drains."""
    if not observation.is_readable:
        return ConditionView(WORKERS_READY, FALSE, STAGE_UNKNOWN, f"The observation is unreadable: {observation.error}")
    if is_hc_missing:
        return ConditionView(WORKERS_READY, FALSE, STAGE_UNKNOWN, "The HostedCluster is not found")
    if node_sets.unknown:
        message = "; ".join(f"Node set {item.key} is unknown: {item.note}" for item in node_sets.unknown)
        return ConditionView(WORKERS_READY, FALSE, STAGE_UNKNOWN, message)
    if node_sets.degraded:
        message = "; ".join(
            f"Node set {item.key} degraded ({item.view.current_replicas}/{item.view.size} available)"
            for item in node_sets.degraded
        )
        return ConditionView(WORKERS_READY, FALSE, WORKERS_DEGRADED, message)
    if node_sets.are_all_ready:
        return ConditionView(WORKERS_READY, TRUE, "Ready", f"Nodes ready: {node_sets.progress()}")
    if state == STATE_READY:
        return ConditionView(WORKERS_READY, FALSE, "Scaling", f"Scaling: {node_sets.progress()}")
    if stage_rank(stage) < stage_rank(WORKERS_JOINING):
        return ConditionView(WORKERS_READY, FALSE, "WaitingForControlPlane",
                             "Workers join once the control plane is available")
    return ConditionView(WORKERS_READY, FALSE, "WorkersJoining", f"Workers joining: {node_sets.progress()}")


def degraded(observation: Observation, is_hc_absence_expected: bool, node_sets: NodeSets) -> ConditionView:
    """§5.4: broken now, whatever the stage. A HostedCluster not created yet is not degraded."""
    details = "; ".join(
        f"{item.key}: {item.note or 'degraded'}" if item.is_known
        else f"{item.key}: degraded when last observed ({item.note})"
        for item in node_sets.degraded
    )
    hc = observation.hosted_cluster
    if not observation.is_readable:
        hc_value, hc_text = None, f"the observation is unreadable: {observation.error}"
    elif hc is None:
        hc_value = False if is_hc_absence_expected else None
        hc_text = "the HostedCluster is not found"
    else:
        signal = hc.signal(HC_DEGRADED)
        hc_value = True if signal.is_true else False if signal.is_false else None
        hc_text = signal.message or signal.describe()
    if hc_value is True:
        message = "; ".join(part for part in (hc_text, details) if part)
        return ConditionView(DEGRADED, TRUE, CONTROL_PLANE_DEGRADED, message)
    if node_sets.degraded:
        keys = ",".join(item.key for item in node_sets.degraded)
        return ConditionView(DEGRADED, TRUE, f"{NODE_SET_DEGRADED_PREFIX}{keys}", details)
    if hc_value is False:
        return ConditionView(DEGRADED, FALSE, AS_EXPECTED)
    return ConditionView(DEGRADED, FALSE, STAGE_UNKNOWN, f"Degradation unknown: {hc_text}")


def failed(state: int, context: ClusterContext, previous: ConditionView | None) -> ConditionView:
    """§5.5, keyed on the state the failure produced: FAILED only exists before the first READY
    and DELETE_FAILED only while the teardown failure is recorded, so the state already says
    which row applies. The provider's words are kept while the state lasts."""
    if state == STATE_FAILED:
        reason, failure, fallback = PROVISIONING_FAILED, context.failure_in("provision"), "Provisioning failed"
    elif state == STATE_DELETE_FAILED:
        reason, failure, fallback = TEARDOWN_FAILED, context.failure_in("teardown"), "Teardown failed"
    else:
        return ConditionView(FAILED, FALSE, AS_EXPECTED)
    if failure is not None:
        message = failure.describe() or fallback
    elif previous is not None and previous.reason == reason and previous.message:
        message = previous.message
    else:
        message = fallback
    return ConditionView(FAILED, TRUE, reason, message)


def deleting(condition_type: int) -> ConditionView:
    """Types 4–6 during teardown: health of a cluster being removed is not reported."""
    return ConditionView(condition_type, FALSE, DELETING, "The cluster is being deleted")


def available(
    state: int,
    failed_condition: ConditionView,
    progressing: ConditionView,
    control_plane: ConditionView,
    workers: ConditionView,
    degradation: ConditionView,
) -> ConditionView:
    """§5.6: the full-health rollup; its reason is the HEALTH cell."""
    if state == STATE_DELETING:
        return ConditionView(AVAILABLE, FALSE, DELETING, "The cluster is being deleted")
    if failed_condition.is_true:
        return ConditionView(AVAILABLE, FALSE, "Failed", failed_condition.message)
    if progressing.reason == STAGE_UNKNOWN:
        return ConditionView(AVAILABLE, FALSE, STAGE_UNKNOWN, progressing.message)
    if (state == STATE_READY and control_plane.is_true and workers.is_true
            and not degradation.is_true and degradation.reason == AS_EXPECTED):
        return ConditionView(AVAILABLE, TRUE, "Available", "Control plane available and all workers ready")
    if degradation.is_true:
        return ConditionView(AVAILABLE, FALSE, "Degraded", _degraded_summary(degradation))
    if state == STATE_PROGRESSING:
        return ConditionView(AVAILABLE, FALSE, "Provisioning", "The cluster is being provisioned")
    unknown = [c for c in (control_plane, workers, degradation) if c.reason == STAGE_UNKNOWN]
    if unknown:
        return ConditionView(AVAILABLE, FALSE, STAGE_UNKNOWN, unknown[0].message)
    if workers.reason == "Scaling":
        return ConditionView(AVAILABLE, FALSE, "Scaling", workers.message)
    if not control_plane.is_true:
        return ConditionView(AVAILABLE, FALSE, "ControlPlaneUnavailable", control_plane.message)
    return ConditionView(AVAILABLE, FALSE, "WorkersNotReady", workers.message)


def _degraded_summary(degradation: ConditionView) -> str:
    """``Node set gpu is degraded``, ``Control plane is degraded: <message>``."""
    if degradation.reason.startswith(NODE_SET_DEGRADED_PREFIX):
        keys = degradation.reason[len(NODE_SET_DEGRADED_PREFIX):].split(",")
        if len(keys) == 1:
            return f"Node set {keys[0]} is degraded"
        return f"Node sets {', '.join(keys)} are degraded"
    return f"Control plane is degraded: {degradation.message}" if degradation.message else "Control plane is degraded"
