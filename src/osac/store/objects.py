"""The generic object store: one transaction API over every kind's table and the outbox.

All writes go through ``Tx``: each changed object gets exactly one event row in the same
transaction, with a revision taken from the counter row (whose row lock orders revisions by
commit). The revisions are taken, and the event rows appended, as the transaction's last
statements before its commit, so the counter row that every writer updates is locked only that
long: a long write transaction does not hold up the others. Optimistic concurrency is a
conditional UPDATE on ``version``, so two writers can never both succeed from the same version,
whatever the caller checked before.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from google.protobuf.message import Message
from sqlalchemy import ColumnElement, Table, func, select
from sqlalchemy.exc import DBAPIError, IntegrityError, InterfaceError, OperationalError, PendingRollbackError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.ext.asyncio import AsyncConnection

from osac.clock import Clock
from osac.filters import Encoding, Source, json_dialect
from osac.model.kinds import Kind
from osac.model.shape import id_of, metadata_of, name_or_id
from osac.store import cost, direct, statements
from osac.store.codec import from_storage, to_storage
from osac.store.cost import count_copied
from osac.store.decoded import Decoded
from osac.store.engine import Engines
from osac.store.errors import AlreadyExists, Conflict, DatabaseUnavailable, WriteContention
from osac.store.grouping import GroupKey, grouped_counts_query
from osac.store.ordering import SortKey, page_query
from osac.store.tables import LIVE
from osac.tasks import raise_if_cancelled

EVENT_CREATED = 1
EVENT_UPDATED = 2
EVENT_DELETED = 3
EVENT_SIGNALED = 4

#: Row lock strength for ``Tx.find``, ``get`` and ``by_name`` (``statements.locked``).
Lock = Literal["share", "no_key_update", "update"]
#: The lock strengths in increasing order: a row held at one serves reads asking for it or a
#: weaker one (a row this transaction inserted is held at the strongest).
_STRENGTH: dict[str | None, int] = {None: 0, "share": 1, "no_key_update": 2, "update": 3}

#: ``None`` means every tenant (provider admins, the service itself).
Tenants = frozenset[str] | None

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Written:
    """The outcome of one write: the stored object, its event, and whether it was archived by it."""

    object: Message
    event: Event
    archived: bool = False

    @property
    def revision(self) -> int:
        """The revision of the write's event: 0 until the transaction is about to commit."""
        return self.event.revision


@dataclass(frozen=True)
class _Held:
    """A row this transaction holds a lock on, as the transaction last read or wrote it (or, in a
    read snapshot, a row it read: ``strength`` 0)."""

    cls: type[Message]
    raw: bytes
    tenant: str
    strength: int
    #: Inserted or replaced by this transaction (not only locked): ``amend`` may rewrite it.
    written: bool
    name: str
    version: int

    @classmethod
    def of(cls, message: Message, raw: bytes, strength: int, written: bool) -> _Held:
        meta = metadata_of(message)
        return cls(type(message), raw, meta.tenant, strength, written, meta.name, meta.version)


@dataclass
class Event:
    """One outbox event of a write transaction. Its ``revision`` is taken from the revision
    counter just before the transaction commits, with those of the transaction's other events
    (in the order they were emitted): the counter's row, which every writer updates, stays
    locked only from then until the commit, not for the rest of a long transaction."""

    type: int
    kind: str
    data: dict[str, Any]
    at: datetime
    revision: int = 0


def object_label(kind: Kind, message: Message) -> str:
    """How messages name an object: ``Subnet 'app'`` or ``Subnet '0199…'``."""
    return f"{kind.message} '{name_or_id(message)}'"


