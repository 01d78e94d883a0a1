"""Engines for SQLite (embedded default) and PostgreSQL, and schema migration at start-up.

SQLite gets two engines on one file: writers start with ``BEGIN IMMEDIATE`` so that two writers
never deadlock upgrading a read lock, readers use a deferred ``BEGIN`` and run beside the writer
thanks to WAL. PostgreSQL reads run REPEATABLE READ so a List sees one snapshot.

Round trips are what a PostgreSQL transaction costs the server process (each is a wait on the
socket, a wake-up of the event loop and psycopg's bookkeeping), so the engine sends none it does
not need: a pooled connection is pinged only after it has been idle a while
(``IDLE_PING_AFTER``), not at every checkout, and reads that need no snapshot run each
statement on its own (autocommit) instead of between a ``BEGIN`` and a ``ROLLBACK``, on a pool
of their own (``Engines.statements``) whose connections are in autocommit from the start:
setting the isolation level at checkout and resetting it at checkin cost SQLAlchemy more than
the statement (a read of one row: 628 -> 533 µs of CPU, ``bench.statement_cost``).
"""

from __future__ import annotations

import asyncio
import time
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.exc import DisconnectionError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine
from sqlalchemy.pool import NullPool, QueuePool

from osac.store import cost, direct
from osac.store.sqlite_driver import SQLITE_BUSY_TIMEOUT_MS, OneTripDBAPI

#: A pooled PostgreSQL connection idle longer than this is pinged before it is handed out.
IDLE_PING_AFTER = 10.0
#: PostgreSQL pools per process: the writer's and the readers', each of this many connections,
#: opened as they are first needed and then kept open. Both keep their connections in autocommit,
#: so a checkout sets and resets no isolation level, and a transaction's ``BEGIN`` goes with its
#: first statement instead of on its own (the writer's, ``direct.begin_with_first_statement``; a
#: read snapshot's, ``Store.read``). Together at most 50 connections. No overflow: the pool closes
#: an overflow connection at its checkin, so a steady load of more concurrent transactions than
#: the pool's size started and ended a PostgreSQL backend for nearly every one (sixteen clients'
#: gets: 1,567/s with 10 + 15, 3,593/s with 25, docs/benchmarks.md). Sharing 30 over three pools
#: (10 + 5, 3 + 4, 4 + 4) starved the reads: 300 VMs came up in 60 s instead of 47-53 s.
POOL_SIZE = 25
#: Of a PostgreSQL pool's connections, the most the store's own transactions hold at once (in
#: use or kept between transactions, ``Shelf``); the rest are the pool's other users' (the
#: leases, the simulated provider). Transactions beyond it wait their turn for a kept connection,
#: instead of each checking one out of the pool and back in (sixty-four clients' gets 2,492/s
#: through the pool, docs/benchmarks.md).
POOL_SHARE = 20
#: The engines made with autocommit connections (``Engines.statements``).
_AUTOCOMMIT: weakref.WeakSet[Engine] = weakref.WeakSet()


