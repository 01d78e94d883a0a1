"""IPAM allocation latency at the start and at the end of a /16 (networking.md §5.4: the cost of
an allocation must not grow with the number of addresses allocated).

For each database and each mode (``sequential``: one allocator; ``concurrent``: ``--concurrency``
allocators, 16 by default) on a fresh scratch database:

1. ``first``: one subnet ``--cidr`` (default 10.0.0.0/16, VIP prefix 28: 65,518 workload
   addresses) and ``--edge`` (1,000) allocations on the empty range: addresses never used.
2. ``reuse_low``: those addresses are released (one transaction) and allocated again: the path
   through ``ip_free``, with almost nothing allocated.
3. Fill: every address but the last ``--edge`` is bulk-inserted straight into ``ip_allocations``
   through the product's own table definition (``osac.ipam.schema``), one row per address in
   exactly the shape ``allocate`` writes (scope = range parent = subnet id, the range id, kind
   ``workload``, owner ``bench_fill``/``fill-<address>``, purpose ``nic``, ordinal 0), and the
   range row's ``next_unused`` and ``allocated_count`` are advanced as ``allocate`` advances them,
   in one transaction. PostgreSQL then gets ``ANALYZE`` (what autovacuum does after such a load).
4. ``last``: the last ``--edge`` allocations, which fill the range; one more must raise
   ``AddressesExhausted``.
5. ``reuse``: ``--edge`` bulk addresses spread evenly over the range are released (one
   transaction), then allocated again: the ``ip_free`` path on a full range.

Every allocation is a call of ``osac.ipam.allocator.allocate`` in its own write transaction
(``Store.write()``: BEGIN … COMMIT included in the latency), as a service's Create does it. Each
phase checks that it got exactly the addresses it should (lowest first). ``p50_ratio`` and
``p99_ratio`` compare a phase on the full range with the same path on the empty one (``last`` /
``first``, ``reuse`` / ``reuse_low``, same mode): they must stay near 1.

    python -m bench.ipam_allocation [--db sqlite postgresql] [--cidr 10.0.0.0/16] [--edge 1000]
                                    [--concurrency 16] [--modes sequential concurrent] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import time
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import create_engine, select, text, update
from sqlalchemy import insert as sql_insert

from bench.harness import (
    DATABASES,
    Run,
    emit_json,
    ms,
    percentile,
    print_table,
    run_async,
    scratch_database,
    workdir,
)
from osac.clock import SystemClock
from osac.ipam import allocator
from osac.ipam.allocator import WORKLOAD
from osac.ipam.errors import AddressesExhausted
from osac.ipam.layout import address_text, address_value, subnet_layout
from osac.ipam.schema import ip_allocations, ip_ranges
from osac.store.engine import create_engines, migrate, sync_url
from osac.store.objects import Store

MODES = ("sequential", "concurrent")
PHASES = ("first", "reuse_low", "last", "reuse")
#: Each phase on the full range and its baseline on the empty range.
BASELINE = {"first": "first", "reuse_low": "reuse_low", "last": "first", "reuse": "reuse_low"}
FILL_OWNER_TYPE = "bench_fill"
OWNER_TYPE = "bench"
BATCH = 10_000


def fill_middle(url: str, subnet: str, start: int, count: int) -> float:
    """Allocate ``start … start + count − 1`` in bulk, in ``allocate``'s shape; seconds taken."""
    engine = create_engine(sync_url(url))
    started = time.perf_counter()
    try:
        with engine.begin() as conn:
            row = conn.execute(
                select(ip_ranges.c.id, ip_ranges.c.next_unused).where(
                    ip_ranges.c.scope == subnet, ip_ranges.c.kind == WORKLOAD
                )
            ).one()
            if row.next_unused != start:
                raise AssertionError(f"the range's next unused address is {row.next_unused}, not {start}")
            for low in range(start, start + count, BATCH):
                conn.execute(
                    sql_insert(ip_allocations),
                    [
                        {
                            "scope": subnet, "address": address, "range_id": row.id, "kind": WORKLOAD,
                            "parent": subnet, "owner_type": FILL_OWNER_TYPE, "owner_id": f"fill-{address}",
                            "purpose": "nic", "ordinal": 0,
                        }
                        for address in range(low, min(low + BATCH, start + count))
                    ],
                )
            conn.execute(
                update(ip_ranges)
                .where(ip_ranges.c.id == row.id)
                .values(next_unused=ip_ranges.c.next_unused + count,
                        allocated_count=ip_ranges.c.allocated_count + count)
            )
        if engine.dialect.name == "postgresql":
            with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
                conn.execute(text("ANALYZE ip_ranges, ip_free, ip_allocations"))
        return time.perf_counter() - started
    finally:
        engine.dispose()


async def timed_allocations(store: Store, subnet: str, tag: str, ops: int, concurrency: int) -> tuple[Run, list[str]]:
    """``ops`` allocations by ``concurrency`` allocators, one transaction each."""
    got: list[str] = []

    async def operation(_worker: int, index: int) -> None:
        async with store.write() as tx:
            got.append(await allocator.allocate(tx, scope=subnet, kind=WORKLOAD, owner_type=OWNER_TYPE,
                                                owner_id=f"{tag}-{index}", purpose="nic"))

    return await run_async(ops, concurrency, operation), got


