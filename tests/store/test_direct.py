"""The direct path of prebuilt statements (``store/direct.py``): it binds and reads back what
SQLAlchemy's own execution does (JSON documents, timestamps, RETURNING, literals of the
statement, named rows), raises SQLAlchemy's errors, announces each statement to
``before_cursor_execute`` and refuses, when first compiled, a statement it would run differently."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import (
    Column,
    Integer,
    MetaData,
    String,
    Table,
    bindparam,
    event,
    func,
    insert,
    literal,
    select,
    text,
    update,
)
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from osac.model import registry
from osac.store import direct, statements
from osac.store.objects import Store
from osac.store.tables import LIVE

pytestmark = pytest.mark.asyncio

VN = registry.get("virtual_network")
TABLE = LIVE[VN.name]
AT = datetime(2026, 3, 4, 5, 6, 7, 891011, tzinfo=UTC)
DOCUMENT = {"id": "vn-1", "metadata": {"name": "app", "tenant": "acme"}, "spec": {"cidr": "10.0.0.0/16",
                                                                                   "nested": [1, "two", None]}}


def _row(object_id: str = "vn-1", name: str = "app", tenant: str = "acme") -> dict[str, Any]:
    return {"id": object_id, "name": name, "tenant": tenant, "creation_timestamp": AT, "deletion_timestamp": AT,
            "version": 3, "data": {**DOCUMENT, "id": object_id}}


#: A table with a Python-side default (never created: the statement is refused first).
WITH_DEFAULT = Table("scratch", MetaData(), Column("id", String, primary_key=True), Column("n", Integer, default=1))
#: Every column of the table and the stored document, read back by id.
BY_ID = select(TABLE.c.id, TABLE.c.version, TABLE.c.deletion_timestamp, TABLE.c.data).where(
    TABLE.c.id == bindparam("object_id"))


@pytest.fixture
async def stored(store: Store) -> AsyncIterator[Store]:
    async with store.write() as tx:
        await direct.execute(tx.conn, statements.insert_object(VN.name), _row())
    yield store


async def test_rows_written_and_read_directly_are_those_of_sqlalchemy(stored: Store) -> None:
    async with stored.read() as tx:
        via_sqlalchemy = (await tx.conn.execute(BY_ID, {"object_id": "vn-1"})).one()
        via_direct = (await direct.execute(tx.conn, BY_ID, {"object_id": "vn-1"})).first()
    assert via_direct == tuple(via_sqlalchemy)
    assert via_direct[1] == 3
    assert via_direct[2].replace(tzinfo=UTC) == AT
    assert via_direct[3] == DOCUMENT


async def test_named_rows_carry_their_columns_as_attributes(stored: Store) -> None:
    async with stored.read() as tx:
        row = (await direct.execute(tx.conn, BY_ID, {"object_id": "vn-1"}, named=True)).first()
    assert (row.id, row.version, row.data["spec"]["cidr"]) == ("vn-1", 3, "10.0.0.0/16")


async def test_literals_of_the_statement_are_bound_with_the_given_parameters(stored: Store) -> None:
    only_acme = select(TABLE.c.name).where(TABLE.c.tenant.in_([literal("acme"), literal("other")]),
                                           TABLE.c.version > bindparam("above"))
    async with stored.read() as tx:
        assert (await direct.execute(tx.conn, only_acme, {"above": 2})).all() == [("app",)]
        assert (await direct.execute(tx.conn, only_acme, {"above": 3})).all() == []


async def test_an_update_reports_its_row_count_and_returning_its_rows(stored: Store) -> None:
    bump = (update(TABLE).where(TABLE.c.id == bindparam("object_id")).values(version=TABLE.c.version + 1)
            .returning(TABLE.c.version))
    async with stored.write() as tx:
        bumped = await direct.execute(tx.conn, bump, {"object_id": "vn-1"})
        missed = await direct.execute(tx.conn, statements.hold_object(VN.name), {"object_id": "vn-1", "based_on": 3})
        held = await direct.execute(tx.conn, statements.hold_object(VN.name), {"object_id": "vn-1", "based_on": 4})
    assert bumped.scalar_one() == 4
    assert (missed.rowcount, held.rowcount) == (0, 1)
    async with stored.read() as tx:
        assert (await direct.execute(tx.conn, statements.version_by_id(VN.name), {"object_id": "vn-1"})
                ).scalar_one() == 4


async def test_a_driver_error_is_sqlalchemy_s_and_the_transaction_writes_nothing(stored: Store) -> None:
    with pytest.raises(IntegrityError):
        async with stored.write() as tx:
            await direct.execute(tx.conn, statements.insert_object(VN.name), _row("vn-2", name="web"))
            await direct.execute(tx.conn, statements.insert_object(VN.name), _row("vn-3", name="web"))
    async with stored.read() as tx:
        assert (await direct.execute(tx.conn, select(TABLE.c.id).order_by(TABLE.c.id), {})).all() == [("vn-1",)]
    async with stored.write() as tx:  # the pool's connection serves the next transaction
        await direct.execute(tx.conn, statements.insert_object(VN.name), _row("vn-2", name="web"))


async def test_each_statement_is_announced_to_the_cursor_listeners(stored: Store) -> None:
    seen: list[tuple[str, Any]] = []

    def record(_conn: Any, _cursor: Any, statement: str, parameters: Any, *_: Any) -> None:
        seen.append((" ".join(statement.split()), parameters))

    engine = stored.engines.reader.sync_engine
    event.listen(engine, "before_cursor_execute", record)
    try:
        async with stored.read() as tx:
            await direct.execute(tx.conn, statements.version_by_id(VN.name), {"object_id": "vn-1"})
    finally:
        event.remove(engine, "before_cursor_execute", record)
    assert len(seen) == 1
    assert seen[0][0].startswith("SELECT virtual_networks.version FROM virtual_networks WHERE virtual_networks.id =")
    assert "vn-1" in (seen[0][1].values() if isinstance(seen[0][1], dict) else seen[0][1])


async def test_a_statement_it_would_run_differently_is_refused_when_first_compiled(store: Store) -> None:
    expanding = select(TABLE.c.id).where(TABLE.c.tenant.in_(bindparam("tenants", expanding=True)))
    async with store.read() as tx:
        with pytest.raises(ValueError, match="expanding parameters"):
            await direct.execute(tx.conn, expanding, {"tenants": ["acme"]})
        with pytest.raises(ValueError, match=r"parameters \['object_id'\] are not given"):
            await direct.execute(tx.conn, BY_ID, {})
        # A column's Python-side default is SQLAlchemy's to fill in (refused before anything is sent).
        with pytest.raises(ValueError, match="defaults"):
            await direct.execute(tx.conn, insert(WITH_DEFAULT), {"id": "one"})


# -- PostgreSQL: statements through libpq (direct._run_prepared) --------------------------------

PREPARED = text("SELECT name FROM pg_prepared_statements WHERE name LIKE 'osac%' ORDER BY name")
#: A statement of an integer parameter, whose type psycopg picks by the value (int2 up to 32,767, then int4).
AT_LEAST = select(TABLE.c.id).where(TABLE.c.version >= bindparam("least"))


async def _prepared(conn: AsyncConnection) -> list[str]:
    return [row[0] for row in (await conn.execute(PREPARED)).all()]


async def test_a_statement_is_prepared_on_its_sixth_run_on_a_connection(pg_store: Store) -> None:
    async with pg_store.write() as tx:
        await direct.execute(tx.conn, statements.insert_object(VN.name), _row())
    async with pg_store.engines.statements.connect() as conn:
        answers = []
        for run in range(1, 8):
            answers.append((await direct.execute(conn, BY_ID, {"object_id": "vn-1"})).first())
            assert await _prepared(conn) == ([] if run < 6 else ["osac_0"]), run
        assert all(answer == answers[0] for answer in answers) and answers[0][3] == DOCUMENT
        # the same SQL with values of another type is another statement of the server's
        for _ in range(6):
            assert (await direct.execute(conn, AT_LEAST, {"least": 3})).all() == [("vn-1",)]
            assert (await direct.execute(conn, AT_LEAST, {"least": 40_000})).all() == []
        assert await _prepared(conn) == ["osac_0", "osac_1", "osac_2"]


async def test_a_failed_statement_is_sqlalchemy_s_error_and_the_connection_serves_on(pg_store: Store) -> None:
    divide = select(literal(1, Integer).op("/", return_type=Integer)(bindparam("by", type_=Integer)))
    async with pg_store.engines.statements.connect() as conn:
        for _ in range(7):  # unprepared, then prepared
            with pytest.raises(DBAPIError, match="division by zero"):
                await direct.execute(conn, divide, {"by": 0})
            assert (await direct.execute(conn, divide, {"by": 1})).scalar_one() == 1


async def test_a_cancelled_statement_is_cancelled_on_the_server(pg_store: Store) -> None:
    sleep = select(func.pg_sleep(bindparam("seconds", type_=Integer)))
    async with pg_store.engines.statements.connect() as conn:
        running = asyncio.create_task(direct.execute(conn, sleep, {"seconds": 30}))
        await asyncio.sleep(0.3)
        started = time.monotonic()
        running.cancel()
        with pytest.raises(asyncio.CancelledError):
            await running
        assert (await direct.execute(conn, select(literal(1) + bindparam("n", type_=Integer)), {"n": 1})
                ).scalar_one() == 2
        assert time.monotonic() - started < 5  # not the 30 s of the sleep: it was cancelled


async def test_prepared_statements_outlive_a_rollback_and_psycopg_prepares_none_of_its_own(pg_store: Store) -> None:
    async with pg_store.write() as tx:
        await direct.execute(tx.conn, statements.insert_object(VN.name), _row())
    async with pg_store.engines.writer.connect() as conn:
        for _ in range(6):
            await direct.execute(conn, BY_ID, {"object_id": "vn-1"})
        raw = (await conn.get_raw_connection()).driver_connection
        assert raw is not None
        for _ in range(10):  # psycopg's cursor would prepare this one from its sixth run
            await raw.execute("SELECT count(*) FROM virtual_networks")
        await raw.execute("BEGIN")
        await raw.execute("SELECT 1")
        await raw.rollback()  # psycopg follows a rollback with DEALLOCATE ALL where it prepared any
        assert await _prepared(conn) == ["osac_0"]
        assert (await direct.execute(conn, BY_ID, {"object_id": "vn-1"})).first()[3] == DOCUMENT
