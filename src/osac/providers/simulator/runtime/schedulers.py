"""Whether the simulator's schedulers have caught up with the clock.

Each simulated provider with change notices runs a scheduler loop (``subscribe()``): it wakes on
its provider's own plan writes and on the clock, looks for due steps, yields their notices and
pauses. Whoever steps a fake clock (``osac.server.clock_steps``) must know when every loop has
looked at the current time and delivered what it found, before it waits for the controllers.

A loop registers a ``Scheduler`` for as long as it runs and marks it after each pass; the
notices of a pass are yielded (and so handed to their consumer) before the mark.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime


class Scheduler:
    """One running scheduler loop: ``wake`` is the event its provider sets after storing a plan."""

    def __init__(self, name: str, wake: asyncio.Event) -> None:
        self.name = name
        self.wake = wake
        #: The clock time at the start of the last complete pass (None before the first one).
        self.passed_at: datetime | None = None

    def is_caught_up(self, now: datetime) -> bool:
        """Its last pass looked at ``now`` and nothing has woken it since."""
        return not self.wake.is_set() and self.passed_at == now


class Schedulers:
    """The running scheduler loops of one simulator runtime."""

    def __init__(self) -> None:
        self._running: list[Scheduler] = []

    @contextmanager
    def running(self, name: str, wake: asyncio.Event) -> Iterator[Scheduler]:
        scheduler = Scheduler(name, wake)
        self._running.append(scheduler)
        try:
            yield scheduler
        finally:
            self._running.remove(scheduler)

    def wake(self) -> None:
        """Make every loop look again now (the clock moved)."""
        for scheduler in self._running:
            scheduler.wake.set()

    def lagging(self, now: datetime) -> list[str]:
        """The names of the loops that have not yet caught up with ``now`` (empty: all have)."""
        return [s.name for s in self._running if not s.is_caught_up(now)]
