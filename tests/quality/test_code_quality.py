"""The tree stays lint-clean, typed, layered, and its migrations match the schema."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_ruff_is_clean() -> None:
    paths = [name for name in ("src", "tests", "scripts", "bench") if (ROOT / name).exists()]
    result = _run(sys.executable, "-m", "ruff", "check", *paths)
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_is_clean() -> None:
    result = _run(sys.executable, "-m", "mypy")
    assert result.returncode == 0, result.stdout + result.stderr


_MISUSES = """
from osac.api.private.v1.subnet_type_pb2 import Subnet

subnet = Subnet(no_such_field="x")
subnet.spec.ipv4_cidr = 4
name: str = Subnet.DESCRIPTOR.fields_by_name["spec"].message_type.full_name
"""


def test_mypy_checks_the_generated_classes(tmp_path: Path) -> None:
    """With protobuf's stubs installed, a wrong field and a wrongly typed value on a generated
    class are errors (without them every class is ``Any``)."""
    probe = tmp_path / "probe.py"
    probe.write_text(_MISUSES)
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", "pyproject.toml", "--no-incremental", str(probe)],
        cwd=ROOT, capture_output=True, text=True, timeout=600, env={**os.environ, "MYPYPATH": str(ROOT / "src")},
    )
    output = result.stdout
    assert result.returncode == 1, output + result.stderr
    assert 'Unexpected keyword argument "no_such_field" for "Subnet"' in output
    assert 'Incompatible types in assignment (expression has type "int", variable has type "str")' in output


def test_layers_are_respected() -> None:
    result = _run(sys.executable, "-m", "importlinter.cli", "--config", "pyproject.toml")
    if "No module named" in result.stderr:
        result = _run("lint-imports", "--config", "pyproject.toml")
    assert result.returncode == 0, result.stdout + result.stderr


def _database(db: str, tmp_path: Path, request: pytest.FixtureRequest) -> str:
    if db == "sqlite":
        return f"sqlite:///{tmp_path / 'check.sqlite'}"
    return str(request.getfixturevalue("empty_pg_database"))


def _tables(url: str) -> set[str]:
    from sqlalchemy import create_engine, inspect

    from osac.store.engine import sync_url

    engine = create_engine(sync_url(url))
    try:
        with engine.connect() as connection:
            return set(inspect(connection).get_table_names())
    finally:
        engine.dispose()


@pytest.mark.parametrize("db", ["sqlite", "postgresql"])
def test_migrations_match_the_schema(db: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    """``alembic check`` on both chains: each produces exactly the tables its code declares."""
    from alembic import command

    from osac.providers.simulator.runtime.schema_upgrade import MIGRATIONS as SIMULATOR_MIGRATIONS
    from osac.store.engine import MIGRATIONS, alembic_config
    from tests.support.schema import migrate_with_simulator

    url = _database(db, tmp_path, request)
    migrate_with_simulator(url)
    command.check(alembic_config(url, MIGRATIONS))
    command.check(alembic_config(url, SIMULATOR_MIGRATIONS))
    assert {"alembic_version", "sim_alembic_version"} <= _tables(url)


@pytest.mark.parametrize("db", ["sqlite", "postgresql"])
def test_the_service_chain_alone_creates_no_simulator_table(
    db: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """A deployment whose providers are all real migrates the service's chain only."""
    from alembic import command

    from osac.store.engine import MIGRATIONS, alembic_config, migrate

    url = _database(db, tmp_path, request)
    migrate(url)
    tables = _tables(url)
    assert {"alembic_version", "claims", "ip_ranges"} <= tables
    assert sorted(t for t in tables if t.startswith("sim_")) == []
    command.check(alembic_config(url, MIGRATIONS))


@pytest.mark.parametrize("db", ["sqlite", "postgresql"])
def test_a_database_from_the_single_chain_days_is_stamped_and_upgraded(
    db: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """A database whose simulator tables came from the service's revisions 0003-0007 (no
    ``sim_alembic_version``) is stamped at the matching simulator revision and then upgraded:
    no table is created twice and the index of s0004 is added where 0006 was the last revision."""
    from alembic import command
    from sqlalchemy import create_engine, inspect, text

    from osac.providers.simulator.runtime.schema_upgrade import MIGRATIONS as SIMULATOR_MIGRATIONS
    from osac.providers.simulator.runtime.schema_upgrade import upgrade_simulator
    from osac.store.engine import alembic_config, sync_url
    from tests.support.schema import migrate_with_simulator

    url = _database(db, tmp_path, request)
    migrate_with_simulator(url)
    # What the single chain left at its revision 0006: the tables, not the index of 0007.
    engine = create_engine(sync_url(url))
    try:
        with engine.begin() as connection:
            connection.execute(text("DROP INDEX ix_sim_clusters_updated_at"))
            connection.execute(text("DROP TABLE sim_alembic_version"))
            connection.execute(text("UPDATE alembic_version SET version_num = '0006'"))
            connection.execute(
                text(
                    "INSERT INTO sim_faults (id, target_kind, target_id, fault, params, remaining, created_at) "
                    "VALUES ('kept', 'cluster', 'c1', 'hc_degraded', '{}', 0, CURRENT_TIMESTAMP)"
                )
            )
        upgrade_simulator(url)
        with engine.connect() as connection:
            assert connection.execute(text("SELECT version_num FROM sim_alembic_version")).scalar() == "s0004"
            assert connection.execute(text("SELECT id FROM sim_faults")).scalars().all() == ["kept"]
            assert "ix_sim_clusters_updated_at" in {
                i["name"] for i in inspect(connection).get_indexes("sim_clusters")
            }
    finally:
        engine.dispose()
    command.check(alembic_config(url, SIMULATOR_MIGRATIONS))


@pytest.mark.parametrize(
    ("service_revision", "simulator_revision"),
    [
        (None, None),
        ("0002", None),
        ("0003", "s0001"),
        ("0004", "s0001"),
        ("0005", "s0002"),
        ("0006", "s0003"),
        ("0007", "s0004"),
        ("0012", "s0004"),
    ],
)
def test_legacy_revisions_map_to_the_simulator_chain(
    service_revision: str | None, simulator_revision: str | None
) -> None:
    from osac.providers.simulator.runtime.schema_upgrade import legacy_revision

    assert legacy_revision(service_revision) == simulator_revision
