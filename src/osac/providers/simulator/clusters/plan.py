"""The plan of one simulated cluster, and how calls and time move it (simulator.md §3.1, §4, §6).

Everything here is pure: a function takes the stored plan, the time and what surrounds the
cluster (fault records, the fabric's port map) and returns the new plan; the provider stores it.
So an observation depends only on (plan, faults, now), and a process that restarts finds every
due time in the database and repeats nothing.

How the plan moves:

- An API call adds the steps it causes (creation, resize, deletion), due after the table delay.
- ``settle(now)`` lets the due steps happen in the order (due time, sequence), each at exactly its
  due time, and after each one plans what it enables (level-triggered: the rules look at the
  world, not at the step, and also cancel pending steps the world no longer wants). A node's join
  waits for its port (``cluster_nodes.py``); a step a fault holds waits for the fault to clear
  (``cluster_faults.py``).
- Every step is one observable change, even at speed ``instant``: a step that falls due at this
  very instant *because* another step just happened in the same settle waits for the next settle.
  Each read therefore shows one more level of a zero-delay chain, while steps whose due time is
  in the past are caught up at once (a restart at a later time sees the same history).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any

from osac.providers.clusters import HostedClusterSpec, NodePoolSpec
from osac.providers.interfaces import TransientProviderError
from osac.providers.simulator.clusters.faults import holding_fault
from osac.providers.simulator.clusters.nodes import Ports, node_host_name, node_mac, port_active_since
from osac.providers.simulator.clusters.specs import (
    IMMUTABLE_CLUSTER_FIELDS,
    IMMUTABLE_POOL_FIELDS,
    check_cluster_spec,
    check_pool_spec,
    check_unchanged,
    stored_spec,
)
from osac.providers.simulator.clusters.timing import TEARDOWN_KEYS, ClusterTiming
from osac.providers.simulator.clusters.world import (
    CANCELLED,
    DONE,
    HC_API_AVAILABLE,
    HC_AVAILABLE,
    HC_CREATED,
    HC_INFRASTRUCTURE_READY,
    HC_UPDATED,
    HC_VERSION_SUCCEEDING,
    MACHINE_INFRASTRUCTURE_READY,
    MACHINE_JOINED,
    MACHINE_REMOVED,
    MACHINE_STARTED,
    NO_KEY,
    NO_ORDINAL,
    POOL_CREATED,
    POOL_DELETING,
    POOL_GONE,
    POOL_READY,
    POOL_RESIZED,
    TEARDOWN,
    TEARDOWN_GONE,
    TEARDOWN_STARTED,
    Pool,
    Step,
    World,
    fold,
)
from osac.providers.simulator.runtime.faults import FaultRecord

#: Object kinds in the jitter seed (simulator.md §4).
CLUSTER_KIND = "cluster"
NODE_POOL_KIND = "node_pool"


@dataclass(frozen=True)
class PoolRecord:
    """The last applied spec of one NodePool; ``deleted_at`` once ``delete_node_pool`` was called."""

    key: str
    name: str
    spec: NodePoolSpec
    applied_at: datetime
    deleted_at: datetime | None = None


@dataclass(frozen=True)
class ClusterPlan:
    """Everything stored about one simulated cluster.

    ``version`` grows with every stored change (the store's optimistic lock, and the cursor of
    change notices). ``gone_at`` is set once nothing of the cluster exists any more."""

    cluster_id: str
    spec: HostedClusterSpec
    created_at: datetime
    version: int = 0
    pools: Mapping[str, PoolRecord] = field(default_factory=dict)
    steps: tuple[Step, ...] = ()
    deleted_at: datetime | None = None
    gone_at: datetime | None = None

    def world(self) -> World:
        return fold(self.steps)

    @property
    def next_due_at(self) -> datetime | None:
        """The due time of the next step that waits only for time."""
        due = [s.due_at for s in self.steps if s.is_pending and not s.is_held and s.due_at is not None]
        return min(due, default=None)

    @property
    def is_waiting(self) -> bool:
        """Whether a step waits for something other than time (a port, a fault being cleared)."""
        return any(s.is_pending and (s.due_at is None or s.is_held) for s in self.steps)

    def held_steps(self, fault_kind: str) -> list[Step]:
        return [s for s in self.steps if s.is_pending and s.held_by == fault_kind]


@dataclass(frozen=True)
class Surroundings:
    """What a cluster's progress depends on outside its plan."""

    ports: Ports = field(default_factory=dict)
    #: This cluster's fault records (``cluster_faults.for_cluster``), expired ones included.
    faults: Sequence[FaultRecord] = ()


