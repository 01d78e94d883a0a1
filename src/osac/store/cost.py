"""What a unit of work (one reconcile pass) costs the store, counted exactly.

Counting is scoped by a context variable, so the passes of several workers running at once in
one event loop are counted apart (each asyncio task runs in its own copy of the context, and
SQLAlchemy runs the driver calls of a task in a greenlet that shares it):

    with counting() as cost:
        await reconciler.reconcile(key)
    cost.statements, cost.read_transactions, cost.write_transactions, cost.decoded, ...

What is counted:

``statements``
    Every statement sent to the database (SQLAlchemy's ``before_cursor_execute``), the store's,
    the simulator's tables' and the leases' alike. ``BEGIN``/``COMMIT`` are not statements.
``read_transactions`` / ``write_transactions``
    Every transaction of the store's (``Store.read``, ``Store.write``: ``transaction``, which
    may run outside SQLAlchemy's transactions) and every other one SQLAlchemy begins, sorted when
    it ends: a write if it ran an ``INSERT``, ``UPDATE`` or ``DELETE``. A read outside a snapshot
    (``Store.read(snapshot=False)``, the simulator's ``statement_reader``) still counts as one.
``decoded`` / ``copied`` / ``encoded``
    Storage JSON parsed into a message, parses handed out again from the cache of parsed
    versions (``store/decoded.py``: a protobuf decode, much cheaper), messages serialised to
    storage JSON.
``cpu_seconds``
    The process's CPU time while the block ran: exact when nothing else runs meanwhile (the
    benchmark's single passes); with concurrent workers it also holds their interleaved work.

Nested blocks all count what happens inside the innermost one.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine

__all__ = ["PROCESS", "PassCost", "counting", "count_decoded", "count_copied", "count_encoded", "install",
           "transaction"]


@dataclass
class PassCost:
    statements: int = 0
    read_transactions: int = 0
    write_transactions: int = 0
    decoded: int = 0
    copied: int = 0
    encoded: int = 0
    cpu_seconds: float = 0.0

    @property
    def transactions(self) -> int:
        return self.read_transactions + self.write_transactions

    def add(self, other: PassCost) -> None:
        self.statements += other.statements
        self.read_transactions += other.read_transactions
        self.write_transactions += other.write_transactions
        self.decoded += other.decoded
        self.copied += other.copied
        self.encoded += other.encoded
        self.cpu_seconds += other.cpu_seconds


_active: ContextVar[tuple[PassCost, ...]] = ContextVar("osac_store_cost", default=())
#: Every statement of the process, whoever sent it (the API, the schedulers, the controllers'
#: feeds, timers): what a change costs the whole server is the growth between two readings.
PROCESS = PassCost()

_WRITES = ("INSERT", "UPDATE", "DELETE")
#: ``Connection.info`` key: the counters a transaction on this connection counts into, and
#: whether it wrote.
_TX_KEY = "osac_cost_tx"


@dataclass
class _StoreTx:
    """The store's transaction under way in a task (``transaction``); SQLAlchemy's events leave
    its connection to it."""

    connection: Any
    counters: tuple[PassCost, ...]
    wrote: bool = False


_store_tx: ContextVar[_StoreTx | None] = ContextVar("osac_store_tx", default=None)


@contextmanager
def counting() -> Iterator[PassCost]:
    """Count the store's work of the enclosed block (and of the tasks it awaits) into a new `PassCost`."""
    cost = PassCost()
    token = _active.set((*_active.get(), cost))
    started = time.process_time()
    try:
        yield cost
    finally:
        cost.cpu_seconds += time.process_time() - started
        _active.reset(token)


def count_decoded() -> None:
    for cost in _active.get():
        cost.decoded += 1


def count_copied() -> None:
    for cost in _active.get():
        cost.copied += 1


def count_encoded() -> None:
    for cost in _active.get():
        cost.encoded += 1


def _count(counters: tuple[PassCost, ...], wrote: bool) -> None:
    for cost in counters:
        if wrote:
            cost.write_transactions += 1
        else:
            cost.read_transactions += 1


@contextmanager
def transaction(connection: Any) -> Iterator[None]:
    """Count the store's transaction on ``connection`` (a sync ``Connection``) that the block
    runs, whether or not SQLAlchemy begins one on it meanwhile."""
    counters = _active.get()
    if not counters:  # nothing counts (SQLAlchemy's events then count nothing either)
        yield
        return
    store = _StoreTx(connection, counters)
    token = _store_tx.set(store)
    try:
        yield
    finally:
        _store_tx.reset(token)
        _count(counters, store.wrote)


def _store_connection(connection: Any) -> _StoreTx | None:
    store = _store_tx.get()
    return store if store is not None and store.connection is connection else None


def install(engine: Engine) -> None:
    """Count the statements and transactions of ``engine`` (the sync engine of an async one)."""

    @event.listens_for(engine, "begin")
    def _begin(connection: Any) -> None:
        counters = _active.get()
        if counters and _store_connection(connection) is None:
            connection.info[_TX_KEY] = [counters, False]

    @event.listens_for(engine, "before_cursor_execute")
    def _execute(connection: Any, _cursor: Any, statement: str, *_: Any) -> None:
        PROCESS.statements += 1
        counters = _active.get()
        for cost in counters:
            cost.statements += 1
        if statement.lstrip()[:6].upper() not in _WRITES:
            return
        store = _store_connection(connection)
        if store is not None:
            store.wrote = True
            return
        tx = connection.info.get(_TX_KEY)
        if tx is not None:
            tx[1] = True

    def _end(connection: Any) -> None:
        tx = connection.info.pop(_TX_KEY, None)
        if tx is not None:
            _count(*tx)

    event.listen(engine, "commit", _end)
    event.listen(engine, "rollback", _end)
