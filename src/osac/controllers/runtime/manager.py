"""The controller runtime: level-triggered reconcilers driven by the store's change feed.

The reconcile contract
======================

A reconciler handles one kind: ``async def reconcile(self, key: ObjectKey) -> Result``. The key is
only the kind and the object id, never the event that caused the call: queued keys merge, so each
run re-reads the stored object and the provider's observation and acts on what it finds now
(level-triggered). A deleted child is noticed because it is missing, not because an event said so.

How a run ends decides what happens next:

``return Result()``
    Success. The key's failure streak resets; the key runs again only when it changes (or at the
    periodic resync).
``return Result(requeue_after=d)``
    Success, and run again after ``d`` ("wait until X": a provider's ``next_change_at``, a stall
    threshold). Never sleep inside reconcile; return this instead.
``raise TransientError(message, delay=d)``
    Retry after ``d``; without a delay, after the capped exponential backoff (0.5 s, 1 s, 2 s, ...
    5 min). Logged without a traceback: the reconciler knows what it is waiting for.
any other exception
    Transient too: capped exponential backoff, logged with its traceback (it is a bug or an
    unexpected outage). Returning something that is not a `Result` counts as such an error.
``raise TerminalError(message)``
    Retrying is useless (the spec asks for the impossible). Logged and counted in
    ``osac_reconcile_total{outcome="terminal_error"}``; the reconciler should also have written a
    status condition. Not retried, not even by the periodic resync, until the object changes again.

Returning and raising are exclusive: a run either returns a `Result` or raises, so there is no
"result ignored because of an error" case. Every error extends the key's failure streak (an
explicit ``delay`` only overrides the wait); success ends it and so does a terminal error.

Guarantees of the runtime
=========================

* One run per key at a time: a key that changes while it is being reconciled is queued once and
  run again right after, so reconcilers take no locks. Changes to a queued key merge.
* Changes go first: keys queued by a change (the change feed, a provider notice, a dependent,
  `enqueue`) run before keys queued by time (timers, resyncs), and a timed key that changes
  moves up. A saturated controller keeps what changed fresh and lets its periodic looks lag.
* At most ``workers`` runs per kind at once.
* Timers: the next run of a key is the earliest of its requested times; a run supersedes any
  pending timer of its key (its own outcome schedules the next one).
* A reconciler that keeps an `OwnWrites` (``own_writes``) is not queued again by the change its
  own status write made: the pass that wrote it already acted on everything it saw and set its
  own next run. A change by anyone else (a spec edit between the pass's reads and its write has
  a revision of its own) queues the key as usual. The write is marked before its commit, so a
  feed that reads the commit before the writer resumes from it holds the change until the
  writer knows how its transaction ended (no second pass for one change).
* A reconciler with ``dependents(kind, object_id) -> Iterable[str]`` is told of every change of
  the other kinds and gets the ids it names queued (an external IP attachment follows its
  target's address this way instead of polling it).
* A change that refers to other objects (`Change.refers_to`: the feed reads, for the kinds
  whose reconciler declares ``references = ((field, kind), ...)``, the ids in those spec fields
  of the changed object) queues each referred object with its own kind's controller, wherever
  the changed object's own controller runs: an external IP attachment made by one process
  reaches its target's reconciler in another through the outbox alone.
* Nothing is lost while a controller is down: when it starts (process start, or taking over the
  lease of another process) it enqueues every key of its kind at once, and then every
  ``resync_period`` lists them again and gives each a timer at its own slot within the next
  period (``spread.py``), so the periodic looks come evenly, not in a burst.
* Time is the injected `Clock`. A fake clock notifies nobody, so due times are computed from
  ``clock.now()`` and waited for in real time with a bounded timeout; whoever moves a fake clock
  calls `ControllerManager.wake` (or `Controller.wake`) so that what became due runs at once.

Scale-out
=========

A `ControllerManager` runs the controllers of every kind in one process, each restricted to the
keys of the shards it holds (``shards.py``): a key's shard is a hash of its id, shard ``n`` is the
lease ``controllers/shard/<n>``, and the live managers of a deployment deal the shards out evenly
among themselves at every renewal (every ``lease_ttl / 3``). A manager that joins gets its share at
the others' next renewal; one that dies stops renewing, and the survivors take its shards once
their leases expire. A key whose shard is not held is not queued, timed or resynced here. In-flight
runs of the old holder of a shard may overlap the new holder's first runs by up to one reconcile;
reconcilers are idempotent and write status under a version lock, so this costs at most a
conflict and a retry. Deployment-wide work (gauges over every object, the orphan sweep) is done
by the holder of shard 0 (`ControllerManager.leads`).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import functools
import heapq
import itertools
import logging
import os
import socket
import uuid
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import Enum
from typing import Protocol

from osac.clock import Clock
from osac.controllers.runtime.metrics import ControllerMetrics, Outcome, default_metrics
from osac.controllers.runtime.retry import Attempts, RetryPolicy
from osac.controllers.runtime.shards import (
    DEFAULT_SHARDS,
    MAX_SHARDS,
    MEMBER_PREFIX,
    SHARD_PREFIX,
    dealt_to,
    member_lease,
    parse_member,
    shard_lease,
    shard_of,
)
from osac.controllers.runtime.spread import until_slot
from osac.store.cost import PassCost, counting
from osac.store.errors import Conflict, WriteContention
from osac.store.outbox import Change
from osac.tasks import raise_if_cancelled

__all__ = [
    "DEFAULT_BACKOFF",
    "DEFAULT_FEED_BATCH_SIZE",
    "DEFAULT_FEED_POLL_SECONDS",
    "DEFAULT_LEASE_TTL",
    "DEFAULT_MAX_REAL_WAIT_SECONDS",
    "DEFAULT_RESYNC_PERIOD",
    "DEFAULT_WORKERS",
    "RetryPolicy",
    "Change",
    "ChangeFeed",
    "Controller",
    "ControllerManager",
    "ControllerMetrics",
    "LeaseStore",
    "ListKeys",
    "ObjectKey",
    "Outcome",
    "ReconcileError",
    "Reconciler",
    "Result",
    "TerminalError",
    "TransientError",
]

logger = logging.getLogger(__name__)

DEFAULT_WORKERS = 4
DEFAULT_BACKOFF = RetryPolicy()
DEFAULT_RESYNC_PERIOD = timedelta(minutes=10)
DEFAULT_LEASE_TTL = timedelta(seconds=15)
#: Changes read from the feed per query.
DEFAULT_FEED_BATCH_SIZE = 500
#: Real seconds to wait for a feed notification before polling anyway (a lost NOTIFY costs this much).
DEFAULT_FEED_POLL_SECONDS = 5.0
#: Upper bound of any real-time wait for a clock-computed due time, so that a clock that jumped
#: without anybody calling wake() (wall-clock adjustment, fake clock) is noticed within this.
DEFAULT_MAX_REAL_WAIT_SECONDS = 1.0


# -- the contract ---------------------------------------------------------------------------------


@dataclass(frozen=True, order=True)
class ObjectKey:
    """What a reconcile is about: only the identity, so that queued requests merge."""

    kind: str
    id: str

    def __str__(self) -> str:
        return f"{self.kind}/{self.id}"


@dataclass(frozen=True)
class Result:
    """A successful run; ``requeue_after`` asks for another run after that long (by the clock)."""

    requeue_after: timedelta | None = None


class ReconcileError(Exception):
    """Base of the errors a reconciler raises to say how it should be retried."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class TransientError(ReconcileError):
    """Retry later: after ``delay`` if given, else after the key's exponential backoff."""

    def __init__(self, message: str, delay: timedelta | None = None) -> None:
        super().__init__(message)
        if delay is not None and delay < timedelta(0):
            raise ValueError(f"TransientError delay must not be negative, got {delay}")
        self.delay = delay