# -- API calls ------------------------------------------------------------------------------------


def apply_cluster(
    plan: ClusterPlan | None,
    cluster_id: str,
    spec: HostedClusterSpec,
    now: datetime,
    around: Surroundings,
    timing: ClusterTiming,
) -> ClusterPlan:
    """Create the HostedCluster (first call, or after a completed teardown) or update it."""
    check_cluster_spec(cluster_id, spec)
    stored = stored_spec(spec)
    if plan is not None:
        plan = settle(plan, now, around, timing, include_present=False)
    if plan is None or plan.gone_at is not None:
        fresh = _Draft(ClusterPlan(cluster_id, stored, now, version=plan.version if plan else 0), timing)
        fresh.schedule(HC_CREATED, now, delay_key="cluster.1")
        return fresh.freeze()
    if plan.deleted_at is not None or stored == plan.spec:
        return plan
    for name in IMMUTABLE_CLUSTER_FIELDS:
        check_unchanged(f"hosted cluster {cluster_id}", name, getattr(plan.spec, name), getattr(stored, name))
    draft = _Draft(plan, timing)
    draft.spec = stored
    draft.dirty = True
    visible = (stored.labels != plan.spec.labels) or (stored.release_image != plan.spec.release_image)
    if visible and draft.world.created_at is not None and not draft.pending(HC_UPDATED):
        draft.schedule(HC_UPDATED, now)
    return draft.freeze()


def apply_pool(
    plan: ClusterPlan | None,
    cluster_id: str,
    node_set_key: str,
    spec: NodePoolSpec,
    now: datetime,
    around: Surroundings,
    timing: ClusterTiming,
) -> ClusterPlan:
    """Create the NodePool of ``node_set_key`` or resize it."""
    check_pool_spec(cluster_id, node_set_key, spec)
    if plan is not None:
        plan = settle(plan, now, around, timing, include_present=False)
    if plan is None or plan.gone_at is not None:
        raise TransientProviderError(
            "HostedClusterNotFound", f"hosted cluster {cluster_id} does not exist; apply it before its node pools")
    if plan.deleted_at is not None:
        return plan
    draft = _Draft(plan, timing)
    record = draft.pools.get(node_set_key)
    if record is not None and (record.deleted_at is not None or not draft.has_pool(node_set_key)):
        if draft.has_pool(node_set_key):
            raise TransientProviderError(
                "NodePoolDeleting",
                f"node pool '{node_set_key}' of cluster {plan.cluster_id} is still being removed; retry once it is gone")
        record = None
    if record is None:
        draft.pools[node_set_key] = PoolRecord(node_set_key, f"{plan.spec.name}-{node_set_key}", spec, now)
        draft.schedule(POOL_CREATED, now, key=node_set_key, delay_key="cluster.1",
                       payload={"replicas": spec.replicas})
        draft.plan_next(None, now)
        return draft.freeze()
    for name in IMMUTABLE_POOL_FIELDS:
        check_unchanged(f"node pool '{node_set_key}' of cluster {plan.cluster_id}", name,
                   getattr(record.spec, name), getattr(spec, name))
    if spec == record.spec:
        return plan
    draft.pools[node_set_key] = replace(record, spec=spec)
    draft.dirty = True
    (created,) = draft.pending(POOL_CREATED, node_set_key) or (None,)
    if created is not None:
        draft.put(replace(created, payload={"replicas": spec.replicas}))
    else:
        pool = draft.world.pools[node_set_key]
        (resize,) = draft.pending(POOL_RESIZED, node_set_key) or (None,)
        if resize is not None and spec.replicas == pool.replicas:
            draft.cancel(resize)
        elif resize is not None:
            draft.put(replace(resize, payload={"replicas": spec.replicas}))
        elif spec.replicas != pool.replicas:
            draft.schedule(POOL_RESIZED, now, key=node_set_key, payload={"replicas": spec.replicas})
    draft.plan_next(None, now)
    return draft.freeze()


def delete_pool(
    plan: ClusterPlan | None, node_set_key: str, now: datetime, around: Surroundings, timing: ClusterTiming
) -> ClusterPlan | None:
    """Start removing a NodePool: deletionTimestamp, its machines one by one, then gone."""
    if plan is None:
        return None
    plan = settle(plan, now, around, timing, include_present=False)
    record = plan.pools.get(node_set_key)
    if plan.deleted_at is not None or plan.gone_at is not None or record is None or record.deleted_at is not None:
        return plan
    draft = _Draft(plan, timing)
    for step in draft.pending_for_pool(node_set_key):
        draft.cancel(step)
    if node_set_key not in draft.world.pools:
        del draft.pools[node_set_key]
        draft.dirty = True
    else:
        draft.pools[node_set_key] = replace(record, deleted_at=now)
        draft.schedule(POOL_DELETING, now, key=node_set_key)
    draft.plan_next(None, now)
    return draft.freeze()


