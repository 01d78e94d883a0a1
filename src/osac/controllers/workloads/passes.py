"""What the workload reconcilers (cluster, compute instance, bare-metal instance) share.

Each of them drives a provider and derives a status from what it observes, so each pass ends the
same way, and these pieces keep that way in one place:

- ``ensure_controller_finalizer``: the controller finalizer is added in its own write before the
  first provider call, so an object is never left with infrastructure and no finalizer;
- ``write_retrying``: the status write runs under the version lock and is re-derived from a fresh
  read on ``Conflict`` (concurrent spec edits are never lost, events never duplicated), a bounded
  number of times before the pass gives way to the next one;
- ``derive_then_write``: the same, with the reads and the derivation in a read transaction and
  only the write in the write transaction (on SQLite the one writer is held for the write
  alone), and no write transaction at all when the derivation changes nothing;
- ``record_status``: the derived status and its lifecycle events go into one transaction;
- ``earliest_requeue``: the next pass is due at the earliest of the hints (derivation deadlines,
  the provider's ``next_change_at``, polls, the resync bound);
- ``ProviderRetries``: capped exponential backoff of failed provider calls, per object;
- ``ChangeLag``: how long a provider change notice took to reach a committed status;
- ``follow_provider``: the per-provider wiring of notices and population gauges.
"""

from __future__ import annotations

import asyncio
import enum
import logging
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime, timedelta
from typing import Any, Final, Literal, TypeVar

from google.protobuf.message import Message

from osac.controllers.clusters import metrics
from osac.controllers.runtime.manager import ControllerManager, ObjectKey, TransientError
from osac.controllers.runtime.notices import NoticeSource, follow_notices
from osac.controllers.runtime.objects import ObjectReconciler, add_finalizer, copy, is_deleting
from osac.controllers.runtime.retry import Attempts, RetryPolicy
from osac.model import registry
from osac.model.shape import id_of
from osac.providers.interfaces import ChangeNotice
from osac.status.conditions.views import LifecycleEventView
from osac.store import lifecycle
from osac.store.errors import Conflict
from osac.store.objects import Store, Tx
from osac.tasks import raise_if_cancelled

log = logging.getLogger(__name__)

#: How many times a write meeting ``Conflict`` is re-derived before the pass is retried instead.
WRITE_ATTEMPTS = 5

_T = TypeVar("_T")
_P = TypeVar("_P")


class _Unset(enum.Enum):
    """Not given, where None is a value (a plan may be None)."""

    UNSET = "unset"


UNSET: Final = _Unset.UNSET


async def write_retrying(store: Store, write: Callable[[Tx], Awaitable[_T]], what: str) -> _T:
    """Run ``write`` in a write transaction, again from a fresh read while it meets ``Conflict``.

    :raises TransientError: still conflicting after ``WRITE_ATTEMPTS`` tries (``what`` names the
        write in the message); the pass runs again at once.
    """
    for _ in range(WRITE_ATTEMPTS):
        try:
            async with store.write() as tx:
                return await write(tx)
        except Conflict:
            continue
    raise TransientError(f"{what} kept conflicting; looking again", delay=timedelta(0))


async def derive_then_write(
    store: Store,
    derive: Callable[[Tx], Awaitable[_P]],
    write: Callable[[Tx, _P], Awaitable[_T]],
    unchanged: Callable[[_P], _T | None],
    what: str,
    first: _P | Literal[_Unset.UNSET] = UNSET,
) -> _T:
    """``derive`` in a read transaction (one snapshot), then ``write`` what it decided in a write
    transaction, whose version lock fails with ``Conflict`` when the object changed since the
    snapshot: then everything is derived again from a fresh read. When ``unchanged(plan)`` gives
    a result, nothing is to be written and no write transaction is opened. ``first``: a plan the
    caller derived already from a snapshot of its own, tried before any ``derive``.

    :raises TransientError: still conflicting after ``WRITE_ATTEMPTS`` tries; the pass runs again at once.
    """
    for attempt in range(WRITE_ATTEMPTS):
        if attempt == 0 and first is not UNSET:
            plan = first
        else:
            async with store.read() as tx:
                plan = await derive(tx)
        result = unchanged(plan)
        if result is not None:
            return result
        try:
            async with store.write() as tx:
                return await write(tx, plan)
        except Conflict:
            continue
    raise TransientError(f"{what} kept conflicting; looking again", delay=timedelta(0))


async def ensure_controller_finalizer(reconciler: ObjectReconciler, object_id: str) -> Message | None:
    """The object as stored once it holds the controller finalizer, added in its own write.

    An object being deleted meanwhile is returned as stored, without a new finalizer (the caller
    sees it with ``is_deleting``); None once it is archived.

    :raises TransientError: the write kept conflicting.
    """

    async def add(tx: Tx) -> Message | None:
        stored = await reconciler.load(tx, object_id)
        if stored is None or is_deleting(stored):
            return stored
        desired = copy(stored)
        add_finalizer(desired)
        return await reconciler.write(tx, desired, stored)

    return await write_retrying(reconciler.store, add, "adding the finalizer")


async def record_status(
    reconciler: ObjectReconciler, tx: Tx, desired: Message, stored: Message, events: Sequence[LifecycleEventView]
) -> Message:
    """Write ``desired`` over ``stored`` and record the derivation's events in the same
    transaction; returns the object as written."""
    written = await reconciler.write(tx, desired, stored)
    for event in events:
        await lifecycle.record(tx, reconciler.descriptor, written, event.type, event.reason, event.message)
    return written


def until(moment: datetime | None, now: datetime) -> timedelta | None:
    """The wait until ``moment`` (negative once it passed); None when there is no moment."""
    return None if moment is None else moment - now


