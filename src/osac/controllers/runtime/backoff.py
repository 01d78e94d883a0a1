"""Capped exponential backoff for failing reconciles.

A key that keeps failing is retried after base, base*factor, base*factor², ... up to cap, so a broken
dependency costs a few retries an hour rather than a busy loop, while a blip is retried within a
second. The failure count lives in the controller (per key) and resets on success.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

DEFAULT_BASE = timedelta(seconds=0.5)
DEFAULT_FACTOR = 2.0
DEFAULT_CAP = timedelta(minutes=5)


@dataclass(frozen=True)
class Backoff:
    """``delay(n)`` is the wait after the n-th consecutive failure: ``min(cap, base * factor**(n-1))``."""

    base: timedelta = DEFAULT_BASE
    factor: float = DEFAULT_FACTOR
    cap: timedelta = DEFAULT_CAP

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
