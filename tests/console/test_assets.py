"""Where the console's PatternFly files come from (``osac.console.assets``)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from osac.console.assets import (
    ASSETS_VARIABLE,
    PATTERNFLY,
    STYLESHEET,
    node_modules_candidates,
    patternfly_dir,
)

ROOT = Path(__file__).resolve().parents[2]


def test_the_readme_set_up_installs_patternfly_where_the_console_finds_it() -> None:
    found = patternfly_dir()
    assert found == ROOT / "node_modules" / PATTERNFLY
    assert (found / STYLESHEET).is_file()


def test_missing_assets_are_logged_and_the_console_goes_on_unstyled(tmp_path: Path,
                                                                    caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="osac.console.assets"):
        assert patternfly_dir([tmp_path / "node_modules"]) is None
    assert "PatternFly is not installed" in caplog.text and "npm ci" in caplog.text


def test_a_configured_node_modules_comes_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "node_modules" / PATTERNFLY
    folder.mkdir(parents=True)
    (folder / STYLESHEET).write_text("/* */")
    monkeypatch.setenv(ASSETS_VARIABLE, str(tmp_path / "node_modules"))
    assert node_modules_candidates()[0] == tmp_path / "node_modules"
    assert patternfly_dir() == folder
