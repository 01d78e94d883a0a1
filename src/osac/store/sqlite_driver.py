"""The embedded database's driver path: one trip to the SQLite thread per statement.

SQLite is synchronous, so each connection lives in a worker thread of its own (aiosqlite) and
the event loop hands it work through a queue. SQLAlchemy's adapter makes four trips per
statement: open a cursor, execute, fetch the rows, close the cursor. Each trip is a hand-off to
the thread and a wake-up of the event loop, and together they were about a third of the server's
CPU under load (docs/benchmarks.md). Here a statement is one trip: a function run in the thread
opens a cursor, executes, reads every row and closes the cursor, and the event loop gets the
description, rows, row count and last row id back at once. Rows are buffered as before (the
adapter never streamed them either).

A transaction's ``BEGIN`` rides on its first statement's trip too (``OneTripConnection.begin``);
each trip also brings back whether SQLite has a transaction open, so a commit or rollback with
none open (a transaction that ran no statement, the pool's rollback of a connection whose
transaction was committed) makes no trip.

A statement that SQLite answers quickly makes no trip at all: it runs on the event loop, as a
plain call. The hand-off to the thread (a queue, a wake-up of the thread, a wake-up of the event
loop, each thread taking the interpreter lock from the other) costs far more than a point read or
write, and was the largest single cost of the server on SQLite under load. Each statement text
keeps a moving average of the CPU time SQLite spent on it (``StatementTimes``); a text not seen
yet, or whose average is above ``INLINE_BELOW_S``, goes to the thread, where a long statement
(a List scanning many rows, a count) leaves the event loop free. So does a commit that once took
long (one that ran a WAL checkpoint costs milliseconds, most commits microseconds).

Waiting for a lock must never hold the event loop: on the event loop a connection's busy timeout
is 0, so a statement that meets another process's lock (the only writer of this process is the
writer engine's one connection, and WAL readers do not wait for it) fails at once with
``SQLITE_BUSY`` having done nothing, and is sent to the thread, where it waits for the lock with
the busy timeout as before.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections import deque
from collections.abc import Coroutine, Sequence
from typing import Any

import aiosqlite
from sqlalchemy.connectors.asyncio import AsyncIODBAPIConnection
from sqlalchemy.dialects.sqlite.aiosqlite import (
    AsyncAdapt_aiosqlite_connection,
    AsyncAdapt_aiosqlite_cursor,
    AsyncAdapt_aiosqlite_dbapi,
)
from sqlalchemy.util.concurrency import await_

Description = Sequence[tuple[Any, ...]] | None
#: description, rows, row count, last row id, whether a transaction is open, CPU seconds spent
Outcome = tuple[Description, list[Any], int, int | None, bool, float]

#: How long a statement in the connection's thread waits for another connection's lock.
SQLITE_BUSY_TIMEOUT_MS = 30_000
#: A statement (or commit) whose runs cost SQLite at most this much CPU on average runs on the
#: event loop; a longer one in the connection's thread.
INLINE_BELOW_S = 0.001
#: Statements on the event loop give the other tasks a turn (a trip through the event loop)
#: once they have held it this long in a row: a transaction of many quick statements does not
#: hold the event loop for its whole length.
YIELD_AFTER_S = 0.005
#: ``SQLITE_BUSY`` (the primary code of the extended ``SQLITE_BUSY_*`` codes).
SQLITE_BUSY = 5
COMMIT, ROLLBACK = "COMMIT", "ROLLBACK"


def _execute(connection: sqlite3.Connection, begin: str | None, operation: str, parameters: Any,
             many: bool = False) -> Outcome:
    """One statement (after ``begin``, when the transaction starts with it; for each set of
    ``parameters`` when ``many``), in the connection's thread or on the event loop."""
    started = time.thread_time()
    cursor = connection.cursor()
    try:
        if begin is not None:
            cursor.execute(begin)
        if many:
            cursor.executemany(operation, parameters)
        elif parameters is None:
            cursor.execute(operation)
        else:
            cursor.execute(operation, parameters)
        description = cursor.description
        rows = cursor.fetchall() if description else []
        return (description, rows, cursor.rowcount, cursor.lastrowid, connection.in_transaction,
                time.thread_time() - started)
    finally:
        cursor.close()


def _end(connection: sqlite3.Connection, operation: str) -> float:
    """Commit or roll back; the CPU seconds it took."""
    started = time.thread_time()
    if operation == COMMIT:
        connection.commit()
    else:
        connection.rollback()
    return time.thread_time() - started


async def _passed() -> None:
    """Awaited after a statement run on the event loop: SQLAlchemy's asyncio layer refuses an
    ``execute`` during which nothing was awaited (it takes that for a synchronous driver), and
    awaiting this costs a greenlet switch, not a trip through the event loop."""


