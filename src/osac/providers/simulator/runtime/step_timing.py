"""Durations and identities of simulated steps, reproducible from ``simulator.seed`` (§4).

A step's duration is its table value at speed 1 (simulator.md §3) times a jitter factor in
``[1 - jitter, 1 + jitter]``, divided by the speed in effect when the step is planned. The factor
is drawn from a hash of the seed and the step's *stream* (object kind, the object's name or
creation ordinal, the index of the call that planned it, the step's label), never from a shared
random generator, so the same seed gives the same durations whatever the order or concurrency
of calls. VMI uids and host MACs come from the same kind of hash.

Steps never take less than ``MIN_STEP``, also at ``instant``: every step stays a separate,
ordered change with its own due time and notice (§4), and a test on a ``FakeClock`` sees each
intermediate state by advancing to the observation's ``next_change_at``.
"""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the runtime holds the providers' stores, which plan with this module
    from osac.providers.simulator.runtime.context import Speed

MIN_STEP = timedelta(milliseconds=1)
DEFAULT_JITTER = 0.1


def _digest(seed: int, parts: tuple[object, ...]) -> bytes:
    text = "\x1f".join(str(part) for part in (seed, *parts))
    return hashlib.sha256(text.encode()).digest()


def stable_fraction(seed: int, *parts: object) -> float:
    """A number in ``[0, 1)`` determined by the seed and ``parts``."""
    return int.from_bytes(_digest(seed, parts)[:8], "big") / 2**64


def stable_uid(seed: int, *parts: object) -> str:
    """A UUID (version 4 layout) determined by the seed and ``parts``."""
    return str(uuid.UUID(bytes=_digest(seed, parts)[:16], version=4))


def stable_mac(seed: int, *parts: object) -> str:
    """A locally administered unicast MAC: ``02`` followed by 5 bytes of the hash."""
    tail = _digest(seed, parts)[:5]
    return ":".join(f"{byte:02x}" for byte in (0x02, *tail))


@dataclass(frozen=True)
class StepTiming:
    """Turns table durations into planned ones. ``speed`` is the runtime's shared, mutable
    ``Speed``: a step planned after ``SetSpeed`` uses the new factor."""

    speed: Speed
    seed: int
    jitter: float = DEFAULT_JITTER

    def duration(self, table_seconds: float, *stream: object) -> timedelta:
        """The planned duration of a step of ``table_seconds`` at speed 1 in ``stream``."""
        if self.speed.is_instant:
            return MIN_STEP
        factor = 1.0 + self.jitter * (2.0 * stable_fraction(self.seed, *stream) - 1.0)
        scaled = timedelta(seconds=self.speed.scale(table_seconds * factor))
        return max(scaled, MIN_STEP)
