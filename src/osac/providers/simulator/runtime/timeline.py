"""When the simulation next changes by itself (for stepping a fake clock, simulator.md §4)."""

from __future__ import annotations

from datetime import datetime

from osac.providers.simulator.runtime import plan_steps
from osac.providers.simulator.runtime.context import SimulatorRuntime


async def next_change_after(runtime: SimulatorRuntime, now: datetime) -> datetime | None:
    """The earliest clock time after ``now`` at which an observation changes without any call:
    a planned step of a simulated cluster, VM or host, a fault expiring, or a call held by
    injected latency being released."""
    engine = runtime.reader or runtime.engine
    candidates = [
        await runtime.clusters.store.next_due_at(after=now),
        await plan_steps.next_due_after(engine, None, now),
        *(f.expires_at for f in await runtime.faults.all()),
        *runtime.latency_deadlines,
    ]
    return min((when for when in candidates if when is not None and when > now), default=None)