def expect(phase: str, got: Sequence[str], wanted: Sequence[int]) -> None:
    if sorted(address_value(a) for a in got) != sorted(wanted):
        raise AssertionError(f"{phase}: got {len(got)} addresses ({len(set(got))} distinct), not the {len(wanted)} "
                             f"expected from {address_text(min(wanted))}")


async def run_mode(db: str, mode: str, cidr: str, edge: int, concurrency: int) -> list[dict[str, Any]]:
    layout = subnet_layout(cidr, 28)
    first, last = address_value(layout.workload[0]), address_value(layout.workload[1])
    if layout.workload_size < 3 * edge:
        raise ValueError(f"{cidr} has {layout.workload_size} workload addresses; --edge {edge} needs {3 * edge}")
    workers = concurrency if mode == "concurrent" else 1
    subnet = str(uuid.uuid4())
    with workdir() as directory, scratch_database(db, directory) as url:
        await asyncio.to_thread(migrate, url)
        engines = create_engines(url)
        store = Store(engines, SystemClock())
        try:
            async with store.write() as tx:
                await allocator.add_subnet_ranges(tx, subnet, layout)
            runs: dict[str, Run] = {}
            allocated_before: dict[str, int] = {"first": 0}

            runs["first"], got = await timed_allocations(store, subnet, "first", edge, workers)
            expect("first", got, range(first, first + edge))

            async with store.write() as tx:
                for index in range(edge):
                    await allocator.release(tx, owner_type=OWNER_TYPE, owner_id=f"first-{index}")
            allocated_before["reuse_low"] = 0
            runs["reuse_low"], got = await timed_allocations(store, subnet, "reuse_low", edge, workers)
            expect("reuse_low", got, range(first, first + edge))

            middle = layout.workload_size - 2 * edge
            fill_seconds = await asyncio.to_thread(fill_middle, url, subnet, first + edge, middle)

            allocated_before["last"] = edge + middle
            runs["last"], got = await timed_allocations(store, subnet, "last", edge, workers)
            expect("last", got, range(last - edge + 1, last + 1))
            try:
                async with store.write() as tx:
                    await allocator.allocate(tx, scope=subnet, kind=WORKLOAD, owner_type=OWNER_TYPE,
                                             owner_id="one-too-many", purpose="nic")
            except AddressesExhausted:
                pass
            else:
                raise AssertionError("a full range handed out another address")

            step = middle // edge
            spread = [first + edge + n * step for n in range(edge)]
            async with store.write() as tx:
                for address in spread:
                    await allocator.release(tx, owner_type=FILL_OWNER_TYPE, owner_id=f"fill-{address}")
            allocated_before["reuse"] = layout.workload_size - edge
            runs["reuse"], got = await timed_allocations(store, subnet, "reuse", edge, workers)
            expect("reuse", got, spread)

            async with store.read() as tx:
                final = await allocator.counts(tx, scope=subnet, kind=WORKLOAD)
            if (final.allocated, final.available) != (layout.workload_size, 0):
                raise AssertionError(f"counters after the run: {final}")
        finally:
            await engines.dispose()

    rows = []
    for phase in PHASES:
        latencies = runs[phase].latencies
        base = runs[BASELINE[phase]].latencies
        rows.append({
            "db": db, "mode": mode, "allocators": workers, "phase": phase,
            "allocated_before": allocated_before[phase], "ops": len(latencies),
            "per_s": round(runs[phase].rate), "mean_ms": ms(sum(latencies) / len(latencies)),
            "p50_ms": ms(percentile(latencies, 50)), "p99_ms": ms(percentile(latencies, 99)),
            "vs": BASELINE[phase] if BASELINE[phase] != phase else "",
            "p50_ratio": round(percentile(latencies, 50) / percentile(base, 50), 2),
            "p99_ratio": round(percentile(latencies, 99) / percentile(base, 99), 2),
            "fill_s": round(fill_seconds, 1) if phase == "last" else "",
        })
    return rows


async def benchmark(
    databases: Sequence[str] = DATABASES,
    cidr: str = "10.0.0.0/16",
    edge: int = 1000,
    concurrency: int = 16,
    modes: Sequence[str] = MODES,
) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for db in databases:
        for mode in modes:
            rows.extend(await run_mode(db, mode, cidr, edge, concurrency))
    return rows


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.ipam_allocation", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--db", nargs="+", choices=DATABASES, default=list(DATABASES))
    parser.add_argument("--cidr", default="10.0.0.0/16", help="the subnet (default 10.0.0.0/16)")
    parser.add_argument("--edge", type=int, default=1000, help="timed allocations per phase (default 1000)")
    parser.add_argument("--concurrency", type=int, default=16, help="allocators in concurrent mode (default 16)")
    parser.add_argument("--modes", nargs="+", choices=MODES, default=list(MODES))
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)
    started = datetime.now(UTC)
    rows = asyncio.run(benchmark(args.db, args.cidr, args.edge, args.concurrency, args.modes))
    if args.json:
        emit_json("ipam_allocation", {"cidr": args.cidr, "edge": args.edge, "concurrency": args.concurrency,
                                      "started": started.isoformat()}, rows)
    else:
        print_table(f"IPAM allocation latency, subnet {args.cidr} (VIP /28), {args.edge:,} allocations per phase, "
                    "one transaction each", rows)


if __name__ == "__main__":
    main()
