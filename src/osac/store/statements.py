"""The store's hot statements, built once and executed with parameters.

SQLAlchemy walks a statement's whole expression to make its cache key at every execution of a
statement object built anew, and building it (``select(...).where(...)``, ``.values(...)``)
costs as much again; a statement object built once keeps its key. Measured on SQLite through
the store's driver: 262 -> 157 µs of CPU per statement (a read by id and a versioned update,
``docs/benchmarks.md``). Every statement of a cluster pass and of a write goes through here.

Parameters are named after what they bind: ``object_id``, ``tenants`` (an expanding list),
``based_on`` (the version a versioned write expects), and the columns themselves for the
values written.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Delete,
    Insert,
    Select,
    Table,
    Text,
    Update,
    bindparam,
    case,
    cast,
    func,
    insert,
    select,
    union_all,
    update,
)
from sqlalchemy import delete as sql_delete
from sqlalchemy.dialects import postgresql, sqlite

from osac.store import schema
from osac.store.tables import ARCHIVE, LIVE

#: PostgreSQL channel of the commit notices (``store/wakeup.py`` listens on it).
NOTIFY_CHANNEL = "osac_events"


@cache
def data_by_id(kind_name: str, tenants: int, lock: str | None = None) -> Select[Any]:
    """``data`` of one object by ``object_id``, in one of ``tenants`` tenants (0: in any),
    bound as ``tenant_parameters`` names them; its row locked as ``locked`` says."""
    table = LIVE[kind_name]
    return locked(_in_tenants(select(table.c.data).where(table.c.id == bindparam("object_id")), table, tenants),
                  lock)


@cache
def data_by_name(kind_name: str, lock: str | None = None) -> Select[Any]:
    """``data`` of the object named ``name`` in ``tenant``; its row locked as ``locked`` says."""
    table = LIVE[kind_name]
    return locked(select(table.c.data).where(table.c.name == bindparam("name"), table.c.tenant == bindparam("tenant")),
                  lock)


@cache
def data_of_kind(kind_name: str, tenants: int, lock: str | None = None) -> Select[Any]:
    """``data`` of every object of the kind in one of ``tenants`` tenants (0: in any), by id,
    bound as ``tenant_parameters`` names them; their rows locked as ``locked`` says."""
    table = LIVE[kind_name]
    return locked(_in_tenants(select(table.c.data).order_by(table.c.id), table, tenants), lock)


def _in_tenants(query: Select[Any], table: Table, tenants: int) -> Select[Any]:
    """``query`` of ``table``'s rows in one of ``tenants`` tenants, bound as
    ``tenant_parameters`` names them (0: in any)."""
    if not tenants:
        return query
    return query.where(table.c.tenant.in_([bindparam(f"tenant_{index}") for index in range(tenants)]))


def locked(query: Select[Any], lock: str | None) -> Select[Any]:
    """``query`` taking row locks on PostgreSQL (``Tx.find``): ``"share"`` (``FOR KEY SHARE``),
    ``"no_key_update"`` (``FOR NO KEY UPDATE``), ``"update"`` (``FOR UPDATE``) or none."""
    if lock is None:
        return query
    return query.with_for_update(read=lock == "share", key_share=lock in ("share", "no_key_update"))


def tenant_parameters(tenants: Iterable[str]) -> dict[str, str]:
    """The parameters of a statement's tenants (``data_by_id``), in a stable order."""
    return {f"tenant_{index}": tenant for index, tenant in enumerate(sorted(tenants))}


@cache
def version_by_id(kind_name: str) -> Select[Any]:
    table = LIVE[kind_name]
    return select(table.c.version).where(table.c.id == bindparam("object_id"))


@cache
def deletion_by_name(kind_name: str) -> Select[Any]:
    """``deletion_timestamp`` of the object named ``name`` in ``tenant`` (no row: none such)."""
    table = LIVE[kind_name]
    return select(table.c.deletion_timestamp).where(table.c.name == bindparam("name"),
                                                    table.c.tenant == bindparam("tenant"))


@cache
def insert_object(kind_name: str) -> Insert:
    return insert(LIVE[kind_name])


@cache
def replace_object(kind_name: str) -> Update:
    """The row of ``object_id`` at version ``based_on``, every column given as a parameter."""
    table = LIVE[kind_name]
    return update(table).where(table.c.id == bindparam("object_id"), table.c.version == bindparam("based_on"))


