"""The embedded database's driver: a statement is one trip to the SQLite thread (a transaction's
BEGIN rides with its first statement), and what SQLAlchemy reads back (rows, row counts, row ids,
errors) is what SQLite said."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError, OperationalError

from osac.store.engine import create_engines, sqlite_url

pytestmark = pytest.mark.asyncio


class CountingQueue:
    """Stands in front of a connection's work queue and counts what is handed to its thread."""

    def __init__(self, queue: Any) -> None:
        self.queue, self.items = queue, 0

    def put_nowait(self, item: Any) -> None:
        self.items += 1
        self.queue.put_nowait(item)


async def test_a_statement_is_one_trip_and_its_results_come_back_whole(tmp_path: Path) -> None:
    engines = create_engines(sqlite_url(tmp_path))
    try:
        async with engines.writer.begin() as connection:
            await connection.execute(text("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT UNIQUE)"))
            raw = await connection.get_raw_connection()
            counter = CountingQueue(raw.driver_connection._tx)
            raw.driver_connection._tx = counter

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
        assert counter.items == 8
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
        async with engines.reader.connect() as connection:
            assert (await connection.execute(text("SELECT count(*) FROM t"))).scalar_one() == 1
    finally:
        await engines.dispose()
