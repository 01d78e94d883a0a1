"""A loop that survives errors still stops when cancelled, even when the clean-up of the
cancelled work fails and that failure replaces the ``CancelledError`` (what a database driver
does when it drops the connection of a cancelled statement and the rollback then fails)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from osac.controllers.runtime.notices import follow_notices
from osac.providers.interfaces import ChangeNotice
from osac.tasks import raise_if_cancelled


class DroppedConnection(Exception):
    """What the clean-up of a cancelled statement raises in place of the cancellation."""


class CancelledMidStatement:
    """A notice source whose first subscription, when cancelled, fails in its clean-up (the
    later ones end cleanly, so that a loop which lost the cancellation can still be stopped)."""

    def __init__(self) -> None:
        self.subscriptions = 0
        self.waiting = asyncio.Event()

    async def subscribe(self) -> AsyncIterator[ChangeNotice]:
        self.subscriptions += 1
        try:
            self.waiting.set()
            await asyncio.Event().wait()  # a statement that never answers
        except asyncio.CancelledError:
            if self.subscriptions == 1:
                raise DroppedConnection("the connection is closed") from None
            raise
        yield ChangeNotice("cluster", "never", None)  # pragma: no cover - makes this a generator


async def test_following_notices_ends_when_cancelled_though_the_clean_up_failed() -> None:
    source = CancelledMidStatement()
    task = asyncio.create_task(follow_notices(source, lambda notice: None))
    await asyncio.wait_for(source.waiting.wait(), 5)
    task.cancel()
    done, _ = await asyncio.wait({task}, timeout=5)
    assert done == {task} and task.cancelled()
    assert source.subscriptions == 1  # it did not subscribe again


async def test_an_error_after_a_timeout_is_an_error_not_a_cancellation() -> None:
    # asyncio.timeout cancels the task and takes the cancellation back when it expires: an
    # error raised after that is handled as the error it is.
    with pytest.raises(TimeoutError):
        async with asyncio.timeout(0.01):
            await asyncio.sleep(1)
    raise_if_cancelled(DroppedConnection("after the timeout"))  # returns


async def test_an_error_of_a_task_being_cancelled_becomes_the_cancellation() -> None:
    seen: list[BaseException] = []

    async def work() -> None:
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            error = DroppedConnection("the connection is closed")
            try:
                raise_if_cancelled(error)
            except asyncio.CancelledError as cancelled:
                seen.append(cancelled)
                raise

    task = asyncio.create_task(work())
    await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert isinstance(seen[0].__cause__, DroppedConnection)
