"""The embedded database's driver: a statement is one trip to the SQLite thread (a transaction's
BEGIN rides with its first statement), or none once it is known to be quick; what SQLAlchemy reads
back (rows, row counts, row ids, errors) is what SQLite said; a lock is never waited for on the
event loop."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError, OperationalError

from osac.store.engine import Engines, create_engines, sqlite_url

pytestmark = pytest.mark.asyncio


class CountingQueue:
    """Stands in front of a connection's work queue and counts what is handed to its thread."""

    def __init__(self, queue: Any) -> None:
        self.queue, self.items = queue, 0

    def put_nowait(self, item: Any) -> None:
        self.items += 1
        self.queue.put_nowait(item)


async def rows_in_t(engines: Engines) -> int:
    """The rows of the test's table ``t``, read by the reader engine."""
    async with engines.reader.connect() as connection:
        return int((await connection.execute(text("SELECT count(*) FROM t"))).scalar_one())


async def counted(connection: Any) -> CountingQueue:
    """Count what ``connection`` hands to its SQLite thread from now on."""
    raw = await connection.get_raw_connection()
    counter = CountingQueue(raw.driver_connection._tx)
    raw.driver_connection._tx = counter
    return counter


async def test_a_statement_is_one_trip_and_its_results_come_back_whole(tmp_path: Path) -> None:
    engines = create_engines(sqlite_url(tmp_path))
    try:
        async with engines.writer.begin() as connection:
            await connection.execute(text("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT UNIQUE)"))
            counter = await counted(connection)

            inserted = await connection.execute(text("INSERT INTO t (name) VALUES ('a')"))
            assert inserted.lastrowid == 1
            await connection.execute(text("INSERT INTO t (name) VALUES (:name)"), [{"name": "b"}, {"name": "c"}])
            updated = await connection.execute(text("UPDATE t SET name = name || '!' WHERE id > 1"))
            assert updated.rowcount == 2
            rows = (await connection.execute(text("SELECT id, name FROM t ORDER BY id"))).all()
            assert [tuple(row) for row in rows] == [(1, "a"), (2, "b!"), (3, "c!")]
            empty = await connection.execute(text("SELECT id FROM t WHERE id > 10"))
            assert list(empty.keys()) == ["id"] and empty.all() == []
            assert counter.items == 5
        # The transaction's BEGIN went with its first statement: its end is the only other trip.
        assert counter.items == 6
        async with engines.writer.begin():
            pass
        assert counter.items == 6, "a transaction that ran nothing makes no trip"
        async with engines.writer.begin() as connection:
            assert (await connection.execute(text("SELECT count(*) FROM t"))).scalar_one() == 3
        assert counter.items == 7, "a new statement is a trip; the commit, quick before, is none"
    finally:
        await engines.dispose()


async def test_errors_are_the_databases_and_leave_the_connection_usable(tmp_path: Path) -> None:
    engines = create_engines(sqlite_url(tmp_path))
    try:
        async with engines.writer.begin() as connection:
            await connection.execute(text("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT UNIQUE)"))
            await connection.execute(text("INSERT INTO t (name) VALUES ('a')"))
        with pytest.raises(IntegrityError, match="UNIQUE constraint failed: t.name"):
            async with engines.writer.begin() as connection:
                await connection.execute(text("INSERT INTO t (name) VALUES ('a')"))
        with pytest.raises(OperationalError, match="no such table: missing"):
            async with engines.reader.connect() as connection:
                await connection.execute(text("SELECT * FROM missing"))
        assert await rows_in_t(engines) == 1
    finally:
        await engines.dispose()


