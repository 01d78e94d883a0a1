"""The store's prebuilt statements run on the driver's own connection, past SQLAlchemy's
execution layer.

A statement executed through SQLAlchemy's ``AsyncConnection.execute`` costs about twice its
driver's work in the server process: a greenlet switch there and back, the cache key of the
statement, an execution context, the parameters processed bind by bind, a result object. For a
statement built once (``store/statements.py``) everything but the parameters' values is the
same at every execution, so it is done once here: the statement is compiled once per dialect
and set of parameter names into its SQL text, the order of its positional parameters, its bind
and result processors (the same SQLAlchemy's compiler gives its own execution, so a JSON
document or a timestamp is bound and read back exactly as there), and each execution hands the
text and the processed values to the driver's connection of the transaction, in the event loop
itself: psycopg's ``AsyncConnection`` on PostgreSQL, the one-trip SQLite connection
(``sqlite_driver.py``) on SQLite. Measured on PostgreSQL, a read of one object by id: 301 ->
193 µs of the server's CPU, psycopg alone 191 µs (``bench.statement_cost``, docs/benchmarks.md).
On PostgreSQL a statement sent alone also goes past psycopg's cursor, through libpq with
psycopg's own transformer and wait (``_run_prepared``): 135 -> 105 µs.

What does not change: the pool and the isolation level are SQLAlchemy's (on PostgreSQL the
store's own ``BEGIN`` and ``COMMIT`` go by this path, ``transaction``, outside SQLAlchemy's
transactions, whose bookkeeping cost more CPU than a statement), the statement is announced to
``before_cursor_execute`` listeners as before (the store's cost counters, tests that record statements), and a driver error is handed to
SQLAlchemy's own handling, so it raises the same ``sqlalchemy.exc`` error and a lost connection
is invalidated as if SQLAlchemy had run the statement.

**Writes held back** (``execute_later``, PostgreSQL). A write nobody waits for the answer of,
and that cannot be refused (a row the transaction holds locked at the version it writes over, an
insert under a new id), is not sent on its own: it goes first in the connection's next query,
with the next statement or the ``COMMIT`` (one simple-protocol query of several statements,
their values bound by psycopg's client-side cursor). A VM Create's writes after its last address
reservation travel with its events and its ``COMMIT``, so the subnet's and pool's row locks are
held for 7 round trips instead of 12. A transaction's ``BEGIN`` is held back the same way, ahead
of the rest (a write's: ``begin_with_first_statement``; a read snapshot's: ``begin_later``), so
it costs no round trip of its own.

Only statements built once may come here (they are compiled once and kept by identity), with a
parameter set per execution (``executemany`` stays SQLAlchemy's); a statement that needs what
this path does not do (Python-side column defaults, expanding ``IN`` lists) is refused when it
is first compiled, not run differently.
"""

from __future__ import annotations

import collections
import re
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from functools import cached_property
from typing import Any
from weakref import WeakKeyDictionary, WeakSet

from psycopg import AsyncClientCursor, generators
from psycopg import AsyncConnection as AsyncConnection_
from psycopg import errors as psycopg_errors
from psycopg.adapt import PyFormat, Transformer
from psycopg.pq import ExecStatus, TransactionStatus
from sqlalchemy import event
from sqlalchemy.engine import Connection, Dialect, Engine
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.sql import ClauseElement
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.expression import Executable
from sqlalchemy.util.concurrency import await_only, greenlet_spawn

from osac.store.sqlite_driver import OneTripConnection

Processor = Callable[[Any], Any]
#: ``collections.namedtuple``, called with field names known only at run time.
_named_tuple: Callable[..., Any] = collections.namedtuple


#: A pyformat placeholder (SQLAlchemy names every one) or an escaped ``%``.
_PYFORMAT = re.compile(r"%\(([^)]+)\)s|%%")


