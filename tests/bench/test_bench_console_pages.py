"""``bench/console_pages.py`` at a tiny size on both databases, so it cannot rot: every page of
both callers is timed and answers 200 (the benchmark raises otherwise)."""

from __future__ import annotations

import pytest

from bench import console_pages
from bench.harness import DATABASES


@pytest.mark.parametrize("db", DATABASES)
async def test_console_pages(db: str) -> None:
    rows = await console_pages.benchmark([db], clusters=3, clusters_per_tenant=2, requests=3, ready_timeout=120)
    pages = {(row["who"], row["page"]) for row in rows}
    assert pages == {(who, page) for who in ("admin", "tenant")
                     for page in ("overview", "list first page", "list last page", "list sorted by name",
                                  "cluster detail")} | {("admin", "admin stalled")}
    for row in rows:
        assert row["db"] == db and row["requests"] == 3 and row["clusters"] == 3
        assert 0 < row["p50_ms"] <= row["p95_ms"] <= row["max_ms"]
        assert row["bytes"] > 1000