class Shelf:
    """Connections of one engine kept checked out between the store's transactions.

    Checking a connection out of SQLAlchemy's pool and back in costs more than a read by id
    itself: an ``AsyncConnection``, a greenlet switch each way, the pool's events, its reset at
    checkin (a read by id without a snapshot: PostgreSQL 325 -> 147 µs of CPU, SQLite 149 -> 25
    µs with connections kept, ``bench.statement_cost``). So a transaction that ended cleanly leaves its
    connection here, and the next one takes the newest kept (the few in steady use stay warm).

    With a ``share``, at most that many of the store's transactions hold a connection at once;
    the others wait their turn (in order) and then take one kept, so a load of more concurrent
    transactions than the share costs no checkout or checkin each.

    The pool's own rules still hold:

    - a connection is kept only while the pool holds no more than ``share`` checked out (without
      a share: fewer than its ``size``), this one included, so whoever else checks out of the same
      engine (the leases, the simulated provider) always finds the rest of the pool free, and a
      transaction of the store's own that is waiting for the pool meanwhile gets this connection
      (it goes back to the pool);
    - one that failed, was invalidated, or is in a transaction goes back to the pool (which drops
      or resets it), as it did before;
    - one kept longer than ``IDLE_PING_AFTER`` unused goes back to the pool with the time it was
      kept, so the pool pings it at its next checkout (``_ping_when_idle``);
    - after a lost connection (the database restarted) every kept one goes back too: the pool
      replaces connections older than the loss at their checkout.
    """

    def __init__(self, engine: AsyncEngine, share: int | None = None) -> None:
        pool = engine.pool
        if share is not None and not (isinstance(pool, QueuePool) and 0 < share <= pool.size()):
            raise ValueError(f"share must be from 1 to the pool's size, got {share}")
        self.engine = engine
        #: One given back is kept while the pool holds fewer than this checked out, it included.
        self._keep_below = 0
        if share is not None:
            self._keep_below = share + 1
        elif isinstance(pool, QueuePool):
            self._keep_below = pool.size()
        #: Turns to hold a connection, one per transaction (none without a share).
        self._turns = asyncio.Semaphore(share) if share is not None else None
        self._idle: list[tuple[AsyncConnection, float]] = []
        #: Transactions of the store's waiting for the pool now.
        self._checking_out = 0

    @property
    def kept(self) -> int:
        """How many connections are kept now (checked out of the pool, in no transaction)."""
        return len(self._idle)

    async def take(self) -> AsyncConnection:
        """The newest connection kept, or one checked out of the pool (with a share, once it is
        this transaction's turn). Every connection taken must be given back."""
        if self._turns is not None:
            await self._turn()
        try:
            if self._idle and time.monotonic() - self._idle[-1][1] >= IDLE_PING_AFTER:
                await self.empty()  # the newest kept idled that long: so did all the others
            if self._idle:
                return self._idle.pop()[0]
            self._checking_out += 1
            try:
                return await self.engine.connect()
            finally:
                self._checking_out -= 1
        except BaseException:
            if self._turns is not None:
                self._turns.release()
            raise

    async def _turn(self) -> None:
        """Wait for a turn as long as the pool would have for a connection."""
        assert self._turns is not None and isinstance(self.engine.pool, QueuePool)
        seconds = self.engine.pool.timeout()
        try:
            async with asyncio.timeout(seconds):
                await self._turns.acquire()
        except TimeoutError:
            raise PoolTimeout(f"no connection of the store's share came free in {seconds:g} s") from None

    async def give_back(self, conn: AsyncConnection, *, clean: bool) -> None:
        """Keep ``conn`` for the next transaction if its own ended ``clean`` and the pool can
        spare it; else check it in (the pool resets, replaces or drops it)."""
        try:
            pool = self.engine.pool
            if (clean and not self._checking_out and not conn.invalidated and not conn.closed
                    and not conn.in_transaction() and not direct.held_back(conn)
                    and isinstance(pool, QueuePool) and pool.checkedout() < self._keep_below):
                self._idle.append((conn, time.monotonic()))
                return
            if conn.invalidated:
                await self.empty()
            await asyncio.shield(conn.close())
        finally:
            if self._turns is not None:
                self._turns.release()

    async def empty(self) -> None:
        """Check every kept connection back in, each with the time it was kept since."""
        idle, self._idle = self._idle, []
        for conn, kept_since in idle:
            conn.info["kept_since"] = kept_since
            await asyncio.shield(conn.close())


