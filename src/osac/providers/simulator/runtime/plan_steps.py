"""Plans of simulated objects: steps with due times in ``sim_compute_steps`` (simulator.md §6).

A call to a simulated provider does not change an object's state directly: it plans the steps
the real system would go through, each with its due time and the state from then on. What is
observed at time ``t`` is the state of the last step due by ``t``; the first step due after
``t`` is ``next_change_at``. Observations are therefore a pure function of the stored plan and
the clock, and a restarted process (or a second one on the same database) sees exactly what the
first would have seen.

A call that changes course (stop while starting, delete while running) replaces the object's
future steps; steps already due are history and stay. A step with a NULL state is a *tick*: a
change the observation computes from the object's row (DataVolume import progress, a DHCP
lease), planned so that the change has a due time and a notice like any other.

Steps due before ``HISTORY`` ago are dropped when the object is next written, except the last
``KEEP_RECENT`` (the current state and when its values began).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, TypeVar

from sqlalchemy import and_, bindparam, delete, func, insert, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from osac.providers.interfaces import TransientProviderError
from osac.providers.simulator.compute.schema import sim_compute_steps
from osac.providers.simulator.runtime.times import from_db, to_db
from osac.store import direct

T = TypeVar("T")

HISTORY = timedelta(hours=1)
#: The latest steps due are kept whatever their age: the current state, and the steps that tell
#: when the current values began (a condition's ``lastTransitionTime``).
KEEP_RECENT = 16
#: How often a write transaction is re-run after losing a race on a unique constraint.
INTEGRITY_RETRIES = 3

#: One object's plan, in due order (built once: store/direct.py).
_PLAN = (
    select(sim_compute_steps.c.seq, sim_compute_steps.c.at, sim_compute_steps.c.state)
    .where(sim_compute_steps.c.kind == bindparam("kind"), sim_compute_steps.c.key == bindparam("key"))
    .order_by(sim_compute_steps.c.at, sim_compute_steps.c.seq)
)
#: The steps of every object of a kind due in ``[start, end]``, in due order.
_DUE_BETWEEN = (
    select(sim_compute_steps.c.key, sim_compute_steps.c.seq, sim_compute_steps.c.at)
    .where(
        sim_compute_steps.c.kind == bindparam("kind"),
        and_(sim_compute_steps.c.at >= bindparam("start"), sim_compute_steps.c.at <= bindparam("end")),
    )
    .order_by(sim_compute_steps.c.at, sim_compute_steps.c.key, sim_compute_steps.c.seq)
)

State = Mapping[str, Any]


@dataclass(frozen=True)
class Step:
    seq: int
    at: datetime
    state: State | None

    @property
    def is_tick(self) -> bool:
        return self.state is None


def ordered(steps: Sequence[Step]) -> list[Step]:
    return sorted(steps, key=lambda step: (step.at, step.seq))


def current(steps: Sequence[Step], now: datetime) -> Step | None:
    """The last step with a state due by ``now`` (None: the object has no state yet)."""
    found: Step | None = None
    for step in ordered(steps):
        if step.at > now:
            break
        if step.state is not None:
            found = step
    return found


def future(steps: Sequence[Step], now: datetime) -> list[Step]:
    """The steps not yet due, in due order."""
    return [step for step in ordered(steps) if step.at > now]


def next_change_at(steps: Sequence[Step], now: datetime) -> datetime | None:
    upcoming = future(steps, now)
    return upcoming[0].at if upcoming else None


def last_change(steps: Sequence[Step], now: datetime, value: Callable[[State], Any]) -> datetime | None:
    """When ``value(state)`` last changed to what it is at ``now``: the due time of the first
    step of the current run of equal values (None before the first state)."""
    since: datetime | None = None
    previous: Any = object()
    for step in ordered(steps):
        if step.at > now:
            break
        if step.state is None:
            continue
        observed = value(step.state)
        if since is None or observed != previous:
            since = step.at
            previous = observed
    return since


# -- storage ----------------------------------------------------------------------------------------


async def write_retrying(engine: AsyncEngine, work: Callable[[AsyncConnection], Awaitable[T]]) -> T:
    """Run ``work`` in one write transaction; re-run it when it loses a race on a unique
    constraint (two first creates of one object on PostgreSQL)."""
    for attempt in range(INTEGRITY_RETRIES + 1):
        try:
            async with engine.begin() as conn:
                return await work(conn)
        except IntegrityError as error:
            if attempt == INTEGRITY_RETRIES:
                raise TransientProviderError(
                    "Conflict", f"concurrent simulator changes collided; retry ({error.orig})"
                ) from error
    raise AssertionError("unreachable")


async def load(conn: AsyncConnection, kind: str, key: str) -> list[Step]:
    rows = await direct.execute(conn, _PLAN, {"kind": kind, "key": key})
    return [Step(seq, from_db(at), state) for seq, at, state in rows]


async def load_many(conn: AsyncConnection, kind: str, keys: Sequence[str]) -> dict[str, list[Step]]:
    """The steps of several objects in one query."""
    found: dict[str, list[Step]] = {key: [] for key in keys}
    if not keys:
        return found
    query = (
        select(sim_compute_steps.c.key, sim_compute_steps.c.seq, sim_compute_steps.c.at, sim_compute_steps.c.state)
        .where(sim_compute_steps.c.kind == kind, sim_compute_steps.c.key.in_(list(keys)))
        .order_by(sim_compute_steps.c.at, sim_compute_steps.c.seq)
    )
    for row in await conn.execute(query):
        found[row.key].append(Step(row.seq, from_db(row.at), row.state))
    return found


async def replan(
    conn: AsyncConnection,
    kind: str,
    key: str,
    steps: Sequence[Step],
    now: datetime,
    new: Sequence[tuple[datetime, State | None]],
    *,
    keep: Callable[[Step], bool] | None = None,
) -> None:
    """Replace the object's future: drop the steps due after ``now`` that ``keep`` rejects (by
    default every step with a state; ticks stay), append ``new``, and prune old history.

    ``steps`` is the object's plan as loaded in this transaction (its row locked)."""
    kept = keep or (lambda step: step.is_tick)
    dropped = [step.seq for step in future(steps, now) if not kept(step)]
    if dropped:
        await conn.execute(
            delete(sim_compute_steps).where(
                sim_compute_steps.c.kind == kind, sim_compute_steps.c.key == key, sim_compute_steps.c.seq.in_(dropped)
            )
        )
    seq = max((step.seq for step in steps), default=0)
    rows = []
    for at, state in new:
        seq += 1
        rows.append({"kind": kind, "key": key, "seq": seq, "at": to_db(at), "state": None if state is None else dict(state)})
    if rows:
        await conn.execute(insert(sim_compute_steps), rows)
    await prune(conn, kind, key, steps, now)


