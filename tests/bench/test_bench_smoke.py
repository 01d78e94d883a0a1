"""The benchmarks run at tiny sizes on both databases, so they cannot rot.

These check that each benchmark completes and that its numbers are sane (positive rates, every
watcher got every event, List answers are right), never how fast anything is.
"""

from __future__ import annotations

import math
import shutil

import pytest

from bench import (
    api_throughput,
    bmaas_success,
    cluster_freshness,
    codec_cost,
    list_filter,
    list_order,
    onboarding,
    pass_cost,
    statement_cost,
    stream_floor,
    vm_fleet,
    watch_latency,
)
from bench.harness import DATABASES
from osac.controllers.runtime.shards import DEFAULT_SHARDS


@pytest.mark.parametrize("db", DATABASES)
async def test_api_throughput(db: str) -> None:
    rows = await api_throughput.benchmark([db], ops=50, concurrency=4)
    assert {(row["path"], row["op"]) for row in rows} == {
        (path, op) for path in ("grpc", "rest", "raw") for op in ("create", "get")
    }
    for row in rows:
        assert row["db"] == db and row["ops"] == 50
        assert row["ops_per_s"] > 0
        # A raw primary-key read from SQLite's page cache can take under the 0.005 ms that rounds to 0.
        assert 0 <= row["p50_ms"] <= row["p99_ms"] and row["p99_ms"] > 0
        if row["path"] != "raw":
            assert row["pct_of_raw"] > 0


@pytest.mark.skipif(shutil.which("h2load") is None, reason="h2load (Debian's nghttp2-client; .ci/run installs it)")
@pytest.mark.parametrize("db", DATABASES)
async def test_api_throughput_gets_by_h2load(db: str) -> None:
    rows = await api_throughput.benchmark([db], transports=("h2load", "h2load-rest"), ops=50, concurrency=4)
    assert {(row["path"], row["op"]) for row in rows} == {
        ("h2load", "get"), ("h2load-rest", "get"), ("raw", "create"), ("raw", "get")}
    for row in rows:
        if row["path"].startswith("h2load"):
            assert row["ops"] == 50 and row["ops_per_s"] > 0 and 0 < row["p50_ms"] <= row["p99_ms"]


def test_an_h2load_rest_get_answered_with_an_error_fails_the_run() -> None:
    """Over REST an error is another status (and another body)."""
    log = "".join(f"{1_700_000_000_000_000 + i}\t{404 if i == 7 else 200}\t1000\n" for i in range(50))
    with pytest.raises(RuntimeError, match="not every call was answered with the object"):
        api_throughput._h2load_run(H2LOAD_REPORT.format(data=50 * 105), log, 50, 105)


H2LOAD_REPORT = """finished in 1.25s, 40.00 req/s, 5.12KB/s
requests: 50 total, 50 started, 50 done, 50 succeeded, 0 failed, 0 errored, 0 timeout
status codes: 50 2xx, 0 3xx, 0 4xx, 0 5xx
traffic: 7.60KB (7782) total, 1.95KB (2000) headers (space savings 80.00%), {data} ({data}) data
"""


def test_an_h2load_run_is_read_from_its_report_and_log() -> None:
    log = "".join(f"{1_700_000_000_000_000 + i}\t200\t{1000 + i}\n" for i in range(50))
    run = api_throughput._h2load_run(H2LOAD_REPORT.format(data=50 * 105), log, 50, 105)
    assert run.elapsed == 1.25 and len(run.latencies) == 50 and run.latencies[0] == 0.001


def test_an_h2load_call_answered_with_an_error_fails_the_run() -> None:
    log = "".join(f"{1_700_000_000_000_000 + i}\t200\t1000\n" for i in range(50))
    # one answer without the object (a gRPC error: HTTP 200, the status in the trailers, no message)
    with pytest.raises(RuntimeError, match="not every call was answered with the object"):
        api_throughput._h2load_run(H2LOAD_REPORT.format(data=49 * 105), log, 50, 105)
    with pytest.raises(RuntimeError, match="50 calls asked"):
        api_throughput._h2load_run(H2LOAD_REPORT.format(data=50 * 105), log.split("\n", 1)[1], 50, 105)


async def test_api_throughput_with_two_workers() -> None:
    # Enough gets for a phase of a few tenths of a second: CPU is read from /proc in 10 ms ticks,
    # and 40 gets (20 ms, two processes) were once counted as no CPU at all.
    rows = await api_throughput.benchmark(["postgresql"], transports=("grpc",), ops=400, concurrency=4, raw=False,
                                          workers=(2,))
    assert {(row["workers"], row["path"], row["op"]) for row in rows} == {(2, "grpc", "create"), (2, "grpc", "get")}
    # the CPU of both workers and of their supervisor is counted
    assert all(row["ops"] == 400 and row["ops_per_s"] > 0 and row["server_cpu"] > 0 for row in rows)