def delete_cluster(
    plan: ClusterPlan | None, now: datetime, around: Surroundings, timing: ClusterTiming
) -> ClusterPlan | None:
    """Start the teardown; a HostedCluster that never appeared is simply gone."""
    if plan is None:
        return None
    plan = settle(plan, now, around, timing, include_present=False)
    if plan.deleted_at is not None or plan.gone_at is not None:
        return plan
    draft = _Draft(plan, timing)
    for step in draft.all_pending():
        draft.cancel(step)
    draft.deleted_at = now
    draft.dirty = True
    if draft.world.created_at is None:
        draft.gone_at = now
    else:
        draft.schedule(TEARDOWN_STARTED, now, delay_key=TEARDOWN_KEYS[0])
    return draft.freeze()


def settle(
    plan: ClusterPlan, now: datetime, around: Surroundings, timing: ClusterTiming, *, include_present: bool = True
) -> ClusterPlan:
    """Let every step that is due by ``now`` happen (see the module docstring).

    API calls pass ``include_present=False``: they catch up on the past but leave the steps due
    at this very instant to the next read, so a call never hides a change from the readers."""
    draft = _Draft(plan, timing)
    draft.settle(now, around, include_present=include_present)
    return draft.freeze()


# -- the draft: a plan being changed --------------------------------------------------------------