class TerminalError(ReconcileError):
    """Retrying cannot help; the key is not retried until the object changes again."""


class OwnWrites:
    """The status writes a reconciler committed, so that the change feed can tell their changes
    from everyone else's (exactly those revisions: an earlier change of the object is someone
    else's and still queues it).

    A pass may write its object more than once (a finalizer before the first external effect,
    then the status it reached): each of its commits is recorded, up to ``KEPT`` per object.

    A write is *in flight* from the statement that makes it (``writing``) until the writer
    learns how its transaction ended (``committed`` / ``rolled_back``). The feed can read a
    commit before the writer's coroutine resumes from it, so a change of an object whose write
    is in flight is held back until then: the writer's own revision queues nothing, any other
    queues the object once (``bind``'s callback), and after a rollback every held change does."""

    #: Revisions kept per object until the feed delivers them (the feed delivers in revision
    #: order, so delivering one drops every earlier one; a bound for writes it never delivers,
    #: e.g. of a shard handed over meanwhile).
    KEPT = 4

    def __init__(self) -> None:
        self._revisions: dict[str, list[int]] = {}
        self._in_flight: dict[str, list[int]] = {}
        self._enqueue: Callable[[str], None] = _nothing

    def bind(self, enqueue: Callable[[str], None]) -> None:
        """Where held-back changes that are not the reconciler's own go (the controller's queue)."""
        self._enqueue = enqueue

    def writing(self, object_id: str) -> None:
        self._in_flight.setdefault(object_id, [])

    def committed(self, object_id: str, revision: int) -> None:
        held = self._in_flight.pop(object_id, [])
        if revision in held:
            held.remove(revision)
        else:
            recorded = self._revisions.setdefault(object_id, [])
            recorded.append(revision)
            del recorded[:-self.KEPT]
        if held:
            self._enqueue(object_id)

    def rolled_back(self, object_id: str) -> None:
        if self._in_flight.pop(object_id, []):
            self._enqueue(object_id)

    def absorbs(self, object_id: str, revision: int) -> bool:
        """Whether the change at ``revision`` queues nothing now: it is a recorded write
        (forgotten once asked, with every earlier one), or the object's write is in flight and
        the change waits for it."""
        held = self._in_flight.get(object_id)
        if held is not None:
            held.append(revision)
            return True
        recorded = self._revisions.get(object_id)
        if recorded is None or revision not in recorded:
            return False
        later = [r for r in recorded if r > revision]
        if later:
            self._revisions[object_id] = later
        else:
            del self._revisions[object_id]
        return True


def _nothing(_object_id: str) -> None:
    return None


class Reconciler(Protocol):
    """Drives objects of one kind towards their spec. See the module docstring for the contract."""

    kind: str

    async def reconcile(self, key: ObjectKey) -> Result: ...




class ChangeFeed(Protocol):
    """The store's revision stream, as the controllers consume it.

    Revisions are global and increase in commit order. The feed only says which objects changed;
    the reconciler reads their state. One feed object serves one consumer (its `wait` signal is
    per consumer, like a LISTEN connection).
    """

    async def changes_after(self, revision: int, limit: int) -> list[Change]:
        """Up to ``limit`` changes with a revision greater than ``revision``, oldest first.

        :raises Exception: anything when the store cannot answer, including a revision that
            retention already removed; the manager then resyncs every kind (nothing is lost).
        """
        ...

    async def wait(self, timeout: float) -> None:
        """Return when new changes may be there (woken), or after ``timeout`` real seconds.

        Spurious returns are fine. A change committed after the last `changes_after` call must
        make the next wait return promptly.
        """
        ...

    async def current_revision(self) -> int:
        """The newest committed revision (0 for an empty store)."""
        ...

    def known_committed(self) -> int:
        """The newest revision this process knows to be committed, without asking the store: a
        read that begins now sees it and every revision below it (0: none known)."""
        ...


