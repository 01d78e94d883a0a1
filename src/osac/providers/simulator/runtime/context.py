"""What every simulated provider of one process shares: the database, the clock, the speed.

Durations (simulator.md §3, §4) are table values at speed 1, divided by the speed factor;
``instant`` makes them 0. The speed can change at runtime (``Simulator.SetSpeed``), so it lives in
one mutable ``Speed`` object that every simulated provider reads at each call.

Waiting is done against the injected clock:

- ``SystemClock`` (and any clock that is not a ``FakeClock``): a real ``asyncio.sleep``.
- ``FakeClock``: the scaled operation durations complete immediately (a test drives time
  explicitly; a fabric call never needs the test to advance the clock). Injected latency
  (``fabric_latency``) is different: it waits until the test has advanced the fake clock past
  the deadline, so a test can hold a call in flight and release it by advancing time.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.ext.asyncio import AsyncEngine

from osac.clock import Clock, FakeClock
from osac.providers.simulator.baremetal.store import HostStore
from osac.providers.simulator.fabric.overlay_store import OverlayStore
from osac.providers.simulator.fabric.reachability import Reachability, check
from osac.providers.simulator.fabric.store import FabricStore
from osac.providers.simulator.runtime.faults import FaultStore
from osac.providers.simulator.runtime.schedulers import Schedulers
from osac.store.engine import statement_reader

INSTANT = "instant"
DEFAULT_SPEED = 60.0

#: How often a wait on a ``FakeClock`` looks at the clock again (real seconds).
FAKE_CLOCK_POLL = 0.005


class InvalidSpeed(ValueError):
    """A speed that is neither a positive number nor ``instant``."""


def parse_speed(value: object) -> float:
    """``60``, ``"60"``, ``0.5`` or ``"instant"`` as a factor; ``instant`` is ``math.inf``.

    :raises InvalidSpeed: anything else (zero, negative, not a number).
    """
    if isinstance(value, str) and value.strip().lower() == INSTANT:
        return math.inf
    if isinstance(value, bool):
        raise InvalidSpeed(f"'{value}' is not a positive number or '{INSTANT}'")
    try:
        factor = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise InvalidSpeed(f"'{value}' is not a positive number or '{INSTANT}'") from None
    if not factor > 0 or math.isnan(factor):
        raise InvalidSpeed(f"'{value}' is not a positive number or '{INSTANT}'")
    return factor


@dataclass
class Speed:
    """The speed factor in effect; shared and mutable."""

    factor: float = DEFAULT_SPEED

    @classmethod
    def of(cls, value: object) -> Speed:
        return cls(parse_speed(value))

    def set(self, value: object) -> None:
        self.factor = parse_speed(value)

    @property
    def is_instant(self) -> bool:
        return math.isinf(self.factor)

    def scale(self, seconds: float) -> float:
        """A table duration at the current speed."""
        return 0.0 if self.is_instant else seconds / self.factor

    def __str__(self) -> str:
        if self.is_instant:
            return INSTANT
        return f"{self.factor:g}"


@dataclass
class SimulatorRuntime:
    """The shared parts of the simulated providers of one process.

    ``engine`` is the writer engine (on SQLite the one that begins ``IMMEDIATE``), ``reader``
    optionally a read-only one. The simulator runs its own short transactions on them; a caller
    must not hold a write transaction of the same SQLite database while calling a provider.
    """

    engine: AsyncEngine
    clock: Clock
    speed: Speed = field(default_factory=Speed)
    reader: AsyncEngine | None = None
    seed: int = 42
    #: The ``simulator`` configuration section as given; each simulated provider reads and
    #: checks its own keys (the cluster simulator: ``durations``, ``jitter``, ``label_faults``).
    settings: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # The simulator's reads need no snapshot: on PostgreSQL each runs as one statement.
        self.reader = statement_reader(self.reader or self.engine)
        self.faults = FaultStore(self.engine, self.clock, reader=self.reader)
        self._fault_followers: dict[str, list[Callable[[str], Awaitable[None]]]] = {}
        #: The running scheduler loops, for whoever steps a fake clock.
        self.schedulers = Schedulers()
        #: Clock times that calls held by injected latency wait for (fake clock only).
        self.latency_deadlines: list[datetime] = []
        self.fabric_store = FabricStore(self.engine, self.clock, reader=self.reader)
        self.overlay_store = OverlayStore(self.engine, self.clock)
        #: The bare-metal inventory; the fabric's DHCP asks it when a host's OS wants leases.
        self.host_store = HostStore(self.engine, self.clock, reader=self.reader)
        # imported here because the cluster simulator's modules import this one
        from osac.providers.simulator.clusters.provider import SimulatedClusterProvider

        #: The simulated HyperShift (``providers.cluster: simulator``); raises ValueError on
        #: invalid cluster settings.
        self.clusters = SimulatedClusterProvider(self)

    def follow_faults(self, target_kind: str, changed: Callable[[str], Awaitable[None]]) -> None:
        """Have ``changed(target_id)`` called whenever a fault aimed at ``target_kind`` is created
        or cleared (the simulated HyperShift, KubeVirt and bare metal, which send the notices)."""
        self._fault_followers.setdefault(target_kind, []).append(changed)

    async def fault_changed(self, target_kind: str, target_id: str) -> None:
        """A fault was created or cleared: the simulated providers whose observations it alters
        send change notices now (a fault takes effect at once, simulator.md §5)."""
        for changed in self._fault_followers.get(target_kind, ()):
            await changed(target_id)

    @property
    def is_fake_clock(self) -> bool:
        return isinstance(self.clock, FakeClock)

    async def take(self, table_seconds: float, latency: float = 0.0) -> bool:
        """Spend an operation's time: ``table_seconds`` scaled by the speed, plus injected
        ``latency`` in seconds of the clock (not scaled). Whether any time passed (what was
        looked up before it may have changed meanwhile)."""
        duration = self.speed.scale(table_seconds)
        if isinstance(self.clock, FakeClock):
            if latency > 0:
                await self._until_fake(latency)
            return latency > 0
        total = duration + max(latency, 0.0)
        if total > 0:
            await asyncio.sleep(total)
        return total > 0

    async def fabric_call(self, manager: str, method: str, object_ids: Sequence[str], table_seconds: float) -> None:
        """Spend a fabric call's time (``take``, with its ``fabric_latency``), then raise its
        ``fabric_fail`` if one matches (``FaultStore.raise_if_failing``). The fault table is read
        once, and again only if the call took time: a fault injected meanwhile applies."""
        records = await self.faults.fabric()
        if await self.take(table_seconds, self.faults.latency(records, manager, method, object_ids)):
            records = await self.faults.fabric()
        await self.faults.raise_if_failing(records, manager, method, object_ids)

    async def _until_fake(self, seconds: float) -> None:
        deadline = self.clock.monotonic() + seconds
        due = self.clock.now() + timedelta(seconds=seconds)
        self.latency_deadlines.append(due)
        try:
            while self.clock.monotonic() < deadline:
                await asyncio.sleep(FAKE_CLOCK_POLL)
        finally:
            self.latency_deadlines.remove(due)

    async def fabric_observation(self, vn_id: str) -> dict[str, Any]:
        """The VN's fabric tables (``Simulator.GetObservation(kind="fabric", key=vn_id)``)."""
        return await self.fabric_store.observation(vn_id)

    async def check_reachability(
        self, src: str, dst: str, protocol: str, port: int = 0, *, reply: bool = False
    ) -> Reachability:
        """``Simulator.CheckReachability``: R1–R6 over the current fabric tables."""
        return check(await self.fabric_store.snapshot(), src, dst, protocol, port, reply=reply)