@dataclass(frozen=True)
class Engines:
    """The engines of one database: the writer, the reader, and the one for reads that need no
    snapshot (``statements``). On PostgreSQL the reader is ``statements``, a pool of its own
    whose connections stay in autocommit (each statement runs on its own unless a read snapshot
    begins a transaction, ``Store.read``); on SQLite both are the reader's."""

    url: str
    writer: AsyncEngine
    reader: AsyncEngine
    statements: AsyncEngine
    #: The most connections of each pool the store's transactions hold at once (``Shelf``).
    share: int | None = None
    #: The connections the store keeps between its transactions (``Shelf``): the writer's and
    #: the reader's.
    kept_writers: Shelf = field(init=False, repr=False, compare=False)
    kept_readers: Shelf = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "kept_writers", Shelf(self.writer, self.share))
        object.__setattr__(self, "kept_readers", Shelf(self.reader, self.share))

    @property
    def dialect(self) -> str:
        return self.writer.dialect.name

    async def dispose(self) -> None:
        await self.kept_writers.empty()
        await self.kept_readers.empty()
        await self.writer.dispose()
        if self.reader is not self.writer:
            await self.reader.dispose()
        if self.statements is not self.reader:
            await self.statements.dispose()


def sqlite_url(data_dir: Path) -> str:
    return f"sqlite+aiosqlite:///{data_dir / 'osac.sqlite'}"


