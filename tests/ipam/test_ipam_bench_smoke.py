"""``bench/ipam_allocation.py`` at a tiny size on both databases, so that it cannot rot.

The benchmark checks every phase's addresses itself (it raises otherwise); this checks that it
completes and that its numbers are sane, never how fast anything is."""

from __future__ import annotations

import pytest

from bench import ipam_allocation
from bench.harness import DATABASES


@pytest.mark.parametrize("db", DATABASES)
async def test_ipam_allocation(db: str) -> None:
    rows = await ipam_allocation.benchmark([db], cidr="10.0.0.0/22", edge=40, concurrency=4)
    assert [(row["mode"], row["phase"]) for row in rows] == [
        (mode, phase) for mode in ipam_allocation.MODES for phase in ipam_allocation.PHASES
    ]
    for row in rows:
        assert row["db"] == db and row["ops"] == 40
        assert row["allocators"] == (4 if row["mode"] == "concurrent" else 1)
        assert 0 < row["p50_ms"] <= row["p99_ms"]
        assert row["per_s"] > 0 and row["p50_ratio"] > 0 and row["p99_ratio"] > 0
    assert {row["phase"]: row["allocated_before"] for row in rows if row["mode"] == "sequential"} == {
        "first": 0, "reuse_low": 0, "last": 1006 - 40, "reuse": 1006 - 40}


def test_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        ipam_allocation.main(["--help"])
    assert exit_info.value.code == 0
    assert "usage: python -m bench.ipam_allocation" in capsys.readouterr().out
