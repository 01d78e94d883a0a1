"""Stepping the fake clock (``Simulator.AdvanceClock``, simulator.md §4).

``advance(delta)`` does not jump: it moves the clock to each distinct time at which something
happens by itself before the target — a simulated step falling due, a fault expiring, a
controller's requeue or retry timer — in time order, and after each of them waits until the
service is idle: every simulator scheduler has looked at the new time and handed over its
notices, every committed change is routed, and no controller has work queued or running. A test
therefore sees every intermediate state and every event carries the time it would have had on
the system clock (a stall is detected exactly at its threshold, not when the test next looks).

Idleness is waited for at most ``SETTLE_TIMEOUT`` real seconds per time. A call held by injected
latency (``fabric_latency``) keeps its controller busy until the clock passes its deadline,
which is one of the times stepped to, so stepping goes on after the timeout and releases it.
Periodic resyncs are not steps: they happen at whatever step lies past their period.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from osac.clock import FakeClock
from osac.providers.simulator.runtime.context import SimulatorRuntime
from osac.providers.simulator.runtime.timeline import next_change_after

if TYPE_CHECKING:
    from osac.controllers.runtime.manager import ControllerManager

#: Longest real wait for the service to become idle at one time.
SETTLE_TIMEOUT = 10.0
#: How often (real seconds) the schedulers are looked at while they catch up.
POLL = 0.002
#: Most distinct times one advance steps through (a requeue loop that never ends is a bug).
MAX_STEPS = 100_000

logger = logging.getLogger(__name__)


class ClockSteps:
    """Advances ``clock`` step by step; ``controllers`` gives this process's ControllerManager
    (None when it runs no controllers: then only the simulator is waited for)."""

    def __init__(self, clock: FakeClock, runtime: SimulatorRuntime,
                 controllers: Callable[[], ControllerManager | None]) -> None:
        self.clock = clock
        self.runtime = runtime
        self.controllers = controllers
        self._lock = asyncio.Lock()

    async def advance(self, delta: timedelta) -> datetime:
        """Move the clock forward by ``delta`` through every time something happens; the new time."""
        if delta < timedelta(0):
            raise ValueError(f"cannot advance the clock by a negative duration ({delta.total_seconds()} s)")
        async with self._lock:  # two concurrent advances would interleave their steps
            target = self.clock.now() + delta
            await self.settle()
            steps = 0
            while (due := await self._next_due()) is not None and due <= target:
                steps += 1
                if steps > MAX_STEPS:
                    raise RuntimeError(f"advancing the clock to {target.isoformat()} took more than {MAX_STEPS} steps")
                await self._move_to(due)
            await self._move_to(target)
            logger.debug("clock advanced by %s to %s in %d steps", delta, target.isoformat(), steps + 1)
            return self.clock.now()

    async def settle(self) -> None:
        """Wait until the service is idle at the current time (at most ``SETTLE_TIMEOUT``)."""
        try:
            async with asyncio.timeout(SETTLE_TIMEOUT):
                while True:
                    await self._schedulers_caught_up()
                    manager = self.controllers()
                    if manager is None:
                        return
                    await manager.wait_idle()
                    if not self.runtime.schedulers.lagging(self.clock.now()) and manager.is_idle:
                        return
        except TimeoutError:
            manager = self.controllers()
            logger.warning("the service was not idle %.0f s after the clock moved to %s (schedulers behind: %s, "
                           "controllers idle: %s); stepping on", SETTLE_TIMEOUT, self.clock.now().isoformat(),
                           ", ".join(self.runtime.schedulers.lagging(self.clock.now())) or "none",
                           manager.is_idle if manager is not None else "-")

    async def _move_to(self, when: datetime) -> None:
        if when > self.clock.now():
            self.clock.set(when)
        self.runtime.schedulers.wake()
        manager = self.controllers()
        if manager is not None:
            manager.wake()
        await self.settle()

    async def _next_due(self) -> datetime | None:
        now = self.clock.now()
        candidates = [await next_change_after(self.runtime, now)]
        manager = self.controllers()
        if manager is not None:
            candidates.append(manager.next_timer_at)
        return min((when for when in candidates if when is not None and when > now), default=None)

    async def _schedulers_caught_up(self) -> None:
        while self.runtime.schedulers.lagging(self.clock.now()):
            await asyncio.sleep(POLL)
