"""What the cluster faults of simulator.md §5 do to a simulated cluster.

A fault record targets kind ``cluster`` and a cluster id (or ``*``). Three kinds of effect:

- **Holds** (``stall``, ``teardown_fail``, ``node_pool_failure`` with mode ``join``): a step that
  falls due while the fault is in force does not happen; it stays pending, naming the fault,
  until the fault is cleared (deleted: the step happens at the time the simulator notices,
  normally the next read; expired: at the expiry). A fault created after a step fell due does
  not undo it.
- **Render-time** (``hc_degraded``, ``signal_override``, ``conditions_absent``, ``vanish``,
  ``node_pool_failure`` with mode ``unhealthy``, ``unreadable``): the observation is altered
  while the fault is in force; the plan underneath goes on, and clearing shows it again.
- **Call errors** (``provision_fail`` on apply, ``teardown_fail`` on delete once halted).

``stall`` takes a stage token of ``cluster-status.md`` §7 and holds the step that leaves it:

===========================  =================================================================
``PreparingInfrastructure``  InfrastructureReady
``ControlPlaneStarting``     Available (the step that makes the control plane available)
``WorkersJoining``           ClusterVersionSucceeding
``Scaling``                  a NodePool becoming ready, or a deleted one disappearing, once the
                             cluster has been ready
``DestroyingCloudResources``  CloudResourcesDestroyed
``DestroyingControlPlane``    HostedClusterDestroyed
===========================  =================================================================

``teardown_fail`` halts the teardown at its ``stage`` (default ``DestroyingCloudResources``; only
the two teardown stages apply). Tokens outside this table never match.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from osac.providers.interfaces import ProviderError, TerminalProviderError, TransientProviderError
from osac.providers.simulator.clusters.world import (
    HC_AVAILABLE,
    HC_INFRASTRUCTURE_READY,
    HC_VERSION_SUCCEEDING,
    MACHINE_JOINED,
    POOL_GONE,
    POOL_READY,
    TEARDOWN_CLOUD_RESOURCES_DESTROYED,
    TEARDOWN_CONTROL_PLANE_DESTROYED,
    Step,
    World,
)
from osac.providers.simulator.runtime.faults import (
    ANY,
    DEFAULT_FAILURE_REASON,
    STALL_STAGES,
    FaultRecord,
    InvalidFault,
    NewFault,
    validate_fault,
)

TARGET_KIND = "cluster"

SCALING = "Scaling"
DESTROYING_CLOUD_RESOURCES = "DestroyingCloudResources"
DESTROYING_CONTROL_PLANE = "DestroyingControlPlane"

#: Stage token -> the steps that leave the stage.
STAGE_EXITS: Mapping[str, frozenset[str]] = {
    "PreparingInfrastructure": frozenset({HC_INFRASTRUCTURE_READY}),
    "ControlPlaneStarting": frozenset({HC_AVAILABLE}),
    "WorkersJoining": frozenset({HC_VERSION_SUCCEEDING}),
    SCALING: frozenset({POOL_READY, POOL_GONE}),
    DESTROYING_CLOUD_RESOURCES: frozenset({TEARDOWN_CLOUD_RESOURCES_DESTROYED}),
    DESTROYING_CONTROL_PLANE: frozenset({TEARDOWN_CONTROL_PLANE_DESTROYED}),
}
TEARDOWN_STAGES = (DESTROYING_CLOUD_RESOURCES, DESTROYING_CONTROL_PLANE)

#: Faults that hold steps, and the faults that only change what is observed.
HOLDING_FAULTS = ("stall", "teardown_fail", "node_pool_failure")
RENDER_FAULTS = ("hc_degraded", "signal_override", "conditions_absent", "vanish", "unreadable", "node_pool_failure")
CLUSTER_FAULTS = ("stall", "node_pool_failure", "hc_degraded", "signal_override", "conditions_absent", "vanish",
                  "unreadable", "provision_fail", "teardown_fail")

JOIN = "join"
UNHEALTHY = "unhealthy"

#: The label of the §5 shortcut (read only when ``simulator.label_faults`` is true).
FAULT_LABEL = "sim.osac.openshift.io/fault"


def for_cluster(records: Iterable[FaultRecord], cluster_id: str) -> list[FaultRecord]:
    """The cluster faults aimed at this cluster (or at every cluster), oldest first."""
    return [
        r for r in records
        if r.target_kind == TARGET_KIND and r.fault in CLUSTER_FAULTS and r.target_id in (cluster_id, ANY)
    ]


def in_force(record: FaultRecord, at: datetime) -> bool:
    return record.created_at <= at and (record.expires_at is None or record.expires_at > at)


def active(records: Iterable[FaultRecord], at: datetime, *kinds: str) -> list[FaultRecord]:
    return [r for r in records if r.fault in kinds and in_force(r, at)]


def join_mode(record: FaultRecord) -> str:
    return str(record.params.get("mode") or JOIN)


def affected_ordinals(record: FaultRecord, replicas: int) -> range:
    """The ``count`` highest ordinals of a pool of ``replicas`` that a ``node_pool_failure`` hits."""
    count = int(record.params.get("count", 0))
    return range(max(replicas - count, 0), replicas)


def holds(record: FaultRecord, step: Step, world: World) -> bool:
    """Whether ``record`` keeps ``step`` from happening."""
    if record.fault == "stall":
        stage = str(record.params.get("stage", ""))
        if step.kind not in STAGE_EXITS.get(stage, ()):
            return False
        return stage != SCALING or world.version_succeeding_at is not None
    if record.fault == "teardown_fail":
        stage = str(record.params.get("stage") or DESTROYING_CLOUD_RESOURCES)
        return stage in TEARDOWN_STAGES and step.kind in STAGE_EXITS[stage]
    if record.fault == "node_pool_failure" and join_mode(record) == JOIN and step.kind == MACHINE_JOINED:
        pool = world.pools.get(step.node_set_key)
        if pool is None or record.params.get("node_set") != step.node_set_key:
            return False
        return step.ordinal in affected_ordinals(record, pool.replicas)
    return False


def holding_fault(step: Step, world: World, records: Sequence[FaultRecord], at: datetime) -> FaultRecord | None:
    """The oldest fault in force at ``at`` that holds ``step``."""
    for record in active(records, at, *HOLDING_FAULTS):
        if holds(record, step, world):
            return record
    return None


def failure_error(record: FaultRecord, what: str, cluster_id: str) -> ProviderError:
    """The error a ``provision_fail`` / ``teardown_fail`` fault makes a call raise."""
    reason = str(record.params.get("reason") or DEFAULT_FAILURE_REASON)
    message = f"simulated {what} failure of cluster {cluster_id}"
    if record.params.get("terminal"):
        return TerminalProviderError(reason, message)
    return TransientProviderError(reason, message)


# -- the label shortcut ---------------------------------------------------------------------------

_STAGE_TOKENS = tuple(STAGE_EXITS)
assert set(_STAGE_TOKENS) == set(STALL_STAGES), "the stall fault's stage choices are the stages it can hold"


def fault_from_label(value: str, cluster_id: str, *, now: datetime) -> NewFault:
    """The fault record a ``sim.osac.openshift.io/fault`` label value asks for (simulator.md §5):

    ==============================  ===================================================
    ``stall.<Stage>``               ``stall`` with that stage token
    ``unreadable``                  ``unreadable``
    ``degraded``                    ``hc_degraded``
    ``provision-fail``              ``provision_fail``, terminal
    ``teardown-fail``               ``teardown_fail``, terminal, at DestroyingCloudResources
    ``nodes-fail.<key>.<count>``    ``node_pool_failure``: ``count`` machines of node set
                                    ``key`` never join
    ==============================  ===================================================

    The caller stores it (``FaultStore.create``) when ``simulator.label_faults`` is true.

    :raises InvalidFault: any other value (field ``labels``), naming the accepted forms.
    """
    text = value.strip()
    params: dict[str, Any]
    if text.startswith("stall."):
        stage = text.removeprefix("stall.")
        if stage not in STAGE_EXITS:
            raise InvalidFault("labels", f"'{text}': unknown stage '{stage}'; expected one of {', '.join(_STAGE_TOKENS)}")
        fault, params = "stall", {"stage": stage}
    elif text == "unreadable":
        fault, params = "unreadable", {}
    elif text == "degraded":
        fault, params = "hc_degraded", {"message": f"degraded by label {FAULT_LABEL}"}
    elif text == "provision-fail":
        fault, params = "provision_fail", {"terminal": True}
    elif text == "teardown-fail":
        fault, params = "teardown_fail", {"terminal": True, "stage": DESTROYING_CLOUD_RESOURCES}
    elif text.startswith("nodes-fail."):
        key, _, count = text.removeprefix("nodes-fail.").rpartition(".")
        if not key or not count.isdigit() or int(count) < 1:
            raise InvalidFault("labels", f"'{text}': expected nodes-fail.<node set key>.<count of at least 1>")
        fault, params = "node_pool_failure", {"node_set": key, "count": int(count), "mode": JOIN}
    else:
        raise InvalidFault(
            "labels",
            f"'{text}' is not a cluster fault; expected stall.<Stage>, unreadable, degraded, provision-fail, "
            "teardown-fail or nodes-fail.<key>.<count>")
    return validate_fault(fault, TARGET_KIND, cluster_id, params, now=now)
