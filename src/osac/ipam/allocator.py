"""Address allocation inside the caller's transaction (networking.md §5.4).

Every function takes the caller's ``Tx`` and runs in its transaction: an address reserved by a
Create that then fails is never reserved at all, and counters change with the allocations.

**Spaces.** A *scope* is one address space: a subnet (its id; kinds ``workload`` and ``vip``, one
range each) or ``external`` (kind ``external``; every pool's CIDRs, one range per CIDR, with the
pool id as the range's *parent*). An *owner key* ``(owner_type, owner_id, purpose, ordinal)``
names one reservation, e.g. ``("cluster", <id>, "node:workers", 3)``.

**Allocate** (one or many addresses for one owner, purpose and list of ordinals):

1. Look the owner keys up (unique index): those already allocated are returned as they are.
2. In a SAVEPOINT: lock the scope's range rows (``SELECT … FOR UPDATE`` in id order on
   PostgreSQL; a SQLite write transaction already excludes every other writer); take the lowest
   released addresses of the lowest range (the first entries of ``ip_free``'s primary key, then
   a delete of exactly those keys), then ``next_unused`` onwards; advance the range's counters;
   insert the allocations. Missing ordinals get the addresses in ascending order, so node ``i`` of a
   fresh node set gets the ``i``-th address.
3. If a unique constraint of ``ip_allocations`` refuses the insert (a concurrent request for the
   same owner key won; or the tables disagree) the savepoint is rolled back and the whole step
   retried, at most ``MAX_RETRIES`` times, then ``AllocationConflict``.

One owner key (one ordinal, the common case: a VM's NIC, an ExternalIP) goes the other way round,
without a SAVEPOINT (``_take_one``): lock the ranges, insert the allocation of the lowest free
address unless a unique constraint refuses it (``ON CONFLICT DO NOTHING``), and only then take the
address off the free list and advance the range (on PostgreSQL the three in one statement,
``statements.take_one``). The owner key is looked up only when the insert
was refused or nothing is left, so a new owner key, which every Create asks for, costs no probe;
an owner key that holds its address gets it back as before.

The counts of a scope (``counts``) that this transaction just allocated from under the range
locks are known from the ranges it read: they are remembered for the rest of the transaction
(until it changes those ranges another way), and the subnet's or pool's counters are written
from them without reading the ranges again.

Every step is an index probe or touches only the rows it returns, so the cost does not grow with
the number of addresses allocated (O(log n) B-tree descents, never a scan).

**Release** deletes an owner's allocations, puts the addresses into ``ip_free`` and lowers the
counters, under the same range locks.

**Locks and deadlocks.** The range row lock is held until the caller's transaction ends, so two
transactions allocating from one range are serialised. A transaction that allocates from several
scopes should call ``lock_ranges`` with all of them first (or allocate in a fixed order, e.g.
sorted subnet ids): PostgreSQL would otherwise detect the deadlock of two transactions taking
the same ranges in opposite orders and abort one of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from weakref import WeakKeyDictionary

from sqlalchemy import ColumnElement, delete, func, insert, select, update
from sqlalchemy.exc import IntegrityError

from osac.ipam import statements
from osac.ipam.errors import AddressesExhausted, AllocationConflict, IpamError, RangeNotFound, RangesInUse
from osac.ipam.layout import SubnetLayout, address_text, address_value, pool_addresses
from osac.ipam.schema import ip_allocations, ip_free, ip_ranges
from osac.store import direct
from osac.store import statements as store_statements
from osac.store.objects import Tx

__all__ = [
    "EXTERNAL",
    "EXTERNAL_SCOPE",
    "MAX_RETRIES",
    "VIP",
    "WORKLOAD",
    "Allocation",
    "Counts",
    "add_pool_ranges",
    "add_subnet_ranges",
    "address_in_use",
    "allocate",
    "allocate_many",
    "allocations_of",
    "counts",
    "drop_ranges",
    "lock_ranges",
    "pool_counts",
    "release",
]

WORKLOAD = "workload"
VIP = "vip"
EXTERNAL = "external"
KINDS = (WORKLOAD, VIP, EXTERNAL)
#: The scope of every external pool's ranges: one global space.
EXTERNAL_SCOPE = "external"
#: Retries after a unique-constraint violation before ``AllocationConflict``.
MAX_RETRIES = 3


@dataclass(frozen=True)
class Allocation:
    """One allocated address and its owner key."""

    scope: str
    address: str
    kind: str
    parent: str
    owner_type: str
    owner_id: str
    purpose: str
    ordinal: int


@dataclass(frozen=True)
class Counts:
    """Addresses of a range set: ``total = allocated + available`` always."""

    total: int
    allocated: int
    available: int

    @classmethod
    def of(cls, total: int, allocated: int) -> Counts:
        return cls(total=total, allocated=allocated, available=total - allocated)


EMPTY = Counts(0, 0, 0)


@dataclass(frozen=True)
class _Range:
    id: int
    first: int
    last: int
    next_unused: int
    allocated_count: int
    size: int

    @property
    def available(self) -> int:
        return self.size - self.allocated_count

    @property
    def free_count(self) -> int:
        """Entries in ``ip_free``: handed out once (below ``next_unused``) and not allocated now."""
        return self.next_unused - self.first - self.allocated_count


# -- ranges ----------------------------------------------------------------------------------------


async def add_subnet_ranges(tx: Tx, subnet_id: str, layout: SubnetLayout) -> None:
    """Create the subnet's workload and VIP ranges (scope and parent = ``subnet_id``).

    Idempotent: a subnet that already has exactly these ranges is left alone.

    :raises IpamError: the subnet already has different ranges (its layout is fixed at creation).
    """
    wanted = {
        (WORKLOAD, address_value(layout.workload[0]), address_value(layout.workload[1])),
        (VIP, address_value(layout.vip[0]), address_value(layout.vip[1])),
    }
    existing = await tx.conn.execute(
        select(ip_ranges.c.kind, ip_ranges.c.first, ip_ranges.c.last).where(ip_ranges.c.parent == subnet_id)
    )
    have = {(row.kind, row.first, row.last) for row in existing}
    if have == wanted:
        return
    if have:
        raise IpamError(f"subnet {subnet_id} already has address ranges that differ from the layout of {layout.cidr}")
    await tx.conn.execute(
        insert(ip_ranges),
        [_range_row(subnet_id, kind, subnet_id, first, last) for kind, first, last in sorted(wanted, key=lambda w: w[1])],
    )
    _ranges_changed(tx)


async def add_pool_ranges(tx: Tx, pool_id: str, cidrs: Sequence[str]) -> Counts:
    """Create one external range per CIDR of the pool (usable addresses per ``pool_addresses``)
    and return the pool's counts. CIDRs the pool already has are skipped, so a retry or an
    update that adds CIDRs is safe.

    :raises LayoutError: a CIDR is not IPv4 (IPv6 pools are stored but never allocated from).
    :raises IpamError: a CIDR's range already belongs to another pool.
    """
    bounds = sorted({tuple(address_value(a) for a in pool_addresses(cidr)) for cidr in cidrs})
    if bounds:
        starts = [first for first, _ in bounds]
        taken = await tx.conn.execute(
            select(ip_ranges.c.parent, ip_ranges.c.first, ip_ranges.c.last).where(
                ip_ranges.c.scope == EXTERNAL_SCOPE, ip_ranges.c.first.in_(starts)
            )
        )
        mine = set()
        for row in taken:
            if row.parent != pool_id:
                raise IpamError(
                    f"external addresses {address_text(row.first)}-{address_text(row.last)} already "
                    f"belong to pool {row.parent}"
                )
            mine.add((row.first, row.last))
        new = [(first, last) for first, last in bounds if (first, last) not in mine]
        if new:
            await tx.conn.execute(
                insert(ip_ranges), [_range_row(EXTERNAL_SCOPE, EXTERNAL, pool_id, first, last) for first, last in new]
            )
            _ranges_changed(tx)
    return (await pool_counts(tx, [pool_id]))[pool_id]


async def drop_ranges(tx: Tx, parent: str) -> None:
    """Remove every range of a subnet or pool (and its free list). Idempotent.

    :raises RangesInUse: some address of these ranges is still allocated.
    """
    ids = [r.id for r in await _lock(tx, ip_ranges.c.parent == parent)]
    if not ids:
        return
    allocated = int(
        (
            await tx.conn.execute(
                select(func.count()).select_from(ip_allocations).where(ip_allocations.c.range_id.in_(ids))
            )
        ).scalar_one()
    )
    if allocated:
        raise RangesInUse(parent, allocated)
    await tx.conn.execute(delete(ip_free).where(ip_free.c.range_id.in_(ids)))
    await tx.conn.execute(delete(ip_ranges).where(ip_ranges.c.id.in_(ids)))
    _ranges_changed(tx)


async def lock_ranges(tx: Tx, parents: Sequence[str]) -> None:
    """Lock every range of these subnets / pools now, in one consistent order (range id).

    Call it first in a transaction that allocates or releases in several scopes, so that two
    such transactions cannot deadlock. A no-op on SQLite, whose writer holds the database.
    """
    if parents:
        await _lock(tx, ip_ranges.c.parent.in_(sorted(set(parents))))


def _range_row(scope: str, kind: str, parent: str, first: int, last: int) -> dict[str, Any]:
    return {
        "scope": scope,
        "kind": kind,
        "parent": parent,
        "first": first,
        "last": last,
        "next_unused": first,
        "allocated_count": 0,
        "size": last - first + 1,
    }


def _scope_parameters(scope: str, kind: str, parent: str | None) -> dict[str, str]:
    parameters = {"scope": scope, "kind": kind}
    if parent is not None:
        parameters["parent"] = parent
    return parameters


async def _lock_scope(tx: Tx, scope: str, kind: str, parent: str | None) -> list[_Range]:
    """The ranges of ``kind`` in ``scope`` (of pool ``parent``), locked as ``_lock`` locks them."""
    query = statements.lock_ranges(parent is not None)
    return [_Range(*row) for row in (await direct.execute(tx.conn, query, _scope_parameters(scope, kind, parent))).all()]


async def _lock(tx: Tx, *where: ColumnElement[bool]) -> list[_Range]:
    """The matching ranges, row-locked until the transaction ends, locked in id order."""
    c = ip_ranges.c
    query = (
        select(c.id, c.first, c.last, c.next_unused, c.allocated_count, c.size)
        .where(*where)
        .order_by(c.id)
        .with_for_update()
    )
    return [_Range(*row) for row in await tx.conn.execute(query)]


# -- allocation ------------------------------------------------------------------------------------


async def allocate(
    tx: Tx,
    *,
    scope: str,
    kind: str,
    owner_type: str,
    owner_id: str,
    purpose: str,
    ordinal: int = 0,
    parent: str | None = None,
) -> str:
    """Reserve one address of ``kind`` in ``scope`` for the owner key and return it.

    ``scope`` is a subnet id (kind ``workload`` or ``vip``) or ``EXTERNAL_SCOPE`` (kind
    ``external``; ``parent`` is then the pool id and required). Idempotent: the address the owner
    key already holds is returned unchanged. Lowest address first: released addresses are
    reused lowest first, then addresses never handed out.

    :raises AddressesExhausted: no address left (``needed=1, available=0``).
    :raises RangeNotFound: the scope (or pool) has no range of this kind.
    :raises AllocationConflict: the unique constraints refused ``MAX_RETRIES`` retries.
    :raises IpamError: the owner key already holds an address in another scope or kind.
    """
    addresses = await allocate_many(
        tx,
        scope=scope,
        kind=kind,
        owner_type=owner_type,
        owner_id=owner_id,
        purpose=purpose,
        ordinals=(ordinal,),
        parent=parent,
    )
    return addresses[0]


async def allocate_many(
    tx: Tx,
    *,
    scope: str,
    kind: str,
    owner_type: str,
    owner_id: str,
    purpose: str,
    ordinals: Sequence[int],
    parent: str | None = None,
) -> list[str]:
    """Reserve one address per ordinal (all or nothing); the addresses in ``ordinals`` order.

    Ordinals already allocated keep their address; the missing ones get the lowest free
    addresses in ascending order of ordinal.

    :raises AddressesExhausted: fewer free addresses than missing ordinals
        (``needed=len(missing), available=free``); nothing was allocated.
    :raises RangeNotFound, AllocationConflict, IpamError: as ``allocate``.
    :raises ValueError: duplicate ordinals, or a kind that does not fit the scope.
    """
    _check_request(scope, kind, parent)
    if len(set(ordinals)) != len(ordinals):
        raise ValueError(f"ordinals must be distinct, got {list(ordinals)}")
    if not ordinals:
        return []
    failure = "unknown"
    for _attempt in range(1 + MAX_RETRIES):
        if len(ordinals) == 1:
            # One owner key, mostly a new one: take first, and read what it holds only when the
            # insert was refused or nothing is left (an owner key holding its address keeps it).
            try:
                taken = await _take_one(tx, scope, kind, parent, owner_type, owner_id, purpose, ordinals[0])
            except (AddressesExhausted, RangeNotFound):
                held = await _held(tx, scope, kind, owner_type, owner_id, purpose, ordinals)
                if held:
                    return [held[ordinals[0]]]
                raise
            if taken is not None:
                return [taken]
            held = await _held(tx, scope, kind, owner_type, owner_id, purpose, ordinals)
            if held:
                return [held[ordinals[0]]]
            failure = "a unique constraint of ip_allocations refused the insert"
            continue
        held = await _held(tx, scope, kind, owner_type, owner_id, purpose, ordinals)
        missing = sorted(ordinal for ordinal in ordinals if ordinal not in held)
        if not missing:
            return [held[ordinal] for ordinal in ordinals]
        try:
            async with tx.savepoint():
                held.update(
                    await _take(tx, scope, kind, parent, owner_type, owner_id, purpose, missing)
                )
        except IntegrityError as error:
            failure = str(error.orig).splitlines()[0] if str(error.orig) else "unknown"
            continue
        return [held[ordinal] for ordinal in ordinals]
    raise AllocationConflict(scope, kind, 1 + MAX_RETRIES, failure)


async def _held(
    tx: Tx, scope: str, kind: str, owner_type: str, owner_id: str, purpose: str, ordinals: Sequence[int]
) -> dict[int, str]:
    """The addresses these owner keys hold already (must be in this scope and kind)."""
    c = ip_allocations.c
    rows: Any
    if len(ordinals) == 1:
        rows = (await direct.execute(tx.conn, statements.HELD_ONE, {
            "owner_type": owner_type, "owner_id": owner_id, "purpose": purpose, "ordinal": ordinals[0]},
            named=True)).all()
    else:
        rows = await tx.conn.execute(
            select(c.ordinal, c.address, c.scope, c.kind).where(
                c.owner_type == owner_type, c.owner_id == owner_id, c.purpose == purpose,
                c.ordinal.in_(list(ordinals)),
            )
        )
    held = {}
    for row in rows:
        if (row.scope, row.kind) != (scope, kind):
            raise IpamError(
                f"{owner_type} {owner_id} already holds {address_text(row.address)} for {purpose!r} "
                f"#{row.ordinal} as a {row.kind} address in {row.scope}; release it before allocating "
                f"in {scope}"
            )
        held[row.ordinal] = address_text(row.address)
    return held


async def _take_one(
    tx: Tx, scope: str, kind: str, parent: str | None, owner_type: str, owner_id: str, purpose: str, ordinal: int
) -> str | None:
    """One address for one missing ordinal, as ``_take`` allocates it, without a SAVEPOINT: the
    allocation row is inserted first, unless a unique constraint refuses it (``ON CONFLICT DO
    NOTHING``: None, nothing written, the caller tries again), and only then is the address
    taken off the free list and the range advanced."""
    ranges = sorted(await _lock_scope(tx, scope, kind, parent), key=lambda r: r.first)
    if not ranges:
        raise RangeNotFound(scope, kind, parent)
    r = next((r for r in ranges if r.available), None)
    if r is None:
        raise AddressesExhausted(scope, kind, needed=1, available=0)
    reused = r.free_count > 0
    address = await _lowest_free(tx, r.id) if reused else r.next_unused
    row = {"scope": scope, "address": address, "range_id": r.id, "kind": kind,
           "parent": parent if parent is not None else scope, "owner_type": owner_type, "owner_id": owner_id,
           "purpose": purpose, "ordinal": ordinal}
    if tx.dialect == "postgresql":  # the three steps in one statement
        values = {f"new_{name}": value for name, value in row.items()}
        if (await direct.execute(tx.conn, statements.take_one(reused), {**values, "fresh": 0 if reused else 1})
                ).rowcount != 1:
            return None
    else:
        if (await direct.execute(tx.conn, store_statements.insert_unless_taken(ip_allocations, tx.dialect), row)
                ).rowcount != 1:
            return None
        if reused:
            await direct.execute(tx.conn, statements.DELETE_FREE, {"range_id": r.id, "address": address})
        await direct.execute(tx.conn, statements.ADVANCE, {"range_id": r.id, "fresh": 0 if reused else 1, "taken": 1})
    known = _known_counts.setdefault(tx, {})
    if tx.savepoints:  # a rolled-back SAVEPOINT would undo the allocation, not the memo
        known.pop((scope, kind, parent), None)
    else:
        known[(scope, kind, parent)] = Counts.of(sum(each.size for each in ranges),
                                                 sum(each.allocated_count for each in ranges) + 1)
    return address_text(address)


#: Per transaction: the counts of the scopes it allocated from under their range locks, by
#: (scope, kind, parent), valid until it changes ranges another way (``_ranges_changed``).
_known_counts: WeakKeyDictionary[Tx, dict[tuple[str, str, str | None], Counts]] = WeakKeyDictionary()


def _ranges_changed(tx: Tx) -> None:
    """The transaction changed range rows: what it remembered of their counts is stale."""
    _known_counts.pop(tx, None)


async def _take(
    tx: Tx,
    scope: str,
    kind: str,
    parent: str | None,
    owner_type: str,
    owner_id: str,
    purpose: str,
    missing: list[int],
) -> dict[int, str]:
    """Allocate one address per missing ordinal under the range locks; ordinal → address."""
    ranges = sorted(await _lock_scope(tx, scope, kind, parent), key=lambda r: r.first)
    if not ranges:
        raise RangeNotFound(scope, kind, parent)
    available = sum(r.available for r in ranges)
    if available < len(missing):
        raise AddressesExhausted(scope, kind, needed=len(missing), available=available)
    rows: list[dict[str, Any]] = []
    remaining = missing
    for r in ranges:
        take = min(len(remaining), r.available)
        if take == 0:
            continue
        reused = min(take, r.free_count)
        addresses = await _pop_free(tx, r.id, reused) if reused else []
        fresh = take - reused
        addresses.extend(range(r.next_unused, r.next_unused + fresh))
        await direct.execute(tx.conn, statements.ADVANCE, {"range_id": r.id, "fresh": fresh, "taken": take})
        _ranges_changed(tx)
        for ordinal, address in zip(remaining[:take], sorted(addresses), strict=True):
            rows.append(
                {
                    "scope": scope,
                    "address": address,
                    "range_id": r.id,
                    "kind": kind,
                    "parent": parent if parent is not None else scope,
                    "owner_type": owner_type,
                    "owner_id": owner_id,
                    "purpose": purpose,
                    "ordinal": ordinal,
                }
            )
        remaining = remaining[take:]
        if not remaining:
            break
    if len(rows) == 1:
        await direct.execute(tx.conn, statements.INSERT_ALLOCATION, rows[0])
    else:
        await tx.conn.execute(insert(ip_allocations), rows)
    return {row["ordinal"]: address_text(row["address"]) for row in rows}


async def _pop_free(tx: Tx, range_id: int, count: int) -> list[int]:
    """Remove and return the ``count`` lowest released addresses of the range.

    Two statements on purpose, each with one obvious plan: the first ``count`` entries of the
    primary key (range_id, address), then a delete of exactly those keys. A single ``DELETE …
    WHERE address IN (SELECT … LIMIT n)`` lets PostgreSQL choose a semi-join that walks every
    free entry of the range, and it does so when the statistics of ``ip_free`` are stale (seen
    after a bulk release: 5 ms instead of 0.2 ms per allocation)."""
    c = ip_free.c
    if count == 1:
        address = await _lowest_free(tx, range_id)
        await direct.execute(tx.conn, statements.DELETE_FREE, {"range_id": range_id, "address": address})
        return [address]
    lowest = [
        int(row[0])
        for row in await tx.conn.execute(
            select(c.address).where(c.range_id == range_id).order_by(c.address).limit(count)
        )
    ]
    if len(lowest) != count:
        raise IpamError(f"range {range_id} should have {count} released address(es) but ip_free has {len(lowest)}")
    address_filter = c.address == lowest[0] if count == 1 else c.address.in_(lowest)
    await tx.conn.execute(delete(ip_free).where(c.range_id == range_id, address_filter))
    return lowest


async def _lowest_free(tx: Tx, range_id: int) -> int:
    """The lowest released address of the range (left in ``ip_free``)."""
    row = (await direct.execute(tx.conn, statements.LOWEST_FREE, {"range_id": range_id})).first()
    if row is None:
        raise IpamError(f"range {range_id} should have 1 released address(es) but ip_free has 0")
    return int(row[0])


def _check_request(scope: str, kind: str, parent: str | None) -> None:
    if kind not in KINDS:
        raise ValueError(f"unknown address kind {kind!r}; use one of {KINDS}")
    if (kind == EXTERNAL) != (scope == EXTERNAL_SCOPE):
        raise ValueError(f"kind {kind!r} does not fit scope {scope!r}: external addresses live in scope 'external'")
    if kind == EXTERNAL and parent is None:
        raise ValueError("external allocations need the pool id as parent")


# -- release ---------------------------------------------------------------------------------------


async def release(
    tx: Tx,
    *,
    owner_type: str,
    owner_id: str,
    purpose: str | None = None,
    min_ordinal: int | None = None,
) -> list[str]:
    """Release the owner's addresses (only ``purpose``'s, only ordinals ``>= min_ordinal``, when
    given): delete the allocations, put the addresses into ``ip_free`` and lower the counters.
    Idempotent: returns the addresses released by this call (none the second time), ordered by
    purpose and ordinal."""
    c = ip_allocations.c
    where = [c.owner_type == owner_type, c.owner_id == owner_id]
    if purpose is not None:
        where.append(c.purpose == purpose)
    if min_ordinal is not None:
        where.append(c.ordinal >= min_ordinal)
    range_ids = [row[0] for row in await tx.conn.execute(select(c.range_id).where(*where).distinct())]
    if not range_ids:
        return []
    await _lock(tx, ip_ranges.c.id.in_(range_ids))
    deleted = list(
        await tx.conn.execute(delete(ip_allocations).where(*where).returning(c.range_id, c.address, c.purpose, c.ordinal))
    )
    if not deleted:
        return []
    await tx.conn.execute(insert(ip_free), [{"range_id": row.range_id, "address": row.address} for row in deleted])
    _ranges_changed(tx)
    per_range: dict[int, int] = {}
    for row in deleted:
        per_range[row.range_id] = per_range.get(row.range_id, 0) + 1
    for range_id, count in sorted(per_range.items()):
        await tx.conn.execute(
            update(ip_ranges)
            .where(ip_ranges.c.id == range_id)
            .values(allocated_count=ip_ranges.c.allocated_count - count)
        )
    return [address_text(row.address) for row in sorted(deleted, key=lambda r: (r.purpose, r.ordinal, r.address))]


# -- reads -----------------------------------------------------------------------------------------


async def allocations_of(tx: Tx, owner_type: str, owner_id: str) -> list[Allocation]:
    """Every address the owner holds, ordered by purpose and ordinal."""
    c = ip_allocations.c
    rows = await tx.conn.execute(
        select(ip_allocations)
        .where(c.owner_type == owner_type, c.owner_id == owner_id)
        .order_by(c.purpose, c.ordinal, c.scope)
    )
    return [_allocation(row) for row in rows]


async def address_in_use(tx: Tx, scope: str, address: str) -> Allocation | None:
    """Who holds ``address`` in ``scope``, if anyone."""
    c = ip_allocations.c
    row = (
        await tx.conn.execute(select(ip_allocations).where(c.scope == scope, c.address == address_value(address)))
    ).first()
    return None if row is None else _allocation(row)


async def counts(tx: Tx, *, scope: str, kind: str, parent: str | None = None) -> Counts:
    """Total, allocated and available addresses of ``kind`` in ``scope`` (one pool's, with
    ``parent``); zeros when there is no such range."""
    known = _known_counts.get(tx, {}).get((scope, kind, parent))
    if known is not None:
        return known
    total, allocated = (
        await direct.execute(tx.conn, statements.counts(parent is not None), _scope_parameters(scope, kind, parent))
    ).all()[0]
    return Counts.of(int(total), int(allocated))


async def pool_counts(tx: Tx, pool_ids: Sequence[str]) -> dict[str, Counts]:
    """The counts of each pool (zeros for a pool without ranges), in one query."""
    if not pool_ids:
        return {}
    if len(set(pool_ids)) == 1:
        return {pool_id: await counts(tx, scope=EXTERNAL_SCOPE, kind=EXTERNAL, parent=pool_id) for pool_id in pool_ids}
    c = ip_ranges.c
    rows = await tx.conn.execute(
        select(c.parent, func.sum(c.size), func.sum(c.allocated_count))
        .where(c.scope == EXTERNAL_SCOPE, c.parent.in_(sorted(set(pool_ids))))
        .group_by(c.parent)
    )
    found = {row[0]: Counts.of(int(row[1]), int(row[2])) for row in rows}
    return {pool_id: found.get(pool_id, EMPTY) for pool_id in pool_ids}


def _allocation(row: Any) -> Allocation:
    return Allocation(
        scope=row.scope,
        address=address_text(row.address),
        kind=row.kind,
        parent=row.parent,
        owner_type=row.owner_type,
        owner_id=row.owner_id,
        purpose=row.purpose,
        ordinal=row.ordinal,
    )
