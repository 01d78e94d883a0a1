"""One way for tests to wait for the server: check, then wait for its next commit.

A test waiting for an object to reach a state (or to be archived, or to have an event) checks
once, and checks again when the server commits something new: the wake-up of its change stream
(``Application.wakeup``, what every Watch stream and the controllers' feed wait on), taken
before the check so that a commit during the check ends the wait at once. Not everything a test
waits for is a commit of the outbox (a lifecycle record of a transaction without a status
change), so the check also runs every ``RECHECK_SECONDS`` at the latest. A client of a server in
another process has no wake-up: it checks every ``POLL_SECONDS``. Against a server committing
all the time a check runs at most every ``MIN_GAP_SECONDS``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from osac.store.wakeup import Wakeup

T = TypeVar("T")

#: The longest a waiting test goes between two checks while the server commits nothing.
RECHECK_SECONDS = 0.25
#: Between two checks against a server without an in-process wake-up.
POLL_SECONDS = 0.05
#: The least time between the starts of two checks.
MIN_GAP_SECONDS = 0.02


async def until(
    wakeup: Wakeup | None, check: Callable[[], Awaitable[tuple[bool, T]]], timeout: float,
    failure: Callable[[T | None], Awaitable[str]],
) -> T:
    """The value of the first ``check()`` that says done; ``AssertionError`` with
    ``failure(last value)`` after ``timeout`` seconds."""
    last: T | None = None
    try:
        async with asyncio.timeout(timeout):
            while True:
                seen = wakeup.latest if wakeup is not None else 0
                started = time.monotonic()
                done, last = await check()
                if done:
                    return last
                if wakeup is None:
                    await asyncio.sleep(POLL_SECONDS)
                    continue
                await wakeup.wait(seen, RECHECK_SECONDS)
                await asyncio.sleep(max(0.0, started + MIN_GAP_SECONDS - time.monotonic()))
    except TimeoutError:
        raise AssertionError(await failure(last)) from None


def wakeup_of(client: Any) -> Wakeup | None:
    """The wake-up of the server ``client`` talks to, when that server runs in this process."""
    wakeup = getattr(client, "wakeup", None)
    return wakeup if isinstance(wakeup, Wakeup) else None


async def until_get(client: Any, path: str, predicate: Callable[[Any], bool], timeout: float = 20.0) -> Any:
    """The body of ``GET path`` once it answers 200 and ``predicate`` holds for it."""

    async def check() -> tuple[bool, Any]:
        response = await client.request("GET", path)
        body = response.json()
        return response.status_code == 200 and predicate(body), body

    async def failure(last: Any) -> str:
        return f"timed out waiting on {path}; last: {last}"

    return await until(wakeup_of(client), check, timeout, failure)


async def until_gone(client: Any, path: str, timeout: float = 20.0,
                     describe: Callable[[Any], Awaitable[str]] | None = None) -> None:
    """Until ``GET path`` answers 404 (the object is archived)."""

    async def check() -> tuple[bool, Any]:
        response = await client.request("GET", path)
        return response.status_code == 404, response.json()

    async def failure(last: Any) -> str:
        return await describe(last) if describe is not None else f"{path} was never archived; last: {last}"

    await until(wakeup_of(client), check, timeout, failure)
