"""Allocation cost does not depend on how full the range is (§5.4: O(log n), never a scan).

Counted, not timed: the SQL statements one ``allocate`` / ``release`` sends are the same with 10
and with 10,000 addresses allocated, on every path (a never-used address, a released one, an
owner key that already holds one, a release). Each statement is an index probe or touches only
the rows it returns (see ``osac/ipam/allocator.py``); the benchmark ``bench/ipam_allocation.py``
shows the resulting latency at 65,000 allocated."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from sqlalchemy import event, text

from osac.ipam import allocator
from osac.ipam.allocator import WORKLOAD
from osac.store.objects import Store, Tx
from tests.ipam.conftest import add_subnet
from tests.support.statements import sent


async def _statements(store: Store, operation: Callable[[Tx], Awaitable[object]]) -> list[str]:
    """The statements ``operation`` sends inside an open write transaction (BEGIN and COMMIT,
    which every transaction has, are left out)."""
    async with store.write() as tx:
        await tx.conn.exec_driver_sql("SELECT 1")  # the transaction is open before we count
        with sent(store) as statements:
            await operation(tx)
        return [statement[:60] for statement in statements]


async def _fill(store: Store, subnet: str, owner: str, count: int) -> None:
    async with store.write() as tx:
        await allocator.allocate_many(tx, scope=subnet, kind=WORKLOAD, owner_type="filler", owner_id=owner,
                                      purpose="bulk", ordinals=range(count))


async def _profile(store: Store, subnet: str, tag: str) -> dict[str, list[str]]:
    """Statements of each path at the range's current fill level."""

    def allocate(owner: str) -> Callable[[Tx], Awaitable[object]]:
        return lambda tx: allocator.allocate(tx, scope=subnet, kind=WORKLOAD, owner_type="compute_instance",
                                             owner_id=owner, purpose="nic")

    def release(owner: str) -> Callable[[Tx], Awaitable[object]]:
        return lambda tx: allocator.release(tx, owner_type="compute_instance", owner_id=owner)

    profile = {"fresh": await _statements(store, allocate(f"{tag}-fresh"))}
    profile["held"] = await _statements(store, allocate(f"{tag}-fresh"))
    profile["release"] = await _statements(store, release(f"{tag}-fresh"))
    profile["reuse"] = await _statements(store, allocate(f"{tag}-reuse"))  # takes the address just released
    return profile


async def test_statements_per_allocation_do_not_grow_with_the_fill(store: Store) -> None:
    subnet, layout = await add_subnet(store, "10.0.0.0/16")
    await _fill(store, subnet, "first", 10)
    at_10 = await _profile(store, subnet, "at10")
    await _fill(store, subnet, "second", 10_000 - 11)
    async with store.read() as tx:
        assert (await allocator.counts(tx, scope=subnet, kind=WORKLOAD)).allocated == 10_000
    at_10k = await _profile(store, subnet, "at10k")

    assert at_10k == at_10
    # The fixed cost itself: range lock, [find the lowest released address], insert unless
    # taken, [delete it from ip_free], counter update; no owner-key probe, no SAVEPOINT. On
    # PostgreSQL the last three are one statement of data-modifying WITHs.
    reuse = [" ".join(statement.split()[:3]) for statement in at_10["reuse"]]
    assert not any("SAVEPOINT" in statement for statement in reuse), at_10["reuse"]
    held = [" ".join(statement.split()[:3]) for statement in at_10["held"]]
    if store.dialect == "postgresql":
        assert reuse == ["SELECT ip_ranges.id, ip_ranges.first,", "SELECT ip_free.address FROM", "WITH taken AS"], reuse
        assert [" ".join(statement.split()[:3]) for statement in at_10["fresh"]] == [
            "SELECT ip_ranges.id, ip_ranges.first,", "WITH taken AS"], at_10["fresh"]
        insert = "WITH taken AS"
    else:
        assert len(reuse) == 5, at_10["reuse"]
        assert reuse.index("INSERT INTO ip_allocations") < reuse.index("DELETE FROM ip_free"), reuse
        assert len(at_10["fresh"]) == 3, at_10["fresh"]
        insert = "INSERT INTO ip_allocations"
    # An owner key that holds its address: the insert is refused, then the probe finds it.
    assert held[-2:] == [insert, "SELECT ip_allocations.ordinal, ip_allocations.address,"], at_10["held"]
    assert len(at_10["release"]) == 5, at_10["release"]


async def test_the_counts_of_a_scope_just_allocated_from_are_known_without_a_statement(store: Store) -> None:
    """The subnet's and pool's counters are written from the ranges the allocation locked and
    read: ``counts`` in the same transaction sends nothing, and is what a fresh read says."""
    subnet, _ = await add_subnet(store, "10.1.0.0/24")
    await _fill(store, subnet, "some", 3)
    async with store.write() as tx:
        await allocator.allocate(tx, scope=subnet, kind=WORKLOAD, owner_type="compute_instance",
                                 owner_id="vm", purpose="nic")
        with sent(store) as statements:
            known = await allocator.counts(tx, scope=subnet, kind=WORKLOAD)
        assert statements == []
        await allocator.release(tx, owner_type="filler", owner_id="some", purpose="bulk", min_ordinal=2)
        with sent(store) as statements:
            after_release = await allocator.counts(tx, scope=subnet, kind=WORKLOAD)
        assert len(statements) == 1  # a release changes the ranges: read again
    async with store.read() as tx:
        assert await allocator.counts(tx, scope=subnet, kind=WORKLOAD) == after_release
    assert (known.allocated, after_release.allocated) == (4, 3)
    assert known.total == after_release.total == known.allocated + known.available


