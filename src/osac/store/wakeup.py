"""Wake-ups for readers of the outbox. They carry no data: a woken reader queries the events
table. In-process commits call ``notify`` directly; other processes' commits arrive through
PostgreSQL LISTEN/NOTIFY (``listen_postgres``), and on SQLite readers also poll."""

from __future__ import annotations

import asyncio
import contextlib
import logging

from sqlalchemy.engine import make_url

from osac.store.statements import NOTIFY_CHANNEL
from osac.tasks import raise_if_cancelled

log = logging.getLogger(__name__)


class Wakeup:
    """The newest revision known to be committed, and a way to wait for a newer one."""

    def __init__(self) -> None:
        self.latest = 0
        self._changed = asyncio.Event()
        #: The process is stopping (``close``): endless readers (watch streams) end.
        self.is_closed = False
        #: The one timer that wakes every reader to look anyway (``wait``'s timeout).
        self._tick: asyncio.TimerHandle | None = None

    def close(self) -> None:
        """Wake every reader once and mark the wake-ups closed, so a reader that waits for
        ever (a watch stream) sees ``is_closed`` now instead of holding the server's drain."""
        self.is_closed = True
        self._wake()

    def _wake(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    def notify(self, revision: int) -> None:
        """``revision`` is committed. Readers are woken only by a revision newer than any known:
        on PostgreSQL each commit of this process is told twice (at its commit, then by its own
        NOTIFY), and the second telling must not wake every reader and watch stream again to
        read nothing."""
        if revision <= self.latest:
            return
        self.latest = revision
        self._wake()

    async def wait(self, after: int, timeout: float) -> None:
        """Return once a revision above ``after`` is known, or after at most ``timeout``
        seconds. The readers waiting share one timer, which wakes them all at the earliest of
        their timeouts: a timeout of its own for each (1,000 watch streams) was made and
        cancelled for every event each of them sent."""
        if self.latest > after:
            return
        changed = self._changed
        loop = asyncio.get_running_loop()
        due = loop.time() + timeout
        if self._tick is None or self._tick.when() > due:
            if self._tick is not None:
                self._tick.cancel()
            self._tick = loop.call_at(due, self._ticked)
        await changed.wait()

    def _ticked(self) -> None:
        self._tick = None
        self._wake()


async def listen_postgres(url: str, wakeup: Wakeup) -> None:
    """Forward NOTIFYs of other processes' commits to ``wakeup`` until cancelled; reconnects."""
    import psycopg

    parsed = make_url(url).set(drivername="postgresql")
    dsn = parsed.render_as_string(hide_password=False)
    while True:
        try:
            async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as conn:
                await conn.execute(f"LISTEN {NOTIFY_CHANNEL}")
                async for notice in conn.notifies():
                    with contextlib.suppress(ValueError):
                        wakeup.notify(int(notice.payload))
        except asyncio.CancelledError:
            raise
        except Exception as error:  # a dropped connection: readers still poll meanwhile
            raise_if_cancelled(error)
            log.warning("LISTEN %s connection lost (%s); reconnecting", NOTIFY_CHANNEL, error)
            await asyncio.sleep(1.0)
