"""The statements of an allocation, built once (``osac.store.direct`` runs them).

An allocation runs under the range row lock that every other allocation from the same subnet or
pool waits for, so its statements' CPU is paid by all of them: built per call, each costs SQLAlchemy
its construction and cache key (about 100 µs more a statement, ``docs/benchmarks.md``). These are
the statements of the common case, one address for one owner key; several ordinals at once (a
cluster's node set) and the rarer paths build theirs per call in ``allocator``.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from sqlalchemy import Delete, Insert, Select, Update, bindparam, delete, exists, func, insert, select, update
from sqlalchemy.dialects import postgresql

from osac.ipam.schema import ip_allocations, ip_free, ip_ranges

#: One owner key's allocation: ``owner_type``, ``owner_id``, ``purpose``, ``ordinal``.
HELD_ONE: Select[Any] = select(
    ip_allocations.c.ordinal, ip_allocations.c.address, ip_allocations.c.scope, ip_allocations.c.kind
).where(
    ip_allocations.c.owner_type == bindparam("owner_type"),
    ip_allocations.c.owner_id == bindparam("owner_id"),
    ip_allocations.c.purpose == bindparam("purpose"),
    ip_allocations.c.ordinal == bindparam("ordinal"),
)

#: Advance one range (``range_id``) by ``fresh`` never-used addresses and ``taken`` allocations.
ADVANCE: Update = (
    update(ip_ranges)
    .where(ip_ranges.c.id == bindparam("range_id"))
    .values(
        next_unused=ip_ranges.c.next_unused + bindparam("fresh"),
        allocated_count=ip_ranges.c.allocated_count + bindparam("taken"),
    )
)

#: One allocation row (every column of ``ip_allocations`` bound by its name).
INSERT_ALLOCATION: Insert = insert(ip_allocations)

#: The lowest released address of range ``range_id``, and its removal (``range_id``, ``address``).
LOWEST_FREE: Select[Any] = (
    select(ip_free.c.address).where(ip_free.c.range_id == bindparam("range_id")).order_by(ip_free.c.address).limit(1)
)
DELETE_FREE: Delete = delete(ip_free).where(
    ip_free.c.range_id == bindparam("range_id"), ip_free.c.address == bindparam("address")
)


def _where(has_parent: bool) -> list[Any]:
    c = ip_ranges.c
    where = [c.scope == bindparam("scope"), c.kind == bindparam("kind")]
    if has_parent:
        where.append(c.parent == bindparam("parent"))
    return where


@cache
def lock_ranges(has_parent: bool) -> Select[Any]:
    """The ranges of ``kind`` in ``scope`` (of pool ``parent``, with ``has_parent``), locked in id
    order until the transaction ends."""
    c = ip_ranges.c
    return (
        select(c.id, c.first, c.last, c.next_unused, c.allocated_count, c.size)
        .where(*_where(has_parent))
        .order_by(c.id)
        .with_for_update()
    )


@cache
def counts(has_parent: bool) -> Select[Any]:
    """Total and allocated addresses of ``kind`` in ``scope`` (of pool ``parent``, with ``has_parent``)."""
    c = ip_ranges.c
    return select(func.coalesce(func.sum(c.size), 0), func.coalesce(func.sum(c.allocated_count), 0)).where(
        *_where(has_parent)
    )


@cache
def take_one(reused: bool) -> Update:
    """PostgreSQL: the allocation row (every column of ``ip_allocations`` bound as
    ``new_<column>``) inserted unless a unique constraint refuses it, and only if it was, the
    address taken off the free list (``reused``) and its range advanced by ``fresh`` and one
    allocation, in one statement of data-modifying ``WITH``s (its row count: 1 taken, 0 refused). Under the
    range lock every other allocation of the subnet or pool waits for, this is one round trip
    where SQLite's writer sends two or three."""
    columns = [column.name for column in ip_allocations.columns]
    taken = (postgresql.insert(ip_allocations).values({name: bindparam(f"new_{name}") for name in columns})
             .on_conflict_do_nothing().returning(ip_allocations.c.range_id).cte("taken"))
    advance = (
        update(ip_ranges)
        .where(ip_ranges.c.id == select(taken.c.range_id).scalar_subquery())
        .values(
            next_unused=ip_ranges.c.next_unused + bindparam("fresh"),
            allocated_count=ip_ranges.c.allocated_count + 1,
        )
    )
    if reused:
        freed = delete(ip_free).where(
            ip_free.c.range_id == bindparam("new_range_id"), ip_free.c.address == bindparam("new_address"),
            exists(select(taken.c.range_id)),
        ).cte("freed")
        advance = advance.add_cte(freed)
    return advance
