"""The connections a store keeps between its transactions (``engine.Shelf``): one in steady use
serves every transaction, none is kept that the pool's other users or a waiting transaction
need, and one that failed or was lost goes back to the pool with every other kept one."""

from __future__ import annotations

import asyncio

import psycopg
import pytest
from sqlalchemy import event, text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine
from sqlalchemy.pool import QueuePool

from osac.store.engine import Shelf
from osac.store.errors import DatabaseUnavailable
from osac.store.objects import Store
from tests.store.conftest import VN, network

pytestmark = pytest.mark.asyncio

def checked_out(engine: AsyncEngine) -> int:
    pool = engine.pool
    assert isinstance(pool, QueuePool)
    return pool.checkedout()


async def test_transactions_one_after_another_run_on_one_kept_connection(store: Store) -> None:
    async with store.write() as tx:
        await tx.insert(VN, network("one"))
    seen = set()
    for snapshot in (False, True, False):
        async with store.read(snapshot=snapshot) as tx:
            assert (await tx.get(VN, "vn-one")) is not None
            seen.add(id(tx.conn.sync_connection))
    assert len(seen) == 1
    # Kept checked out between the transactions, outside any transaction.
    assert checked_out(store.engines.reader) == 1
    async with store.read(snapshot=False) as tx:
        assert not tx.conn.in_transaction()
    if store.dialect == "postgresql":
        writers = set()
        for name in ("two", "three"):
            async with store.write() as tx:
                await tx.insert(VN, network(name))
                writers.add(id(tx.conn.sync_connection))
        assert len(writers) == 1 and checked_out(store.engines.writer) == 1
    else:
        # SQLite's one writer connection is shared with the pool's other users (the simulated
        # provider, the leases): never kept.
        assert checked_out(store.engines.writer) == 0


async def test_a_read_without_a_snapshot_that_sqlalchemy_began_ends_outside_a_transaction(store: Store) -> None:
    async with store.write() as tx:
        await tx.insert(VN, network("one"))
    async with store.read(snapshot=False) as tx:
        assert await tx.count(VN) == 1  # a statement SQLAlchemy runs (and may begin a transaction for)
    async with store.read(snapshot=False) as again:
        assert again.conn is tx.conn
        assert not again.conn.in_transaction()
        assert await again.count(VN) == 1


async def test_a_failed_block_gives_its_connection_back_to_the_pool(store: Store) -> None:
    with pytest.raises(RuntimeError):
        async with store.read(snapshot=False) as tx:
            await tx.revision()
            raise RuntimeError("the block fails")
    assert checked_out(store.engines.reader) == 0
    with pytest.raises(RuntimeError):
        async with store.write() as tx:
            await tx.insert(VN, network("lost"))
            raise RuntimeError("the block fails")
    assert checked_out(store.engines.writer) == 0
    async with store.read() as tx:
        assert await tx.count(VN) == 0


async def test_a_connection_is_kept_only_while_the_pool_can_spare_it(db_url: str) -> None:
    url = make_url(db_url)
    engine = create_async_engine(url, pool_size=2, max_overflow=2, pool_timeout=10)
    shelf = Shelf(engine)
    try:
        first, second, third = [await shelf.take() for _ in range(3)]
        for conn in (first, second, third):
            await shelf.give_back(conn, clean=True)
        # Three out: the first two back to the pool (it holds its size checked out), the last kept.
        assert checked_out(engine) == 1
        assert await shelf.take() is third
        await shelf.give_back(third, clean=False)  # its transaction failed: back to the pool
        assert checked_out(engine) == 0
        kept = await shelf.take()
        await shelf.give_back(kept, clean=True)
        await shelf.empty()
        assert checked_out(engine) == 0
    finally:
        await shelf.empty()
        await engine.dispose()


async def test_transactions_beyond_the_share_wait_their_turn_for_a_kept_connection(db_url: str) -> None:
    """A pool of four without overflow (PostgreSQL's kind) and a share of two: a third
    transaction waits, though the pool has connections free, and gets the connection the first
    gives back, kept (no checkout); the other users of the pool always find two free."""
    engine = create_async_engine(make_url(db_url), pool_size=4, max_overflow=0, pool_timeout=10)
    shelf = Shelf(engine, share=2)
    try:
        first, second = await shelf.take(), await shelf.take()
        waiting = asyncio.create_task(shelf.take())
        await asyncio.sleep(0.05)
        assert not waiting.done() and checked_out(engine) == 2
        await shelf.give_back(first, clean=True)
        async with asyncio.timeout(2):
            assert await waiting is first
        assert checked_out(engine) == 2 and shelf.kept == 0
        others = [await engine.connect() for _ in range(2)]  # the leases' and the simulator's
        for conn in others:
            await conn.close()
        for conn in (first, second):
            await shelf.give_back(conn, clean=True)
        assert shelf.kept == 2 and checked_out(engine) == 2  # both kept: no more than the share out
        again = await shelf.take()
        await shelf.give_back(again, clean=False)  # its transaction failed: back to the pool
        assert shelf.kept == 1 and checked_out(engine) == 1
    finally:
        await shelf.empty()
        await engine.dispose()