class LeaseStore(Protocol):
    """Named leases with one holder until they expire; what partitions controllers across processes."""

    async def try_acquire(self, name: str, holder: str, ttl: timedelta) -> bool:
        """Take or renew ``name`` for ``ttl`` from now if it is free, expired or already ``holder``'s.

        Returns whether ``holder`` holds it now. Race-free: of concurrent callers at most one wins.
        """
        ...

    async def release(self, name: str, holder: str) -> None:
        """Give ``name`` up if ``holder`` holds it, so that another holder need not wait for expiry."""
        ...

    async def try_acquire_many(self, names: Iterable[str], holder: str, ttl: timedelta) -> set[str]:
        """`try_acquire` of every name at once; the names ``holder`` holds now."""
        ...

    async def release_many(self, names: Iterable[str], holder: str) -> None:
        """`release` of every name at once."""
        ...

    async def live(self, prefix: str) -> dict[str, str]:
        """Every unexpired lease whose name starts with ``prefix``: name -> holder."""
        ...


#: ``list_keys(kind)`` returns the ids of every live object of the kind (for resyncs).
ListKeys = Callable[[str], Awaitable[Iterable[str]]]


def default_holder() -> str:
    """A holder name unique to this process: host, pid and a random suffix (pids get reused)."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def _everything(_: str) -> bool:
    return True


def _in_shards(shards: int, chosen: frozenset[int], object_id: str) -> bool:
    return shard_of(object_id, shards) in chosen


def _ranges(shards: Iterable[int]) -> str:
    """``0-3,8,10-11``: a set of shards for a log line."""
    ordered = sorted(shards)
    parts: list[str] = []
    start = previous = ordered[0]
    for shard in [*ordered[1:], None]:
        if shard is not None and shard == previous + 1:
            previous = shard
            continue
        parts.append(str(start) if start == previous else f"{start}-{previous}")
        if shard is not None:
            start = previous = shard
    return ",".join(parts)


# -- waiting on an injected clock ---------------------------------------------------------------


async def _wait_for_wake(clock: Clock, due: datetime | None, wake: asyncio.Event, max_wait: float) -> None:
    """Wait until ``due`` by the clock, a wake(), or ``max_wait`` real seconds, whichever is first.

    Callers re-check the clock after every return: this only decides how long to doze.
    (``asyncio.timeout`` rather than ``wait_for``: on Python 3.11 the latter can swallow a
    cancellation that arrives as the event is set, and the loop would never stop.)
    """
    timeout = max_wait
    if due is not None:
        timeout = min(timeout, (due - clock.now()).total_seconds())
    if timeout > 0:
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout):
                await wake.wait()
    wake.clear()


async def _sleep(clock: Clock, delay: timedelta, wake: asyncio.Event, max_wait: float) -> None:
    """Sleep for ``delay`` by the clock (which a fake clock makes instant once advanced and woken)."""
    due = clock.now() + delay
    while clock.now() < due:
        await _wait_for_wake(clock, due, wake, max_wait)


# -- one kind -------------------------------------------------------------------------------------


class _State(Enum):
    STOPPED = "stopped"
    RUNNING = "running"
    STOPPING = "stopping"


class Controller:
    """The work queue, workers, timers and resync of one kind.

    Keys enter through `enqueue` (a change: also lifts a terminal error), `enqueue_after` (a timer)
    and resyncs. Outside `start`..`stop` every entry is ignored: the next start resyncs anyway.
    """

    def __init__(
        self,
        reconciler: Reconciler,
        *,
        clock: Clock,
        list_keys: ListKeys,
        workers: int = DEFAULT_WORKERS,
        backoff: RetryPolicy = DEFAULT_BACKOFF,
        resync_period: timedelta = DEFAULT_RESYNC_PERIOD,
        metrics: ControllerMetrics | None = None,
        max_real_wait: float = DEFAULT_MAX_REAL_WAIT_SECONDS,
        owns: Callable[[str], bool] | None = None,
        known_committed: Callable[[], int] | None = None,
    ) -> None:
        if workers < 1:
            raise ValueError(f"a controller needs at least one worker, got {workers}")
        if resync_period <= timedelta(0):
            raise ValueError(f"resync_period must be positive, got {resync_period}")
        self.kind = reconciler.kind
        self._reconciler = reconciler
        own = getattr(reconciler, "own_writes", None)
        self._own_writes: OwnWrites | None = own if isinstance(own, OwnWrites) else None
        if self._own_writes is not None:
            self._own_writes.bind(self.enqueue)
        #: The reconciler's ``dependents(kind, object_id)``, when it follows other kinds.
        self.dependents: Callable[[str, str], Iterable[str]] | None = getattr(reconciler, "dependents", None)
        self._clock = clock
        self._list_keys = list_keys
        self._worker_count = workers
        self._backoff = backoff
        self._resync_period = resync_period
        self._metrics = metrics if metrics is not None else default_metrics()
        self._metrics.follow_queue(self.kind, lambda: self.oldest_wait)
        self._max_real_wait = max_real_wait
        #: Whether a key is this process's to reconcile (its shard is held); others are ignored.
        self._owns: Callable[[str], bool] = owns if owns is not None else _everything
        #: The feed's ``known_committed``: a pass that began knowing revision r has seen every
        #: change up to r, so those changes queue no pass of its key when the feed routes them.
        self._known_committed = known_committed
        self._pass_listeners: list[Callable[[str, Outcome, PassCost], None]] = []

        self._state = _State.STOPPED
        self._workers: list[asyncio.Task[None]] = []
        self._timer_task: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()
        self._idle = asyncio.Event()
        self._idle.set()
        self._nothing_running = asyncio.Event()
        self._nothing_running.set()
        self._stopped = asyncio.Event()
        self._stopped.set()
        self._sequence = itertools.count()
        # Not reset with the rest: a resync may still be listing while a concurrent stop() resets.
        self._resyncs_in_progress = 0
        self._reset()

    def _reset(self) -> None:
        #: Queued keys -> whether a change queued them (else only time did); the two lanes hold
        #: them in order (an entry whose key moved lanes or left is skipped when reached).
        self._queued: dict[str, bool] = {}
        #: Queued keys -> when (monotonic) they were first queued, for the oldest waiting key's age.
        self._queued_at: dict[str, float] = {}
        self._changed_lane: collections.deque[str] = collections.deque()
        self._timed_lane: collections.deque[str] = collections.deque()
        self._work_ready = asyncio.Event()
        self._running: set[str] = set()
        #: Keys queued while running -> whether by a change.
        self._dirty: dict[str, bool] = {}
        #: Keys whose last pass began knowing a revision the feed has not routed yet -> that
        #: revision (``_seen``; ``routed_through`` drops the rest).
        self._began_knowing: dict[str, int] = {}
        self._timers: dict[str, datetime] = {}
        self._timer_heap: list[tuple[datetime, int, str]] = []
        self._failures: Attempts[str] = Attempts()
        self._terminal: set[str] = set()
        self._resync_failures = 0
        self._next_resync: datetime | None = None

    # -- state --------------------------------------------------------------------------------

    @property
    def is_running(self) -> bool:
        return self._state is _State.RUNNING

    @property
    def is_stopped(self) -> bool:
        """Fully stopped (not running, not finishing in-flight runs): `start` may be called."""
        return self._state is _State.STOPPED

    @property
    def is_idle(self) -> bool:
        """Nothing queued, nothing being reconciled, no resync listing keys (timers may be pending)."""
        return not self._queued and not self._running and self._resyncs_in_progress == 0

    def scheduled_at(self, object_id: str) -> datetime | None:
        """When the key's timer fires, if it has one."""
        return self._timers.get(object_id)

    @property
    def next_timer_at(self) -> datetime | None:
        """When the earliest timer fires (None: no timer), while running."""
        return self._next_timer() if self._state is _State.RUNNING else None

    # -- entries ------------------------------------------------------------------------------

    def enqueue_change(self, object_id: str, revision: int) -> None:
        """The change feed's entry: the object changed at ``revision``; the reconciler's own write
        queues nothing, nor a change the object's last pass has seen."""
        if self._own_writes is not None and self._own_writes.absorbs(object_id, revision):
            return
        if not self._seen(object_id, revision):
            self.enqueue(object_id)

    def enqueue_dependents(self, kind: str, object_id: str, revision: int) -> None:
        """An object of another kind changed at ``revision``: queue this kind's objects that
        depend on it, as the reconciler names them (``dependents(kind, object_id)``, for
        reconcilers that have one), except those whose last pass has seen the change."""
        if self.dependents is None or kind == self.kind:
            return
        for dependent in self.dependents(kind, object_id):
            if not self._seen(dependent, revision):
                self.enqueue(dependent)

    def _seen(self, object_id: str, revision: int) -> bool:
        """Whether the change at ``revision`` was committed before the key's last pass began, so
        that every read of the pass saw it. The feed routes a change some time after its commit:
        a pass that began in between (queued by an earlier change) already acted on it, and
        another pass would find nothing new (an attachment woken again by each of its VM's
        writes that it had read)."""
        return revision <= self._began_knowing.get(object_id, 0)

    def routed_through(self, revision: int) -> None:
        """The feed routed every change up to ``revision``: no change a pass began knowing can
        still come."""
        if self._began_knowing:
            self._began_knowing = {key: known for key, known in self._began_knowing.items() if known > revision}

    def enqueue(self, object_id: str) -> None:
        """The object changed: reconcile it soon (and forget a terminal error)."""
        self._terminal.discard(object_id)
        self._add(object_id)

    def enqueue_after(self, object_id: str, delay: timedelta) -> None:
        """Reconcile the key after ``delay``, unless an earlier run is already due."""
        self._schedule(object_id, self._clock.now() + delay)

    def wake(self) -> None:
        """The clock may have moved: queue every key that is due by now and re-plan the timers."""
        if self._state is not _State.RUNNING:
            return
        self._fire_due_timers()
        self._wake.set()

    async def resync(self, *, spread: bool = False, where: Callable[[str], bool] | None = None) -> None:
        """Enqueue every key of the kind this process owns (or only those ``where`` accepts),
        except keys parked by a terminal error; with ``spread``, each at its own slot within the
        next ``resync_period`` instead of all now (``spread.py``), so a periodic resync is no burst.

        :raises Exception: whatever ``list_keys`` raises.
        """
        self._resyncs_in_progress += 1
        self._idle.clear()
        try:
            object_ids = list(await self._list_keys(self.kind))
        finally:
            self._resyncs_in_progress -= 1
            self._update_idle()
        if where is None:
            self._terminal.intersection_update(object_ids)
        now = self._clock.now()
        for object_id in object_ids:
            if object_id in self._terminal or not self._owns(object_id):
                continue
            if where is not None and not where(object_id):
                continue
            if spread:
                self._schedule(object_id, now + until_slot(object_id, now, self._resync_period))
            else:
                self._add(object_id, changed=False)

    def forget(self, where: Callable[[str], bool]) -> None:
        """Drop the queued keys and timers ``where`` accepts (their shard went to another
        process); runs in flight finish."""
        for object_id in [key for key in self._queued if where(key)]:
            del self._queued[object_id]
            self._queued_at.pop(object_id, None)
        for object_id in [key for key in self._dirty if where(key)]:
            del self._dirty[object_id]
        for object_id in [key for key in self._timers if where(key)]:
            del self._timers[object_id]
        self._terminal = {key for key in self._terminal if not where(key)}
        self._failures.forget(where)
        self._update_idle()
        self._report_depth()

    @property
    def reconciler(self) -> Reconciler:
        return self._reconciler

    async def wait_idle(self) -> None:
        """Return once `is_idle` (immediately when stopped)."""
        while not self.is_idle:
            await self._idle.wait()

    # -- lifecycle ----------------------------------------------------------------------------

    async def start(self) -> None:
        """Start the workers, enqueue every key (initial resync) and follow timers and resyncs."""
        if self._state is not _State.STOPPED:
            raise RuntimeError(f"the {self.kind} controller is {self._state.value}, not stopped")
        self._reset()
        self._state = _State.RUNNING
        self._stopped.clear()
        self._workers = [
            asyncio.create_task(self._work(), name=f"reconcile {self.kind} #{number}")
            for number in range(self._worker_count)
        ]
        logger.info("starting the %s controller with %d workers", self.kind, self._worker_count)
        await self._resync_guarded()
        if self._state is _State.RUNNING:
            self._timer_task = asyncio.create_task(self._follow_timers(), name=f"timers {self.kind}")

    async def stop(self, timeout: float | None = None) -> None:
        """Stop taking work, drop queued keys and timers, and wait for in-flight runs.

        In-flight runs still running after ``timeout`` real seconds are cancelled. Stopping a
        stopped controller does nothing; a concurrent second stop waits for the first.
        """
        if self._state is _State.STOPPED:
            return
        if self._state is _State.STOPPING:
            await self._stopped.wait()
            return
        self._state = _State.STOPPING
        self._queued.clear()
        self._queued_at.clear()
        self._changed_lane.clear()
        self._timed_lane.clear()
        self._dirty.clear()
        self._timers.clear()
        self._timer_heap.clear()
        self._report_depth()
        timer_task, self._timer_task = self._timer_task, None
        if timer_task is not None:
            timer_task.cancel()
            await asyncio.gather(timer_task, return_exceptions=True)
        if self._running:
            try:
                async with asyncio.timeout(timeout):
                    await self._nothing_running.wait()
            except TimeoutError:
                logger.warning(
                    "cancelling in-flight reconciles of %s after %s s: %s",
                    self.kind,
                    timeout,
                    ", ".join(sorted(self._running)),
                )
        for task in self._workers:
            task.cancel()
        await asyncio.gather(*self._workers, return_exceptions=True)
        self._workers = []
        self._reset()
        self._report_depth()
        self._state = _State.STOPPED
        self._update_idle()
        self._stopped.set()
        logger.info("stopped the %s controller", self.kind)

    # -- queue --------------------------------------------------------------------------------

    def _add(self, object_id: str, changed: bool = True) -> None:
        """Queue the key: ``changed`` when a change asks for the run, False when time does."""
        if self._state is not _State.RUNNING or not self._owns(object_id):
            return
        if object_id in self._running:
            self._dirty[object_id] = self._dirty.get(object_id, False) or changed
            return
        queued = self._queued.get(object_id)
        if queued is not None and (queued or not changed):
            return
        self._queued[object_id] = changed
        self._queued_at.setdefault(object_id, self._clock.monotonic())
        (self._changed_lane if changed else self._timed_lane).append(object_id)
        self._work_ready.set()
        self._idle.clear()
        self._report_depth()

    async def _take(self) -> str:
        """The next key to run: the oldest queued by a change, else the oldest queued by time."""
        while True:
            for lane, changed in ((self._changed_lane, True), (self._timed_lane, False)):
                while lane:
                    object_id = lane.popleft()
                    if self._queued.get(object_id) is changed:
                        del self._queued[object_id]
                        self._queued_at.pop(object_id, None)
                        return object_id
            self._work_ready.clear()
            await self._work_ready.wait()

    def _schedule(self, object_id: str, due: datetime) -> None:
        if self._state is not _State.RUNNING or not self._owns(object_id):
            return
        if due <= self._clock.now():
            self._add(object_id, changed=False)
            return
        current = self._timers.get(object_id)
        if current is not None and current <= due:
            return
        self._timers[object_id] = due
        heapq.heappush(self._timer_heap, (due, next(self._sequence), object_id))
        if len(self._timer_heap) > 2 * len(self._timers) + 64:
            self._timer_heap = [(when, next(self._sequence), key) for key, when in self._timers.items()]
            heapq.heapify(self._timer_heap)
        self._wake.set()

    def _next_timer(self) -> datetime | None:
        heap = self._timer_heap
        while heap and self._timers.get(heap[0][2]) != heap[0][0]:
            heapq.heappop(heap)
        return heap[0][0] if heap else None

    def _fire_due_timers(self) -> None:
        now = self._clock.now()
        while (due := self._next_timer()) is not None and due <= now:
            _, _, object_id = heapq.heappop(self._timer_heap)
            del self._timers[object_id]
            self._add(object_id, changed=False)

    def _report_depth(self) -> None:
        self._metrics.set_depth(self.kind, len(self._queued))

    @property
    def depth(self) -> int:
        """Keys waiting for a worker."""
        return len(self._queued)

    @property
    def oldest_wait(self) -> float:
        """Seconds (monotonic) the longest-waiting queued key has waited (0: nothing queued)."""
        if not self._queued_at:
            return 0.0
        return max(0.0, self._clock.monotonic() - min(self._queued_at.values()))

    def add_pass_listener(self, listener: Callable[[str, Outcome, PassCost], None]) -> None:
        """Call ``listener(object_id, outcome, cost)`` after every finished pass (tests, benchmarks)."""
        self._pass_listeners.append(listener)

    def _update_idle(self) -> None:
        if self.is_idle:
            self._idle.set()
        else:
            self._idle.clear()

    # -- tasks --------------------------------------------------------------------------------

    async def _work(self) -> None:
        while True:
            object_id = await self._take()
            self._running.add(object_id)
            if self._known_committed is not None:
                self._began_knowing[object_id] = self._known_committed()
            self._nothing_running.clear()
            self._timers.pop(object_id, None)
            self._report_depth()
            try:
                await self._reconcile(object_id)
            except Exception as error:  # reconcile()'s own errors are handled inside; this is a runtime bug
                raise_if_cancelled(error)
                logger.exception("the %s controller failed handling %s", self.kind, object_id)
            finally:
                self._running.discard(object_id)
                if object_id in self._dirty:
                    self._add(object_id, changed=self._dirty.pop(object_id))
                if not self._running:
                    self._nothing_running.set()
                self._update_idle()
            if self._state is not _State.RUNNING:
                return

    async def _reconcile(self, object_id: str) -> None:
        key = ObjectKey(self.kind, object_id)
        started = self._clock.monotonic()
        outcome: Outcome
        with counting() as cost:
            outcome = await self._run(key)
        self._metrics.record(self.kind, outcome, self._clock.monotonic() - started)
        self._metrics.record_cost(self.kind, cost)
        for listener in self._pass_listeners:
            listener(object_id, outcome, cost)

    async def _run(self, key: ObjectKey) -> Outcome:
        """One reconcile of ``key`` and what follows from how it ended."""
        object_id = key.id
        outcome: Outcome
        try:
            result = await self._reconciler.reconcile(key)
            if not isinstance(result, Result):
                raise TypeError(
                    f"{type(self._reconciler).__name__}.reconcile({key}) returned {result!r}; "
                    "return a Result or raise"
                )
        except TerminalError as error:
            outcome = Outcome.TERMINAL_ERROR
            self._failures.succeeded(object_id)
            self._terminal.add(object_id)
            logger.warning("reconcile %s failed for good, not retried until it changes: %s", key, error)
        except TransientError as error:
            outcome = Outcome.TRANSIENT_ERROR
            failures = self._failures.failed(object_id)
            delay = error.delay if error.delay is not None else self._backoff.delay(failures)
            logger.info("reconcile %s: %s; retrying in %s", key, error, delay)
            self._schedule(object_id, self._clock.now() + delay)
        except (WriteContention, Conflict) as error:  # a concurrent writer won: again from a fresh read
            outcome = Outcome.TRANSIENT_ERROR
            delay = self._backoff.delay(self._failures.failed(object_id))
            logger.info("reconcile %s: %s; retrying in %s", key, error, delay)
            self._schedule(object_id, self._clock.now() + delay)
        except Exception as error:
            raise_if_cancelled(error)
            outcome = Outcome.ERROR
            delay = self._backoff.delay(self._failures.failed(object_id))
            logger.exception("reconcile %s raised; retrying in %s", key, delay)
            self._schedule(object_id, self._clock.now() + delay)
        else:
            self._failures.succeeded(object_id)
            self._terminal.discard(object_id)
            if result.requeue_after is None:
                outcome = Outcome.SUCCESS
            else:
                outcome = Outcome.REQUEUE
                self._schedule(object_id, self._clock.now() + result.requeue_after)
        return outcome

    async def _resync_guarded(self, *, spread: bool = False) -> None:
        try:
            await self.resync(spread=spread)
        except Exception as error:
            raise_if_cancelled(error)
            self._resync_failures += 1
            delay = self._backoff.delay(self._resync_failures)
            logger.exception("listing the %s objects for a resync failed; retrying in %s", self.kind, delay)
            self._next_resync = self._clock.now() + delay
        else:
            self._resync_failures = 0
            self._next_resync = self._clock.now() + self._resync_period

    async def _follow_timers(self) -> None:
        while self._state is _State.RUNNING:
            self._fire_due_timers()
            if self._next_resync is not None and self._clock.now() >= self._next_resync:
                # a periodic resync spreads; the retry of a failed one (the start's) does not
                await self._resync_guarded(spread=self._resync_failures == 0)
            candidates = [when for when in (self._next_timer(), self._next_resync) if when is not None]
            await _wait_for_wake(self._clock, min(candidates, default=None), self._wake, self._max_real_wait)


