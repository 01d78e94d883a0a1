"""The one retry policy of every reconciler: capped exponential backoff, optionally a budget of
attempts, and the count of consecutive failures per key that both are applied to.

A key that keeps failing is retried after base, base*factor, base*factor², ... up to cap, so a
broken dependency costs a few retries an hour rather than a busy loop, while a blip is retried
within a second. A policy with a ``limit`` gives up at that many failed attempts (the caller's
terminal outcome: FAILED, DELETE_FAILED, a failed power cycle); one without retries forever.

The count of failures lives in the reconciler's memory (``Attempts``, per key) and starts over on
success, on giving up and when the object is forgotten; losing it (a restart, a lease taken
over) only starts a budget afresh. docs/controllers.md lists the policies and their parameters.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from datetime import timedelta
from typing import Generic, TypeVar

DEFAULT_BASE = timedelta(seconds=0.5)
DEFAULT_FACTOR = 2.0
DEFAULT_CAP = timedelta(minutes=5)

K = TypeVar("K", bound=Hashable)


@dataclass(frozen=True)
class RetryPolicy:
    """``delay(n)`` is the wait after the n-th consecutive failure: ``min(cap, base * factor**(n-1))``;
    ``is_exhausted(n)`` says that the n-th failure was the last one the budget allows."""

    base: timedelta = DEFAULT_BASE
    cap: timedelta = DEFAULT_CAP
    factor: float = DEFAULT_FACTOR
    #: Failed attempts after which the caller gives up; None: retry forever.
    limit: int | None = None

    def __post_init__(self) -> None:
        if self.base <= timedelta(0) or self.cap < self.base:
            raise ValueError(f"backoff needs 0 < base <= cap, got base={self.base}, cap={self.cap}")
        if self.factor < 1:
            raise ValueError(f"backoff factor must be at least 1, got {self.factor}")

    def delay(self, failures: int) -> timedelta:
        if failures < 1:
            raise ValueError(f"delay() counts failures from 1, got {failures}")
        try:
            seconds = self.base.total_seconds() * self.factor ** (failures - 1)
        except OverflowError:
            return self.cap
        if seconds >= self.cap.total_seconds():
            return self.cap
        return timedelta(seconds=seconds)

    def is_exhausted(self, failures: int) -> bool:
        return self.limit is not None and failures >= self.limit


class Attempts(Generic[K]):
    """Consecutive failed attempts per key (an object id, or an object and its step)."""

    def __init__(self) -> None:
        self._counts: dict[K, int] = {}

    def failed(self, key: K) -> int:
        """Count one more failure of ``key``; its count so far (1 for the first)."""
        count = self._counts.get(key, 0) + 1
        self._counts[key] = count
        return count

    def count(self, key: K) -> int:
        return self._counts.get(key, 0)

    def succeeded(self, key: K) -> None:
        """``key`` succeeded (or its budget was spent): the next failure is the first again."""
        self._counts.pop(key, None)

    def forget(self, where: Callable[[K], bool]) -> None:
        """Drop the count of every key for which ``where`` holds."""
        for key in [key for key in self._counts if where(key)]:
            del self._counts[key]

    def clear(self) -> None:
        self._counts.clear()

    def __len__(self) -> int:
        return len(self._counts)
