"""``subscribe()`` of the simulated workload providers: a notice per step as its due time passes.

The feed reads due times from ``sim_compute_steps`` (all objects of one kind, through the
``(kind, at)`` index) and sleeps until the next one:

- on a ``FakeClock`` it polls the clock every ``FAKE_CLOCK_POLL`` real seconds (like
  ``runtime.take``), so a test that advances the clock past a due time gets the notice;
- on any other clock it waits for the next due time.

Either way a call of the same provider that plans new steps wakes it at once, and it looks again
at least every ``IDLE_RESCAN`` real seconds for steps planned by another process. A change that
is no step (a fault created or cleared, which alters the next observation) is announced
(``Wakeup.announce``) and reported at once.

A step is planned with the time of its call as its earliest due time, which may lie a moment
before a scan that cannot see it yet (its transaction has not committed). A scan therefore reads
from the earliest start of this process's plans that were in flight since the last scan
(``Wakeup.planning``), or from where the last scan ended when none were; and once per
``IDLE_RESCAN`` it looks ``GRACE`` back, for steps that another process planned. It remembers
what it already reported, so no step is missed or repeated. (Reading ``GRACE`` back on every
wake-up cost a scan of every step of the last 30 s per planning call: with a fleet of VMs
starting, thousands of rows read again dozens of times a second.)
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncEngine

from osac.clock import Clock, FakeClock
from osac.providers.interfaces import ChangeNotice
from osac.providers.simulator.runtime import plan_steps
from osac.providers.simulator.runtime.context import FAKE_CLOCK_POLL
from osac.providers.simulator.runtime.schedulers import Schedulers
from osac.providers.simulator.runtime.times import to_db

GRACE = timedelta(seconds=30)
IDLE_RESCAN = 1.0


@dataclass(eq=False)
class Listener:
    """One running feed: its wake-up and the changes announced to it, not reported yet."""

    event: asyncio.Event = field(default_factory=asyncio.Event)
    announced: list[tuple[str, datetime]] = field(default_factory=list)
    #: The earliest start of the plans that ended since this feed's last scan (None: none did).
    floor: datetime | None = None


class Wakeup:
    """Wakes every running feed of one provider after it planned new steps, or tells them of
    changes that are no steps."""

    def __init__(self) -> None:
        self._listeners: set[Listener] = set()
        #: The starts of this process's plans in flight.
        self._planning: list[datetime] = []

    @contextmanager
    def planning(self, started: datetime) -> Iterator[None]:
        """A provider call that may plan steps due from ``started`` (its clock reading before the
        call) on. Its transaction may commit after a feed scanned past ``started``: until every
        running feed has scanned once after it ended, their scans reach back to ``started``."""
        self._planning.append(started)
        try:
            yield
        finally:
            self._planning.remove(started)
            for listener in self._listeners:
                if listener.floor is None or started < listener.floor:
                    listener.floor = started

    async def planned(self, started: datetime, change: Awaitable[bool]) -> None:
        """Run a provider call's ``change`` (true: it planned or changed steps) as ``planning``
        from ``started``, then wake every running feed if it changed anything."""
        with self.planning(started):
            changed = await change
        if changed:
            self.notify()

    def scan_from(self, listener: Listener, watermark: datetime) -> datetime:
        """Where ``listener``'s next scan starts: ``watermark`` (where its last one ended), or
        earlier for a plan in flight or ended since then."""
        floors = [watermark, *self._planning]
        if listener.floor is not None:
            floors.append(listener.floor)
            listener.floor = None
        return min(floors)

    def notify(self) -> None:
        for listener in self._listeners:
            listener.event.set()

    def announce(self, keys: Iterable[str], changed_at: datetime) -> None:
        """Every running feed reports a notice for each of ``keys`` at once."""
        changes = [(key, changed_at) for key in keys]
        for listener in self._listeners:
            listener.announced.extend(changes)
            listener.event.set()

    @contextmanager
    def listener(self) -> Iterator[Listener]:
        listener = Listener()
        self._listeners.add(listener)
        try:
            yield listener
        finally:
            self._listeners.discard(listener)


async def follow(
    kind: str, engine: AsyncEngine, clock: Clock, wakeup: Wakeup, since: datetime | None = None,
    schedulers: Schedulers | None = None,
) -> AsyncIterator[ChangeNotice]:
    """Notices of ``kind`` for the steps due after ``since`` (default: from now on, including
    steps due right now), forever. The loop is marked in ``schedulers`` after each pass."""
    origin = to_db(since or clock.now())
    inclusive = since is None
    watermark = origin
    reported: dict[tuple[str, int, datetime], None] = {}
    loop = asyncio.get_running_loop()
    looked_back = -IDLE_RESCAN  # the first scan looks back
    with wakeup.listener() as listener, (schedulers or Schedulers()).running(kind, listener.event) as scheduler:
        event = listener.event
        while True:
            event.clear()
            announced, listener.announced = listener.announced, []
            for key, changed_at in announced:
                yield ChangeNotice(kind=kind, key=key, changed_at=changed_at)
            started = clock.now()
            now = to_db(started)
            start = wakeup.scan_from(listener, watermark)
            if loop.time() - looked_back >= IDLE_RESCAN:
                start, looked_back = min(start, watermark - GRACE), loop.time()
            for step in await plan_steps.due_between(engine, kind, max(origin, start), now):
                identity = (step.key, step.seq, step.at)
                if step.at < origin or (step.at == origin and not inclusive) or identity in reported:
                    continue
                reported[identity] = None
                yield ChangeNotice(kind=kind, key=step.key, changed_at=step.at)
            watermark = max(watermark, now)
            for identity in [i for i in reported if i[2] < watermark - GRACE]:
                del reported[identity]
            scheduler.passed_at = started
            await _wait(clock, event, await plan_steps.next_due_after(engine, kind, now))


async def _wait(clock: Clock, event: asyncio.Event, due: datetime | None) -> None:
    loop = asyncio.get_running_loop()
    if isinstance(clock, FakeClock):
        give_up = loop.time() + IDLE_RESCAN
        while not event.is_set() and loop.time() < give_up:
            if due is not None and clock.now() >= due:
                return
            await asyncio.sleep(FAKE_CLOCK_POLL)
        return
    timeout = IDLE_RESCAN if due is None else min(IDLE_RESCAN, max(0.0, (due - clock.now()).total_seconds()))
    try:
        async with asyncio.timeout(timeout):  # not wait_for: it can swallow cancellation on 3.11
            await event.wait()
    except TimeoutError:
        return