async def test_a_turn_not_come_in_the_pool_s_timeout_is_a_pool_timeout(db_url: str) -> None:
    """Like a pool without a connection free: the error the store answers UNAVAILABLE for; a
    turn given up leaves the share whole."""
    from sqlalchemy.exc import TimeoutError as PoolTimeout

    engine = create_async_engine(make_url(db_url), pool_size=2, max_overflow=0, pool_timeout=0.2)
    shelf = Shelf(engine, share=1)
    try:
        held = await shelf.take()
        with pytest.raises(PoolTimeout, match="no connection of the store's share came free in 0.2 s"):
            await shelf.take()
        cancelled = asyncio.create_task(shelf.take())
        await asyncio.sleep(0.05)
        cancelled.cancel()
        await shelf.give_back(held, clean=True)
        async with asyncio.timeout(2):
            assert await shelf.take() is held
        await shelf.give_back(held, clean=True)
    finally:
        await shelf.empty()
        await engine.dispose()


async def test_a_share_beyond_the_pool_is_refused(db_url: str) -> None:
    engine = create_async_engine(make_url(db_url), pool_size=2, max_overflow=0)
    with pytest.raises(ValueError, match="share must be from 1 to the pool's size, got 3"):
        Shelf(engine, share=3)
    await engine.dispose()


async def test_a_transaction_waiting_for_the_pool_gets_the_connection_given_back(db_url: str) -> None:
    engine = create_async_engine(make_url(db_url), pool_size=2, max_overflow=0, pool_timeout=10)
    shelf = Shelf(engine)
    try:
        first, second = await shelf.take(), await shelf.take()
        waiting = asyncio.create_task(shelf.take())
        await asyncio.sleep(0.05)
        assert not waiting.done()  # the pool is out of connections
        await shelf.give_back(first, clean=True)  # kept, were nobody waiting: the pool could spare it
        async with asyncio.timeout(2):
            third = await waiting
        assert checked_out(engine) == 2
        for conn in (second, third):
            await shelf.give_back(conn, clean=True)
    finally:
        await shelf.empty()
        await engine.dispose()


async def test_a_lost_connection_sends_every_kept_one_back_and_the_next_read_succeeds(
    pg_store: Store, pg_database: str
) -> None:
    """PostgreSQL ends the backends (as a restart does): the read on the lost connection is
    UNAVAILABLE; no connection of before is used again."""
    store = pg_store
    shelf = store.engines.kept_readers
    held = [await shelf.take() for _ in range(3)]
    pids = [(await conn.execute(text("SELECT pg_backend_pid()"))).scalar_one() for conn in held]
    for conn in held:
        await conn.rollback()  # what SQLAlchemy began for the statement
        await shelf.give_back(conn, clean=True)
    assert checked_out(store.engines.reader) == 3
    dsn = make_url(pg_database).set(drivername="postgresql").render_as_string(hide_password=False)
    async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as admin:
        for pid in pids:
            await admin.execute("SELECT pg_terminate_backend(%s)", [pid])
    with pytest.raises(DatabaseUnavailable):
        async with store.read(snapshot=False) as tx:
            await tx.revision()
    assert checked_out(store.engines.reader) == 0
    async with store.read(snapshot=False) as tx:
        assert await tx.revision() == 0
        assert (await tx.conn.execute(text("SELECT pg_backend_pid()"))).scalar_one() not in pids


async def test_a_snapshot_whose_connection_is_lost_before_its_commit_is_unavailable(
    pg_store: Store, pg_database: str
) -> None:
    """The snapshot's COMMIT is psycopg's, past SQLAlchemy's transaction: its failure is still
    raised as SQLAlchemy's (the lost connection invalidated), so the read is UNAVAILABLE, and the
    connection is not kept."""
    store = pg_store
    async with store.write() as tx:
        await tx.insert(VN, network("one"))
    dsn = make_url(pg_database).set(drivername="postgresql").render_as_string(hide_password=False)
    with pytest.raises(DatabaseUnavailable):
        async with store.read() as tx:
            assert await tx.get(VN, "vn-one") is not None  # the BEGIN went with it
            pid = (await tx.conn.get_raw_connection()).driver_connection.info.backend_pid  # type: ignore[union-attr]
            async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as admin:
                await admin.execute("SELECT pg_terminate_backend(%s)", [pid])
    assert store.engines.kept_readers.kept == 0 and checked_out(store.engines.reader) == 0
    async with store.read() as tx:
        assert await tx.get(VN, "vn-one") is not None


async def test_more_concurrent_transactions_than_the_shelf_keeps_open_no_connection_twice(pg_store: Store) -> None:
    """Sixteen reads and sixteen writes at once, round after round: the connections opened for
    the first round serve every later one (a pool with overflow closed those beyond its size at
    their checkin, and the next round started PostgreSQL backends for them again)."""
    store = pg_store
    opened = []
    for engine in (store.engines.reader, store.engines.writer):
        event.listen(engine.sync_engine, "connect", lambda *_: opened.append(1))

    async def read() -> int:
        async with store.read(snapshot=False) as tx:
            return (await tx.conn.execute(text("SELECT pg_backend_pid() FROM pg_sleep(0.05)"))).scalar_one()

    async def write(index: int, round_: int) -> None:
        async with store.write() as tx:
            await tx.insert(VN, network(f"{round_}-{index}"))
            await tx.conn.execute(text("SELECT pg_sleep(0.05)"))

    backends: set[int] = set()
    for round_ in range(4):
        backends.update(await asyncio.gather(*(read() for _ in range(16))))
        await asyncio.gather(*(write(index, round_) for index in range(16)))
        if round_ == 0:
            first = len(opened)
    assert first >= 16 and len(opened) == first, (first, len(opened))
    assert len(backends) <= 20