@dataclass(frozen=True)
class Compiled:
    """One statement's SQL text for one dialect and set of parameter names, with what binds its
    values and reads its rows."""

    sql: str
    #: The parameter names in the order of the statement's placeholders (qmark: SQLite), or None
    #: for named placeholders (pyformat: psycopg).
    positions: tuple[str, ...] | None
    #: The values bound by the statement itself (literals in its expressions), by name.
    constants: Mapping[str, Any]
    binds: Mapping[str, Processor]
    #: One processor per result column, or None when no column needs one.
    results: tuple[Processor | None, ...] | None
    #: The result columns' names.
    columns: tuple[str, ...]

    def parameters(self, given: Mapping[str, Any]) -> Any:
        values = {**self.constants, **given} if self.constants else dict(given)
        for name, process in self.binds.items():
            if name in values:
                values[name] = process(values[name])
        if self.positions is None:
            return values
        return tuple(values[name] for name in self.positions)

    def rows(self, rows: list[Any], named: bool) -> list[Any]:
        processors = self.results
        if processors is not None:
            rows = [tuple(value if process is None else process(value)
                          for process, value in zip(processors, row, strict=True))
                    for row in rows]
        if named:
            make = self.named_row
            return [make(row) for row in rows]
        return rows

    @cached_property
    def numbered(self) -> tuple[bytes, tuple[str, ...]]:
        """The SQL text with PostgreSQL's own placeholders (``$1``...; pyformat's ``%%`` made
        ``%``), and the parameter names in their order (``_run_prepared``)."""
        order: dict[str, int] = {}

        def number(match: re.Match[str]) -> str:
            name = match.group(1)
            return "%" if name is None else f"${order.setdefault(name, len(order) + 1)}"

        return _PYFORMAT.sub(number, self.sql).encode(), tuple(order)

    @cached_property
    def named_row(self) -> Callable[[Iterable[Any]], tuple[Any, ...]]:
        """A row whose values are also attributes named after their columns (as SQLAlchemy's)."""
        make: Callable[[Iterable[Any]], tuple[Any, ...]] = _named_tuple("Row", self.columns)._make
        return make


class Result:
    """A statement's buffered rows and row count (the parts of SQLAlchemy's result the store reads)."""

    __slots__ = ("_rows", "rowcount")

    def __init__(self, rows: list[Any], rowcount: int) -> None:
        self._rows = rows
        self.rowcount = rowcount

    def all(self) -> list[Any]:
        return self._rows

    def first(self) -> Any | None:
        return self._rows[0] if self._rows else None

    def scalar_one(self) -> Any:
        if len(self._rows) != 1:
            raise LookupError(f"expected one row, got {len(self._rows)}")
        return self._rows[0][0]

    def scalar_one_or_none(self) -> Any | None:
        if len(self._rows) > 1:
            raise LookupError(f"expected at most one row, got {len(self._rows)}")
        return self._rows[0][0] if self._rows else None

    def __iter__(self) -> Any:
        return iter(self._rows)


_COMPILED: dict[tuple[int, str, tuple[str, ...]], tuple[Executable, Compiled]] = {}


def compiled(statement: Executable, dialect: Dialect, names: tuple[str, ...]) -> Compiled:
    """``statement`` compiled for ``dialect`` with values for ``names`` (kept by the statement's
    identity, which the entry holds on to)."""
    key = (id(statement), dialect.name, names)
    entry = _COMPILED.get(key)
    if entry is not None:
        return entry[1]
    done = _compile(statement, dialect, names)
    _COMPILED[key] = (statement, done)
    return done