@pytest.mark.parametrize("transport", watch_latency.TRANSPORTS)
@pytest.mark.parametrize("db", DATABASES)
async def test_watch_latency(db: str, transport: str) -> None:
    rows = await watch_latency.benchmark([db], watcher_counts=(3,), rate=20, duration=1, transport=transport,
                                         settle=15)
    assert [row["watchers"] for row in rows] == [3]
    for row in rows:
        assert row["errors"] == ""
        assert row["events"] == 20
        assert row["delivered"] == row["expected"] == 20 * row["watchers"]
        assert 0 < row["p50_ms"] <= row["p99_ms"] <= row["max_ms"]
        assert row["write_rate"] > 0


async def test_watch_latency_with_two_workers() -> None:
    # 120 streams are two connections (100 streams per channel), which the kernel may give to
    # either process; every stream gets every event either way. SQLite runs one process.
    rows = await watch_latency.benchmark(["sqlite", "postgresql"], watcher_counts=(120,), rate=20, duration=1,
                                         settle=15, workers=(2,))
    assert [(row["db"], row["workers"]) for row in rows] == [("sqlite", 1), ("postgresql", 2)]
    for row in rows:
        assert row["errors"] == ""
        assert row["delivered"] == row["expected"] == 20 * 120


@pytest.mark.parametrize("db", DATABASES)
async def test_list_filter(db: str) -> None:
    # Every List answer is checked inside the benchmark (total, size, labels); it raises otherwise.
    rows = await list_filter.benchmark([db], objects=1000, repeat=3)
    assert {(row["case"], row["transport"]) for row in rows} == {
        (case, transport) for case in list_filter.CASES for transport in list_filter.TRANSPORTS
    }
    for row in rows:
        assert row["objects"] > 1000 and row["lists"] == 3
        assert 0 < row["p50_ms"] <= row["p99_ms"]
        assert row["sql_p50_ms"] > 0 and not math.isnan(row["sql_p50_ms"])
        assert row["load_rows_per_s"] > 0


@pytest.mark.parametrize("db", DATABASES)
def test_list_order(db: str) -> None:
    # Every page is checked inside the benchmark (size, order, ties by id); it raises otherwise.
    rows = list_order.benchmark([db], objects=300, repeat=2)
    assert {(row["order"], row["offset"]) for row in rows} == {(order, offset) for order in list_order.ORDERS
                                                                for offset in (0, 150)}
    for row in rows:
        assert row["pages"] == 2 and 0 < row["p50_ms"] <= row["p99_ms"] and row["load_rows_per_s"] > 0


@pytest.mark.parametrize("db", DATABASES)
async def test_onboarding(db: str) -> None:
    [row] = await onboarding.benchmark([db], tenants=3, concurrency=2)
    assert row["tenants"] == 3 and row["creates_per_s"] > 0
    assert 0 <= row["ready_p50_s"] <= row["ready_p99_s"] <= row["ready_max_s"] <= row["all_ready_s"]


@pytest.mark.parametrize("db", DATABASES)
async def test_vm_fleet(db: str) -> None:
    # the run itself fails unless every VM is public and afterwards nothing auto-provisioned is left
    [row] = await vm_fleet.benchmark([db], sizes=[4], concurrency=2)
    assert row["vms"] == 4 and row["creates_per_s"] > 0
    assert 0 < row["running_p50_s"] <= row["running_p99_s"] <= row["all_public_s"]
    assert row["all_gone_s"] > 0 and row["up_vms_per_s"] > 0
    # passes/statements per VM, from the server's own counters: every VM's reconciler passed
    passes, statements = (float(part) for part in row["per_vm_compute_instance"].split("/"))
    assert passes >= 1 and statements > 0


