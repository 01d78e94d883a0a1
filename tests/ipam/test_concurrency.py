"""Concurrent allocators never hand out an address twice and leave none behind (§5.1, §5.4):
many transactions in one process, two processes on one database, and external pools."""

from __future__ import annotations

import asyncio
import collections
import ipaddress
import json
import sys
from pathlib import Path

import pytest
from sqlalchemy import event, insert, select, text

from osac.ipam import allocator
from osac.ipam.allocator import EXTERNAL, EXTERNAL_SCOPE, VIP, WORKLOAD, Counts
from osac.ipam.errors import AddressesExhausted, AllocationConflict
from osac.ipam.schema import ip_allocations, ip_ranges
from osac.store.objects import Store
from tests.ipam.conftest import add_pool, add_subnet, new_id

ROOT = Path(__file__).resolve().parents[2]
ALLOCATORS = 16


def _workload_addresses(first: str, last: str) -> set[str]:
    low, high = int(ipaddress.IPv4Address(first)), int(ipaddress.IPv4Address(last))
    return {str(ipaddress.IPv4Address(value)) for value in range(low, high + 1)}


async def test_sixteen_allocators_fill_a_slash_20(store: Store) -> None:
    subnet, layout = await add_subnet(store, "10.0.0.0/20")
    got: list[str] = []

    async def run(number: int) -> None:
        index = 0
        while True:
            try:
                async with store.write() as tx:
                    address = await allocator.allocate(tx, scope=subnet, kind=WORKLOAD, owner_type="compute_instance",
                                                       owner_id=f"a{number}-{index}", purpose="nic")
            except AddressesExhausted:
                return
            got.append(address)
            index += 1

    await asyncio.gather(*(run(number) for number in range(ALLOCATORS)))

    duplicates = [address for address, seen in collections.Counter(got).items() if seen > 1]
    assert duplicates == []
    assert set(got) == _workload_addresses(*layout.workload)
    assert len(got) == layout.workload_size == 4078
    async with store.write() as tx:
        assert await allocator.counts(tx, scope=subnet, kind=WORKLOAD) == Counts(4078, 4078, 0)
        assert await allocator.counts(tx, scope=subnet, kind=VIP) == Counts(15, 0, 15)
        try:
            await allocator.allocate(tx, scope=subnet, kind=WORKLOAD, owner_type="compute_instance",
                                     owner_id="one-more", purpose="nic")
        except AddressesExhausted as error:
            assert (error.needed, error.available) == (1, 0)
        else:
            raise AssertionError("a full range handed out another address")