async def _turn() -> None:
    """Awaited after statements on the event loop have held it ``YIELD_AFTER_S``: the other
    tasks' turn."""
    await asyncio.sleep(0)


def _busy(error: sqlite3.OperationalError) -> bool:
    return (getattr(error, "sqlite_errorcode", 0) & 0xFF) == SQLITE_BUSY


class StatementTimes:
    """The CPU time SQLite has spent on each statement text, as a moving average (a fifth of the
    newest run), shared by the connections of a process. Statement texts are the application's
    own (parameters are bound), so there are a few hundred; past ``limit`` the table starts over."""

    def __init__(self, limit: int = 4096) -> None:
        self._seconds: dict[str, float] = {}
        self._limit = limit

    def quick(self, operation: str) -> bool:
        """Whether ``operation`` has been seen and is cheap enough for the event loop."""
        seconds = self._seconds.get(operation)
        return seconds is not None and seconds <= INLINE_BELOW_S

    def record(self, operation: str, seconds: float) -> None:
        known = self._seconds.get(operation)
        if known is None:
            if len(self._seconds) >= self._limit:
                self._seconds.clear()
            self._seconds[operation] = seconds
        else:
            self._seconds[operation] = known + (seconds - known) * 0.2


def _aiosqlite_connection(adapted: AsyncAdapt_aiosqlite_connection) -> aiosqlite.Connection:
    connection = adapted._connection
    if not isinstance(connection, aiosqlite.Connection):
        raise TypeError(f"expected an aiosqlite connection, got {type(connection).__name__}")
    return connection


class OneTripCursor(AsyncAdapt_aiosqlite_cursor):
    """A buffered cursor whose statements are one trip each; it holds no SQLite cursor."""

    __slots__ = ("_description", "_rowcount", "_lastrowid", "_arraysize", "_one_trip", "_sqlite")

    def __init__(self, adapt_connection: OneTripConnection) -> None:
        self._adapt_connection = adapt_connection
        self._connection = adapt_connection._connection
        #: The same two objects as their own classes (the base class types them as protocols).
        self._one_trip = adapt_connection
        self._sqlite = _aiosqlite_connection(adapt_connection)
        self._cursor = None  # type: ignore[assignment]
        self._rows = deque()
        self._description: Description = None
        self._rowcount = -1
        self._lastrowid: int | None = None
        self._arraysize = 1

    @property
    def description(self) -> Description:
        return self._description

    @property
    def rowcount(self) -> int:
        return self._rowcount

    @property
    def lastrowid(self) -> int | None:  # type: ignore[override]
        return self._lastrowid

    @property
    def arraysize(self) -> int:
        return self._arraysize

    @arraysize.setter
    def arraysize(self, value: int) -> None:
        self._arraysize = value

    async def _async_soft_close(self) -> None:
        """Nothing to close: the statement's SQLite cursor was closed in the thread."""

    def close(self) -> None:
        self._rows.clear()

    def execute(self, operation: Any, parameters: Any = None) -> None:
        self._run(operation, parameters, many=False)

    def executemany(self, operation: Any, seq_of_parameters: Any) -> None:
        self._run(operation, seq_of_parameters, many=True)

    def _run(self, operation: Any, parameters: Any, *, many: bool) -> None:
        self._description, rows, self._rowcount, self._lastrowid, *_ = await_(
            self._one_trip.run(operation, parameters, many))
        self._rows = deque(rows)

    def setinputsizes(self, *inputsizes: Any) -> None:
        """SQLite takes no input sizes."""


