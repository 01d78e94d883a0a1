"""A write PostgreSQL aborts to break a deadlock surfaces as ``WriteContention`` (nothing written,
safe to redo), which reconcilers retry and the API answers with ABORTED."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import grpc
import pytest
from sqlalchemy import insert, select, update

from osac.clock import FakeClock
from osac.services.core.errors import Aborted, NotFound, api_error
from osac.store import schema
from osac.store.engine import create_engines
from osac.store.errors import Conflict, WriteContention
from osac.store.objects import Store

COUNTER = schema.revision_counter


async def test_a_deadlock_between_two_writers_aborts_one_with_write_contention(new_pg_database: str) -> None:
    engines = create_engines(new_pg_database)
    store = Store(engines, FakeClock(datetime(2026, 1, 1, tzinfo=UTC)))
    try:
        async with store.write() as tx:
            await tx.conn.execute(insert(COUNTER).values(id=2, value=0, pruned_through=0))
        locked = [asyncio.Event(), asyncio.Event()]

        async def writer(first: int, second: int, mine: asyncio.Event, theirs: asyncio.Event) -> str:
            try:
                async with store.write() as tx:
                    await tx.conn.execute(update(COUNTER).where(COUNTER.c.id == first).values(value=first))
                    mine.set()
                    await theirs.wait()
                    await tx.conn.execute(update(COUNTER).where(COUNTER.c.id == second).values(value=first))
            except WriteContention as error:
                assert "deadlock detected" in str(error)
                return "aborted"
            return "committed"

        outcomes = await asyncio.wait_for(asyncio.gather(
            writer(1, 2, locked[0], locked[1]), writer(2, 1, locked[1], locked[0])), timeout=30)
        assert sorted(outcomes) == ["aborted", "committed"]
        winner = 1 if outcomes[0] == "committed" else 2
        async with store.read() as tx:
            values = dict((await tx.conn.execute(select(COUNTER.c.id, COUNTER.c.value))).all())
        assert values == {1: winner, 2: winner}  # the aborted writer changed nothing
    finally:
        await engines.dispose()


@pytest.mark.parametrize(("error", "code", "message"), [
    (WriteContention("the database aborted the write to resolve contention: deadlock detected"),
     grpc.StatusCode.ABORTED,
     "the database aborted the write to resolve contention: deadlock detected; nothing was changed, retry the request"),
    (NotFound("compute instance 'web' not found"), grpc.StatusCode.NOT_FOUND, "compute instance 'web' not found"),
])
def test_store_and_service_errors_have_their_api_codes(error: Exception, code: grpc.StatusCode, message: str) -> None:
    known = api_error(error)
    assert known is not None and (known.code, known.message) == (code, message)
    assert api_error(WriteContention("x")).__class__ is Aborted  # type: ignore[union-attr]


def test_an_unexpected_exception_has_no_api_code() -> None:
    assert api_error(RuntimeError("bug")) is None
    assert api_error(Conflict("Cluster", "'prod'", 3, 2)) is None  # the services map conflicts themselves
