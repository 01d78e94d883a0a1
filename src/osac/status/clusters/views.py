"""Frozen views of a cluster's status, and the result of one derivation.

Field names are the proto JSON names of ``ClusterStatus`` and ``ClusterNodeSet`` so that a view
converts to and from the stored message by name (``cluster_proto``). Enum-valued fields are plain
ints: a number written by a newer version passes through untouched (cluster-status.md §19).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from datetime import datetime, timedelta
from types import MappingProxyType
from typing import Any

from osac.status.conditions.views import ConditionView, LifecycleEventView, condition


@dataclass(frozen=True, slots=True)
class NodeSetStatusView:
    """One entry of ``status.node_sets`` (§8.1); ``state`` is a ``ClusterNodeSetState`` number."""

    host_type: str = ""
    size: int = 0
    desired_replicas: int = 0
    current_replicas: int = 0
    ready_replicas: int = 0
    state: int = 0
    fabric_interface: str = ""
    first_ready_time: datetime | None = None

    @property
    def has_been_ready(self) -> bool:
        """*Ever ready* of §8.3: the node set once reached READY, so losing a signal now is a
        loss of information rather than progress not yet made."""
        return self.first_ready_time is not None


@dataclass(frozen=True)
class ClusterStatusView:
    """The part of ``ClusterStatus`` the derivation owns; the empty view is the status on create.

    ``node_sets`` is read-only and sorted by key, so equal statuses compare and print equal."""

    state: int = 0
    state_transition_time: datetime | None = None
    stage: str = ""
    stage_entered_at: datetime | None = None
    #: The stall threshold in force for ``stage`` while a stall timer runs (§9.1), else None.
    stage_threshold: timedelta | None = None
    conditions: tuple[ConditionView, ...] = ()
    node_sets: Mapping[str, NodeSetStatusView] = field(default_factory=lambda: MappingProxyType({}))
    api_url: str = ""
    console_url: str = ""
    api_endpoint: str = ""
    ingress_endpoint: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.node_sets, MappingProxyType) or list(self.node_sets) != sorted(self.node_sets):
            frozen = MappingProxyType({key: self.node_sets[key] for key in sorted(self.node_sets)})
            object.__setattr__(self, "node_sets", frozen)
        if not isinstance(self.conditions, tuple):
            object.__setattr__(self, "conditions", tuple(self.conditions))

    def condition(self, condition_type: int) -> ConditionView | None:
        """The condition of one type, or None."""
        return condition(self.conditions, condition_type)

    def __reduce__(self) -> tuple[type[ClusterStatusView], tuple[Any, ...]]:
        # A read-only mapping cannot be pickled; rebuild from a plain copy (copy, deepcopy, pickle).
        values = tuple(
            dict(self.node_sets) if item.name == "node_sets" else getattr(self, item.name) for item in fields(self)
        )
        return (ClusterStatusView, values)


@dataclass(frozen=True)
class ClusterDerivation:
    """What one derivation hands the reconciler.

    ``events`` are already guarded against the previous status (§13), so the reconciler records
    exactly these with the status write. ``requeue_after`` is set only when time alone will change
    the status (a stall threshold ahead). ``teardown_complete`` means the finalizer may go in the
    same transaction as this status write. ``unattributed_node_pools`` counts NodePools of the
    cluster without a node-set label, which were ignored (§8.2), for the metric and a warning."""

    status: ClusterStatusView
    events: tuple[LifecycleEventView, ...] = ()
    requeue_after: timedelta | None = None
    teardown_complete: bool = False
    unattributed_node_pools: int = 0