def _compile(statement: Executable, dialect: Dialect, names: tuple[str, ...]) -> Compiled:
    assert isinstance(statement, ClauseElement)
    compiler = statement.compile(dialect=dialect, column_keys=list(names))
    assert isinstance(compiler, SQLCompiler)
    if compiler.insert_prefetch or compiler.update_prefetch or compiler.post_compile_params \
            or compiler.literal_execute_params:
        raise ValueError(f"not a statement for the direct path (defaults or expanding parameters): {compiler.string}")
    given = set(names)
    constants = {name: bind.effective_value for bind, name in compiler.bind_names.items()
                 if name not in given and not bind.required}
    missing = [name for bind, name in compiler.bind_names.items() if name not in given and bind.required]
    if missing:
        raise ValueError(f"parameters {missing} are not given for: {compiler.string}")
    binds = {name: process for name, process in compiler._bind_processors.items() if callable(process)}
    results: tuple[Processor | None, ...] | None = tuple(
        column.type._cached_result_processor(dialect, None) for column in compiler._result_columns
    )
    if results is not None and not any(results):
        results = None
    positions = tuple(compiler.positiontup) if compiler.positional and compiler.positiontup is not None else None
    columns = tuple(column.keyname for column in compiler._result_columns)
    return Compiled(compiler.string, positions, constants, binds, results, columns)


async def execute(conn: AsyncConnection, statement: Executable, parameters: Mapping[str, Any], *,
                  named: bool = False, then_commit: bool = False) -> Result:
    """Run the prebuilt ``statement`` with ``parameters`` in ``conn``'s transaction; with
    ``named``, each row's values are also its attributes, named after the columns. The writes
    ``execute_later`` holds back for the connection go first, in the same round trip.

    With ``then_commit``, on PostgreSQL, the transaction's ``COMMIT`` goes in the same round trip
    (one query of both statements, its values bound by psycopg's client-side cursor): the locks
    the transaction holds are released when the server has run both, not one turn of a busy
    event loop later (pipeline mode would do the same, but ends with a second round trip of its
    own). The transaction block that began it then finds nothing left to commit. If either
    fails, nothing is committed and the error is raised as SQLAlchemy raises it; the block rolls
    back as usual. Elsewhere (SQLite) the block commits."""
    sync = conn.sync_connection
    if sync is None or sync.invalidated or sync.closed:
        # Let SQLAlchemy reconnect, or refuse, as it does.
        result = await conn.execute(statement, dict(parameters))
        rows = result.all() if result.returns_rows else []
        return Result([row if named else tuple(row) for row in rows], result.rowcount)
    dialect = sync.dialect
    form = compiled(statement, dialect, tuple(parameters))
    values = form.parameters(parameters)
    held_back = _LATER.pop(sync, None)
    if sync._has_events or sync.engine._has_events:
        sync.dispatch.before_cursor_execute(sync, None, form.sql, values, None, False)
    driver = sync.connection.dbapi_connection
    try:
        if isinstance(driver, OneTripConnection):
            description, rows, rowcount, *_ = await driver.run(form.sql, values)
            if not description:
                rows = []
        else:
            psycopg = sync.connection.driver_connection
            assert psycopg is not None
            if then_commit or held_back:
                # One simple-protocol query of the statements (the values bound on this side):
                # the server runs them in order and answers once.
                rows, rowcount = await _send(psycopg, held_back or [], (form.sql, values), then_commit)
            else:
                rows, rowcount = await _run_prepared(psycopg, form, values)
    except BaseException as error:
        await greenlet_spawn(_raise_as_sqlalchemy, sync, error, form.sql, values)
        raise
    return Result(form.rows(rows, named), rowcount)


async def execute_later(conn: AsyncConnection, statement: Executable, parameters: Mapping[str, Any]) -> None:
    """Run the prebuilt write ``statement`` with the connection's next statement or its
    ``COMMIT``, in that round trip (PostgreSQL; elsewhere, and on a connection SQLAlchemy must
    look after, now).

    For a write whose answer nobody waits for and that cannot be refused: a row the transaction
    holds locked at the version it writes over, an insert under a new id. Until then nothing of
    the transaction reads it back by another path than this connection's next statement, which
    carries it: a statement of this module's, or one SQLAlchemy runs (``install``: its
    ``before_cursor_execute`` sends the writes held back first), a ``SAVEPOINT`` or a ``COMMIT``
    included. A rollback drops them. Should one fail after all, the statement that carried it
    raises its error and the transaction rolls back."""
    sync = conn.sync_connection
    if sync is None or sync.invalidated or sync.closed or sync.engine not in _INSTALLED:
        await execute(conn, statement, parameters)
        return
    form = compiled(statement, sync.dialect, tuple(parameters))
    values = form.parameters(parameters)
    held_back = _LATER.pop(sync, [])  # announced below as this statement, not sent
    if sync._has_events or sync.engine._has_events:
        sync.dispatch.before_cursor_execute(sync, None, form.sql, values, None, False)
    held_back.append((form.sql, values))
    _LATER[sync] = held_back