# -- several kinds, one process -----------------------------------------------------------------


class ControllerManager:
    """Runs one `Controller` per reconciler while holding its kind's lease, fed by a `ChangeFeed`.

    `start` reads the feed's current revision, takes the leases it can (each controller it starts
    resyncs its whole kind) and then follows the feed from that revision, routing each change to
    its kind's controller. Changes of kinds whose lease another process holds are skipped: that
    process sees them in its own feed.
    """

    def __init__(
        self,
        reconcilers: Iterable[Reconciler],
        *,
        feed: ChangeFeed,
        leases: LeaseStore,
        list_keys: ListKeys,
        clock: Clock,
        holder: str | None = None,
        lease_ttl: timedelta = DEFAULT_LEASE_TTL,
        workers: int = DEFAULT_WORKERS,
        backoff: RetryPolicy = DEFAULT_BACKOFF,
        resync_period: timedelta = DEFAULT_RESYNC_PERIOD,
        feed_batch_size: int = DEFAULT_FEED_BATCH_SIZE,
        feed_poll_seconds: float = DEFAULT_FEED_POLL_SECONDS,
        stop_timeout: float | None = None,
        metrics: ControllerMetrics | None = None,
        max_real_wait: float = DEFAULT_MAX_REAL_WAIT_SECONDS,
        shards: int = DEFAULT_SHARDS,
    ) -> None:
        if lease_ttl <= timedelta(0):
            raise ValueError(f"lease_ttl must be positive, got {lease_ttl}")
        if not 1 <= shards <= MAX_SHARDS:
            raise ValueError(f"shards must be between 1 and {MAX_SHARDS}, got {shards}")
        self.holder = holder if holder is not None else default_holder()
        self._shards = shards
        self._feed = feed
        self._leases = leases
        self._clock = clock
        self._lease_ttl = lease_ttl
        self._renew_interval = lease_ttl / 3
        self._backoff = backoff
        self._feed_batch_size = feed_batch_size
        self._feed_poll_seconds = feed_poll_seconds
        self._stop_timeout = stop_timeout
        self._max_real_wait = max_real_wait
        metrics = metrics if metrics is not None else default_metrics()
        self._controllers: dict[str, Controller] = {}
        for reconciler in reconcilers:
            if reconciler.kind in self._controllers:
                raise ValueError(f"two reconcilers for kind {reconciler.kind!r}")
            self._controllers[reconciler.kind] = Controller(
                reconciler,
                clock=clock,
                list_keys=list_keys,
                workers=workers,
                backoff=backoff,
                resync_period=resync_period,
                metrics=metrics,
                max_real_wait=max_real_wait,
                owns=self.owns,
                known_committed=feed.known_committed,
            )
        #: The controllers told of other kinds' changes (their reconcilers name dependents).
        self._followers = [controller for controller in self._controllers.values() if controller.dependents is not None]
        #: Held shards -> when their lease expires at the latest (by this process's estimate).
        self._held: dict[int, datetime] = {}
        #: The live members of the deployment at the last renewal (this manager included).
        self._members: tuple[str, ...] = ()
        self._stopping: dict[str, asyncio.Task[None]] = {}
        self._lease_lock = asyncio.Lock()
        self._lease_wake = asyncio.Event()
        self._feed_wake = asyncio.Event()
        self._progress = asyncio.Condition()
        self._revision = 0
        self._tasks: list[asyncio.Task[None]] = []
        self._is_started = False
        self._is_stopped = False

    @property
    def controllers(self) -> Mapping[str, Controller]:
        return self._controllers

    @property
    def shards(self) -> int:
        return self._shards

    @property
    def held_shards(self) -> frozenset[int]:
        """Shards whose lease this manager believes it holds."""
        return frozenset(self._held)

    @property
    def members(self) -> tuple[str, ...]:
        """The live managers of the deployment at the last renewal, in name order."""
        return self._members

    def owns(self, object_id: str) -> bool:
        """Whether this manager reconciles ``object_id`` (of any kind): its shard is held."""
        return shard_of(object_id, self._shards) in self._held

    @property
    def leads(self) -> bool:
        """Whether this manager does the deployment-wide work (gauges over every object, the
        orphan sweep): the holder of shard 0 does, so exactly one manager at a time."""
        return 0 in self._held

    @property
    def lead_kinds(self) -> frozenset[str]:
        """The kinds whose deployment-wide work this manager does (all of its kinds while it
        `leads`, else none)."""
        return frozenset(self._controllers) if self.leads else frozenset()

    @property
    def revision(self) -> int:
        """The last feed revision routed to the controllers."""
        return self._revision

    def enqueue(self, key: ObjectKey) -> None:
        """Reconcile ``key`` soon if this manager runs its kind (others ignore it)."""
        controller = self._controllers.get(key.kind)
        if controller is not None:
            controller.enqueue(key.id)

    def wake(self) -> None:
        """The clock moved: fire due timers now and let the lease and resync loops re-check."""
        for controller in self._controllers.values():
            controller.wake()
        self._lease_wake.set()
        self._feed_wake.set()

    async def start(self) -> None:
        if self._is_started:
            raise RuntimeError("a ControllerManager starts once")
        self._is_started = True
        self._revision = await self._feed.current_revision()
        await self.renew_leases()
        self._tasks = [
            asyncio.create_task(self._follow_leases(), name="controller leases"),
            asyncio.create_task(self._follow_feed(), name="controller change feed"),
        ]

    async def stop(self, timeout: float | None = None) -> None:
        """Stop following, stop every controller (in-flight runs finish first) and release the leases."""
        async with self._lease_lock:
            self._is_stopped = True
            for task in self._tasks:
                task.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)
            self._tasks = []
        await asyncio.gather(*self._stopping.values(), return_exceptions=True)
        await asyncio.gather(*(controller.stop(timeout) for controller in self._controllers.values()))
        names = [shard_lease(shard) for shard in self._held]
        try:
            await self._leases.release_many([*names, member_lease(self.holder, self._shards)], self.holder)
        except Exception:
            logger.exception("releasing the shard leases failed; they expire on their own")
        self._held.clear()

    async def wait_idle(self) -> None:
        """Return once every change committed so far is routed and every running controller is idle.

        Loops while the reconciles themselves write changes, so it returns at a quiet point (for
        tests and the simulator's clock steps). Timers may still be pending.
        """
        while True:
            target = await self._feed.current_revision()
            async with self._progress:
                await self._progress.wait_for(functools.partial(self._has_routed, target))
            running = [controller for controller in self._controllers.values() if controller.is_running]
            for controller in running:
                await controller.wait_idle()
            if all(controller.is_idle for controller in running) and (
                await self._feed.current_revision() == target
            ):
                return

    @property
    def next_timer_at(self) -> datetime | None:
        """When the earliest timer of any running controller fires (requeues, retries; not the
        periodic resyncs)."""
        return min((when for controller in self._controllers.values()
                    if (when := controller.next_timer_at) is not None), default=None)

    @property
    def is_idle(self) -> bool:
        """Every running controller is idle right now (whether every change is routed is what
        `wait_idle` checks)."""
        return all(controller.is_idle for controller in self._controllers.values() if controller.is_running)

    def _has_routed(self, revision: int) -> bool:
        return self._revision >= revision

    # -- leases -------------------------------------------------------------------------------

    async def renew_leases(self) -> None:
        """Renew the membership, deal the shards over the live members, take the shards dealt
        to this manager and give up the others; start the controllers when the first shard is
        won (each resyncs what it owns), resync what a new shard brings, stop them when none is
        left (see ``shards.py``)."""
        async with self._lease_lock:
            if self._is_stopped:
                return
            asked_at = self._clock.now()
            before = frozenset(self._held)
            try:
                won = await self._deal()
                handed = before - frozenset(self._held)
            except Exception as error:
                raise_if_cancelled(error)
                logger.exception("renewing the shard leases failed; holding them until they would expire")
                for shard in [shard for shard, expiry in self._held.items() if not asked_at < expiry]:
                    del self._held[shard]
            else:
                for shard in before - handed - won:
                    logger.warning("%s lost shard %d of %d", self.holder, shard, self._shards)
                    del self._held[shard]
                for shard in won:
                    self._held[shard] = asked_at + self._lease_ttl
            await self._follow_shards(before, frozenset(self._held))

    async def _deal(self) -> frozenset[int]:
        """One round of `renew_leases` against the lease store: the shards held now."""
        await self._leases.try_acquire(member_lease(self.holder, self._shards), self.holder, self._lease_ttl)
        members: set[str] = set()
        others: set[int] = set()
        for name in await self._leases.live(MEMBER_PREFIX):
            parsed = parse_member(name)
            if parsed is None:
                continue
            count, member = parsed
            if count == self._shards:
                members.add(member)
            else:
                others.add(count)
        self._members = tuple(sorted({*members, self.holder}))
        if others:
            logger.error("live controller processes use %s shards, this one %d: taking no new shards until "
                         "every process uses the same controllers.shards",
                         ", ".join(str(count) for count in sorted(others)), self._shards)
            wanted = frozenset(self._held)
        else:
            wanted = dealt_to(self.holder, members, self._shards)
        unwanted = [shard for shard in self._held if shard not in wanted]
        if unwanted:
            await self._leases.release_many([shard_lease(shard) for shard in unwanted], self.holder)
            logger.info("%s handed shards %s over to the other members", self.holder, _ranges(unwanted))
            for shard in unwanted:
                del self._held[shard]
        names = await self._leases.try_acquire_many([shard_lease(shard) for shard in wanted], self.holder,
                                                    self._lease_ttl)
        return frozenset(int(name.removeprefix(SHARD_PREFIX)) for name in names)

    async def _follow_shards(self, before: frozenset[int], now: frozenset[int]) -> None:
        """Start, resync, trim or stop the controllers after the held shards went from
        ``before`` to ``now``."""
        lost, gained = before - now, now - before
        if gained:
            logger.info("%s took shards %s of %d", self.holder, _ranges(gained), self._shards)
        for kind, controller in self._controllers.items():
            if not now:
                if controller.is_running:
                    self._stop_in_background(kind, controller)
                continue
            if lost and controller.is_running:
                controller.forget(functools.partial(_in_shards, self._shards, lost))
            if controller.is_stopped:  # not while a stop is still finishing its in-flight runs
                await controller.start()
            elif gained and controller.is_running:
                try:
                    await controller.resync(where=functools.partial(_in_shards, self._shards, gained))
                except Exception as error:
                    raise_if_cancelled(error)
                    logger.warning("listing the %s objects of new shards failed; the periodic resync "
                                   "catches up", kind, exc_info=True)

    def _stop_in_background(self, kind: str, controller: Controller) -> None:
        """Stop without holding up the renewal of the other kinds' leases."""
        task = asyncio.create_task(controller.stop(self._stop_timeout), name=f"stop {kind} controller")
        self._stopping[kind] = task
        task.add_done_callback(lambda _: self._stopping.pop(kind, None))

    async def _follow_leases(self) -> None:
        # The next renewal is due an interval after the last one began (``start`` renewed just
        # before this loop), not after it ended: a clock that moved while a renewal ran (a fake
        # clock's jump, a slow database) must not push the next one a whole interval further.
        renewed_at = self._clock.now()
        while True:
            due = renewed_at + self._renew_interval
            while self._clock.now() < due:
                await _wait_for_wake(self._clock, due, self._lease_wake, self._max_real_wait)
            renewed_at = self._clock.now()
            try:
                await self.renew_leases()
            except Exception as error:
                raise_if_cancelled(error)
                logger.exception("renewing the controller leases failed")

    # -- change feed --------------------------------------------------------------------------

    async def _follow_feed(self) -> None:
        failures = 0
        while True:
            try:
                changes = await self._feed.changes_after(self._revision, self._feed_batch_size)
            except Exception as error:
                raise_if_cancelled(error)
                failures += 1
                delay = self._backoff.delay(failures)
                logger.exception(
                    "reading changes after revision %d failed; resyncing every kind in %s",
                    self._revision,
                    delay,
                )
                await _sleep(self._clock, delay, self._feed_wake, self._max_real_wait)
                await self._restart_feed()
                continue
            failures = 0
            for change in changes:
                controller = self._controllers.get(change.kind)
                if controller is not None:
                    controller.enqueue_change(change.object_id, change.revision)
                for kind, object_id in change.refers_to:
                    referred = self._controllers.get(kind)
                    if referred is not None:
                        referred.enqueue(object_id)
                for follower in self._followers:
                    follower.enqueue_dependents(change.kind, change.object_id, change.revision)
            if changes:
                for controller in self._controllers.values():
                    controller.routed_through(changes[-1].revision)
                await self._advance(changes[-1].revision)
            if len(changes) < self._feed_batch_size:
                await self._feed.wait(self._feed_poll_seconds)
            else:
                await asyncio.sleep(0)  # a long backlog must not starve the workers

    async def _restart_feed(self) -> None:
        """Skip to the feed's current revision and resync every running kind (level-triggered).

        The skip happens only if every resync worked; otherwise the feed is retried from where it was.
        """
        try:
            revision = await self._feed.current_revision()
            for controller in self._controllers.values():
                if controller.is_running:
                    await controller.resync()
        except Exception as error:
            raise_if_cancelled(error)
            logger.exception("recovering from a change feed failure failed; retrying")
            return
        await self._advance(revision)

    async def _advance(self, revision: int) -> None:
        async with self._progress:
            self._revision = max(self._revision, revision)
            self._progress.notify_all()
