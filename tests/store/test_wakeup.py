"""Wake-ups for readers of the outbox: a commit wakes every reader at once; with none, a reader
looks anyway within its timeout. The readers share one timer, so the earliest timeout wakes
them all and a later one never holds back an earlier one."""

from __future__ import annotations

import asyncio
import time

from osac.store.wakeup import Wakeup


async def _timed(wait: asyncio.Future[None] | asyncio.Task[None]) -> float:
    started = time.monotonic()
    await wait
    return time.monotonic() - started


async def test_a_commit_wakes_every_reader_at_once() -> None:
    wakeup = Wakeup()
    readers = [asyncio.create_task(wakeup.wait(0, 30)) for _ in range(100)]
    await asyncio.sleep(0.05)
    assert not any(reader.done() for reader in readers)

    wakeup.notify(1)
    await asyncio.wait_for(asyncio.gather(*readers), 5)


async def test_a_revision_already_known_returns_without_waiting() -> None:
    wakeup = Wakeup()
    wakeup.notify(7)
    assert await asyncio.wait_for(_timed(asyncio.ensure_future(wakeup.wait(6, 30))), 5) < 1


async def test_a_reader_looks_anyway_after_its_timeout() -> None:
    wakeup = Wakeup()
    elapsed = await asyncio.wait_for(_timed(asyncio.ensure_future(wakeup.wait(0, 0.2))), 10)
    assert 0.15 <= elapsed < 5
    # ... and again the next time: the shared timer is made anew once it has fired.
    elapsed = await asyncio.wait_for(_timed(asyncio.ensure_future(wakeup.wait(0, 0.2))), 10)
    assert 0.15 <= elapsed < 5


async def test_a_shorter_timeout_is_not_held_back_by_a_longer_one_before_it() -> None:
    wakeup = Wakeup()
    patient = asyncio.create_task(wakeup.wait(0, 60))
    await asyncio.sleep(0.01)
    assert await asyncio.wait_for(_timed(asyncio.ensure_future(wakeup.wait(0, 0.2))), 10) < 5
    patient.cancel()


async def test_a_closed_wakeup_wakes_every_reader() -> None:
    wakeup = Wakeup()
    readers = [asyncio.create_task(wakeup.wait(0, 60)) for _ in range(10)]
    await asyncio.sleep(0.01)
    wakeup.close()
    await asyncio.wait_for(asyncio.gather(*readers), 5)
    assert wakeup.is_closed