@cache
def insert_unless_taken(table: Table, dialect: str) -> Insert:
    """``INSERT … ON CONFLICT DO NOTHING`` into ``table`` in ``dialect``'s syntax: a row that
    would break a unique constraint is not written, without an error (row count 0), so the
    caller needs no SAVEPOINT to go on. On PostgreSQL it waits for a concurrent uncommitted
    insert of the same key, as a plain insert does."""
    construct = postgresql.insert if dialect == "postgresql" else sqlite.insert
    return construct(table).on_conflict_do_nothing()


@cache
def hold_object(kind_name: str) -> Update:
    """A no-op update of ``object_id`` at version ``based_on``: locks the row."""
    table = LIVE[kind_name]
    return (update(table).where(table.c.id == bindparam("object_id"), table.c.version == bindparam("based_on"))
            .values(version=table.c.version))


@cache
def delete_object(kind_name: str) -> Delete:
    table = LIVE[kind_name]
    return sql_delete(table).where(table.c.id == bindparam("object_id"), table.c.version == bindparam("based_on"))


@cache
def insert_archived(kind_name: str) -> Insert:
    return insert(ARCHIVE[kind_name])


REVISION = select(schema.revision_counter.c.value).where(schema.revision_counter.c.id == 1)


#: The outbox's events after ``revision``, oldest first, at most ``limit`` (the shared window's read).
EVENTS_AFTER = (
    select(
        schema.events.c.revision, schema.events.c.type, schema.events.c.kind, schema.events.c.object_id,
        schema.events.c.tenant, schema.events.c.data,
    )
    .where(schema.events.c.revision > bindparam("revision"))
    .order_by(schema.events.c.revision)
    .limit(bindparam("limit"))
)


@cache
def advance_revision(notify: bool) -> Update:
    """Add ``count`` to the revision counter, returning the new value (and, on PostgreSQL, a
    ``pg_notify`` of it, delivered at commit, which wakes the other processes' readers without
    a round trip of its own)."""
    counter = schema.revision_counter
    returned: list[ColumnElement[Any]] = [counter.c.value]
    if notify:
        returned.append(func.pg_notify(NOTIFY_CHANNEL, cast(counter.c.value, Text)))
    return (update(counter).where(counter.c.id == 1).values(value=counter.c.value + bindparam("count"))
            .returning(*returned))


#: A transaction with up to this many events appends them in one statement (``append_events``);
#: more (a tenant's onboarding, a sweep) take ``advance_revision`` then ``INSERT_EVENTS``.
EVENTS_IN_ONE_STATEMENT = 16
EVENT_COLUMNS = ("type", "kind", "object_id", "tenant", "timestamp", "data")


@cache
def append_events(count: int) -> Insert:
    """PostgreSQL: add ``count`` to the revision counter and append the transaction's ``count``
    events at the revisions it reserved, in one statement (the counter's update is a
    data-modifying ``WITH``, which PostgreSQL runs to completion, ``pg_notify`` included),
    returning the revisions. Event ``i`` binds ``<column>_<i>`` and gets revision ``last - count +
    1 + i``. A write is one round trip shorter than ``advance_revision`` then ``INSERT_EVENTS``,
    and the counter's row, which every writer waits for, is held for one statement less."""
    counter, events = schema.revision_counter, schema.events
    advanced = (update(counter).where(counter.c.id == 1).values(value=counter.c.value + count)
                .returning(counter.c.value, func.pg_notify(NOTIFY_CHANNEL, cast(counter.c.value, Text)))
                .cte("advanced"))
    rows = [
        select(advanced.c.value - (count - 1 - index),
               *(bindparam(f"{name}_{index}", type_=events.c[name].type) for name in EVENT_COLUMNS))
        for index in range(count)
    ]
    values = rows[0] if count == 1 else union_all(*rows)
    return (insert(events).from_select(["revision", *EVENT_COLUMNS], values)
            .returning(events.c.revision))


INSERT_EVENTS = insert(schema.events)
INSERT_LIFECYCLE_EVENT = insert(schema.lifecycle_events)


def changes_after(references: Mapping[str, Sequence[tuple[str, str]]]) -> Select[Any]:
    """The change feed's page: revision, kind and id of each event after ``revision``, then for
    each (kind, (field, referred kind)) of ``references`` the value of ``spec.<field>`` in the
    events of that kind (NULL in the others)."""
    events = schema.events
    referred = [
        case((events.c.kind == kind, events.c.data[("spec", field)].as_string()))
        for kind, fields in references.items() for field, _ in fields
    ]
    return (select(events.c.revision, events.c.kind, events.c.object_id, *referred)
            .where(events.c.revision > bindparam("revision"))
            .order_by(events.c.revision)
            .limit(bindparam("limit")))
