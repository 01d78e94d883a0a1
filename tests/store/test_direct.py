"""The direct path of prebuilt statements (``store/direct.py``): it binds and reads back what
SQLAlchemy's own execution does (JSON documents, timestamps, RETURNING, literals of the
statement, named rows), raises SQLAlchemy's errors, announces each statement to
``before_cursor_execute`` and refuses, when first compiled, a statement it would run differently."""

from __future__ import annotations

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
    insert,
    literal,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError

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