def held_back(conn: AsyncConnection) -> bool:
    """Whether ``conn`` has statements held back for its next query (a ``BEGIN``, writes)."""
    sync = conn.sync_connection
    return sync is not None and bool(_LATER.get(sync))


#: The writes held back for each connection (``execute_later``), in order.
_LATER: WeakKeyDictionary[Connection, list[tuple[str, Any]]] = WeakKeyDictionary()
#: The PostgreSQL engines whose connections send them (``install``).
_INSTALLED: WeakSet[Engine] = WeakSet()


class _Session:
    """What the direct path keeps for one psycopg connection: its transformer (psycopg's
    dumping of values and loading of rows, by the connection's adapters) and, by SQL text and
    parameter types, how often each statement ran unprepared or the name it was prepared under."""

    #: Runs of a statement before it is prepared on the server: psycopg's own default
    #: (``prepare_threshold``), so a statement costs the same round trips as through its cursor.
    PREPARE_AFTER = 5
    #: Statements prepared per connection at most; past it, the rest run unprepared.
    LIMIT = 1000

    __slots__ = ("transformer", "statements", "prepared", "limit")

    def __init__(self, psycopg: AsyncConnection_) -> None:
        self.transformer = Transformer(psycopg)
        self.statements: dict[tuple[bytes, tuple[int, ...] | None], int | bytes] = {}
        self.prepared = 0
        #: None prepared where psycopg prepares statements of its own (its rollbacks would drop them).
        self.limit = self.LIMIT if psycopg.prepare_threshold is None else 0


_SESSIONS: WeakKeyDictionary[AsyncConnection_, _Session] = WeakKeyDictionary()
_AUTO = PyFormat.AUTO


async def _run_prepared(psycopg: AsyncConnection_, form: Compiled, values: Mapping[str, Any]) -> tuple[list[Any], int]:
    """Run ``form`` on ``psycopg``, prepared on the server from its sixth run on the connection
    with these parameter types (the prepare in a round trip of its own, as psycopg's cursor
    does); its rows (tuples) and row count. Only on a connection where psycopg prepares nothing
    itself (``prepare_threshold`` None: the store's engines): psycopg ends every rollback of a
    connection where it prepared statements with ``DEALLOCATE ALL``, which would drop these too.

    What psycopg's cursor does for a statement, without its per-execution machinery (a cursor,
    the query's conversion and the prepared statements' bookkeeping, done once here;
    docs/benchmarks.md, "A load generator in C, and a statement through libpq"): the values are
    dumped and the rows loaded by psycopg's own transformer, and each round trip is psycopg's
    own wait, under the connection's lock, so a cancelled statement is cancelled on the server
    as psycopg does. A failed statement raises psycopg's error."""
    sql, names = form.numbered
    async with psycopg.lock:
        session = _SESSIONS.get(psycopg)
        if session is None:
            session = _SESSIONS[psycopg] = _Session(psycopg)
        transformer = session.transformer
        parameters = transformer.dump_sequence([values[name] for name in names], [_AUTO] * len(names))
        types = transformer.types
        pgconn = psycopg.pgconn
        key = (sql, types)
        seen = session.statements.get(key, 0)
        if seen == _Session.PREPARE_AFTER and session.prepared < session.limit:
            seen = b"osac_%d" % session.prepared
            pgconn.send_prepare(seen, sql, param_types=types)
            _checked(psycopg, await psycopg.wait(generators.execute(pgconn)))
            session.prepared += 1
            session.statements[key] = seen
        if isinstance(seen, bytes):
            pgconn.send_query_prepared(seen, parameters, param_formats=transformer.formats)
        else:
            pgconn.send_query_params(sql, parameters, param_types=types, param_formats=transformer.formats)
            session.statements[key] = seen + 1
        result = _checked(psycopg, await psycopg.wait(generators.execute(pgconn)))
        if result.status != ExecStatus.TUPLES_OK:
            rowcount = result.command_tuples
            return [], -1 if rowcount is None else rowcount
        transformer.set_pgresult(result)
        return transformer.load_rows(0, result.ntuples, tuple), result.ntuples