def normalize_url(url: str) -> str:
    """Accept the URLs people type (``postgresql://``, ``sqlite:///``) and pick async drivers."""
    parsed = make_url(url)
    if parsed.drivername in ("postgresql", "postgres", "postgresql+psycopg2", "postgresql+asyncpg"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    elif parsed.drivername in ("sqlite", "sqlite+pysqlite"):
        parsed = parsed.set(drivername="sqlite+aiosqlite")
    return parsed.render_as_string(hide_password=False)


def sync_url(url: str) -> str:
    """The synchronous twin of an async URL (migrations run synchronously)."""
    parsed = make_url(normalize_url(url))
    if parsed.drivername == "sqlite+aiosqlite":
        parsed = parsed.set(drivername="sqlite")
    return parsed.render_as_string(hide_password=False)


def create_engines(url: str) -> Engines:
    url = normalize_url(url)
    if make_url(url).drivername.startswith("sqlite"):
        writer = _sqlite_engine(url, immediate=True)
        reader = _sqlite_engine(url, immediate=False)
        cost.install(writer.sync_engine)
        cost.install(reader.sync_engine)
        return Engines(url, writer, reader, reader)
    # psycopg prepares no statement of its own: the store's statements are prepared by the
    # direct path (``direct._run_prepared``), and psycopg would drop them with its own at every
    # rollback (``DEALLOCATE ALL``).
    unprepared = {"prepare_threshold": None}
    pool: dict[str, Any] = {"pool_size": POOL_SIZE, "max_overflow": 0, "isolation_level": "AUTOCOMMIT",
                            "connect_args": unprepared}
    engine = create_async_engine(url, **pool)
    statements = create_async_engine(url, **pool)
    _AUTOCOMMIT.add(statements.sync_engine)
    for each in (engine, statements):
        _ping_when_idle(each)
        cost.install(each.sync_engine)
        direct.install(each.sync_engine)
    direct.begin_with_first_statement(engine.sync_engine)
    return Engines(url, engine, statements, statements, share=POOL_SHARE)


def statement_reader(engine: AsyncEngine) -> AsyncEngine:
    """``engine`` for reads that need no snapshot: on PostgreSQL each statement runs on its own.

    A PostgreSQL read outside ``BEGIN`` (autocommit) sees what is committed when it starts,
    exactly as each statement of a READ COMMITTED transaction does, so a reader that never asked
    for more than that loses nothing and saves the ``BEGIN`` and ``ROLLBACK`` round trips, plus
    the ``DEALLOCATE ALL`` psycopg sends after every rollback (which also drops its prepared
    statements). SQLite's engine is returned unchanged: its transactions cost no round trip
    (store/sqlite_driver.py); so is an engine whose connections are in autocommit already
    (``Engines.statements``), where an isolation level per checkout would only cost.
    """
    if engine.dialect.name != "postgresql" or _is_autocommit(engine):
        return engine
    return engine.execution_options(isolation_level="AUTOCOMMIT")


def _is_autocommit(engine: AsyncEngine) -> bool:
    """Whether ``engine``'s connections run in autocommit from the start (``Engines.statements``)."""
    return engine.sync_engine in _AUTOCOMMIT


def _ping_when_idle(engine: AsyncEngine) -> None:
    """Ping a pooled connection at checkout only when it sat idle longer than ``IDLE_PING_AFTER``.

    ``pool_pre_ping`` pings at every checkout: one round trip per transaction, 16 % of the
    statements of a busy server. A connection in steady use proves itself with every statement,
    and one that breaks while in use (the server restarted) makes SQLAlchemy invalidate the
    whole pool, so the next checkouts connect afresh. The ping is for connections that sat
    in the pool across such an event without noticing; a failed ping raises
    ``DisconnectionError``, which makes the pool connect again (up to three times).
    """
    pool_engine = engine.sync_engine

    @event.listens_for(pool_engine, "checkin")
    def _checkin(_dbapi_connection: Any, record: Any) -> None:
        # Idle since it was last used: a connection the store kept unused a while (``Shelf``)
        # comes back with the time it was kept since.
        record.info["idle_since"] = record.info.pop("kept_since", None) or time.monotonic()

    @event.listens_for(pool_engine, "checkout")
    def _checkout(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        idle_since = record.info.get("idle_since")
        if idle_since is None or time.monotonic() - idle_since < IDLE_PING_AFTER:
            return
        try:
            pool_engine.dialect.do_ping(dbapi_connection)
        except Exception as error:
            raise DisconnectionError(f"pooled connection failed its ping after idling: {error}") from error


def _sqlite_engine(url: str, *, immediate: bool) -> AsyncEngine:
    driver = OneTripDBAPI()
    if ":memory:" in url:
        engine = create_async_engine(url, module=driver, poolclass=NullPool)
    elif immediate:
        # One writer connection: SQLite admits one writer anyway, and queueing in the pool is
        # fair, whereas writers waiting in SQLite's busy handler poll and starve (p99 730 ms ->
        # 120 ms at the same throughput, docs/benchmarks.md).
        engine = create_async_engine(
            url, module=driver, pool_size=1, max_overflow=0, pool_timeout=SQLITE_BUSY_TIMEOUT_MS / 1000
        )
    else:
        engine = create_async_engine(url, module=driver, pool_size=8, max_overflow=8)
    begin = "BEGIN IMMEDIATE" if immediate else "BEGIN"

    @event.listens_for(engine.sync_engine, "connect")
    def _connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    @event.listens_for(engine.sync_engine, "begin")
    def _begin(connection: Any) -> None:
        connection.connection.dbapi_connection.begin(begin)

    return engine


MIGRATIONS = Path(__file__).parent / "migrations"


def alembic_config(url: str, script_location: Path = MIGRATIONS) -> Any:
    """The Alembic configuration of one migration chain against ``url``.

    The service's chain is ``osac/store/migrations``; a provider with tables of its own keeps its
    chain, with its own version table, beside its code and passes its location here.
    """
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(script_location))
    config.set_main_option("sqlalchemy.url", sync_url(url).replace("%", "%%"))
    return config


def upgrade(url: str, script_location: Path = MIGRATIONS) -> None:
    """Bring one migration chain to its newest revision (synchronous; run in a thread)."""
    from alembic import command

    command.upgrade(alembic_config(url, script_location), "head")


def migrate(url: str) -> None:
    """Bring the service's schema to the newest migration (synchronous; run in a thread)."""
    upgrade(url, MIGRATIONS)


async def migrate_async(url: str) -> None:
    await asyncio.to_thread(migrate, url)
