"""Databases prepared once per test session and copied for every test that starts from them.

Many suites start each test from the same state: a READY catalogue, tenants whose default
networking is READY. Building it through the API costs more than most tests themselves, so the
first test to ask for a state builds it against a real server (``recipe``), and that database is
kept as a template: each later test gets a copy of it (a file copy on SQLite, ``CREATE DATABASE
... TEMPLATE`` on PostgreSQL) and starts its own server on the copy, exactly as if it had built
the state itself. On PostgreSQL the copies are borrowed from ``PgDatabases`` and reset after
each test.
"""

from __future__ import annotations

import shutil
from collections.abc import Awaitable, Callable, Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from tests.support.pg_databases import PgDatabases
from tests.support.server import ServerHandle, running_server

Recipe = Callable[[ServerHandle], Awaitable[Any]]
#: The ``prepared`` fixture: ``await prepared(name, recipe)`` -> (this test's URL, recipe's result).
Prepare = Callable[[str, Recipe], Awaitable[tuple[str, Any]]]


@dataclass
class Prepared:
    """A prepared database (a SQLite file or a PostgreSQL database name) and what its recipe
    returned."""

    source: Any
    result: Any


class Databases(Protocol):
    """Where prepared states live on one engine."""

    engine: str

    def fresh(self, data_dir: Path) -> tuple[str, Any]:
        """A new empty migrated database kept for the session: its URL and its source handle."""

    def copy(self, source: Any, data_dir: Path) -> AbstractContextManager[str]:
        """The URL of a copy of ``source`` for one test."""


@dataclass
class SqliteFiles:
    migrated: Path
    engine: str = "sqlite"

    def fresh(self, data_dir: Path) -> tuple[str, Any]:
        return copy_sqlite(self.migrated, data_dir), data_dir / "osac.sqlite"

    @contextmanager
    def copy(self, source: Any, data_dir: Path) -> Iterator[str]:
        yield copy_sqlite(source, data_dir)


@dataclass
class PgCopies:
    databases: PgDatabases
    migrated: str
    engine: str = "postgresql"

    def fresh(self, data_dir: Path) -> tuple[str, Any]:
        name = self.databases.create(template=self.migrated)
        return self.databases.url(name), name

    @contextmanager
    def copy(self, source: Any, data_dir: Path) -> Iterator[str]:
        with self.databases.borrow(source) as name:
            yield self.databases.url(name)


@dataclass
class PreparedStates:
    """The session's prepared databases, by engine and state name."""

    built: dict[tuple[str, str], Prepared] = field(default_factory=dict)

    async def database(self, databases: Databases, name: str, recipe: Recipe, data_dir: Path, test: ExitStack
                       ) -> tuple[str, Any]:
        """The URL of this test's copy of state ``name`` (built on first use), and what the
        recipe returned."""
        key = (databases.engine, name)
        if key not in self.built:
            build_dir = data_dir.parent / f"{data_dir.name}-prepare-{name}"
            build_dir.mkdir()
            url, source = databases.fresh(build_dir)
            async with running_server(build_dir, url, controllers=False) as server:
                result = await recipe(server)
            self.built[key] = Prepared(source, result)
        prepared = self.built[key]
        return test.enter_context(databases.copy(prepared.source, data_dir)), prepared.result


def copy_sqlite(source: Path, data_dir: Path) -> str:
    """A copy of a closed SQLite database (its write-ahead log folded in at close) as
    ``data_dir/osac.sqlite``."""
    target = data_dir / "osac.sqlite"
    shutil.copyfile(source, target)
    wal = source.with_name(source.name + "-wal")
    if wal.exists():
        shutil.copyfile(wal, target.with_name(target.name + "-wal"))
    return f"sqlite+aiosqlite:///{target}"