def _checked(psycopg: AsyncConnection_, results: list[Any]) -> Any:
    """The one result of a statement, or its error raised as psycopg raises it."""
    if len(results) != 1:
        raise psycopg_errors.InternalError(f"expected one result from the statement, got {len(results)}")
    (result,) = results
    if result.status == ExecStatus.FATAL_ERROR:
        raise psycopg_errors.error_from_result(result, encoding=psycopg.info.encoding)
    if result.status not in (ExecStatus.TUPLES_OK, ExecStatus.COMMAND_OK):
        raise psycopg_errors.InternalError(f"unexpected result status {ExecStatus(result.status).name}")
    return result


async def _send(psycopg: AsyncConnection_, held_back: list[tuple[str, Any]], last: tuple[str, Any] | None,
                then_commit: bool) -> tuple[list[Any], int]:
    """``held_back``, then ``last`` and the ``COMMIT`` if asked, as one query; ``last``'s rows
    and row count."""
    async with AsyncClientCursor(psycopg) as cursor:
        parts = [cursor.mogrify(sql, values) for sql, values in held_back]
        if last is not None:
            parts.append(cursor.mogrify(*last))
        if then_commit:
            parts.append("COMMIT")
        await cursor.execute("; ".join(parts))
        for _ in held_back:
            cursor.nextset()
        if last is None:
            return [], -1
        return (await cursor.fetchall() if cursor.description else []), cursor.rowcount


def begin_with_first_statement(engine: Engine) -> None:
    """Let a transaction on ``engine`` (the sync engine of an async PostgreSQL one whose
    connections are in autocommit, ``install``-ed) send its ``BEGIN`` with its first statement
    instead of on its own: SQLAlchemy's ``begin`` holds it back. psycopg ends the transaction
    it then finds open (its ``COMMIT`` and ``ROLLBACK`` look at the server's transaction
    status); one that sent nothing sends nothing. A connection given an isolation level of its
    own is left to psycopg (``AUTOCOMMIT``: no transaction; another: psycopg's own ``BEGIN``)."""

    def begin(connection: Connection) -> None:
        if "isolation_level" not in connection.get_execution_options():
            _hold_begin(connection, "BEGIN")

    event.listen(engine, "begin", begin)


#: The ``BEGIN`` of a read snapshot (``Store.read``).
SNAPSHOT = "BEGIN ISOLATION LEVEL REPEATABLE READ"


def begin_later(conn: AsyncConnection, begin: str) -> None:
    """Hold ``begin`` (a ``BEGIN`` statement: ``SNAPSHOT``) back for ``conn``'s first statement,
    on a connection in autocommit of an ``install``-ed engine: as ``begin_with_first_statement``
    does for a whole engine, psycopg ends the transaction it finds open, and one that sent
    nothing sends nothing."""
    sync = conn.sync_connection
    if sync is None or sync.engine not in _INSTALLED:
        raise ValueError("a BEGIN is held back only on a connection of an engine that sends it (install)")
    _hold_begin(sync, begin)