async def prune(conn: AsyncConnection, kind: str, key: str, steps: Sequence[Step], now: datetime) -> None:
    """Drop the object's history older than ``HISTORY``, but not its ``KEEP_RECENT`` latest steps."""
    passed = [step for step in ordered(steps) if step.at <= now]
    recent = {step.seq for step in passed[-KEEP_RECENT:]}
    old = [step.seq for step in passed if step.at < now - HISTORY and step.seq not in recent]
    if old:
        await conn.execute(
            delete(sim_compute_steps).where(
                sim_compute_steps.c.kind == kind, sim_compute_steps.c.key == key, sim_compute_steps.c.seq.in_(old)
            )
        )


async def forget(conn: AsyncConnection, kind: str, keys: Sequence[str]) -> None:
    """Remove whole plans (objects that no longer exist)."""
    if keys:
        await conn.execute(
            delete(sim_compute_steps).where(sim_compute_steps.c.kind == kind, sim_compute_steps.c.key.in_(list(keys)))
        )


@dataclass(frozen=True)
class DueStep:
    key: str
    seq: int
    at: datetime


async def due_between(engine: AsyncEngine, kind: str, start: datetime, end: datetime) -> list[DueStep]:
    """Steps of every object of ``kind`` due in ``[start, end]``, in due order."""
    async with engine.connect() as conn:
        rows = await direct.execute(conn, _DUE_BETWEEN, {"kind": kind, "start": to_db(start), "end": to_db(end)})
        return [DueStep(key, seq, from_db(at)) for key, seq, at in rows]


async def next_due_after(engine: AsyncEngine, kind: str | None, after: datetime) -> datetime | None:
    """The earliest due time of any step of ``kind`` (None: of every kind) after ``after``."""
    query = select(func.min(sim_compute_steps.c.at)).where(sim_compute_steps.c.at > to_db(after))
    if kind is not None:
        query = query.where(sim_compute_steps.c.kind == kind)
    async with engine.connect() as conn:
        value = (await conn.execute(query)).scalar()
    return None if value is None else from_db(value)
