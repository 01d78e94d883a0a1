"""Steps of a simulated cluster's plan, and the world they build (simulator.md §3.1, §6).

A plan is a list of steps, each one observable change with a due time. Steps that have happened
(``done``) are history: folding them in the order they happened (``version``) gives the
``World``, from which the observation is rendered and the next steps are planned. Pending steps
are the future and may still be moved, held or cancelled; done steps never change.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

PENDING = "pending"
DONE = "done"
CANCELLED = "cancelled"

# HostedCluster provisioning (rows 1-4 and 9 of §3.1) and spec updates.
HC_CREATED = "hc_created"
HC_UPDATED = "hc_updated"
HC_INFRASTRUCTURE_READY = "hc_infrastructure_ready"
HC_API_AVAILABLE = "hc_api_available"
HC_AVAILABLE = "hc_available"
HC_VERSION_SUCCEEDING = "hc_version_succeeding"
# NodePools (row 1 creation, row 8, resizing and removal).
POOL_CREATED = "pool_created"
POOL_RESIZED = "pool_resized"
POOL_READY = "pool_ready"
POOL_DELETING = "pool_deleting"
POOL_GONE = "pool_gone"
# Machines (rows 5-7 and removal).
MACHINE_STARTED = "machine_started"
MACHINE_INFRASTRUCTURE_READY = "machine_infrastructure_ready"
MACHINE_JOINED = "machine_joined"
MACHINE_REMOVED = "machine_removed"
# Teardown, in this order.
TEARDOWN_STARTED = "teardown_started"
TEARDOWN_CLOUD_RESOURCES_DESTROYED = "teardown_cloud_resources_destroyed"
TEARDOWN_NODE_POOLS_GONE = "teardown_node_pools_gone"
TEARDOWN_CONTROL_PLANE_DESTROYED = "teardown_control_plane_destroyed"
TEARDOWN_GONE = "teardown_gone"
TEARDOWN = (
    TEARDOWN_STARTED,
    TEARDOWN_CLOUD_RESOURCES_DESTROYED,
    TEARDOWN_NODE_POOLS_GONE,
    TEARDOWN_CONTROL_PLANE_DESTROYED,
    TEARDOWN_GONE,
)

POOL_STEPS = frozenset({POOL_CREATED, POOL_RESIZED, POOL_READY, POOL_DELETING, POOL_GONE})
MACHINE_STEPS = frozenset({MACHINE_STARTED, MACHINE_INFRASTRUCTURE_READY, MACHINE_JOINED, MACHINE_REMOVED})

#: ``node_set_key`` / ``ordinal`` of steps that concern the whole cluster or a whole pool.
NO_KEY = ""
NO_ORDINAL = -1


@dataclass(frozen=True)
class Step:
    """One change of the plan.

    ``due_at`` is None while the step waits for something outside time (a node's port). A due
    step that a fault holds keeps its ``due_at`` and names the fault in ``held_by`` (the fault
    kind) and ``held_fault`` (its id) until the fault is cleared. ``cause_seq`` is the step whose
    happening scheduled this one (None: an API call). ``version`` numbers done steps in the order
    they happened; change notices follow it."""

    seq: int
    kind: str
    due_at: datetime | None
    node_set_key: str = NO_KEY
    ordinal: int = NO_ORDINAL
    state: str = PENDING
    done_at: datetime | None = None
    cause_seq: int | None = None
    payload: Mapping[str, Any] = field(default_factory=dict)
    held_by: str = ""
    held_fault: str = ""
    version: int = 0

    @property
    def is_pending(self) -> bool:
        return self.state == PENDING

    @property
    def is_done(self) -> bool:
        return self.state == DONE

    @property
    def is_held(self) -> bool:
        return bool(self.held_by)


@dataclass
class Machine:
    """One machine of a NodePool; ``host`` is the bare-metal host, None for a virtual machine."""

    ordinal: int
    host: str | None
    started_at: datetime
    infrastructure_ready_at: datetime | None = None
    joined_at: datetime | None = None


@dataclass
class Pool:
    key: str
    created_at: datetime
    replicas: int
    machines: dict[int, Machine] = field(default_factory=dict)
    #: When the pool last became ready; None again after a resize or once deleting.
    ready_at: datetime | None = None
    ever_ready: bool = False
    #: ``up`` / ``down`` from a resize until the pool is ready again.
    scaling: str = ""
    deleting_at: datetime | None = None

    def extra_ordinals(self) -> list[int]:
        """Machines beyond the replica count (or all, while deleting): to be removed."""
        if self.deleting_at is not None:
            return sorted(self.machines)
        return sorted(o for o in self.machines if o >= self.replicas)

    def missing_ordinals(self) -> list[int]:
        """Ordinals below the replica count without a machine."""
        if self.deleting_at is not None:
            return []
        return [o for o in range(self.replicas) if o not in self.machines]

    def all_joined(self) -> bool:
        return all(o in self.machines and self.machines[o].joined_at is not None for o in range(self.replicas))


@dataclass
class World:
    """What has happened to one cluster: the fold of its done steps."""

    created_at: datetime | None = None
    updated_at: datetime | None = None
    infrastructure_ready_at: datetime | None = None
    api_available_at: datetime | None = None
    available_at: datetime | None = None
    version_succeeding_at: datetime | None = None
    teardown: dict[str, datetime] = field(default_factory=dict)
    pools: dict[str, Pool] = field(default_factory=dict)

    @property
    def exists(self) -> bool:
        """Whether the HostedCluster exists (created and not yet gone)."""
        return self.created_at is not None and TEARDOWN_GONE not in self.teardown

    @property
    def is_tearing_down(self) -> bool:
        return TEARDOWN_STARTED in self.teardown

    def apply(self, step: Step) -> None:
        """Fold one done step in."""
        when = step.done_at
        assert when is not None, f"step {step.seq} ({step.kind}) has not happened"
        if step.kind in _HC_FIELDS:
            setattr(self, _HC_FIELDS[step.kind], when)
        elif step.kind in TEARDOWN:
            self.teardown[step.kind] = when
            if step.kind == TEARDOWN_STARTED:
                for pool in self.pools.values():
                    if pool.deleting_at is None:
                        pool.deleting_at = when
                        pool.ready_at = None
            elif step.kind == TEARDOWN_NODE_POOLS_GONE:
                self.pools.clear()
        elif step.kind == POOL_CREATED:
            self.pools[step.node_set_key] = Pool(step.node_set_key, when, int(step.payload["replicas"]))
        elif step.kind in POOL_STEPS and step.node_set_key in self.pools:
            self._apply_pool(self.pools[step.node_set_key], step, when)
        elif step.kind in MACHINE_STEPS and step.node_set_key in self.pools:
            _apply_machine(self.pools[step.node_set_key], step, when)

    def _apply_pool(self, pool: Pool, step: Step, when: datetime) -> None:
        if step.kind == POOL_RESIZED:
            replicas = int(step.payload["replicas"])
            if replicas != pool.replicas:
                pool.scaling = "up" if replicas > pool.replicas else "down"
                pool.replicas = replicas
                pool.ready_at = None
        elif step.kind == POOL_READY:
            pool.ready_at = when
            pool.ever_ready = True
            pool.scaling = ""
        elif step.kind == POOL_DELETING:
            pool.deleting_at = when
            pool.ready_at = None
        elif step.kind == POOL_GONE:
            del self.pools[pool.key]


def _apply_machine(pool: Pool, step: Step, when: datetime) -> None:
    if step.kind == MACHINE_STARTED:
        host = step.payload.get("host")
        pool.machines[step.ordinal] = Machine(step.ordinal, str(host) if host else None, when)
        return
    machine = pool.machines.get(step.ordinal)
    if machine is None:
        return
    if step.kind == MACHINE_INFRASTRUCTURE_READY:
        machine.infrastructure_ready_at = when
    elif step.kind == MACHINE_JOINED:
        machine.joined_at = when
    elif step.kind == MACHINE_REMOVED:
        del pool.machines[step.ordinal]


_HC_FIELDS = {
    HC_CREATED: "created_at",
    HC_UPDATED: "updated_at",
    HC_INFRASTRUCTURE_READY: "infrastructure_ready_at",
    HC_API_AVAILABLE: "api_available_at",
    HC_AVAILABLE: "available_at",
    HC_VERSION_SUCCEEDING: "version_succeeding_at",
}


def history(steps: Mapping[int, Step] | tuple[Step, ...]) -> list[Step]:
    """The done steps in the order they happened."""
    values = steps.values() if isinstance(steps, Mapping) else steps
    return sorted((s for s in values if s.is_done), key=lambda s: s.version)


def fold(steps: Mapping[int, Step] | tuple[Step, ...]) -> World:
    world = World()
    for step in history(steps):
        world.apply(step)
    return world
