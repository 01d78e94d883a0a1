"""``bench/console_live.py`` at a tiny size on both databases, so it cannot rot: a few sessions
hold the console's live stream while clusters change, and every session receives every change."""

from __future__ import annotations

import pytest

from bench import console_live
from bench.harness import DATABASES


@pytest.mark.parametrize("db", DATABASES)
async def test_console_live(db: str) -> None:
    [row] = await console_live.benchmark([db], clusters=3, clusters_per_tenant=2, sessions=3, rate=2.0, duration=3.0,
                                         settle=15.0, ready_timeout=120)
    assert row["db"] == db and row["sessions"] == 3 and row["clusters"] == 3
    assert row["delivered"] >= 1 and row["errors"] == ""
    assert row["missed"] == 0 and row["pairs"] == 3 * row["delivered"]
    assert 0 < row["p50_ms"] <= row["p99_ms"] <= row["max_ms"]
    assert row["worst_session_p99_ms"] <= row["max_ms"]
    assert row["server_cpu"] > 0
