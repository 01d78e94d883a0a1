"""``SimulatedClusterProvider``: the built-in ``ClusterProvider`` (simulated HyperShift,
simulator.md §2.1, §3.1, §4-§6).

Every call reads the cluster's plan, moves it with a pure function of ``cluster_plan.py`` (first
letting every due step happen, then applying the call) and stores it with an optimistic version
check, so several processes on one database, and the scheduler beside the API calls of one
process, never lose or repeat a step. An observation is rendered from the stored plan, the fault
records and the clock (``cluster_render.py``), never from memory.

``subscribe()`` is the scheduler: it lets due steps happen as their time comes and yields one
``ChangeNotice("cluster", <cluster id>, <exact time of the step>)`` per step, in order. It sleeps
until the next due time on the system clock (at most ``POLL_SECONDS``, so it also sees ports
attached and faults changed by other processes) and wakes at once when this provider stores a
plan. On a ``FakeClock`` it polls the clock instead, as ``SimulatorRuntime`` does. When it
starts, it first catches up on what fell due while no process was running and sends one notice
per cluster that changed meanwhile. Each pass reads only the clusters saved since the previous
pass began (``CHANGE_GRACE`` earlier, through the ``updated_at`` index), and every cluster every
``FULL_RESCAN``: a change costs the same with ten clusters or ten thousand.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Collection, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection

from osac.clock import FakeClock
from osac.providers.clusters import ClusterObservation, HostedClusterSpec, NodePoolSpec
from osac.providers.interfaces import ChangeNotice, TransientProviderError
from osac.providers.simulator.clusters import plan as cluster_plan
from osac.providers.simulator.clusters.agents import AgentHost, agent_hosts
from osac.providers.simulator.clusters.credentials import admin_password, kubeconfig
from osac.providers.simulator.clusters.faults import active, failure_error, for_cluster
from osac.providers.simulator.clusters.plan import ClusterPlan, Surroundings
from osac.providers.simulator.clusters.render import render
from osac.providers.simulator.clusters.store import ClusterStore
from osac.providers.simulator.clusters.timing import ClusterTiming, parse_cluster_settings
from osac.providers.simulator.clusters.world import fold
from osac.providers.simulator.runtime.context import FAKE_CLOCK_POLL, SimulatorRuntime
from osac.providers.simulator.runtime.faults import FaultRecord
from osac.providers.simulator.runtime.schedulers import Scheduler
from osac.providers.simulator.runtime.times import iso
from osac.tasks import raise_if_cancelled

KIND = "cluster"
#: The scheduler reads only the clusters saved since its last pass began, less this margin for
#: a save stamped before that moment and committed after the pass read (a save is one short
#: transaction); whatever a save's stamp, a full look every ``FULL_RESCAN`` finds it.
CHANGE_GRACE = timedelta(seconds=30)
FULL_RESCAN = timedelta(minutes=5)
#: How often a write that lost a race is retried from a fresh read.
RETRIES = 8
#: Longest sleep of the scheduler on the system clock.
POLL_SECONDS = 1.0
#: On a fake clock, how often (real seconds) the scheduler looks for ports and faults changed
#: without the clock moving.
FAKE_CLOCK_RECHECK = 0.25
#: How long a torn-down cluster's records are kept (clock time), then purged.
RETENTION = timedelta(days=1)
PURGE_INTERVAL = timedelta(minutes=10)
UNREADABLE_ERROR = "simulated read failure: the hub did not answer"

logger = logging.getLogger(__name__)

Edit = Callable[[ClusterPlan | None, datetime, Surroundings], ClusterPlan | None]


@dataclass(frozen=True)
class _Outcome:
    plan: ClusterPlan | None
    around: Surroundings
    now: datetime


class SimulatedClusterProvider:
    """The simulated HyperShift of one process; all simulated providers share ``runtime``.

    :raises ValueError: invalid ``simulator`` settings (``durations``, ``jitter``,
        ``label_faults``), naming the key.
    """

    #: Every notice comes from the stored plans (the scheduler reads what was saved since its
    #: last pass, and rescans everything every ``FULL_RESCAN``) or from a fault change, so none
    #: is lost while the subscription runs (``ClusterProvider.subscribe``).
    reliable_notices = True

    def __init__(self, runtime: SimulatorRuntime) -> None:
        self.runtime = runtime
        self.settings = parse_cluster_settings(runtime.settings)
        self.timing = ClusterTiming(runtime.speed, runtime.seed, self.settings)
        self.store = ClusterStore(runtime.engine, runtime.clock, reader=runtime.reader)
        self._wakers: set[_Waker] = set()
        #: Passes subscribers have finished (each: due steps processed, changes announced); who
        #: drives a fake clock waits for one before moving it, so no step is folded into catch-up.
        self.subscription_passes = 0
        #: Clusters whose observation a fault change altered: a notice each at the next wake.
        self._fault_changes: dict[str, datetime] = {}
        self._purged_at: datetime | None = None
        runtime.follow_faults(KIND, self.fault_changed)

    @property
    def label_faults(self) -> bool:
        """Whether the service should turn ``sim.osac.openshift.io/fault`` labels into faults
        (``cluster_faults.fault_from_label``)."""
        return self.settings.label_faults

    # -- the contract ----------------------------------------------------------------------------

    async def apply_hosted_cluster(self, cluster_id: str, spec: HostedClusterSpec) -> None:
        await self._fail_if_provisioning_fails(cluster_id)
        await self._update(
            cluster_id, lambda plan, now, around: cluster_plan.apply_cluster(
                plan, cluster_id, spec, now, around, self.timing))

    async def apply_node_pool(self, cluster_id: str, node_set_key: str, spec: NodePoolSpec) -> None:
        await self._fail_if_provisioning_fails(cluster_id)
        await self._update(
            cluster_id, lambda plan, now, around: cluster_plan.apply_pool(
                plan, cluster_id, node_set_key, spec, now, around, self.timing))

    async def delete_node_pool(self, cluster_id: str, node_set_key: str) -> None:
        await self._update(
            cluster_id, lambda plan, now, around: cluster_plan.delete_pool(
                plan, node_set_key, now, around, self.timing))

    async def delete_hosted_cluster(self, cluster_id: str) -> None:
        outcome = await self._update(
            cluster_id, lambda plan, now, around: cluster_plan.delete_cluster(plan, now, around, self.timing))
        if outcome.plan is None:
            return
        for step in outcome.plan.held_steps("teardown_fail"):
            record = next((f for f in outcome.around.faults if f.id == step.held_fault), None)
            if record is not None:
                raise failure_error(record, "teardown", cluster_id)

    async def observe_cluster(self, cluster_id: str) -> ClusterObservation:
        observation, _plan = await self._observe(cluster_id)
        return observation

    async def get_kubeconfig(self, cluster_id: str) -> bytes:
        spec = await self._api_server(cluster_id)
        return kubeconfig(self.runtime.seed, cluster_id, spec)

    async def get_admin_password(self, cluster_id: str) -> str:
        await self._api_server(cluster_id)
        return admin_password(self.runtime.seed, cluster_id)

    async def subscribe(self) -> AsyncIterator[ChangeNotice]:
        waker = _Waker()
        self._wakers.add(waker)
        try:
            with self.runtime.schedulers.running(KIND, waker.event) as scheduler:
                async with contextlib.aclosing(self._schedule(waker, scheduler)) as notices:
                    async for notice in notices:
                        yield notice
        finally:
            self._wakers.discard(waker)

    async def _schedule(self, waker: _Waker, scheduler: Scheduler) -> AsyncGenerator[ChangeNotice]:
        """Full passes (due steps, saved plans) when a step falls due, a plan was saved, the clock
        moved or ``POLL_SECONDS`` went by; between them a fault change only yields its notices,
        with no read: it moves no step and stores no plan (one statement less than three per
        change, docs/simulator.md)."""
        seen = await self.store.versions()
        catching_up = True
        looked_at: datetime | None = None  # when the last pass that found its changes started
        looked_at_all: datetime | None = None
        wake = waker.event
        while True:
            wake.clear()
            waker.plan_saved = False
            started = self.runtime.clock.now()
            happened: list[tuple[str, int, datetime]] = []
            try:
                await self.process_due()
                if looked_at is None or looked_at_all is None or started - looked_at_all >= FULL_RESCAN:
                    happened, seen = await self.store.happened_since(seen)
                    looked_at_all = started
                else:
                    happened, seen = await self.store.happened_since(seen, changed_since=looked_at - CHANGE_GRACE)
                looked_at = started
            except Exception as error:  # a failing database must not end the subscription
                raise_if_cancelled(error)
                logger.exception("simulated clusters: processing due steps failed; retrying")
            if catching_up:
                # one notice per cluster that changed while nobody was watching: its last change
                latest = {item[0]: item for item in happened}
                happened = sorted(latest.values(), key=lambda item: (item[2], item[0]))
                catching_up = False
            for cluster_id, _version, changed_at in happened:
                yield ChangeNotice(KIND, cluster_id, changed_at)
            for notice in self._take_fault_notices():
                yield notice
            self.subscription_passes += 1
            scheduler.passed_at = started
            next_due = await self._next_due()
            poll_until = asyncio.get_running_loop().time() + POLL_SECONDS
            while not await self._pause(waker, next_due, poll_until, started):
                wake.clear()
                for notice in self._take_fault_notices():
                    yield notice

    def _take_fault_notices(self) -> list[ChangeNotice]:
        forced, self._fault_changes = self._fault_changes, {}
        return [ChangeNotice(KIND, cluster_id, changed_at)
                for cluster_id, changed_at in sorted(forced.items(), key=lambda item: (item[1], item[0]))]

    # -- beyond the contract -----------------------------------------------------------------------

    async def process_due(self) -> list[str]:
        """Let every due step of every cluster happen now; the clusters looked at.

        The scheduler's work, also usable by whoever drives a fake clock without a subscriber."""
        now = self.runtime.clock.now()
        ids = await self.store.due(now)
        faults = await self.runtime.faults.all() if ids else []
        for cluster_id in ids:
            try:
                await self._update(cluster_id, self._settle, faults=faults)
            except TransientProviderError as error:
                logger.warning("simulated cluster %s: %s", cluster_id, error.message)
        if self._purged_at is None or now - self._purged_at >= PURGE_INTERVAL:
            self._purged_at = now
            await self.store.purge(now - RETENTION)
        return ids

    async def raw_observation(self, cluster_id: str) -> dict[str, Any]:
        """``Simulator.GetObservation(kind="cluster")``: the observation as a JSON document."""
        observation = await self.observe_cluster(cluster_id)
        return {
            "readable": observation.readable,
            "error": observation.error,
            "observed_at": iso(observation.observed_at),
            "hosted_cluster": observation.hosted_cluster,
            "node_pools": observation.node_pools,
            "nodes": [asdict(node) for node in observation.nodes],
            "next_change_at": iso(observation.next_change_at),
        }

    async def agent_hosts(self, cluster_ids: Collection[str]) -> dict[str, AgentHost]:
        """The bare-metal hosts the machines of these clusters run on, with their agents' power
        and provisioning (``clusters.agents``), for the inventory's listing."""
        found: dict[str, AgentHost] = {}
        if not cluster_ids:
            return found
        async with self.store.reading() as conn:
            for cluster_id in sorted(set(cluster_ids)):
                plan = await self.store.load(cluster_id, conn)
                if plan is not None:
                    found.update(agent_hosts(fold(plan.steps)))
        return found

    # -- internals ---------------------------------------------------------------------------------

    async def _observe(self, cluster_id: str) -> tuple[ClusterObservation, ClusterPlan | None]:
        outcome = await self._update(cluster_id, self._settle)
        plan, around, now = outcome.plan, outcome.around, outcome.now
        if plan is None:
            return ClusterObservation(True, "", now, None, [], [], None), None
        next_change = _next_change(plan, around.faults, now)
        if active(around.faults, now, "unreadable"):
            return ClusterObservation(False, UNREADABLE_ERROR, now, None, [], [], next_change), plan
        rendered = render(plan, around, now, self.runtime.seed)
        observation = ClusterObservation(
            readable=True,
            error="",
            observed_at=now,
            hosted_cluster=rendered.hosted_cluster,
            node_pools=rendered.node_pools,
            nodes=rendered.nodes,
            next_change_at=next_change,
        )
        return observation, plan

    def _settle(self, plan: ClusterPlan | None, now: datetime, around: Surroundings) -> ClusterPlan | None:
        return None if plan is None else cluster_plan.settle(plan, now, around, self.timing)

    async def _update(self, cluster_id: str, edit: Edit, *, faults: list[FaultRecord] | None = None) -> _Outcome:
        """Read the plan, apply ``edit`` and store the result unless nothing changed."""
        for _attempt in range(RETRIES):
            async with self.store.reading() as conn:
                before = await self.store.load(cluster_id, conn)
                around = await self._surroundings(cluster_id, before, faults, conn)
            now = self.runtime.clock.now()
            after = edit(before, now, around)
            if after is None or (before is not None and after.version == before.version):
                return _Outcome(after, around, now)
            if await self.store.save(before, after):
                self._wake(plan_saved=True)
                return _Outcome(after, around, now)
            faults = None
        raise TransientProviderError(
            "Conflict", f"simulated cluster {cluster_id} kept changing under concurrent writers; retry")

    async def _surroundings(
        self, cluster_id: str, plan: ClusterPlan | None, faults: list[FaultRecord] | None, conn: AsyncConnection
    ) -> Surroundings:
        if faults is None:
            faults = await self.runtime.faults.aimed_at(KIND, cluster_id, conn)
        records = for_cluster(faults, cluster_id)
        if plan is None:
            return Surroundings({}, records)
        hosts = {host for record in plan.pools.values() for host in record.spec.hosts}
        hosts |= {m.host for pool in fold(plan.steps).pools.values() for m in pool.machines.values() if m.host}
        return Surroundings(await self.store.ports(cluster_id, hosts, conn), records)

    async def _fail_if_provisioning_fails(self, cluster_id: str) -> None:
        """Raise the error of the oldest ``provision_fail`` fault in force, counting it down."""
        now = self.runtime.clock.now()
        for record in active(for_cluster(await self.runtime.faults.aimed_at(KIND, cluster_id), cluster_id), now, "provision_fail"):
            if record.remaining > 0 and not await self.runtime.faults.consume(record.id):
                continue
            raise failure_error(record, "provisioning", cluster_id)

    async def _api_server(self, cluster_id: str) -> HostedClusterSpec:
        observation, plan = await self._observe(cluster_id)
        if not observation.readable:
            raise TransientProviderError("Unreadable", f"cluster {cluster_id}: {observation.error}")
        hosted = observation.hosted_cluster
        conditions = (hosted or {}).get("status", {}).get("conditions", [])
        available = any(c["type"] == "KubeAPIServerAvailable" and c["status"] == "True" for c in conditions)
        if plan is None or hosted is None or not available:
            raise TransientProviderError(
                "APIServerNotAvailable", f"the API server of cluster {cluster_id} is not available")
        return plan.spec

    async def fault_changed(self, target_id: str) -> None:
        """A fault on ``target_id`` (``*``: every cluster) was created or cleared: its effect on
        observations is immediate, so each affected cluster gets a notice now."""
        now = self.runtime.clock.now()
        ids = list((await self.store.versions()).keys()) if target_id == "*" else [target_id]
        for cluster_id in ids:
            self._fault_changes.setdefault(cluster_id, now)
        self._wake()

    def _wake(self, *, plan_saved: bool = False) -> None:
        for waker in self._wakers:
            waker.plan_saved = waker.plan_saved or plan_saved
            waker.event.set()

    async def _next_due(self) -> datetime | None:
        try:
            return await self.store.next_due_at()
        except Exception as error:
            raise_if_cancelled(error)
            logger.exception("simulated clusters: reading the next due time failed")
            return None

    async def _pause(self, waker: _Waker, next_due: datetime | None, poll_until: float, started: datetime) -> bool:
        """Wait until the next step is due, this provider stores a plan, a fault changes, or it
        is time to look again for changes made elsewhere (``poll_until``, loop time). True when
        a full pass is due; False when only fault changes woke it (the clock standing still
        where it is a fake one, ``started`` being the last full pass's time)."""
        clock = self.runtime.clock
        wake = waker.event
        now = clock.now()
        if next_due is not None and next_due <= now:
            await asyncio.sleep(0)
            return True
        loop = asyncio.get_running_loop()
        if isinstance(clock, FakeClock):
            deadline = min(loop.time() + FAKE_CLOCK_RECHECK, poll_until)
            while not wake.is_set() and loop.time() < deadline:
                if next_due is not None and clock.now() >= next_due:
                    return True
                await asyncio.sleep(FAKE_CLOCK_POLL)
            return not wake.is_set() or waker.plan_saved or clock.now() != started
        timeout = max(poll_until - loop.time(), 0.0)
        if next_due is not None:
            timeout = min(timeout, max((next_due - now).total_seconds(), 0.0))
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout):  # not wait_for: it can swallow cancellation on 3.11
                await wake.wait()
        return not wake.is_set() or waker.plan_saved or (next_due is not None and clock.now() >= next_due)


@dataclass(eq=False)
class _Waker:
    """One subscriber's wake-up: ``event`` is set by anything that wants a look (a saved plan,
    a fault change, the clock moving); ``plan_saved`` says whether a saved plan was among them."""

    event: asyncio.Event = field(default_factory=asyncio.Event)
    plan_saved: bool = False


def _next_change(plan: ClusterPlan, faults: Sequence[FaultRecord], now: datetime) -> datetime | None:
    """When the observation changes by itself next: the next due step, or a fault expiring."""
    candidates = [plan.next_due_at] if plan.next_due_at is not None else []
    candidates += [f.expires_at for f in faults if f.expires_at is not None and f.expires_at > now]
    return min(candidates, default=None)
