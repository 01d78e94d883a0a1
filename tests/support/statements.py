"""The SQL a store's writer sends, recorded with SQLAlchemy's ``before_cursor_execute`` (which
the store's direct path announces too), for tests that count or read statements."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import event

from osac.store.objects import Store


@contextmanager
def sent(store: Store) -> Iterator[list[str]]:
    """The statements the store's writer sends inside the block, on one line each."""
    statements: list[str] = []

    def record(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        statements.append(" ".join(statement.split()))

    engine = store.engines.writer.sync_engine
    event.listen(engine, "before_cursor_execute", record)
    try:
        yield statements
    finally:
        event.remove(engine, "before_cursor_execute", record)
