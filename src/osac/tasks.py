"""What a loop that must survive errors needs to know of its task: whether it was told to stop.

A task cancelled in the middle of a database statement has its connection dropped by the driver;
the clean-up that follows (the rollback, the connection's return to the pool) can then fail, and
that failure replaces the ``CancelledError`` on its way out. A loop that catches ``Exception`` to
keep going would take it for an ordinary error, log it and go on: the cancellation is lost, and
whoever awaits the task (a shutdown, a subscription being closed) waits for ever. Such a loop
calls ``raise_if_cancelled`` first in its handler. This module is a leaf: it imports nothing from
the project.
"""

from __future__ import annotations

import asyncio


def raise_if_cancelled(error: BaseException) -> None:
    """Raise ``CancelledError`` (caused by ``error``) when the current task is being cancelled;
    return when it is not, and the caller handles ``error`` as the error it is."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError() from error
