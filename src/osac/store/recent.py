"""A shared window over the newest outbox events, so that many watch streams of one process
read the outbox once per commit instead of once per stream (api.md §7.2 fan-out).

``refresh()`` reads the events after the window's cursor in one query, one read at a time (the
first stream that needs newer events reads them for everybody). Because revisions are assigned
in commit order, the window holds every revision between ``floor`` and ``cursor``: a stream
whose position is inside it can be served from memory without a gap.
"""

from __future__ import annotations

import asyncio
import bisect
import json
import time
from collections.abc import Callable
from typing import Any

from osac.store import outbox
from osac.store.objects import Store
from osac.store.wakeup import Wakeup

#: Events kept in memory; a stream further behind than this reads the outbox itself.
WINDOW = 20_000
#: ... and at most this many bytes of their JSON, so that a history of maximum-size objects
#: (docs/limits.md: up to 1 MiB each) cannot hold gigabytes in the window (issue #16).
WINDOW_BYTES = 64 * 1024 * 1024


class RecentEvents:
    def __init__(
        self, store: Store, wakeup: Wakeup, *, window: int = WINDOW, poll_interval: float = 1.0,
        window_bytes: int = WINDOW_BYTES,
    ) -> None:
        self.store = store
        self.wakeup = wakeup
        self.window = window
        self.window_bytes = window_bytes
        self._sizes: list[int] = []
        #: JSON bytes of the events held.
        self.bytes = 0
        self.poll_interval = poll_interval
        self._events: list[outbox.StoredEvent] = []
        self._revisions: list[int] = []
        #: Every revision <= cursor that exists has been read; -1 until the first refresh.
        self.cursor = -1
        self.floor = -1
        #: The read under way, shared by every stream that needs it.
        self._reading: asyncio.Task[None] | None = None
        self._refreshed_at = 0.0
        #: Decoded forms shared by streams: revision -> {form: value}.
        self._decoded: dict[int, dict[Any, Any]] = {}

    def _fresh(self) -> bool:
        return self.cursor >= 0 and self.cursor >= self.wakeup.latest and (
            time.monotonic() - self._refreshed_at < self.poll_interval
        )

    async def refresh(self) -> None:
        """Read what was committed after ``cursor`` (at most once per wake-up or poll interval).
        The streams woken by one commit share one read: those that find it under way wait for
        its end together, not one after the other (a lock would hand itself on one stream per
        turn of the event loop)."""
        if self._fresh():
            return
        if self._reading is not None:
            await asyncio.shield(self._reading)
            if self._fresh():
                return
        if self._reading is None:
            self._reading = asyncio.get_running_loop().create_task(self._read())
        await asyncio.shield(self._reading)

    async def _read(self) -> None:
        try:
            async with self.store.read() as tx:
                if self.cursor < 0:
                    self.cursor = self.floor = await tx.revision()
                    self._refreshed_at = time.monotonic()
                    return
                # Every revision is an event's (Tx.append_events), so the newest event read is
                # the newest revision: no read of the counter.
                while True:
                    batch = await outbox.events_after(tx, self.cursor, limit=1000)
                    for event in batch:
                        self._append(event)
                    if len(batch) < 1000:
                        break
            self._refreshed_at = time.monotonic()
        finally:
            self._reading = None

    def _append(self, event: outbox.StoredEvent) -> None:
        size = len(json.dumps(event.data, separators=(",", ":")))
        self._events.append(event)
        self._revisions.append(event.revision)
        self._sizes.append(size)
        self.bytes += size
        self.cursor = event.revision
        if len(self._events) > 2 * self.window or self.bytes > self.window_bytes:
            # Trim in bulk (amortised O(1) per event): down to the window's count and to half
            # its bytes; the newest event always stays, so the window still knows its cursor.
            cut = max(0, len(self._events) - self.window)
            kept = self.bytes - sum(self._sizes[:cut])
            while cut < len(self._events) - 1 and kept > self.window_bytes // 2:
                kept -= self._sizes[cut]
                cut += 1
            if cut == 0:
                return
            for dropped in self._events[:cut]:
                self._decoded.pop(dropped.revision, None)
            self.floor = self._events[cut - 1].revision
            self.bytes = kept
            del self._events[:cut]
            del self._revisions[:cut]
            del self._sizes[:cut]

    def covers(self, position: int) -> bool:
        """Whether every event after ``position`` up to ``cursor`` is in memory."""
        return self.floor >= 0 and position >= self.floor

    def after(self, position: int) -> list[outbox.StoredEvent]:
        """The events after ``position`` up to ``cursor`` (read ``cursor`` before calling, with
        no await in between, to know where the answer ends)."""
        return self._events[bisect.bisect_right(self._revisions, position):]

    def decoded(self, event: outbox.StoredEvent, form: Any, build: Callable[[outbox.StoredEvent], Any]) -> Any:
        """``build(event)`` once per (event, form) while the event is in the window: streams of
        the same shape share one message. An older event (a replay from before the window) is
        built for its caller alone, so the forms kept never outlive the window's trimming."""
        if not self.covers(event.revision - 1) or event.revision > self.cursor:
            return build(event)
        forms = self._decoded.setdefault(event.revision, {})
        if form not in forms:
            forms[form] = build(event)
        return forms[form]
