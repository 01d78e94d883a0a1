"""The cluster derivation benchmark runs at a tiny size, so it cannot rot (never how fast)."""

from __future__ import annotations

import pytest

from bench import cluster_derivation


def test_every_case_and_size_is_reported_with_sane_numbers() -> None:
    rows = cluster_derivation.benchmark(calls=5)
    assert [(row["case"], row["node_sets"]) for row in rows] == [
        (case, size) for case in cluster_derivation.CASES for size in (1, 10, 50)
    ]
    for row in rows:
        assert row["calls"] == 5
        assert row["node_pools"] == row["node_sets"]
        assert 0 < row["p50_us"] <= row["p99_us"]
        assert row["mean_us"] > 0 and row["per_s"] > 0


def test_the_cases_are_what_they_claim() -> None:
    _, pools, previous, _ = cluster_derivation.inputs("joining", 10)
    assert previous.stage == "WorkersJoining" and len(pools) == 10
    _, _, settled, _ = cluster_derivation.inputs("settled", 10)
    assert (settled.state, settled.stage) == (2, "")
    with pytest.raises(ValueError, match="unknown case"):
        cluster_derivation.inputs("teardown", 1)


def test_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        cluster_derivation.main(["--help"])
    assert exit_info.value.code == 0
    assert "usage: python -m bench.cluster_derivation" in capsys.readouterr().out


def test_table_output(capsys: pytest.CaptureFixture[str]) -> None:
    cluster_derivation.main(["--sizes", "1", "--calls", "3", "--cases", "settled"])
    output = capsys.readouterr().out
    assert "µs per call" in output and "settled" in output