@asynccontextmanager
async def transaction(conn: AsyncConnection, begin: str) -> AsyncIterator[None]:
    """A transaction on ``conn`` that the block runs, committed when the block ends without an
    exception. On an ``install``-ed engine (PostgreSQL) outside SQLAlchemy's transactions:
    ``begin`` (``BEGIN``, ``SNAPSHOT``) goes with the first statement (``begin_later``) and
    ``end`` commits; a block that fails leaves the transaction to the connection's checkin,
    whose reset rolls back what psycopg finds open. Elsewhere (SQLite) SQLAlchemy's."""
    sync = conn.sync_connection
    if sync is not None and sync.engine in _INSTALLED:
        begin_later(conn, begin)
        yield
        await end(conn)
    else:
        async with conn.begin():
            yield


async def end(conn: AsyncConnection) -> None:
    """End a transaction begun with ``begin_later`` outside SQLAlchemy's transactions (a read
    snapshot, a write on PostgreSQL): nothing to send if it ran no statement (its ``BEGIN`` is
    dropped); the writes still held back with the ``COMMIT``, in one query; else the ``COMMIT``
    psycopg sends for the transaction it finds open (none when the events' statement took it
    along). One that SQLAlchemy began for a statement of its own is committed by SQLAlchemy
    (which does the same). An error is raised as SQLAlchemy raises it."""
    if conn.in_transaction():
        await conn.commit()
        return
    sync = conn.sync_connection
    assert sync is not None
    held_back = _LATER.pop(sync, None)
    psycopg = sync.connection.driver_connection
    assert psycopg is not None
    try:
        if held_back and not _only_begin(held_back):
            await _send(psycopg, held_back, None, True)
        await psycopg.commit()
    except BaseException as error:
        await greenlet_spawn(_raise_as_sqlalchemy, sync, error, "COMMIT", ())
        raise


def _only_begin(held_back: list[tuple[str, Any]]) -> bool:
    """Whether all that is held back is a ``BEGIN``: a transaction that sent nothing, with
    nothing to commit."""
    return len(held_back) == 1 and held_back[0][1] is None


def _hold_begin(sync: Connection, begin: str) -> None:
    """A ``BEGIN`` goes first, and alone of its kind has no values (``install``'s commit knows it).
    None is held when one is held already or the connection is in a transaction (SQLAlchemy
    beginning its own inside one begun by ``begin_later``)."""
    held_back = _LATER.setdefault(sync, [])
    if held_back and held_back[0][1] is None:
        return
    psycopg = sync.connection.driver_connection
    if psycopg is not None and psycopg.info.transaction_status != TransactionStatus.IDLE:
        return
    held_back.insert(0, (begin, None))


def install(engine: Engine) -> None:
    """Let ``engine`` (the sync engine of an async PostgreSQL one) hold writes back
    (``execute_later``): they are sent before any statement SQLAlchemy runs on one of its
    connections and before its ``COMMIT``, and forgotten at a rollback."""

    def send_held_back(connection: Connection, *_: Any) -> None:
        held_back = _LATER.pop(connection, None)
        if held_back:
            psycopg = connection.connection.driver_connection
            assert psycopg is not None
            try:
                await_only(_send(psycopg, held_back, None, False))
            except Exception as error:
                _raise_as_sqlalchemy(connection, error, "; ".join(sql for sql, _ in held_back), ())

    def before_commit(connection: Connection) -> None:
        held_back = _LATER.get(connection)
        if held_back is not None and _only_begin(held_back):
            del _LATER[connection]  # only its BEGIN: a transaction that sent nothing has nothing to commit
        send_held_back(connection)

    def forget(connection: Connection) -> None:
        _LATER.pop(connection, None)

    _INSTALLED.add(engine)
    event.listen(engine, "before_cursor_execute", send_held_back)
    event.listen(engine, "commit", before_commit)
    event.listen(engine, "rollback", forget)


def _raise_as_sqlalchemy(sync: Connection, error: BaseException, sql: str, values: Sequence[Any] | Mapping[str, Any]
                         ) -> None:
    """SQLAlchemy's handling of a driver error (run in its greenlet: invalidating a lost
    connection closes it): the ``sqlalchemy.exc`` error it stands for, raised."""
    try:
        raise error
    except BaseException as raised:
        sync._handle_dbapi_exception(raised, sql, values, None, None)
