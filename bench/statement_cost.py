"""What one statement and one read transaction cost the server process, by the paths the store
can take: the process's CPU time per call (median of ``--rounds`` rounds of ``--calls`` calls) on
a fresh database migrated by the project's migrations, one object stored, read back by id.

- ``sqlalchemy``: the store's prebuilt statement through ``AsyncConnection.execute``;
- ``direct``: the same statement through ``store/direct.py`` (past SQLAlchemy's execution layer);
- ``driver``: the same SQL text through the driver alone (psycopg's ``AsyncConnection`` on
  PostgreSQL; SQLite has no driver of its own to compare against: its row is left out);
- ``read``: ``Store.read(snapshot=False)`` around the direct statement (the connection the
  store keeps between its transactions, no transaction of its own: ``engine.Shelf``);
- ``read_isolation_per_checkout`` (PostgreSQL): the same on the writer's pool with autocommit
  set at checkout and reset at checkin, as such reads ran before they had a pool of their own;
- ``snapshot_read``: the same in ``Store.read()`` (REPEATABLE READ on PostgreSQL).

Each call runs in one connection opened before the timing (the first three) or opens its own
transaction (the last two), one at a time: nothing else runs in the process.

    python -m bench.statement_cost [--db sqlite postgresql] [--calls 2000] [--rounds 5] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection

from bench.harness import DATABASES, emit_json, print_table, scratch_database, workdir
from osac.clock import SystemClock
from osac.model import registry
from osac.store import direct, statements
from osac.store.engine import create_engines, migrate_async
from osac.store.objects import Store

KIND = registry.get("virtual_network")


async def _cpu_us(call: Callable[[], Awaitable[Any]], calls: int, rounds: int) -> float:
    samples = []
    for _ in range(rounds):
        start = time.process_time()
        for _ in range(calls):
            await call()
        samples.append((time.process_time() - start) / calls * 1e6)
    return round(statistics.median(samples), 1)


def _network() -> Any:
    message = KIND.private_class()(id="vn-bench")
    message.metadata.name = "bench"
    message.metadata.tenant = "acme"
    message.metadata.version = 1
    message.metadata.creation_timestamp.FromDatetime(datetime(2026, 1, 1, tzinfo=UTC))
    return message


async def measure(url: str, calls: int, rounds: int) -> list[dict[str, Any]]:
    await migrate_async(url)
    store = Store(create_engines(url), SystemClock())
    query = statements.data_by_id(KIND.name, 1)
    params = {"object_id": "vn-bench", "tenant_0": "acme"}
    try:
        async with store.write() as tx:
            await tx.insert(KIND, _network())
        rows: list[dict[str, Any]] = []

        async def in_connection(name: str, run: Callable[[AsyncConnection], Awaitable[Any]]) -> None:
            async with store.engines.statements.connect() as conn:
                assert await run(conn) is not None  # the object is found
                rows.append({"path": name, "cpu_us": await _cpu_us(lambda: run(conn), calls, rounds)})

        async def via_sqlalchemy(conn: AsyncConnection) -> Any:
            return (await conn.execute(query, params)).first()

        async def via_direct(conn: AsyncConnection) -> Any:
            return (await direct.execute(conn, query, params)).first()

        await in_connection("sqlalchemy", via_sqlalchemy)
        await in_connection("direct", via_direct)
        if store.dialect == "postgresql":
            sql = direct.compiled(query, store.engines.statements.dialect, tuple(params)).sql

            async def via_driver(conn: AsyncConnection) -> Any:
                psycopg = (await conn.get_raw_connection()).driver_connection
                assert psycopg is not None
                async with psycopg.cursor() as cursor:
                    await cursor.execute(sql, params)
                    return await cursor.fetchone()

            await in_connection("driver", via_driver)

        async def read(snapshot: bool) -> Any:
            async with store.read(snapshot=snapshot) as tx:
                return await tx.get(KIND, "vn-bench", frozenset({"acme"}))

        async def read_isolation_per_checkout() -> Any:
            async with store.engines.writer.connect() as conn:
                conn = await conn.execution_options(isolation_level="AUTOCOMMIT")
                async with conn.begin():
                    return (await direct.execute(conn, query, params)).first()

        for name, snapshot in (("read", False), ("snapshot_read", True)):
            assert await read(snapshot) is not None
            rows.append({"path": name, "cpu_us": await _cpu_us(lambda snapshot=snapshot: read(snapshot),
                                                               calls, rounds)})
        if store.dialect == "postgresql":
            assert await read_isolation_per_checkout() is not None
            rows.append({"path": "read_isolation_per_checkout",
                         "cpu_us": await _cpu_us(read_isolation_per_checkout, calls, rounds)})
        return rows
    finally:
        await store.engines.dispose()


async def benchmark(dbs: Sequence[str], calls: int = 2000, rounds: int = 5) -> list[dict[str, Any]]:
    rows = []
    for db in dbs:
        with workdir() as directory, scratch_database(db, directory) as url:
            rows.extend({"db": db, **row} for row in await measure(url, calls, rounds))
    return rows


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.statement_cost", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", nargs="+", choices=DATABASES, default=list(DATABASES))
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    rows = asyncio.run(benchmark(args.db, args.calls, args.rounds))
    if args.json:
        emit_json("statement_cost", vars(args), rows)
    else:
        print_table("a read of one object by id (CPU µs per call)", rows)


if __name__ == "__main__":
    main()
