"""The tree stays lint-clean, typed, layered, and its migrations match the schema."""

from __future__ import annotations

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


def test_layers_are_respected() -> None:
    result = _run(sys.executable, "-m", "importlinter.cli", "--config", "pyproject.toml")
    if "No module named" in result.stderr:
        result = _run("lint-imports", "--config", "pyproject.toml")
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("db", ["sqlite", "postgresql"])
def test_migrations_match_the_schema(db: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    """``alembic check``: the migrations produce exactly the tables the code declares."""
    from alembic import command
    from alembic.config import Config

    from osac.store.engine import migrate, sync_url

    if db == "sqlite":
        url = f"sqlite:///{tmp_path / 'check.sqlite'}"
    else:
        url = request.getfixturevalue("empty_pg_database")
    migrate(url)
    config = Config()
    config.set_main_option("script_location", str(ROOT / "src/osac/store/migrations"))
    config.set_main_option("sqlalchemy.url", sync_url(url).replace("%", "%%"))
    command.check(config)