def earliest_requeue(*waits: timedelta | None) -> timedelta | None:
    """The shortest of the given waits, none below zero; None when none is given."""
    given = [wait for wait in waits if wait is not None]
    return max(timedelta(0), min(given)) if given else None


class ProviderRetries:
    """Failed provider calls per object, each answered with a ``TransientError`` whose delay
    grows with the attempt (the policy's ``delay(attempt)``); a success or a forgotten object
    starts over. The policy's limit is not consulted: these calls are retried for as long as the
    object wants them."""

    def __init__(self, label: str, policy: RetryPolicy) -> None:
        self.label = label
        self.policy = policy
        self._attempts: Attempts[str] = Attempts()

    def failed(self, object_id: str, message: str) -> TransientError:
        """Count one more failure of ``object_id``; the error to raise after the status write."""
        attempt = self._attempts.failed(object_id)
        log.info("%s %s: provider call failed (attempt %d): %s", self.label, object_id, attempt, message)
        return TransientError(f"retrying (attempt {attempt}): {message}", delay=self.policy.delay(attempt))

    def succeeded(self, object_id: str) -> None:
        self._attempts.succeeded(object_id)


class ChangeLag:
    """How long each provider change took to reach a committed status, observed as
    ``osac_status_propagation_seconds``: from the change time a notice carries to the commit of
    the first status write whose observation included it.

    A notice can arrive after the pass that reflected its change already committed (the pass
    observed the change before the notice was delivered): it is measured against that write at
    once, not left to be charged to the next, unrelated write. A change that left the status as
    it was (nothing to write) is dropped unmeasured."""

    def __init__(self, label: str) -> None:
        self.label = label
        #: The earliest change per object not yet reflected in a committed status.
        self._pending: dict[str, datetime] = {}
        #: The last committed write per object: (what its observation saw up to, commit time).
        self._reflected: dict[str, tuple[datetime, datetime]] = {}

    def notice(self, object_id: str, changed_at: datetime) -> None:
        reflected = self._reflected.get(object_id)
        if reflected is not None and changed_at <= reflected[0]:
            self._observe(reflected[1], changed_at)
            return
        earliest = self._pending.get(object_id)
        if earliest is None or changed_at < earliest:
            self._pending[object_id] = changed_at

    def committed(self, object_id: str, observed_at: datetime, at: datetime) -> None:
        """A status write of ``object_id``, derived from an observation made at ``observed_at``,
        changed something and committed at ``at``."""
        self._reflected[object_id] = (observed_at, at)
        changed_at = self._pending.get(object_id)
        if changed_at is not None and changed_at <= observed_at:
            del self._pending[object_id]
            self._observe(at, changed_at)

    def unchanged(self, object_id: str, observed_at: datetime) -> None:
        """A pass observed at ``observed_at`` and found the status already right."""
        changed_at = self._pending.get(object_id)
        if changed_at is not None and changed_at <= observed_at:
            del self._pending[object_id]

    def forget(self, object_id: str) -> None:
        self._pending.pop(object_id, None)
        self._reflected.pop(object_id, None)

    def _observe(self, at: datetime, changed_at: datetime) -> None:
        metrics.PROPAGATION.labels(self.label).observe(max(0.0, (at - changed_at).total_seconds()))


def follow_provider(
    application: Any,
    manager: ControllerManager,
    provider: NoticeSource,
    on_notice: Callable[[ChangeNotice], None],
    kind: str,
    refresh: Callable[[list[Message]], Awaitable[None]],
    interval: timedelta,
) -> None:
    """Call ``on_notice`` on every change notice of ``provider``, and keep the population gauges
    of ``kind`` fresh (``refresh`` with every stored object, each ``interval``) while this
    process holds the controller lease of ``kind``. ``application`` is the server's
    ``Application`` (typed loosely: controllers sit below the server layer)."""
    application.spawn(follow_notices(provider, on_notice))
    application.spawn(_refresh_gauges(application, manager, kind, refresh, interval))


def enqueue_notices(manager: ControllerManager, kind: str, lag: ChangeLag) -> Callable[[ChangeNotice], None]:
    """The notice handler of a provider whose notice key is the object id."""

    def on_notice(notice: ChangeNotice) -> None:
        lag.notice(notice.key, notice.changed_at)
        manager.enqueue(ObjectKey(kind, notice.key))

    return on_notice


#: The gauges read their objects this many at a time, each page in its own read transaction,
#: so that a refresh of thousands of objects does not hold the event loop for one long read.
GAUGE_PAGE = 200


async def _all_objects(store: Store, kind: str) -> list[Message]:
    """Every live object of ``kind``, in pages by id."""
    descriptor = registry.get(kind)
    found: list[Message] = []
    while True:
        after = id_of(found[-1]) if found else None
        async with store.read(snapshot=False) as tx:
            page = await tx.find(descriptor, after=after, limit=GAUGE_PAGE)
        found.extend(page)
        if len(page) < GAUGE_PAGE:
            return found
        await asyncio.sleep(0)  # let the passes waiting behind this read run


async def _refresh_gauges(
    application: Any,
    manager: ControllerManager,
    kind: str,
    refresh: Callable[[list[Message]], Awaitable[None]],
    interval: timedelta,
) -> None:
    while True:
        if kind in manager.lead_kinds:
            try:
                await refresh(await _all_objects(application.store, kind))
            except Exception as error:  # the gauges wait for the next round; the controllers go on
                raise_if_cancelled(error)
                log.warning("%s gauges could not be refreshed", kind, exc_info=True)
        await asyncio.sleep(interval.total_seconds())
