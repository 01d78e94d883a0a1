"""Reading the outbox: events after a revision, retention, and the controllers' change feed."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import ColumnElement, String, case, cast, delete, func, select, update

from osac.store import direct, schema, statements
from osac.store.errors import RevisionExpired
from osac.store.objects import Store, Tx
from osac.store.wakeup import Wakeup

DEFAULT_RETENTION = timedelta(hours=72)


@dataclass(frozen=True)
class StoredEvent:
    revision: int
    type: int
    kind: str
    object_id: str
    tenant: str
    data: dict[str, Any]


async def events_after(tx: Tx, revision: int, limit: int = 500) -> list[StoredEvent]:
    """The events after ``revision``, oldest first, at most ``limit`` (a statement built once)."""
    rows = await direct.execute(tx.conn, statements.EVENTS_AFTER, {"revision": revision, "limit": limit})
    return [StoredEvent(*row) for row in rows]


async def replay_batch(
    tx: Tx, revision: int, *where: ColumnElement[bool], limit: int, max_bytes: int
) -> tuple[list[StoredEvent], bool]:
    """Events after ``revision`` like ``events_after``, but at most about ``max_bytes`` of their
    JSON (always at least one event): the database sums the sizes, and the events past the
    budget come without their data, so a replay over maximum-size objects holds a bounded
    amount of memory per stream. Returns the events and whether more may follow."""
    table = schema.events
    size = func.length(cast(table.c.data, String))
    inner = (
        select(table.c.revision, table.c.type, table.c.kind, table.c.object_id, table.c.tenant, table.c.data,
               size.label("size"))
        .where(table.c.revision > revision, *where)
        .order_by(table.c.revision)
        .limit(limit)
        .subquery()
    )
    before = func.sum(inner.c.size).over(order_by=inner.c.revision) - inner.c.size
    query = select(
        inner.c.revision, inner.c.type, inner.c.kind, inner.c.object_id, inner.c.tenant,
        case((before < max_bytes, inner.c.data), else_=None).label("data"),
    ).order_by(inner.c.revision)
    rows = list(await tx.conn.execute(query))
    events: list[StoredEvent] = []
    for row in rows:
        if row.data is None:
            return events, True
        events.append(StoredEvent(*row))
    return events, len(rows) == limit


async def check_retained(tx: Tx, revision: int) -> None:
    """Raise RevisionExpired when events after ``revision`` were already removed by retention."""
    counter = schema.revision_counter
    pruned = int((await tx.conn.execute(select(counter.c.pruned_through))).scalar_one())
    if revision < pruned:
        raise RevisionExpired(revision, pruned + 1)


async def prune(store: Store, older_than: datetime) -> int:
    """Delete events committed before ``older_than``; remembers the highest removed revision."""
    table = schema.events
    counter = schema.revision_counter
    async with store.write() as tx:
        highest = (
            await tx.conn.execute(select(func.max(table.c.revision)).where(table.c.timestamp < older_than))
        ).scalar_one_or_none()
        if highest is None:
            return 0
        result = await tx.conn.execute(delete(table).where(table.c.revision <= highest))
        await tx.conn.execute(
            update(counter).where(counter.c.id == 1).values(pruned_through=func.max(counter.c.pruned_through, highest))
            if store.dialect == "sqlite"
            else update(counter).where(counter.c.id == 1).values(pruned_through=func.greatest(counter.c.pruned_through, highest))
        )
        return int(result.rowcount or 0)


@dataclass(frozen=True)
class Change:
    """One committed change in the outbox: which object, at which revision, and the objects it
    refers to as (kind, id) where the feed was asked for them (``StoreChangeFeed``'s
    ``references``): an external IP attachment names its target, whose reconciler may be in
    another process than the attachment's."""

    revision: int
    kind: str
    object_id: str
    refers_to: tuple[tuple[str, str], ...] = ()


#: Per kind, the spec fields whose value is the id of an object of another kind: (field, kind).
References = Mapping[str, Sequence[tuple[str, str]]]


class StoreChangeFeed:
    """The controllers' view of the outbox: which objects changed after a revision, with the
    references the events' data hold for the kinds in ``references`` (read in the same
    statement, from the changed object's stored spec)."""

    def __init__(self, store: Store, wakeup: Wakeup, poll_interval: float = 1.0,
                 references: References | None = None) -> None:
        self.store = store
        self.wakeup = wakeup
        self.poll_interval = poll_interval
        self._referred = [kind for fields in (references or {}).values() for _, kind in fields]
        self._statement = statements.changes_after(references or {})
        #: The newest revision known committed when the last read began: a commit after it
        #: may be missing from that read, so ``wait`` returns at once when one is known.
        self._known = 0

    async def changes_after(self, revision: int, limit: int) -> list[Change]:
        self._known = self.wakeup.latest
        async with self.store.read(snapshot=False) as tx:
            rows = await direct.execute(tx.conn, self._statement, {"revision": revision, "limit": limit})
            return [self._change(row) for row in rows]

    def _change(self, row: Sequence[Any]) -> Change:
        if not self._referred:
            return Change(row[0], row[1], row[2])
        refers_to = tuple((kind, ref) for kind, ref in zip(self._referred, row[3:], strict=True) if ref)
        return Change(row[0], row[1], row[2], refers_to)

    async def wait(self, timeout: float) -> None:
        await self.wakeup.wait(self._known, min(timeout, self.poll_interval))

    async def current_revision(self) -> int:
        async with self.store.read(snapshot=False) as tx:
            return await tx.revision()

    def known_committed(self) -> int:
        return self.wakeup.latest