class OneTripConnection(AsyncAdapt_aiosqlite_connection):
    __slots__ = ("pending_begin", "in_transaction", "times", "_waits", "_sqlite", "_held_since")
    _cursor_cls = OneTripCursor  # type: ignore[assignment]

    def __init__(self, dbapi: Any, connection: AsyncIODBAPIConnection, times: StatementTimes) -> None:
        super().__init__(dbapi, connection)
        #: The ``BEGIN`` statement of a transaction that has run no statement yet.
        self.pending_begin: str | None = None
        #: Whether SQLite had a transaction open after the last statement (True when unknown).
        self.in_transaction = True
        self.times = times
        #: Whether the connection's busy timeout is set (None: as the connection was opened).
        self._waits: bool | None = None
        self._sqlite = _aiosqlite_connection(self)
        #: When this connection's statements began holding the event loop (None: not since the
        #: current transaction began or the event loop last had a turn).
        self._held_since: float | None = None

    def after_here(self) -> Coroutine[Any, Any, None]:
        """What to await after a statement on the event loop: nothing much, or a turn for the
        other tasks once this transaction's statements have held the event loop ``YIELD_AFTER_S``
        since it began or since their last turn."""
        now = time.perf_counter()
        if self._held_since is None:
            self._held_since = now
        elif now - self._held_since >= YIELD_AFTER_S:
            self._held_since = None
            return _turn()
        return _passed()

    def had_turn(self) -> None:
        """The event loop had a turn for the others (a trip to the thread), or a transaction
        begins."""
        self._held_since = None

    def wait_for_locks(self, waits: bool) -> None:
        """Set the busy timeout: ``SQLITE_BUSY_TIMEOUT_MS`` in the thread, 0 on the event loop.
        Called with no trip under way (the caller holds the connection)."""
        if self._waits is not waits:
            self._sqlite._conn.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS if waits else 0}")
            self._waits = waits

    def _here(self, operation: str) -> bool:
        """Whether ``operation`` runs on the event loop: known to be quick, and no trip under way."""
        return self.times.quick(operation) and not self._execute_mutex.locked()

    async def run(self, operation: str, parameters: Any, many: bool = False) -> Outcome:
        """Run one statement, on the event loop when it is known to be quick, else with a trip
        to the connection's thread; a driver error is raised as the DB-API's (SQLAlchemy's
        cursor and the store's direct path, ``store/direct.py``, both come here)."""
        try:
            outcome = self.run_here(operation, parameters, many)
            if outcome is None:
                outcome = await self._trip(operation, parameters, many)
            else:
                await self.after_here()
        except Exception as error:
            self._handle_exception(error)
        self.in_transaction = outcome[4]
        self.times.record(operation, outcome[5])
        return outcome

    async def _trip(self, operation: str, parameters: Any, many: bool) -> Outcome:
        connection = self._sqlite
        async with self._execute_mutex:
            self.wait_for_locks(True)
            self.had_turn()
            begin, self.pending_begin = self.pending_begin, None
            self.in_transaction = True  # until SQLite says otherwise (a failed statement does not)
            return await connection._execute(_execute, connection._conn, begin, operation, parameters, many)

    def run_here(self, operation: str, parameters: Any, many: bool) -> Outcome | None:
        """Run a quick statement on the event loop; None when it goes to the thread instead (not
        known to be quick, or it met a lock and did nothing)."""
        if not self._here(operation):
            return None
        connection = self._sqlite._conn
        self.wait_for_locks(False)
        begin, self.pending_begin = self.pending_begin, None
        self.in_transaction = True
        try:
            return _execute(connection, begin, operation, parameters, many)
        except sqlite3.OperationalError as error:
            if not _busy(error):
                raise
            if begin is not None and not connection.in_transaction:
                self.pending_begin = begin  # the BEGIN itself met the lock: the thread sends it
            return None

    def begin(self, statement: str) -> None:
        """Start a transaction with ``statement`` (``BEGIN`` or ``BEGIN IMMEDIATE``), sent with
        the transaction's first statement. Until then no transaction is open in SQLite."""
        self.pending_begin = statement
        self.had_turn()

    def commit(self) -> None:
        self._end(COMMIT)

    def rollback(self) -> None:
        self._end(ROLLBACK)

    def _end(self, operation: str) -> None:
        """Commit or roll back, only if SQLite may have a transaction open: on the event loop
        when that has been quick, else (or when it meets a lock) with a trip."""
        self.pending_begin = None
        if not self.in_transaction:
            return
        try:
            seconds = self._end_here(operation)
            if seconds is None:
                seconds = await_(self._end_trip(operation))
        except Exception as error:
            self._handle_exception(error)
        self.times.record(operation, seconds)
        self.in_transaction = False

    def _end_here(self, operation: str) -> float | None:
        if not self._here(operation):
            return None
        self.wait_for_locks(False)
        try:
            return _end(self._sqlite._conn, operation)
        except sqlite3.OperationalError as error:
            if not _busy(error):
                raise
            return None

    async def _end_trip(self, operation: str) -> float:
        async with self._execute_mutex:
            self.wait_for_locks(True)
            seconds: float = await self._sqlite._execute(_end, self._sqlite._conn, operation)
            return seconds

    def terminate(self) -> None:
        """Terminate a connection (one invalidated while its task was being cancelled) by
        stopping its thread, which closes the SQLite handle there.

        The library's default first tries a graceful close in a shielded task and, when the
        cancellation arrives, also stops the thread; the shielded close then waits for a thread
        that is gone, and cancelling it at shutdown makes it wait again: the event loop never
        finishes closing. Stopping the thread alone is the whole close for SQLite.
        """
        self._terminate_force_close()


class OneTripDBAPI(AsyncAdapt_aiosqlite_dbapi):
    """The DB-API module handed to SQLAlchemy (``create_async_engine(module=...)``)."""

    def __init__(self) -> None:
        super().__init__(aiosqlite, sqlite3)
        self.times = StatementTimes()

    def connect(self, *arg: Any, **kw: Any) -> OneTripConnection:
        adapted = super().connect(*arg, **kw)
        return OneTripConnection(self, adapted._connection, self.times)
