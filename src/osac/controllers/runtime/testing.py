"""In-process implementations of the runtime's boundaries, for tests and embedded tools.

`InMemoryChangeLog` is an outbox without a database: ``append()`` a change, and every feed made by
``feed()`` (one per consumer, like one LISTEN connection each) sees it and is woken.
`InMemoryLeaseStore` has the same semantics as the database lease store, on the injected clock.
They are real implementations of `ChangeFeed` and `LeaseStore`, not mocks: the runtime cannot tell.
"""

from __future__ import annotations

import asyncio
import contextlib
import weakref
from collections.abc import Iterable
from datetime import datetime, timedelta

from osac.clock import Clock
from osac.controllers.runtime.manager import Change


class InMemoryChangeLog:
    """Changes numbered 1, 2, 3, ... in append order."""

    def __init__(self) -> None:
        self._changes: list[Change] = []
        self._feeds: weakref.WeakSet[InMemoryChangeFeed] = weakref.WeakSet()

    @property
    def revision(self) -> int:
        return len(self._changes)

    def append(self, kind: str, object_id: str, refers_to: tuple[tuple[str, str], ...] = ()) -> Change:
        change = Change(revision=len(self._changes) + 1, kind=kind, object_id=object_id, refers_to=refers_to)
        self._changes.append(change)
        for feed in list(self._feeds):
            feed.notify()
        return change

    def feed(self) -> InMemoryChangeFeed:
        feed = InMemoryChangeFeed(self)
        self._feeds.add(feed)
        return feed

    def after(self, revision: int, limit: int) -> list[Change]:
        return self._changes[revision : revision + limit]


class InMemoryChangeFeed:
    """One consumer's view of an `InMemoryChangeLog` (a `ChangeFeed`)."""

    def __init__(self, log: InMemoryChangeLog) -> None:
        self._log = log
        self._signal = asyncio.Event()

    def notify(self) -> None:
        self._signal.set()

    async def changes_after(self, revision: int, limit: int) -> list[Change]:
        # Cleared before reading: an append after this read sets it again, so wait() cannot miss it.
        self._signal.clear()
        return self._log.after(revision, limit)

    async def wait(self, timeout: float) -> None:
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout):
                await self._signal.wait()

    async def current_revision(self) -> int:
        return self._log.revision

    def known_committed(self) -> int:
        return self._log.revision


class InMemoryLeaseStore:
    """A `LeaseStore` in a dict, expiring by ``clock.now()`` exactly like the database one."""

    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        self._leases: dict[str, tuple[str, datetime]] = {}

    async def try_acquire(self, name: str, holder: str, ttl: timedelta) -> bool:
        if ttl <= timedelta(0):
            raise ValueError(f"a lease ttl must be positive, got {ttl}")
        now = self._clock.now()
        current = self._leases.get(name)
        if current is not None and current[0] != holder and not current[1] < now:
            return False
        self._leases[name] = (holder, now + ttl)
        return True

    async def try_acquire_many(self, names: Iterable[str], holder: str, ttl: timedelta) -> set[str]:
        return {name for name in sorted(set(names)) if await self.try_acquire(name, holder, ttl)}

    async def release(self, name: str, holder: str) -> None:
        current = self._leases.get(name)
        if current is not None and current[0] == holder:
            del self._leases[name]

    async def release_many(self, names: Iterable[str], holder: str) -> None:
        for name in set(names):
            await self.release(name, holder)

    async def live(self, prefix: str) -> dict[str, str]:
        now = self._clock.now()
        return {name: holder for name, (holder, expires) in self._leases.items()
                if name.startswith(prefix) and not expires < now}

    async def holder_of(self, name: str) -> str | None:
        current = self._leases.get(name)
        if current is None or current[1] < self._clock.now():
            return None
        return current[0]