async def test_two_processes_with_eight_allocators_each_fill_a_slash_20(store: Store) -> None:
    """The /20 of the sixteen-allocator test, its allocators split over two processes."""
    subnet, layout = await add_subnet(store, "10.0.0.0/20")
    url = store.engines.url
    workers = [
        await asyncio.create_subprocess_exec(
            sys.executable, "-m", "tests.ipam.allocation_worker", url, subnet, tag, str(ALLOCATORS // 2),
            cwd=ROOT, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        )
        for tag in ("p1", "p2")
    ]
    for worker in workers:
        assert worker.stdout is not None
        assert (await asyncio.wait_for(worker.stdout.readline(), 60)).strip() == b"ready"
    for worker in workers:
        assert worker.stdin is not None
        worker.stdin.write(b"go\n")
        await worker.stdin.drain()
    outputs = await asyncio.gather(*(asyncio.wait_for(worker.communicate(), 300) for worker in workers))
    assert [worker.returncode for worker in workers] == [0, 0]
    per_process = [json.loads(stdout) for stdout, _ in outputs]

    got = [address for addresses in per_process for address in addresses]
    assert len(got) == len(set(got)) == layout.workload_size == 4078
    assert set(got) == _workload_addresses(*layout.workload)  # never a VIP-range address
    # Both processes really took part (each allocator runs until the range is exhausted).
    assert all(len(addresses) > 200 for addresses in per_process), [len(a) for a in per_process]
    async with store.write() as tx:
        assert await allocator.counts(tx, scope=subnet, kind=WORKLOAD) == Counts(4078, 4078, 0)
        assert await allocator.counts(tx, scope=subnet, kind=VIP) == Counts(15, 0, 15)
        with pytest.raises(AddressesExhausted):
            await allocator.allocate(tx, scope=subnet, kind=WORKLOAD, owner_type="compute_instance",
                                     owner_id="one-more", purpose="nic")


async def test_three_hundred_external_allocations_over_two_pools(store: Store) -> None:
    pools = [await add_pool(store, "203.0.113.0/24"), await add_pool(store, "198.51.100.0/24")]
    chosen: dict[str, str] = {}

    async def allocate_one(index: int) -> str:
        async with store.write() as tx:
            # Pool selection as the services do it (§5.5): most available first, then id.
            available = await allocator.pool_counts(tx, pools)
            pool = min(pools, key=lambda p: (-available[p].available, p))
            owner = f"eip{index}"
            chosen[owner] = pool
            return await allocator.allocate(tx, scope=EXTERNAL_SCOPE, kind=EXTERNAL, owner_type="external_ip",
                                            owner_id=owner, purpose="address", parent=pool)

    got = await asyncio.gather(*(allocate_one(index) for index in range(300)))
    assert len(set(got)) == 300
    async with store.read() as tx:
        held = {}
        for index in range(300):
            (allocation,) = await allocator.allocations_of(tx, "external_ip", f"eip{index}")
            held[allocation.owner_id] = allocation
        counts = await allocator.pool_counts(tx, pools)
    per_pool = collections.Counter(allocation.parent for allocation in held.values())
    networks = {pools[0]: ipaddress.ip_network("203.0.113.0/24"), pools[1]: ipaddress.ip_network("198.51.100.0/24")}
    for owner, allocation in held.items():
        assert allocation.parent == chosen[owner]
        assert ipaddress.IPv4Address(allocation.address) in networks[allocation.parent]
    for pool in pools:
        assert counts[pool] == Counts(254, per_pool[pool], 254 - per_pool[pool])
        # Each pool was filled from its bottom without gaps.
        addresses = sorted(int(ipaddress.IPv4Address(a.address)) for a in held.values() if a.parent == pool)
        low = int(networks[pool].network_address) + 1
        assert addresses == list(range(low, low + per_pool[pool]))
    assert sum(per_pool.values()) == 300 and min(per_pool.values()) >= 46  # both pools were used


async def test_concurrent_requests_for_one_owner_key_get_one_address(store: Store) -> None:
    """The owner-key constraint resolves a race between two requests for the same reservation:
    the loser retries in its savepoint and finds the winner's address."""
    subnet, _ = await add_subnet(store)
    owner = new_id()

    async def request() -> str:
        async with store.write() as tx:
            return await allocator.allocate(tx, scope=subnet, kind=WORKLOAD, owner_type="compute_instance",
                                            owner_id=owner, purpose="nic")

    got = await asyncio.gather(*(request() for _ in range(8)))
    assert set(got) == {"10.0.1.2"}
    async with store.read() as tx:
        assert await allocator.counts(tx, scope=subnet, kind=WORKLOAD) == Counts(238, 1, 237)


async def test_a_lost_owner_key_race_is_retried(pg_store: Store) -> None:
    """B asks for A's owner key while A holds the range lock: B waits, picks the next address,
    the owner-key constraint keeps its insert out (nothing written, no error), B asks again and
    returns A's address."""
    store = pg_store
    subnet, _ = await add_subnet(store)
    owner = new_id()
    inserts = []

    def count_rollbacks(_conn: object, _cursor: object, statement: str, *_: object) -> None:
        # on PostgreSQL the insert is the first data-modifying WITH of one statement (take_one)
        if statement.startswith(("WITH taken AS", "ROLLBACK TO SAVEPOINT", "SAVEPOINT")):
            inserts.append(statement.split(" (")[0].split("\n")[0].strip())

    async def request() -> str:
        async with store.write() as tx:
            return await allocator.allocate(tx, scope=subnet, kind=WORKLOAD, owner_type="compute_instance",
                                            owner_id=owner, purpose="nic")

    event.listen(store.engines.writer.sync_engine, "before_cursor_execute", count_rollbacks)
    try:
        async with store.write() as tx:
            assert await allocator.allocate(tx, scope=subnet, kind=WORKLOAD, owner_type="compute_instance",
                                            owner_id=owner, purpose="nic") == "10.0.1.2"
            second = asyncio.create_task(request())
            await _wait_for_a_lock_waiter(store)
        assert await second == "10.0.1.2"
    finally:
        event.remove(store.engines.writer.sync_engine, "before_cursor_execute", count_rollbacks)
    assert inserts == ["WITH taken AS"] * 2  # A's, and B's that wrote nothing; no SAVEPOINT
    async with store.read() as tx:
        assert await allocator.counts(tx, scope=subnet, kind=WORKLOAD) == Counts(238, 1, 237)


async def _wait_for_a_lock_waiter(store: Store) -> None:
    """Until some backend of this database waits for a lock (at most 30 s of polling)."""
    query = text("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                 "AND wait_event_type = 'Lock'")
    for _ in range(3000):
        async with store.engines.reader.connect() as conn:
            if (await conn.execute(query)).scalar_one():
                return
        await asyncio.sleep(0.01)
    raise AssertionError("the second allocator never waited for the range lock")


async def test_inconsistent_tables_end_in_allocation_conflict(store: Store) -> None:
    """If the tables disagree (an address at ``next_unused`` is already allocated, which only a
    bug or a manual edit can cause), the constraint refuses every retry and nothing is written."""
    subnet, _ = await add_subnet(store)
    async with store.write() as tx:
        range_id = (await tx.conn.execute(
            select(ip_ranges.c.id).where(ip_ranges.c.scope == subnet, ip_ranges.c.kind == WORKLOAD))).scalar_one()
        await tx.conn.execute(insert(ip_allocations).values(
            scope=subnet, address=int(ipaddress.IPv4Address("10.0.1.2")), range_id=range_id, kind=WORKLOAD,
            parent=subnet, owner_type="manual", owner_id="edit", purpose="nic", ordinal=0))
    async with store.write() as tx:
        with pytest.raises(AllocationConflict, match="refused 4 attempts") as error:
            await allocator.allocate(tx, scope=subnet, kind=WORKLOAD, owner_type="compute_instance",
                                     owner_id="vm", purpose="nic")
        assert error.value.attempts == 1 + allocator.MAX_RETRIES
        assert await allocator.counts(tx, scope=subnet, kind=WORKLOAD) == Counts(238, 0, 238)
        assert await allocator.allocations_of(tx, "compute_instance", "vm") == []