class _Draft:
    """A mutable copy of a plan for the duration of one pure transition."""

    def __init__(self, plan: ClusterPlan, timing: ClusterTiming) -> None:
        self.cluster_id = plan.cluster_id
        self.spec = plan.spec
        self.created_at = plan.created_at
        self.deleted_at = plan.deleted_at
        self.gone_at = plan.gone_at
        self.pools: dict[str, PoolRecord] = dict(plan.pools)
        self.steps: dict[int, Step] = {s.seq: s for s in plan.steps}
        self.base_version = plan.version
        self.version = plan.version
        self.timing = timing
        self.world = plan.world()
        self.next_seq = max(self.steps, default=0) + 1
        self.happened_now: set[int] = set()
        self.dirty = False

    def freeze(self) -> ClusterPlan:
        version = self.version
        if self.dirty and version == self.base_version:
            version += 1
        return ClusterPlan(
            cluster_id=self.cluster_id,
            spec=self.spec,
            created_at=self.created_at,
            version=version,
            pools=dict(self.pools),
            steps=tuple(self.steps[seq] for seq in sorted(self.steps)),
            deleted_at=self.deleted_at,
            gone_at=self.gone_at,
        )

    # -- queries ---------------------------------------------------------------------------------

    def all_pending(self) -> list[Step]:
        return [s for s in self.steps.values() if s.is_pending]

    def pending(self, kind: str, key: str | None = None, ordinal: int | None = None) -> list[Step]:
        return [
            s for s in self.steps.values()
            if s.is_pending and s.kind == kind
            and (key is None or s.node_set_key == key) and (ordinal is None or s.ordinal == ordinal)
        ]

    def pending_for_pool(self, key: str) -> list[Step]:
        return [s for s in self.steps.values() if s.is_pending and s.node_set_key == key]

    def has_pool(self, key: str) -> bool:
        """Whether the NodePool exists or is about to (a creation is pending)."""
        return key in self.world.pools or bool(self.pending_for_pool(key))

    def has(self, kind: str) -> bool:
        """Whether a cluster-level step of this kind has happened or is pending."""
        return any(s.kind == kind and s.state != CANCELLED for s in self.steps.values())

    # -- edits -------------------------------------------------------------------------------------

    def put(self, step: Step) -> None:
        self.steps[step.seq] = step
        self.dirty = True

    def cancel(self, step: Step) -> None:
        self.put(replace(step, state=CANCELLED, held_by="", held_fault=""))

    def schedule(
        self,
        kind: str,
        at: datetime,
        *,
        key: str = NO_KEY,
        ordinal: int = NO_ORDINAL,
        delay_key: str | None = None,
        cause: Step | None = None,
        payload: Mapping[str, Any] | None = None,
        waiting: bool = False,
    ) -> Step:
        """Add a step due ``delay_key``'s duration after ``at`` (None: at ``at``; ``waiting``:
        no due time until a gate opens)."""
        seq = self.next_seq
        self.next_seq += 1
        due = None if waiting else at + self._delay(delay_key, kind, key, ordinal, seq)
        step = Step(seq=seq, kind=kind, due_at=due, node_set_key=key, ordinal=ordinal,
                    cause_seq=cause.seq if cause else None, payload=dict(payload or {}))
        self.put(step)
        return step

    def _delay(self, delay_key: str | None, kind: str, key: str, ordinal: int, seq: int) -> timedelta:
        if delay_key is None:
            return timedelta(0)
        if key:
            record = self.pools.get(key)
            object_kind, name = NODE_POOL_KIND, record.name if record else f"{self.spec.name}-{key}"
        else:
            object_kind, name = CLUSTER_KIND, self.spec.name
        return self.timing.delay(delay_key, kind=object_kind, name=name, step=f"{kind}/{ordinal}/{seq}")

    # -- time ----------------------------------------------------------------------------------------

    def settle(self, now: datetime, around: Surroundings, *, include_present: bool = True) -> None:
        while True:
            self._open_port_gates(around)
            self._release_holds(now, around)
            step = self._next_due(now, include_present)
            if step is None:
                return
            assert step.due_at is not None
            fault = holding_fault(step, self.world, around.faults, step.due_at)
            if fault is not None:
                self.put(replace(step, held_by=fault.fault, held_fault=fault.id))
                continue
            happened = self._happen(step)
            assert happened.done_at is not None
            self.plan_next(happened, happened.done_at)

    def _next_due(self, now: datetime, include_present: bool) -> Step | None:
        candidates = [
            s for s in self.steps.values()
            if s.is_pending and not s.is_held and s.due_at is not None
            and (s.due_at < now or (s.due_at == now and include_present and not self._is_deferred(s, now)))
        ]
        return min(candidates, key=lambda s: (s.due_at, s.seq), default=None)

    def _is_deferred(self, step: Step, now: datetime) -> bool:
        """A zero-delay consequence, at this very instant, of a step of this same settle."""
        if step.due_at != now or step.cause_seq not in self.happened_now:
            return False
        assert step.cause_seq is not None
        return self.steps[step.cause_seq].done_at == now

    def _happen(self, step: Step) -> Step:
        self.version += 1
        done = replace(step, state=DONE, done_at=step.due_at, version=self.version)
        self.put(done)
        self.world.apply(done)
        self.happened_now.add(done.seq)
        if done.kind == TEARDOWN_GONE:
            self.gone_at = done.done_at
        return done

    def _open_port_gates(self, around: Surroundings) -> None:
        for step in self.pending(MACHINE_JOINED):
            if step.due_at is not None:
                continue
            pool = self.world.pools.get(step.node_set_key)
            machine = pool.machines.get(step.ordinal) if pool else None
            record = self.pools.get(step.node_set_key)
            if machine is None or machine.infrastructure_ready_at is None or record is None:
                continue
            interface = record.spec.fabric_interface
            host = node_host_name(self.cluster_id, step.node_set_key, step.ordinal, machine.host)
            mac = node_mac(self.timing.seed, host, interface, machine.host is not None, around.ports)
            since = port_active_since(around.ports.get((host, interface)), self.spec.subnet_segment, mac)
            if since is None:
                continue
            start = max(machine.infrastructure_ready_at, since)
            due = start + self._delay("cluster.7", step.kind, step.node_set_key, step.ordinal, step.seq)
            self.put(replace(step, due_at=due))

    def _release_holds(self, now: datetime, around: Surroundings) -> None:
        for step in [s for s in self.steps.values() if s.is_pending and s.is_held]:
            fault = holding_fault(step, self.world, around.faults, now)
            if fault is not None:
                if fault.id != step.held_fault:
                    self.put(replace(step, held_by=fault.fault, held_fault=fault.id))
                continue
            assert step.due_at is not None
            released = now
            recorded = next((f for f in around.faults if f.id == step.held_fault), None)
            if recorded is not None and recorded.expires_at is not None and recorded.expires_at <= now:
                released = max(recorded.expires_at, step.due_at)
            self.put(replace(step, due_at=released, held_by="", held_fault=""))

    # -- what comes next ---------------------------------------------------------------------------

    def plan_next(self, cause: Step | None, at: datetime) -> None:
        """Schedule what the world now enables and cancel what it no longer wants; new steps
        count their delay from ``at`` (when ``cause`` happened, or the API call)."""
        if self.deleted_at is not None:
            self._plan_teardown(cause, at)
            return
        world = self.world
        if not world.exists:
            return
        chain = (
            (world.created_at, HC_INFRASTRUCTURE_READY, "cluster.2"),
            (world.infrastructure_ready_at, HC_API_AVAILABLE, "cluster.3"),
            (world.api_available_at, HC_AVAILABLE, "cluster.4"),
        )
        for reached, kind, delay_key in chain:
            if reached is not None and not self.has(kind):
                self.schedule(kind, at, delay_key=delay_key, cause=cause)
        for key, record in self.pools.items():
            pool = world.pools.get(key)
            # a pool whose deletion was asked waits for its deletionTimestamp before anything else
            if pool is not None and (record.deleted_at is None or pool.deleting_at is not None):
                self._plan_pool(record, pool, cause, at)
        self._plan_version(cause, at)

    def _plan_pool(self, record: PoolRecord, pool: Pool, cause: Step | None, at: datetime) -> None:
        key = record.key
        extras = pool.extra_ordinals()
        if pool.deleting_at is None:
            for step in self.pending_for_pool(key):
                unwanted = (
                    (step.kind in (MACHINE_STARTED, MACHINE_INFRASTRUCTURE_READY, MACHINE_JOINED)
                     and step.ordinal >= pool.replicas)
                    or (step.kind == MACHINE_REMOVED and step.ordinal < pool.replicas)
                )
                if unwanted:
                    self.cancel(step)
            self._plan_machines(record, pool, cause, at)
        if extras and not self.pending(MACHINE_REMOVED, key):
            self.schedule(MACHINE_REMOVED, at, key=key, ordinal=extras[-1], delay_key="cluster.removal", cause=cause)
        if pool.deleting_at is not None:
            if not extras and not self.pending(POOL_GONE, key):
                self.schedule(POOL_GONE, at, key=key, cause=cause)
            return
        is_ready = (self.world.available_at is not None and pool.ready_at is None and not extras
                    and pool.all_joined() and not self.pending(POOL_RESIZED, key))
        pending_ready = self.pending(POOL_READY, key)
        if is_ready and not pending_ready:
            self.schedule(POOL_READY, at, key=key, delay_key="cluster.8", cause=cause)
        elif not is_ready:
            for step in pending_ready:
                self.cancel(step)

    def _plan_machines(self, record: PoolRecord, pool: Pool, cause: Step | None, at: datetime) -> None:
        key = record.key
        missing = pool.missing_ordinals()
        if self.world.available_at is not None and missing and not self.pending(MACHINE_STARTED, key):
            ordinal = missing[0]
            after_start = cause is not None and cause.kind == MACHINE_STARTED and cause.node_set_key == key
            hosts = record.spec.hosts
            self.schedule(MACHINE_STARTED, at, key=key, ordinal=ordinal,
                          delay_key="cluster.5" if after_start else None, cause=cause,
                          payload={"host": hosts[ordinal] if ordinal < len(hosts) else None})
        for ordinal, machine in sorted(pool.machines.items()):
            if ordinal >= pool.replicas:
                continue
            if machine.infrastructure_ready_at is None:
                if not self.pending(MACHINE_INFRASTRUCTURE_READY, key, ordinal):
                    self.schedule(MACHINE_INFRASTRUCTURE_READY, at, key=key, ordinal=ordinal, cause=cause,
                                  delay_key="cluster.6.baremetal" if machine.host else "cluster.6")
            elif machine.joined_at is None and not self.pending(MACHINE_JOINED, key, ordinal):
                self.schedule(MACHINE_JOINED, at, key=key, ordinal=ordinal, cause=cause, waiting=True)

    def _plan_version(self, cause: Step | None, at: datetime) -> None:
        world = self.world
        if world.available_at is None or world.version_succeeding_at is not None:
            return
        live = [key for key, record in self.pools.items() if record.deleted_at is None]
        all_ready = all(key in world.pools and world.pools[key].ready_at is not None for key in live)
        pending = self.pending(HC_VERSION_SUCCEEDING)
        if all_ready and not pending:
            self.schedule(HC_VERSION_SUCCEEDING, at, delay_key="cluster.9", cause=cause)
        elif not all_ready:
            for step in pending:
                self.cancel(step)

    def _plan_teardown(self, cause: Step | None, at: datetime) -> None:
        for index, kind in enumerate(TEARDOWN):
            if kind in self.world.teardown:
                continue
            if self.pending(kind):
                return
            if index == 0 or TEARDOWN[index - 1] in self.world.teardown:
                self.schedule(kind, at, delay_key=TEARDOWN_KEYS[index], cause=cause)
            return
