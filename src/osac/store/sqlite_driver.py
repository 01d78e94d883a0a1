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
"""

from __future__ import annotations

import sqlite3
from collections import deque
from collections.abc import Callable, Sequence
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
#: description, rows, row count, last row id, whether a transaction is open
Outcome = tuple[Description, list[Any], int, int | None, bool]


def _execute(connection: sqlite3.Connection, begin: str | None, operation: str, parameters: Any,
             many: bool = False) -> Outcome:
    """One statement (after ``begin``, when the transaction starts with it; for each set of
    ``parameters`` when ``many``), run in the connection's thread."""
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
        return description, rows, cursor.rowcount, cursor.lastrowid, connection.in_transaction
    finally:
        cursor.close()


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
        try:
            await_(self._run(operation, parameters, many=False))
        except Exception as error:
            self._adapt_connection._handle_exception(error)

    def executemany(self, operation: Any, seq_of_parameters: Any) -> None:
        try:
            await_(self._run(operation, seq_of_parameters, many=True))
        except Exception as error:
            self._adapt_connection._handle_exception(error)

    async def _run(self, operation: Any, parameters: Any, *, many: bool) -> None:
        connection, adapted = self._sqlite, self._one_trip
        async with adapted._execute_mutex:
            begin, adapted.pending_begin = adapted.pending_begin, None
            adapted.in_transaction = True  # until SQLite says otherwise (a failed statement does not)
            outcome: Outcome = await connection._execute(_execute, connection._conn, begin, operation, parameters, many)
        self._description, rows, self._rowcount, self._lastrowid, adapted.in_transaction = outcome
        self._rows = deque(rows)

    def setinputsizes(self, *inputsizes: Any) -> None:
        """SQLite takes no input sizes."""


class OneTripConnection(AsyncAdapt_aiosqlite_connection):
    __slots__ = ("pending_begin", "in_transaction")
    _cursor_cls = OneTripCursor  # type: ignore[assignment]

    def __init__(self, dbapi: Any, connection: AsyncIODBAPIConnection) -> None:
        super().__init__(dbapi, connection)
        #: The ``BEGIN`` statement of a transaction that has run no statement yet.
        self.pending_begin: str | None = None
        #: Whether SQLite had a transaction open after the last trip (True when unknown).
        self.in_transaction = True

    def begin(self, statement: str) -> None:
        """Start a transaction with ``statement`` (``BEGIN`` or ``BEGIN IMMEDIATE``), sent with
        the transaction's first statement. Until then no transaction is open in SQLite."""
        self.pending_begin = statement

    def commit(self) -> None:
        self._end(super().commit)

    def rollback(self) -> None:
        self._end(super().rollback)

    def _end(self, end: Callable[[], None]) -> None:
        """Commit or roll back, with a trip only if SQLite may have a transaction open."""
        self.pending_begin = None
        if self.in_transaction:
            end()
            self.in_transaction = False

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

    def connect(self, *arg: Any, **kw: Any) -> OneTripConnection:
        adapted = super().connect(*arg, **kw)
        return OneTripConnection(self, adapted._connection)
