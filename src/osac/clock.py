"""Injected time.

Every component that reads the time takes a `Clock`, so that tests advance a `FakeClock` instead of
sleeping and production code never calls `datetime.now()` behind the tests' back. This module is a
leaf: it imports nothing from the project.

`now()` is wall-clock time (timezone-aware UTC) for timestamps and token lifetimes; `monotonic()`
is for intervals (rate limits, timeouts) that must not jump when the wall clock is adjusted.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from typing import Protocol


class Clock(Protocol):
    def now(self) -> datetime:
        """The current time, timezone-aware, in UTC."""
        ...

    def monotonic(self) -> float:
        """Seconds from an arbitrary origin; never goes backwards."""
        ...


class SystemClock:
    """The real clock."""

    def now(self) -> datetime:
        return datetime.now(UTC)

    def monotonic(self) -> float:
        return time.monotonic()


class FakeClock:
    """A clock that moves only when a test moves it.

    `monotonic()` starts at 0 and follows every forward move of `now()`; moving `now()` backwards
    with `set()` leaves it unchanged, as a real monotonic clock would.
    """

    def __init__(self, start: datetime) -> None:
        self._now = _as_utc(start)
        self._monotonic = 0.0

    def now(self) -> datetime:
        return self._now

    def monotonic(self) -> float:
        return self._monotonic

    def advance(self, delta: timedelta | float) -> None:
        """Move forward by a timedelta or a number of seconds."""
        seconds = delta.total_seconds() if isinstance(delta, timedelta) else float(delta)
        if seconds < 0:
            raise ValueError(f"cannot advance a clock by a negative amount ({seconds} s); use set()")
        self._now += timedelta(seconds=seconds)
        self._monotonic += seconds

    def set(self, when: datetime) -> None:
        """Jump to `when`, forwards or backwards (like an adjusted wall clock)."""
        when = _as_utc(when)
        self._monotonic += max(0.0, (when - self._now).total_seconds())
        self._now = when


def _as_utc(when: datetime) -> datetime:
    if when.tzinfo is None:
        raise ValueError(f"FakeClock needs a timezone-aware datetime, got naive {when.isoformat()}")
    return when.astimezone(UTC)
