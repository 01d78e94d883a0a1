"""The embedded database's driver path: one trip to the SQLite thread per statement.

SQLite is synchronous, so each connection lives in a worker thread of its own (aiosqlite) and
the event loop hands it work through a queue. SQLAlchemy's adapter makes four trips per
statement: open a cursor, execute, fetch the rows, close the cursor. Each trip is a hand-off to
the thread and a wake-up of the event loop, and together they were about a third of the server's
CPU under load (docs/benchmarks.md). Here a statement is one trip: a function run in the thread
opens a cursor, executes, reads every row and closes the cursor, and the event loop gets the
description, rows, row count and last row id back at once. Rows are buffered as before (the
adapter never streamed them either).
"""

from __future__ import annotations

import sqlite3
from collections import deque
from collections.abc import Sequence
from typing import Any

import aiosqlite
from sqlalchemy.dialects.sqlite.aiosqlite import (
    AsyncAdapt_aiosqlite_connection,
    AsyncAdapt_aiosqlite_cursor,
    AsyncAdapt_aiosqlite_dbapi,
)
from sqlalchemy.util.concurrency import await_

Description = Sequence[tuple[Any, ...]] | None
Outcome = tuple[Description, list[Any], int, int | None]


def _execute(connection: sqlite3.Connection, operation: str, parameters: Any) -> Outcome:
    """One statement, run in the connection's thread."""
    cursor = connection.cursor()
    try:
        if parameters is None:
            cursor.execute(operation)
        else:
            cursor.execute(operation, parameters)
        description = cursor.description
        rows = cursor.fetchall() if description else []
        return description, rows, cursor.rowcount, cursor.lastrowid
    finally:
        cursor.close()


def _execute_many(connection: sqlite3.Connection, operation: str, parameters: Any) -> Outcome:
    """One statement for each set of parameters, run in the connection's thread."""
    cursor = connection.cursor()
    try:
        cursor.executemany(operation, parameters)
        return None, [], cursor.rowcount, cursor.lastrowid
    finally:
        cursor.close()


class OneTripCursor(AsyncAdapt_aiosqlite_cursor):
    """A buffered cursor whose statements are one trip each; it holds no SQLite cursor."""

    __slots__ = ("_description", "_rowcount", "_lastrowid", "_arraysize")

    def __init__(self, adapt_connection: OneTripConnection) -> None:
        self._adapt_connection = adapt_connection
        self._connection = adapt_connection._connection
        self._cursor = None  # type: ignore[assignment]
        self._rows = deque()
        self._description: Description = None
        self._rowcount = -1
        self._lastrowid: int | None = None
        self._arraysize = 1

    @property
    def description(self) -> Description:  # type: ignore[override]
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
            await_(self._run(_execute, operation, parameters))
        except Exception as error:
            self._adapt_connection._handle_exception(error)

    def executemany(self, operation: Any, seq_of_parameters: Any) -> None:
        try:
            await_(self._run(_execute_many, operation, seq_of_parameters))
        except Exception as error:
            self._adapt_connection._handle_exception(error)

    async def _run(self, function: Any, operation: Any, parameters: Any) -> None:
        connection: aiosqlite.Connection = self._connection  # type: ignore[assignment]
        async with self._adapt_connection._execute_mutex:
            outcome: Outcome = await connection._execute(function, connection._conn, operation, parameters)
        self._description, rows, self._rowcount, self._lastrowid = outcome
        self._rows = deque(rows)

    def setinputsizes(self, *inputsizes: Any) -> None:
        """SQLite takes no input sizes."""


class OneTripConnection(AsyncAdapt_aiosqlite_connection):
    __slots__ = ()
    _cursor_cls = OneTripCursor  # type: ignore[assignment]

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
