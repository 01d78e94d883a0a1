"""The vocabulary of cluster status: enum numbers, stage tokens with their ranks, reason tokens.

Numbers are read from the generated enums so the derivation and the API cannot drift apart, and
kept as plain ints because the enums are open (cluster-status.md §19): a number this version does
not know is carried, never mapped to UNSPECIFIED.
"""

from __future__ import annotations

from typing import Final

from osac.api.private.v1 import cluster_type_pb2 as _pb

STATE_UNSPECIFIED: Final[int] = _pb.CLUSTER_STATE_UNSPECIFIED
STATE_PROGRESSING: Final[int] = _pb.CLUSTER_STATE_PROGRESSING
STATE_READY: Final[int] = _pb.CLUSTER_STATE_READY
STATE_FAILED: Final[int] = _pb.CLUSTER_STATE_FAILED
STATE_DELETING: Final[int] = _pb.CLUSTER_STATE_DELETING
STATE_DELETE_FAILED: Final[int] = _pb.CLUSTER_STATE_DELETE_FAILED
KNOWN_STATES: Final = frozenset(
    {STATE_UNSPECIFIED, STATE_PROGRESSING, STATE_READY, STATE_FAILED, STATE_DELETING, STATE_DELETE_FAILED}
)
TEARDOWN_STATES: Final = frozenset({STATE_DELETING, STATE_DELETE_FAILED})

PROGRESSING: Final[int] = _pb.CLUSTER_CONDITION_TYPE_PROGRESSING
AVAILABLE: Final[int] = _pb.CLUSTER_CONDITION_TYPE_AVAILABLE
FAILED: Final[int] = _pb.CLUSTER_CONDITION_TYPE_FAILED
DEGRADED: Final[int] = _pb.CLUSTER_CONDITION_TYPE_DEGRADED
CONTROL_PLANE_AVAILABLE: Final[int] = _pb.CLUSTER_CONDITION_TYPE_CONTROL_PLANE_AVAILABLE
WORKERS_READY: Final[int] = _pb.CLUSTER_CONDITION_TYPE_WORKERS_READY

NODE_SET_UNSPECIFIED: Final[int] = _pb.CLUSTER_NODE_SET_STATE_UNSPECIFIED
NODE_SET_PROVISIONING: Final[int] = _pb.CLUSTER_NODE_SET_STATE_PROVISIONING
NODE_SET_READY: Final[int] = _pb.CLUSTER_NODE_SET_STATE_READY
NODE_SET_SCALING: Final[int] = _pb.CLUSTER_NODE_SET_STATE_SCALING
NODE_SET_DEGRADED: Final[int] = _pb.CLUSTER_NODE_SET_STATE_DEGRADED

PREPARING_INFRASTRUCTURE: Final = "PreparingInfrastructure"
CONTROL_PLANE_STARTING: Final = "ControlPlaneStarting"
WORKERS_JOINING: Final = "WorkersJoining"
SCALING: Final = "Scaling"
DESTROYING_CLOUD_RESOURCES: Final = "DestroyingCloudResources"
DESTROYING_CONTROL_PLANE: Final = "DestroyingControlPlane"

#: Every stage token, in track order; ``Stalled`` and ``StageUnknown`` are reasons, never stages.
STAGES: Final = (
    PREPARING_INFRASTRUCTURE,
    CONTROL_PLANE_STARTING,
    WORKERS_JOINING,
    SCALING,
    DESTROYING_CLOUD_RESOURCES,
    DESTROYING_CONTROL_PLANE,
)
#: Stages whose stall threshold a host type may override (§9.1): those measured over node sets.
NODE_SET_STAGES: Final = frozenset({WORKERS_JOINING, SCALING})

_RANKS: Final = {
    PREPARING_INFRASTRUCTURE: 1,
    CONTROL_PLANE_STARTING: 2,
    WORKERS_JOINING: 3,
    DESTROYING_CLOUD_RESOURCES: 10,
    DESTROYING_CONTROL_PLANE: 11,
}
PROVISIONING_STAGES: Final = frozenset({PREPARING_INFRASTRUCTURE, CONTROL_PLANE_STARTING, WORKERS_JOINING})
TEARDOWN_STAGES: Final = frozenset({DESTROYING_CLOUD_RESOURCES, DESTROYING_CONTROL_PLANE})

# Reasons shared by several conditions.
AS_EXPECTED: Final = "AsExpected"
STAGE_UNKNOWN: Final = "StageUnknown"
STALLED: Final = "Stalled"
DELETING: Final = "Deleting"
NODE_SET_DEGRADED_PREFIX: Final = "NodeSetDegraded:"


def stage_rank(stage: str) -> int:
    """The rank of §7 (0 for ``""``, ``Scaling`` and tokens a newer version may have added)."""
    return _RANKS.get(stage, 0)