async def test_a_statement_known_to_be_quick_runs_on_the_event_loop(tmp_path: Path) -> None:
    engines = create_engines(sqlite_url(tmp_path))
    try:
        async with engines.writer.begin() as connection:
            await connection.execute(text("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT UNIQUE)"))
        async with engines.writer.begin() as connection:
            counter = await counted(connection)
            insert = text("INSERT INTO t (name) VALUES (:name)")
            await connection.execute(insert, {"name": "a"})
            assert counter.items == 1, "a statement not seen yet goes to the thread"
            for name in "bcd":
                result = await connection.execute(insert, {"name": name})
            assert counter.items == 1, "once it is known to be quick it makes no trip"
            assert result.lastrowid == 4
            rows = (await connection.execute(text("SELECT name FROM t ORDER BY id"))).scalars().all()
            assert rows == ["a", "b", "c", "d"] and counter.items == 2
            with pytest.raises(IntegrityError, match="UNIQUE constraint failed: t.name"):
                await connection.execute(insert, {"name": "a"})
            assert counter.items == 2, "an error on the event loop is the database's, as in the thread"
        assert await rows_in_t(engines) == 4
    finally:
        await engines.dispose()


async def test_a_long_statement_stays_in_the_thread(tmp_path: Path) -> None:
    engines = create_engines(sqlite_url(tmp_path))
    slow = text("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300000) "
                "SELECT count(*) FROM n")
    try:
        async with engines.reader.connect() as connection:
            counter = await counted(connection)
            for _ in range(3):
                assert (await connection.execute(slow)).scalar_one() == 300000
            assert counter.items == 3
    finally:
        await engines.dispose()


async def test_a_statement_that_meets_a_lock_waits_for_it_in_the_thread(tmp_path: Path) -> None:
    """Another process's write lock: on the event loop the statement fails at once and does
    nothing, then waits in the thread; the event loop keeps running all the while."""
    engines = create_engines(sqlite_url(tmp_path))
    try:
        async with engines.writer.begin() as connection:
            await connection.execute(text("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)"))
        insert = text("INSERT INTO t (name) VALUES (:name)")
        for name in "ab":
            async with engines.writer.begin() as connection:
                await connection.execute(insert, {"name": name})
        other = sqlite3.connect(tmp_path / "osac.sqlite", isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        ticks = 0

        async def tick() -> None:
            nonlocal ticks
            while True:
                ticks += 1
                await asyncio.sleep(0.01)

        async def insert_c() -> None:
            async with engines.writer.begin() as connection:
                await connection.execute(insert, {"name": "c"})

        ticker = asyncio.create_task(tick())
        writer = asyncio.create_task(insert_c())
        await asyncio.sleep(0.3)
        assert not writer.done() and ticks >= 10, "the lock is waited for off the event loop"
        other.execute("INSERT INTO t (name) VALUES ('other')")
        other.execute("COMMIT")
        await asyncio.wait_for(writer, 10)
        ticker.cancel()
        other.close()
        async with engines.reader.connect() as connection:
            names = (await connection.execute(text("SELECT name FROM t ORDER BY id"))).scalars().all()
        assert names == ["a", "b", "other", "c"]
    finally:
        await engines.dispose()


async def test_many_quick_statements_in_a_row_give_the_other_tasks_turns(tmp_path: Path) -> None:
    engines = create_engines(sqlite_url(tmp_path))
    insert = text("INSERT INTO t (name) VALUES (:name)")
    try:
        async with engines.writer.begin() as connection:
            await connection.execute(text("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)"))
            await connection.execute(insert, {"name": "first"})
        ticks = 0

        async def tick() -> None:
            nonlocal ticks
            while True:
                ticks += 1
                await asyncio.sleep(0)

        ticker = asyncio.create_task(tick())
        await asyncio.sleep(0)
        async with engines.writer.begin() as connection:
            counter = await counted(connection)
            before = ticks
            for number in range(3000):
                await connection.execute(insert, {"name": str(number)})
            during = ticks - before
        ticker.cancel()
        assert counter.items == 0, "every insert ran on the event loop"
        assert during >= 3, f"the other task had {during} turns during 3,000 statements"
        assert await rows_in_t(engines) == 3001
    finally:
        await engines.dispose()