class Tx:
    """One database transaction. Reads return private messages; writes emit events.

    **Rows held.** A row this transaction locked (a read with ``lock``) or wrote stays locked
    until it ends, so nobody else changes it meanwhile: a second locked read of it is answered
    from the transaction's own copy, without a statement. A write's reference resolution, its
    gates and its counters read the same subnet, pool or parent several times, each of them
    under the subnet's or pool's lock that every concurrent create waits for. A ``share`` lock
    (``FOR KEY SHARE``) only keeps the row from being deleted; the copy is the version this
    transaction read, as if its later reads had run at that moment. ``savepoint`` forgets what
    a rolled-back block held.
    """

    def __init__(self, conn: AsyncConnection, clock: Clock, decoded: Decoded | None = None, *,
                 snapshot: bool = False) -> None:
        self.conn = conn
        self.clock = clock
        #: In a read-only snapshot (``Store.read()``) a row read again is the row read before: the
        #: rows found by id, served again without a statement (a reconciler's snapshot reads its
        #: target, its external IP, its subnet more than once on the way to one provider call).
        self._seen: dict[tuple[str, str], _Held] | None = {} if snapshot else None
        #: Parsed objects by version (``decoded.py``), shared by the Store's transactions.
        self._decoded = decoded
        #: The revision of the transaction's last event, once its events are appended (0: none).
        self.last_revision = 0
        self._events: list[Event] = []
        self._after_commit: list[Callable[[], None]] = []
        self._after_rollback: list[Callable[[], None]] = []
        self._before_commit: list[Callable[[], Awaitable[None]]] = []
        #: How many ``savepoint`` blocks are open.
        self.savepoints = 0
        self._held: dict[tuple[str, str], _Held] = {}
        self._deleting: dict[tuple[str, str, str], bool | None] = {}

    def after_commit(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` once this transaction has committed (never if it rolls back)."""
        self._after_commit.append(callback)

    def before_commit(self, callback: Callable[[], Awaitable[None]]) -> None:
        """Run ``callback`` as the transaction's last work, after its block and before its events
        are numbered (``finish``): what takes a lock every concurrent writer waits for (an address
        reservation) holds it from there to the commit only. Callbacks run in the order they
        were added, those they add after them."""
        self._before_commit.append(callback)

    async def finish(self) -> None:
        """Run the ``before_commit`` callbacks (``Store.write`` does, and a dry run before it
        rolls back, so that it fails as the write would)."""
        while self._before_commit:
            await self._before_commit.pop(0)()

    def after_rollback(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` once this transaction has ended without committing: its block
        raised (or was cancelled), or the database refused the commit."""
        self._after_rollback.append(callback)

    @property
    def dialect(self) -> str:
        return self.conn.dialect.name

    def _parse(self, data: dict[str, Any], cls: type[Message]) -> Message:
        return from_storage(data, cls) if self._decoded is None else self._decoded.parse(data, cls)

    def _wrote(self, kind: Kind, message: Message, strength: int) -> None:
        """The written ``message``, serialised now (the caller may change it later): the copy of
        its row this transaction holds, and the parse of its version once it commits."""
        raw = message.SerializeToString()
        self._hold(kind, message, raw, strength, written=True)
        self._forget_deleting(kind)
        if self._decoded is not None:
            self.after_commit(self._decoded.remembering(message, raw))

    def _forget_deleting(self, kind: Kind) -> None:
        """A write of ``kind`` may change what ``is_deleting`` answered about it."""
        if self._deleting:
            self._deleting = {key: value for key, value in self._deleting.items() if key[0] != kind.name}

    def _hold(self, kind: Kind, message: Message, raw: bytes, strength: int, *, written: bool = False) -> None:
        key = (kind.name, id_of(message))
        before = self._held.get(key)
        if before is not None:
            strength, written = max(strength, before.strength), written or before.written
        self._held[key] = _Held.of(message, raw, strength, written)

    def _held_row(self, kind: Kind, object_id: str, lock: Lock | None) -> _Held | None:
        """The row, if this transaction holds it at least as strongly as ``lock`` asks."""
        held = self._held.get((kind.name, object_id)) if lock is not None else None
        return held if held is not None and held.strength >= _STRENGTH[lock] else None

    @asynccontextmanager
    async def savepoint(self) -> AsyncIterator[None]:
        """A SAVEPOINT around the block: if the block raises, the database undoes its statements
        (and drops the row locks they took), and the transaction forgets the rows, events and
        commit callbacks of the block."""
        held, events = dict(self._held), len(self._events)
        callbacks, last_work = len(self._after_commit), len(self._before_commit)
        self.savepoints += 1
        try:
            async with self.conn.begin_nested():
                yield
        except BaseException:
            self._held = held
            del self._events[events:]
            del self._after_commit[callbacks:]
            del self._before_commit[last_work:]
            raise
        finally:
            self.savepoints -= 1

    # -- reads ---------------------------------------------------------------------------------

    async def get(self, kind: Kind, object_id: str, tenants: Tenants = None, lock: Lock | None = None
                  ) -> Message | None:
        """The live object of ``kind`` with ``object_id`` (in one of ``tenants``), None if there is
        none; ``lock`` as ``find`` takes it."""
        if tenants is not None and not tenants:
            return None  # in no tenant
        held = self._held_row(kind, object_id, lock)
        if held is None and lock is None and self._seen is not None:
            held = self._seen.get((kind.name, object_id))
        if held is not None:
            if tenants is not None and held.tenant not in tenants:
                return None
            count_copied()
            return held.cls.FromString(held.raw)
        query = statements.data_by_id(kind.name, 0 if tenants is None else len(tenants), lock)
        params = {"object_id": object_id, **statements.tenant_parameters(tenants or ())}
        row = (await direct.execute(self.conn, query, params)).first()
        if row is None:
            return None
        message = self._read_locked(kind, row[0], lock)
        if lock is None and self._seen is not None:
            self._seen[(kind.name, object_id)] = _Held.of(message, message.SerializeToString(), 0, False)
        return message

    def _read_locked(self, kind: Kind, data: dict[str, Any], lock: Lock | None) -> Message:
        message = self._parse(data, kind.private_class())
        if lock is not None:
            self._hold(kind, message, message.SerializeToString(), _STRENGTH[lock])
        return message

    async def find(
        self,
        kind: Kind,
        *where: ColumnElement[bool],
        tenants: Tenants = None,
        limit: int | None = None,
        lock: Lock | None = None,
        after: str | None = None,
    ) -> list[Message]:
        """Objects of ``kind`` matching every condition (over ``LIVE[kind.name]``), by id; with
        ``after``, only those whose id follows it (pages by id).

        ``lock`` takes row locks on PostgreSQL (SQLite has a single writer anyway): ``"share"``
        for rows a write refers to, ``"update"`` for a row about to be deleted, so that a create
        referring to an object and the object's delete never both succeed. ``"share"`` is
        ``FOR KEY SHARE``: it conflicts with the delete's ``FOR UPDATE`` but not with ordinary
        updates of the referenced row, so creates referring to a pool or subnet can update its
        address counters without deadlocking on each other's share locks."""
        if not where and after is None and limit is None:  # every object (of tenants): built once
            if tenants is not None and not tenants:
                return []
            query = statements.data_of_kind(kind.name, 0 if tenants is None else len(tenants), lock)
            rows = await direct.execute(self.conn, query, statements.tenant_parameters(tenants or ()))
            return [self._read_locked(kind, row[0], lock) for row in rows]
        table = LIVE[kind.name]
        query = select(table.c.data).where(*where, *self._tenancy(table, tenants)).order_by(table.c.id)
        if after is not None:
            query = query.where(table.c.id > after)
        if limit is not None:
            query = query.limit(limit)
        query = statements.locked(query, lock)
        return [self._read_locked(kind, row[0], lock) for row in await self.conn.execute(query)]

    async def ids(self, kind: Kind) -> list[str]:
        """The ids of every live object of ``kind``, in id (creation) order."""
        table = LIVE[kind.name]
        return [row[0] for row in await self.conn.execute(select(table.c.id).order_by(table.c.id))]

    async def by_name(self, kind: Kind, name: str, tenant: str, lock: Lock | None = None) -> Message | None:
        """The live object of ``kind`` named ``name`` in ``tenant`` (names are unique there);
        ``lock`` as ``find`` takes it."""
        query = statements.data_by_name(kind.name, lock)
        row = (await direct.execute(self.conn, query, {"name": name, "tenant": tenant})).first()
        return None if row is None else self._read_locked(kind, row[0], lock)

    async def is_deleting(self, kind: Kind, name: str, tenant: str) -> bool | None:
        """Whether the live object of ``kind`` named ``name`` in ``tenant`` is being deleted;
        None when there is none. One column of one row: no object is read. Asked once per
        transaction (a create's nested creates ask again about their tenant): the later
        answers are the first one, as if they had been asked at that moment."""
        key = (kind.name, name, tenant)
        if key not in self._deleting:
            rows = (await direct.execute(self.conn, statements.deletion_by_name(kind.name),
                                         {"name": name, "tenant": tenant})).all()
            self._deleting[key] = None if not rows else rows[0][0] is not None
        return self._deleting[key]

    async def existing(self, kind: Kind, object_ids: Iterable[str]) -> set[str]:
        """Which of ``object_ids`` are live objects of ``kind``."""
        table = LIVE[kind.name]
        query = select(table.c.id).where(table.c.id.in_(sorted(set(object_ids))))
        return {row[0] for row in await self.conn.execute(query)}

    async def count_by_state(self, kind: Kind, *where: ColumnElement[bool], tenants: Tenants = None) -> dict[int, int]:
        """Live objects of ``kind`` matching ``where`` per ``status.state`` number (0 where
        unset): one aggregate query, no object is read."""
        table = LIVE[kind.name]
        state = json_dialect(self.dialect).extract(Source(table.c.data), ("status", "state"), Encoding.NUMBER)
        # Grouping on a subquery's column: PostgreSQL would see the same JSON path bound twice
        # (select list and GROUP BY) as two different expressions.
        states = (
            select(func.coalesce(state, 0).label("state"))
            .select_from(table)
            .where(*where, *self._tenancy(table, tenants))
            .subquery()
        )
        rows = await self.conn.execute(select(states.c.state, func.count()).group_by(states.c.state))
        return {int(number): int(count) for number, count in rows}

    async def count_grouped(
        self, kind: Kind, keys: Sequence[GroupKey], *where: ColumnElement[bool], tenants: Tenants = None
    ) -> dict[tuple[Any, ...], int]:
        """Live objects of ``kind`` matching ``where`` per tuple of ``keys`` values (``grouping.py``;
        None where a value is absent): one aggregate query, no object is read."""
        table = LIVE[kind.name]
        query = grouped_counts_query(table, keys, [*where, *self._tenancy(table, tenants)], self.dialect)
        return {tuple(row[:-1]): int(row[-1]) for row in await self.conn.execute(query)}

    async def count(self, kind: Kind, *where: ColumnElement[bool], tenants: Tenants = None) -> int:
        table = LIVE[kind.name]
        query = select(func.count()).select_from(table).where(*where, *self._tenancy(table, tenants))
        return int((await self.conn.execute(query)).scalar_one())

    async def page(
        self,
        kind: Kind,
        *where: ColumnElement[bool],
        tenants: Tenants,
        offset: int,
        limit: int,
        order: Sequence[SortKey] = (),
    ) -> tuple[list[Message], int]:
        """One page plus the total count of matches, in this transaction's snapshot: ordered by
        ``order`` (ties, and no order at all, by ascending id)."""
        table = LIVE[kind.name]
        conditions = [*where, *self._tenancy(table, tenants)]
        total = int(
            (await self.conn.execute(select(func.count()).select_from(table).where(*conditions))).scalar_one()
        )
        query = page_query(table, conditions, order, self.dialect, offset=offset, limit=limit)
        cls = kind.private_class()
        items = [self._parse(row[0], cls) for row in await self.conn.execute(query)]
        return items, total

    async def revision(self) -> int:
        """The newest revision this transaction can see."""
        return int((await direct.execute(self.conn, statements.REVISION, {})).scalar_one())

    @staticmethod
    def _tenancy(table: Table, tenants: Tenants) -> list[ColumnElement[bool]]:
        if tenants is None:
            return []
        return [table.c.tenant.in_(sorted(tenants))]

    # -- writes --------------------------------------------------------------------------------

    async def insert(self, kind: Kind, message: Message) -> Written:
        """Store a new object (id, metadata and version already set by the caller)."""
        data = to_storage(message)
        try:
            await direct.execute(self.conn, statements.insert_object(kind.name), self._columns(data))
        except IntegrityError as error:
            raise AlreadyExists(
                f"{kind.message} named '{metadata_of(message).name}' already exists in tenant "
                f"'{metadata_of(message).tenant}'"
            ) from error
        event = self.emit(EVENT_CREATED, kind, data)
        self._wrote(kind, message, _STRENGTH["update"])
        return Written(message, event)

    async def replace(self, kind: Kind, message: Message, based_on_version: int) -> Written:
        """Write ``message`` over the stored object if it is still at ``based_on_version``.

        The stored version becomes ``based_on_version + 1``. If the object is being deleted and has
        no finalizer left it is archived instead, in this transaction, with an OBJECT_DELETED event.
        Raises ``Conflict`` when another writer got there first.

        A row this transaction holds locked (or wrote) at ``based_on_version``, under the same
        name, cannot be refused: on PostgreSQL its write goes with the transaction's next
        statement or its ``COMMIT`` (``direct.execute_later``) instead of a round trip of its own.
        """
        meta = metadata_of(message)
        meta.version = based_on_version + 1
        data = to_storage(message)
        if meta.HasField("deletion_timestamp") and not list(getattr(meta, "finalizers", [])):
            return await self._archive(kind, message, data, based_on_version)
        parameters = {**self._columns(data), "object_id": data["id"], "based_on": based_on_version}
        held = self._held.get((kind.name, data["id"]))
        if held is not None and held.strength >= _STRENGTH["no_key_update"] and held.version == based_on_version \
                and held.name == meta.name:
            await direct.execute_later(self.conn, statements.replace_object(kind.name), parameters)
        else:
            result = await direct.execute(self.conn, statements.replace_object(kind.name), parameters)
            if result.rowcount != 1:
                await self._conflict(kind, message, based_on_version)
        event = self.emit(EVENT_UPDATED, kind, data)
        self._wrote(kind, message, _STRENGTH["no_key_update"])
        return Written(message, event)

    async def amend(self, kind: Kind, object_id: str, change: Callable[[Message], None]) -> Message:
        """Change an object this transaction wrote, before it commits: ``change`` edits the
        transaction's copy, which is written over the row at the same version, and the object's
        latest event carries it instead (nobody saw the version in between). For what is only
        known at the end of the transaction (``before_commit``), such as a reserved address.

        :raises ValueError: this transaction did not write the object.
        """
        held = self._held.get((kind.name, object_id))
        if held is None or not held.written:
            raise ValueError(f"{kind.message} {object_id} was not written by this transaction; it cannot be amended")
        message = held.cls.FromString(held.raw)
        change(message)
        version = metadata_of(message).version
        data = to_storage(message)
        await direct.execute_later(self.conn, statements.replace_object(kind.name),
                                   {**self._columns(data), "object_id": object_id, "based_on": version})
        for event in reversed(self._events):
            if event.kind == kind.name and event.data["id"] == object_id:
                event.data = data
                break
        self._wrote(kind, message, held.strength)
        return message

    async def hold(self, kind: Kind, message: Message) -> None:
        """Lock the stored object's row until this transaction ends, as of ``message``'s version:
        what this transaction decided from that version cannot be overtaken by a write committed
        meanwhile (on PostgreSQL each statement sees the latest commits).

        Raises ``Conflict`` when the object changed since ``message`` was read.
        """
        version = metadata_of(message).version
        result = await direct.execute(
            self.conn, statements.hold_object(kind.name), {"object_id": id_of(message), "based_on": version}
        )
        if result.rowcount != 1:
            await self._conflict(kind, message, version)

    async def _archive(self, kind: Kind, message: Message, data: dict[str, Any], based_on: int) -> Written:
        result = await direct.execute(
            self.conn, statements.delete_object(kind.name), {"object_id": data["id"], "based_on": based_on}
        )
        if result.rowcount != 1:
            await self._conflict(kind, message, based_on)
        await direct.execute(
            self.conn, statements.insert_archived(kind.name), {**self._columns(data), "archived_at": self.clock.now()}
        )
        event = self.emit(EVENT_DELETED, kind, data)
        self._held.pop((kind.name, data["id"]), None)
        self._forget_deleting(kind)
        return Written(message, event, archived=True)

    async def _conflict(self, kind: Kind, message: Message, based_on: int) -> None:
        stored = (
            await direct.execute(self.conn, statements.version_by_id(kind.name), {"object_id": id_of(message)})
        ).scalar_one_or_none()
        raise Conflict(kind.message, f"'{name_or_id(message)}'", -1 if stored is None else stored, based_on)

    async def signal(self, kind: Kind, message: Message) -> Event:
        return self.emit(EVENT_SIGNALED, kind, to_storage(message))

    def emit(self, event_type: int, kind: Kind, data: dict[str, Any]) -> Event:
        """Add one event to the outbox with this transaction (its revision comes at commit)."""
        event = Event(event_type, kind.name, data, self.clock.now())
        self._events.append(event)
        return event

    @property
    def last_event(self) -> Event | None:
        """The transaction's latest event so far."""
        return self._events[-1] if self._events else None

    async def append_events(self, *, then_commit: bool = False) -> None:
        """Number the transaction's events from the revision counter and append them to the
        outbox: the last statements before the commit (``Store.write`` calls it). With
        ``then_commit``, on PostgreSQL, the ``COMMIT`` goes with the statement that appends them
        (``direct.execute``): the revision counter's row, which every writer waits for, is held
        only while the server runs them."""
        events = [event for event in self._events if not event.revision]
        if not events:
            return
        postgresql = self.dialect == "postgresql"
        count = len(events)
        in_one_statement = postgresql and count <= statements.EVENTS_IN_ONE_STATEMENT
        if in_one_statement:
            values = {f"{column}_{index}": value for index, event in enumerate(events)
                      for column, value in _event_row(event).items() if column != "revision"}
            appended = await direct.execute(self.conn, statements.append_events(count), values, then_commit=then_commit)
            last = max(int(revision) for (revision,) in appended.all())
        else:
            advance = statements.advance_revision(notify=postgresql)
            last = int((await direct.execute(self.conn, advance, {"count": count})).scalar_one())
        for revision, event in enumerate(events, start=last - count + 1):
            event.revision = revision
        if not in_one_statement:
            await self.conn.execute(statements.INSERT_EVENTS, [_event_row(event) for event in events])
        self.last_revision = last

    @staticmethod
    def _columns(data: dict[str, Any]) -> dict[str, Any]:
        meta = data.get("metadata", {})
        return {
            "id": data["id"],
            "name": meta.get("name") or None,
            "tenant": meta.get("tenant", ""),
            "creation_timestamp": _parse(meta["creation_timestamp"]),
            "deletion_timestamp": _parse(meta.get("deletion_timestamp")),
            "version": int(meta.get("version", 0)),
            "data": data,
        }


def _event_row(event: Event) -> dict[str, Any]:
    """The outbox row of a numbered event."""
    return {
        "revision": event.revision,
        "type": event.type,
        "kind": event.kind,
        "object_id": event.data["id"],
        "tenant": event.data.get("metadata", {}).get("tenant", ""),
        "timestamp": event.at,
        "data": event.data,
    }


def _parse(text: str | None) -> datetime | None:
    if not text:
        return None
    # Fixed-width storage form: drop nanoseconds beyond microseconds.
    base, _, fraction = text.rstrip("Z").partition(".")
    micro = int((fraction or "0").ljust(6, "0")[:6])
    return datetime.fromisoformat(base).replace(microsecond=micro, tzinfo=UTC)


#: SQLSTATEs of a transaction PostgreSQL aborted because of a concurrent one: deadlock detected,
#: serialization failure.
CONTENTION_STATES = frozenset({"40P01", "40001"})
#: SQLSTATEs (and classes, by their first two characters) of a database that is not there for
#: now: connection exceptions (08), too many connections (53300), shutting down or starting up
#: (57P01, 57P02, 57P03).
UNAVAILABLE_STATES = frozenset({"53300", "57P01", "57P02", "57P03"})
UNAVAILABLE_CLASSES = frozenset({"08"})
UNAVAILABLE_MESSAGE = "the database cannot be reached now; nothing was changed, retry the request"
#: SQLite's words for a database that a writer holds past the busy timeout.
SQLITE_BUSY = ("database is locked", "database is busy")


def unavailable(error: BaseException) -> DatabaseUnavailable | None:
    """The ``DatabaseUnavailable`` a driver or pool error stands for, or None (a bug or a
    refused statement stays what it is)."""
    if isinstance(error, PoolTimeout):
        return DatabaseUnavailable("the database has no free connection now; retry the request")
    if isinstance(error, PendingRollbackError):
        # The connection was lost inside the transaction and could not even be rolled back.
        log.warning("database unavailable: %s", error.__context__ or error)
        return DatabaseUnavailable(UNAVAILABLE_MESSAGE)
    if not isinstance(error, (OperationalError, InterfaceError)):
        return None
    state = getattr(error.orig, "sqlstate", None)
    lost = error.connection_invalidated or (
        state is None and isinstance(error.orig, Exception) and type(error.orig).__module__.startswith("psycopg")
    )
    busy = any(words in str(error.orig) for words in SQLITE_BUSY)
    if lost or busy or state in UNAVAILABLE_STATES or (state or "")[:2] in UNAVAILABLE_CLASSES:
        log.warning("database unavailable: %s", error.orig)
        return DatabaseUnavailable(UNAVAILABLE_MESSAGE)
    return None


def _raise_unavailable(error: BaseException) -> None:
    """Raise what a failed transaction stands for: the cancellation it was interrupted by (a
    cancelled task's connection is dropped mid-statement, and the rollback then fails; that
    failure must not replace the CancelledError, or the task would go on as if never
    cancelled), or ``DatabaseUnavailable``; else return and let the caller re-raise."""
    raise_if_cancelled(error)
    translated = unavailable(error)
    if translated is not None:
        raise translated from error


class Store:
    """Transactions over one database. ``on_commit`` is told the last revision of every commit
    (the in-process wake-up of watchers and controllers)."""

    def __init__(self, engines: Engines, clock: Clock, on_commit: Callable[[int], None] | None = None) -> None:
        self.engines = engines
        self.clock = clock
        self.decoded = Decoded()
        self._commit_listeners: list[Callable[[int], None]] = [on_commit] if on_commit else []

    @property
    def dialect(self) -> str:
        return self.engines.dialect

    def add_commit_listener(self, listener: Callable[[int], None]) -> None:
        self._commit_listeners.append(listener)

    @asynccontextmanager
    async def write(self) -> AsyncIterator[Tx]:
        """A writing transaction; commits when the block ends without an exception.

        :raises WriteContention: the database aborted it to resolve a deadlock or a
            serialization conflict with another writer (nothing was written; do it again).
        """
        committed = False
        tx: Tx | None = None
        shelf = self.engines.kept_writers
        try:
            conn = await shelf.take()
            try:
                with cost.transaction(conn.sync_connection):
                    tx = Tx(conn, self.clock, self.decoded)
                    # On PostgreSQL the connection is in autocommit: its first statement carries
                    # the BEGIN, the events' statement the COMMIT.
                    async with direct.transaction(conn, "BEGIN"):
                        yield tx
                        await tx.finish()
                        await tx.append_events(then_commit=True)
                    # Committed. The callbacks run before the connection is given back (to the pool,
                    # on PostgreSQL a round trip), so that a reader woken by the commit's NOTIFY mostly
                    # finds what they record (the parsed objects); what must not depend on that race
                    # marks itself before the commit (``OwnWrites``).
                    committed = True
                    for callback in tx._after_commit:
                        callback()
            finally:
                await shelf.give_back(conn, clean=committed)
        except DBAPIError as error:
            if committed:
                raise
            if getattr(error.orig, "sqlstate", None) in CONTENTION_STATES:
                raise WriteContention(f"the database aborted the write to resolve contention: {error.orig}") from error
            _raise_unavailable(error)
            raise
        except (PoolTimeout, PendingRollbackError) as error:
            _raise_unavailable(error)
            raise
        finally:
            if not committed and tx is not None:
                for callback in tx._after_rollback:
                    callback()
        assert tx is not None
        if tx.last_revision:
            for listener in self._commit_listeners:
                listener(tx.last_revision)

    @asynccontextmanager
    async def read(self, *, snapshot: bool = True) -> AsyncIterator[Tx]:
        """A read-only transaction; over one snapshot unless ``snapshot`` is False.

        A snapshot (PostgreSQL ``REPEATABLE READ``) is what a List needs: its count, page and
        revision agree. Without one, each statement sees what is committed when it starts and,
        on PostgreSQL, runs on its own: one round trip per statement. That is for reads of one
        statement (load one object, read the outbox) and of facts that do not change together
        (which fabric serves a VN). A snapshot costs one round trip more, its ``COMMIT``: its
        ``BEGIN`` goes with its first statement.
        """
        shelf = self.engines.kept_readers
        try:
            conn = await shelf.take()
            clean = False
            try:
                with cost.transaction(conn.sync_connection):
                    tx = Tx(conn, self.clock, self.decoded, snapshot=snapshot)
                    if not snapshot:
                        # No transaction of its own: each statement runs alone (PostgreSQL's
                        # connections are in autocommit; SQLite's without a BEGIN). One SQLAlchemy
                        # runs itself begins one, ended here.
                        yield tx
                        if conn.in_transaction():
                            await conn.rollback()
                    else:
                        # On PostgreSQL the connection is in autocommit: its first statement
                        # carries the BEGIN, and the COMMIT ends what psycopg finds open.
                        async with direct.transaction(conn, direct.SNAPSHOT):
                            yield tx
                    if tx._before_commit:
                        raise RuntimeError("a read transaction was given work to do before a commit it never makes")
                    clean = True
            finally:
                await shelf.give_back(conn, clean=clean)
        except (DBAPIError, PoolTimeout, PendingRollbackError) as error:
            _raise_unavailable(error)
            raise

