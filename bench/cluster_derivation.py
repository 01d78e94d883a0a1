"""CPU cost of one cluster status derivation, by number of node sets (1, 10 and 50 by default).

The derivation runs on every reconcile of a cluster: on each infrastructure change notice and
on every resync, so at 1,000 clusters and 50 changes/s (cluster-status.md §17) its cost is paid
thousands of times a minute inside the controller's event loop. This measures it alone, with
no database or provider: ``derive_cluster_status`` called in a loop on prepared dicts.

Two cases per size, both shaped as the simulator emits them (simulator.md §3.1):

- ``joining``: a PROGRESSING cluster in ``WorkersJoining``; half of the node sets READY, the
  others with nodes still joining. ``previous`` is the status derived a minute earlier, so the
  stall timer, progress messages and event guards all run.
- ``settled``: a READY cluster whose observation has not changed; ``previous`` is the result
  itself (the fixpoint a resync hits). No events come out.

Each call is timed separately with ``perf_counter_ns``; ``per_s`` is calls per second of one
core. A warm-up of ``calls // 10`` precedes each timed run.

    python -m bench.cluster_derivation [--sizes 1 10 50] [--calls 2000] [--json]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from bench.harness import emit_json, percentile, print_table
from osac.status.clusters.derivation import (
    ClusterContext,
    ClusterStatusView,
    NodeSetSpec,
    StallThresholds,
    derive_cluster_status,
)

SIZES = (1, 10, 50)
CASES = ("joining", "settled")
NODES_PER_SET = 3
NOW = datetime(2026, 3, 4, 10, 30, tzinfo=UTC)


def _condition(kind: str, status: str, reason: str = "AsExpected") -> dict[str, Any]:
    return {"type": kind, "status": status, "reason": reason, "message": "", "lastTransitionTime": "2026-03-04T10:00:00Z"}


def hosted_cluster(version_rolled_out: bool) -> dict[str, Any]:
    """A HostedCluster with its API server up (§3.1 row 4, or row 9 once the version rolled out)."""
    return {
        "metadata": {"name": "c-bench", "labels": {"osac.openshift.io/cluster-uuid": "bench"}},
        "spec": {"dns": {"baseDomain": "example.net"}},
        "status": {
            "controlPlaneEndpoint": {"host": "10.0.1.240", "port": 6443},
            "conditions": [
                _condition("InfrastructureReady", "True"),
                _condition("KubeAPIServerAvailable", "True"),
                _condition("Available", "True"),
                _condition("Degraded", "False"),
                _condition("ClusterVersionSucceeding", "True" if version_rolled_out else "Unknown",
                           "FromClusterVersion" if version_rolled_out else "StatusUnknown"),
            ],
        },
    }


def node_pool(key: str, joined: int) -> dict[str, Any]:
    """The NodePool of node set ``key`` with ``joined`` of its nodes available."""
    done = joined == NODES_PER_SET
    return {
        "metadata": {"name": f"c-bench-{key}",
                     "labels": {"osac.openshift.io/cluster-uuid": "bench", "osac.openshift.io/node-set": key}},
        "spec": {"replicas": NODES_PER_SET},
        "status": {
            "replicas": joined,
            "conditions": [
                _condition("Ready", "True") if done else _condition("Ready", "False", "WaitingForAvailableMachines"),
                _condition("AllMachinesReady", "True") if done else
                _condition("AllMachinesReady", "False", "WaitingForInfrastructure"),
                _condition("AllNodesHealthy", "True") if done else
                _condition("AllNodesHealthy", "False", "WaitingForNodeRef"),
            ],
        },
    }


def inputs(case: str, node_sets: int) -> tuple[dict[str, Any], list[dict[str, Any]], ClusterStatusView, ClusterContext]:
    """The observation, previous status and context of one case, previous derived for real."""
    keys = [f"set-{index:02d}" for index in range(node_sets)]
    context = ClusterContext(
        node_sets={key: NodeSetSpec(f"type-{index % 4}", NODES_PER_SET, "ens1f0") for index, key in enumerate(keys)},
        reserved_vips=("10.0.1.240", "10.0.1.241"),
    )
    thresholds = StallThresholds.DEFAULT
    start = derive_cluster_status(None, [], ClusterStatusView(), NOW - timedelta(minutes=30), thresholds, context)
    if case == "joining":
        pools = [node_pool(key, NODES_PER_SET if index % 2 == 0 else 1) for index, key in enumerate(keys)]
        hc = hosted_cluster(version_rolled_out=False)
        earlier = derive_cluster_status(hc, pools, start.status, NOW - timedelta(minutes=1), thresholds, context)
        return hc, pools, earlier.status, context
    if case == "settled":
        pools = [node_pool(key, NODES_PER_SET) for key in keys]
        hc = hosted_cluster(version_rolled_out=True)
        ready = derive_cluster_status(hc, pools, start.status, NOW - timedelta(minutes=1), thresholds, context)
        if ready.status.state != 2:
            raise AssertionError(f"the settled case did not reach READY: {ready.status.state}")
        return hc, pools, ready.status, context
    raise ValueError(f"unknown case {case!r}; use one of {CASES}")


def time_calls(case: str, node_sets: int, calls: int) -> list[float]:
    """Seconds per call of ``calls`` derivations of one case."""
    hc, pools, previous, context = inputs(case, node_sets)
    thresholds = StallThresholds.DEFAULT
    for _ in range(max(1, calls // 10)):
        derive_cluster_status(hc, pools, previous, NOW, thresholds, context)
    latencies: list[float] = []
    clock = time.perf_counter_ns
    for _ in range(calls):
        started = clock()
        derive_cluster_status(hc, pools, previous, NOW, thresholds, context)
        latencies.append((clock() - started) / 1e9)
    result = derive_cluster_status(hc, pools, previous, NOW, thresholds, context)
    if case == "settled" and (result.status != previous or result.events):
        raise AssertionError("the settled case is not a fixpoint")
    if len(result.status.node_sets) != node_sets:
        raise AssertionError(f"{len(result.status.node_sets)} node sets derived, {node_sets} expected")
    return latencies


def benchmark(sizes: Sequence[int] = SIZES, calls: int = 2000, cases: Sequence[str] = CASES) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for case in cases:
        for node_sets in sizes:
            latencies = time_calls(case, node_sets, calls)
            mean = sum(latencies) / len(latencies)
            rows.append({
                "case": case, "node_sets": node_sets, "node_pools": node_sets, "calls": len(latencies),
                "mean_us": round(mean * 1e6, 1), "p50_us": round(percentile(latencies, 50) * 1e6, 1),
                "p99_us": round(percentile(latencies, 99) * 1e6, 1), "per_s": round(1 / mean) if mean else 0,
            })
    return rows


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.cluster_derivation", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--sizes", nargs="+", type=int, default=list(SIZES), help="node sets per cluster (default 1 10 50)")
    parser.add_argument("--calls", type=int, default=2000, help="timed derivations per case and size (default 2000)")
    parser.add_argument("--cases", nargs="+", choices=CASES, default=list(CASES))
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)
    started = datetime.now(UTC)
    rows = benchmark(args.sizes, args.calls, args.cases)
    if args.json:
        emit_json("cluster_derivation", {"sizes": args.sizes, "calls": args.calls, "nodes_per_set": NODES_PER_SET,
                                         "started": started.isoformat()}, rows)
    else:
        print_table(f"Cluster status derivation, µs per call ({args.calls:,} calls per row, "
                    f"{NODES_PER_SET} nodes per node set, one core)", rows)


if __name__ == "__main__":
    main()