@pytest.mark.parametrize("db", DATABASES)
async def test_cluster_freshness(db: str) -> None:
    # Each change flips DEGRADED of a READY cluster (one noticed change, one status write), so
    # every one must arrive on the Watch stream and be observed once in the histogram.
    rows = await cluster_freshness.benchmark([db], clusters=3, rates=(5, 2), duration=3, settle=20, ready_timeout=60)
    assert [row["rate"] for row in rows] == [5, 2]  # one phase per rate, on one fleet
    assert rows[0]["setup_s"] == rows[1]["setup_s"]
    for row, offered in zip(rows, (15, 6), strict=True):
        assert row["errors"] == "" and row["failed_calls"] == 0
        assert row["clusters"] == 3 and row["tenants"] == 1
        assert row["setup_ms_per_cluster"] > 0 and 0 <= row["ready_p50_s"] <= row["ready_max_s"]
        assert row["changes"] + row["skipped"] == offered and row["changes"] > 0
        assert row["delivered"] == row["changes"]
        assert row["hist_count"] == row["changes"]
        assert 0 < row["e2e_p50_ms"] <= row["e2e_p99_ms"] <= row["e2e_max_ms"]
        assert row["from_ack_p50_ms"] <= row["e2e_p50_ms"]
        assert row["hist_mean_ms"] > 0 and 0 < row["hist_p50_ms"] <= row["hist_p99_ms"]
        assert row["queue_depth_max"] >= 0 and row["oldest_wait_max_s"] >= 0


async def test_cluster_freshness_with_two_workers() -> None:
    # Both processes hold shards; every cluster is in a held shard and counted once.
    [row] = await cluster_freshness.benchmark(["postgresql"], clusters=4, rates=(4,), duration=2, settle=20,
                                              ready_timeout=90, workers=2)
    assert row["errors"] == "" and row["delivered"] == row["changes"] > 0
    shards, objects = row["shards"].split(", ")
    held = [int(count) for count in shards.removesuffix(" shards").split("/")]
    assert len(held) == 2 and sum(held) == DEFAULT_SHARDS and min(held) > 0, row["shards"]
    assert sum(int(count) for count in objects.removesuffix(" objects").split("/")) == 4, row["shards"]


@pytest.mark.parametrize("db", DATABASES)
async def test_pass_cost(db: str) -> None:
    # Counts, not times: every case is one pass of the cluster, and only a change writes.
    rows = await pass_cost.benchmark([db], repeat=2, clusters=1)
    assert [row["case"] for row in rows] == list(pass_cost.CASES)
    for row in rows:
        assert row["db"] == db and row["triggers"] == 2 and row["passes"] == 1
        assert row["statements"] > 0 and row["read_tx"] > 0 and row["cpu_us"] > 0
    change, resync, no_change = rows
    assert change["write_tx"] == 1 and change["encoded"] == 1
    assert resync["write_tx"] == no_change["write_tx"] == 0


@pytest.mark.parametrize("db", DATABASES)
async def test_codec_cost(db: str) -> None:
    # Both ways agree on the cluster (the benchmark asserts it) and every row has its times.
    rows = await codec_cost.benchmark(db, calls=5, rounds=1)
    assert [row["operation"] for row in rows] == ["encode", "parse", "to_public"]
    for row in rows:
        assert row["json_bytes"] > 500 and row["json_mapping_us"] > 0 and row["plan_us"] > 0


@pytest.mark.parametrize("db", DATABASES)
async def test_statement_cost(db: str) -> None:
    # Every path found the object (the benchmark asserts it) and has its time; psycopg alone
    # and the isolation level per checkout are measured on PostgreSQL only.
    rows = await statement_cost.benchmark([db], calls=5, rounds=1)
    postgresql = db == "postgresql"
    expected = ["sqlalchemy", "direct", *(["driver"] if postgresql else []), "read", "snapshot_read",
                *(["read_isolation_per_checkout"] if postgresql else [])]
    assert [row["path"] for row in rows] == expected
    assert all(row["db"] == db and row["cpu_us"] > 0 for row in rows)


@pytest.mark.parametrize(
    "module",
    [api_throughput, watch_latency, list_filter, list_order, onboarding, vm_fleet, cluster_freshness, pass_cost, codec_cost,
     statement_cost],
    ids=lambda m: m.__name__,
)
def test_help(module: object, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        module.main(["--help"])  # type: ignore[attr-defined]
    assert exit_info.value.code == 0
    assert "usage: python -m bench." in capsys.readouterr().out


@pytest.mark.parametrize("db", DATABASES)
async def test_bmaas_success(db: str) -> None:
    [row] = await bmaas_success.benchmark([db], instances=4, rate=0.02)
    assert row["db"] == db and row["instances"] == row["running"] == 4
    assert 0 < row["p50_s"] <= row["p95_s"] <= row["max_s"]
    assert 0 <= row["attach_max_s"] <= 120 and row["net_success_pct"] == 100
    assert row["metric_p95_le_s"] >= row["p95_s"]


def test_stream_floor() -> None:
    row = stream_floor.benchmark(streams=3, messages=5, size=10, gap=0.01)
    assert row["sent"] == row["received"] == 15
    assert row["server_cpu_s"] > 0 and row["us_per_message"] > 0
