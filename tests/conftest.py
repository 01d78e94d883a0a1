"""Shared fixtures: databases (SQLite and PostgreSQL), a running server, API clients."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import psycopg
import pytest

from tests.support.pg_databases import PgDatabases
from tests.support.prepared import (
    Databases,
    PgCopies,
    Prepare,
    PreparedStates,
    Recipe,
    SqliteFiles,
    copy_sqlite,
)

#: Support modules whose fixtures every test may ask for by name (``live``, ``vmaas``, ``bmaas``,
#: ``cloud``): a test module never imports another test module.
pytest_plugins = ["tests.support.onboarding", "tests.support.vmaas", "tests.support.bmaas", "tests.support.traffic"]

PG_ADMIN_DSN = os.environ.get("OSAC_TEST_PG", "postgresql://postgres@127.0.0.1:5432/postgres")


def _pg_available() -> bool:
    try:
        with psycopg.connect(PG_ADMIN_DSN, connect_timeout=3):
            return True
    except Exception:
        return False


PG_AVAILABLE = _pg_available()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Without PostgreSQL the PostgreSQL variants are skipped locally, but CI must have it."""
    if PG_AVAILABLE:
        return
    if os.environ.get("CI"):
        raise pytest.UsageError(f"PostgreSQL is not reachable at {PG_ADMIN_DSN}; CI runs every test on it")
    skip = pytest.mark.skip(reason="PostgreSQL not reachable")
    for item in items:
        if "postgresql" in item.keywords or "[postgresql" in item.nodeid:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def pg_databases() -> Iterator[PgDatabases]:
    """The session's PostgreSQL databases, reused between tests (``tests.support.pg_databases``)."""
    if not PG_AVAILABLE:
        pytest.skip("PostgreSQL not reachable")
    databases = PgDatabases(PG_ADMIN_DSN)
    try:
        yield databases
    finally:
        databases.close()


@pytest.fixture(scope="session")
def pg_migrated_template(pg_databases: PgDatabases) -> str:
    """A PostgreSQL database migrated once per session, the source of every test's database."""
    from tests.support.schema import migrate_with_simulator

    name = pg_databases.create()
    migrate_with_simulator(pg_databases.url(name))
    return name


@pytest.fixture(scope="session")
def sqlite_migrated_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite file migrated once per session; each test starts from a copy."""
    from tests.support.schema import migrate_with_simulator

    path = tmp_path_factory.mktemp("migrated") / "osac.sqlite"
    migrate_with_simulator(f"sqlite:///{path}")
    return path


@pytest.fixture
def pg_database(pg_databases: PgDatabases, pg_migrated_template: str) -> Iterator[str]:
    """A PostgreSQL database of this test's own with the current schema and no rows."""
    with pg_databases.borrow(pg_migrated_template) as name:
        yield pg_databases.url(name)


@pytest.fixture
def new_pg_database(pg_databases: PgDatabases, pg_migrated_template: str) -> Iterator[str]:
    """A PostgreSQL database created for this test alone (the current schema, no rows, and no
    planner statistics yet, which a reused database would carry over from earlier tests)."""
    with pg_databases.scratch(template=pg_migrated_template) as name:
        yield pg_databases.url(name)


@pytest.fixture
def empty_pg_database(pg_databases: PgDatabases) -> Iterator[str]:
    """A new PostgreSQL database without any table, for tests of the migrations themselves."""
    with pg_databases.scratch() as name:
        yield pg_databases.url(name)


@pytest.fixture(params=["sqlite", "postgresql"])
def db_engine(request: pytest.FixtureRequest) -> str:
    """Every store and API test runs on both engines."""
    if request.param == "postgresql" and not PG_AVAILABLE:
        pytest.skip("PostgreSQL not reachable")
    return str(request.param)


@pytest.fixture
def db_url(db_engine: str, request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A database of this test's own that starts with the current schema and no rows."""
    if db_engine == "sqlite":
        return copy_sqlite(request.getfixturevalue("sqlite_migrated_template"), tmp_path)
    return str(request.getfixturevalue("pg_database"))


@pytest.fixture(scope="session")
def prepared_states() -> PreparedStates:
    """States built once per session and copied for each test (``tests.support.prepared``)."""
    return PreparedStates()


@pytest.fixture
def prepared(db_engine: str, prepared_states: PreparedStates, tmp_path: Path, request: pytest.FixtureRequest
             ) -> Iterator[Prepare]:
    """``await prepared(name, recipe)``: the URL of this test's copy of a prepared state on its
    engine, and what the recipe returned when the state was built."""
    if db_engine == "sqlite":
        databases: Databases = SqliteFiles(request.getfixturevalue("sqlite_migrated_template"))
    else:
        databases = PgCopies(request.getfixturevalue("pg_databases"), request.getfixturevalue("pg_migrated_template"))
    with ExitStack() as test:
        async def database(name: str, recipe: Recipe) -> tuple[str, Any]:
            return await prepared_states.database(databases, name, recipe, tmp_path, test)

        yield database


@pytest.fixture
async def server(db_url: str, tmp_path: Path) -> AsyncIterator[object]:
    """A running server (gRPC + HTTP on free loopback ports) without controllers."""
    from tests.support.server import running_server

    async with running_server(tmp_path, db_url, controllers=False) as handle:
        yield handle