async def test_every_statement_is_an_index_search(tmp_path: Any) -> None:
    """SQLite's query plans of every allocate / release statement: SEARCH (an index probe) only,
    never SCAN (a walk over a table or a whole index). SQLite plans without statistics, so the
    plan is the same at any size."""
    import asyncio

    from tests.ipam.conftest import START, FakeClock, create_engines, migrate

    url = f"sqlite+aiosqlite:///{tmp_path / 'plans.sqlite'}"
    await asyncio.to_thread(migrate, url)
    engines = create_engines(url)
    store = Store(engines, FakeClock(START))
    captured: list[tuple[str, Any]] = []

    def record(_conn: Any, _cursor: Any, statement: str, parameters: Any, *_: Any) -> None:
        captured.append((statement, parameters))

    try:
        subnet, _ = await add_subnet(store, "10.0.0.0/22")
        await _fill(store, subnet, "filler", 20)
        event.listen(engines.writer.sync_engine, "before_cursor_execute", record)
        async with store.write() as tx:
            await allocator.allocate(tx, scope=subnet, kind=WORKLOAD, owner_type="t", owner_id="a", purpose="nic")
            await allocator.release(tx, owner_type="t", owner_id="a")
            await allocator.allocate(tx, scope=subnet, kind=WORKLOAD, owner_type="t", owner_id="b", purpose="nic")
            # again: the owner key's probe, after the refused insert
            await allocator.allocate(tx, scope=subnet, kind=WORKLOAD, owner_type="t", owner_id="b", purpose="nic")
        event.remove(engines.writer.sync_engine, "before_cursor_execute", record)
        plans = {}
        async with engines.writer.connect() as conn:
            for statement, parameters in captured:
                if statement.split()[0] in ("SELECT", "UPDATE", "DELETE"):
                    result = await conn.exec_driver_sql(f"EXPLAIN QUERY PLAN {statement}", parameters)
                    plans[" ".join(statement.split())] = [row[-1] for row in result]
    finally:
        await engines.dispose()
    assert len(plans) == 9, list(plans)
    for statement, plan in plans.items():
        assert plan and all(not step.startswith("SCAN") for step in plan), (statement, plan)
        assert not any("FOR ORDER BY" in step for step in plan), (statement, plan)  # index order, no sort


async def test_postgresql_plans_stay_on_the_indexes_with_stale_statistics(pg_store: Store) -> None:
    """PostgreSQL plans every statement from statistics. Here they are as stale as they get (taken
    on empty tables, then 4,000 allocations and 1,000 released addresses): no statement may read
    ``ip_free`` or ``ip_allocations`` sequentially or join (a semi-join that walked the free list
    was the plan of an earlier one-statement "pop the lowest free address")."""
    store = pg_store
    subnet, _ = await add_subnet(store, "10.0.0.0/18")
    async with store.engines.writer.connect() as conn:
        await conn.execute(text("ANALYZE ip_ranges, ip_free, ip_allocations"))
        await conn.commit()
    # 5,000 addresses handed out, every fifth released since: written directly, in the shape
    # allocate and release leave (4,000 allocations, 1,000 free entries, the range's counters).
    async with store.write() as tx:
        params = {"scope": subnet}
        await tx.conn.execute(text(
            "INSERT INTO ip_allocations (scope, address, range_id, kind, parent, owner_type, owner_id, purpose, ordinal) "
            "SELECT r.scope, r.first + g, r.id, r.kind, r.parent, 'filler', 'f' || g, 'bulk', 0 "
            "FROM ip_ranges r, generate_series(0, 4999) g WHERE r.scope = :scope AND r.kind = 'workload' "
            "AND g % 5 <> 4"), params)
        await tx.conn.execute(text(
            "INSERT INTO ip_free (range_id, address) SELECT r.id, r.first + g "
            "FROM ip_ranges r, generate_series(0, 4999) g WHERE r.scope = :scope AND r.kind = 'workload' "
            "AND g % 5 = 4"), params)
        await tx.conn.execute(text(
            "UPDATE ip_ranges SET next_unused = first + 5000, allocated_count = 4000 "
            "WHERE scope = :scope AND kind = 'workload'"), params)
    captured: list[tuple[str, Any]] = []

    def record(_conn: Any, _cursor: Any, statement: str, parameters: Any, *_: Any) -> None:
        captured.append((statement, parameters))

    engine = store.engines.writer.sync_engine
    event.listen(engine, "before_cursor_execute", record)
    try:
        async with store.write() as tx:
            await allocator.allocate(tx, scope=subnet, kind=WORKLOAD, owner_type="t", owner_id="a", purpose="nic")
            await allocator.release(tx, owner_type="t", owner_id="a")
    finally:
        event.remove(engine, "before_cursor_execute", record)
    async with store.engines.writer.connect() as conn:
        free = (await conn.execute(text("SELECT count(*) FROM ip_free"))).scalar_one()
        assert free == 1000 - 1 + 1  # one taken by allocate, given back by release
        for statement, parameters in captured:
            if statement.split()[0] not in ("SELECT", "UPDATE", "DELETE"):
                continue
            plan = "\n".join(row[0] for row in await conn.exec_driver_sql(f"EXPLAIN {statement}", parameters))
            assert "Seq Scan on ip_free" not in plan and "Seq Scan on ip_allocations" not in plan, (statement, plan)
            assert "Join" not in plan and "Nested Loop" not in plan, (statement, plan)
