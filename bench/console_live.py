"""Web console live sessions (docs/console.md "Live", the console issue): ``--sessions`` signed-in
sessions each hold ``GET /console/live`` (Server-Sent Events) open while clusters change, and each
must receive every change.

Setup: as ``bench/cluster_freshness.py`` (a server in its own process, reconcilers and the
simulator at instant speed, ``--clusters`` READY clusters, ``--clusters-per-tenant`` each), plus
its gRPC Watch stream, which tells when a change has reached the stored status and at which
``metadata.version``. Then ``--sessions`` provider admins (every tenant) sign in through the
one-time code of ``osac console`` and each opens the console's live stream; the phase starts when
every stream has answered.

Changes: the freshness benchmark's injector (``cluster_freshness.inject``): ``--rate`` changes per
second for ``--duration`` seconds, each setting or clearing the simulator fault ``hc_degraded`` on
a random idle READY cluster, so each is one status write of that cluster.

Measured, per session and change: the time from the fault call's send to the arrival, on that
session's stream, of the first ``change`` event of the cluster at the version (or later) that
carried the change on the Watch stream. Reported over every (session, change) pair: p50 / p99 /
max, the worst session's p99, the pairs never delivered within ``--settle`` seconds (``missed``),
and the CPU (cores) of the server, of this load process and of the rest of the machine over the
phase, as in the other benchmarks.

    python -m bench.console_live --db sqlite --clusters 1000 --sessions 100 --rate 10 --duration 60
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx

from bench.cluster_freshness import Change, Fleet, create_clusters, inject, onboard, tenant_names, watching
from bench.console_pages import signed_in
from bench.harness import (
    DATABASES,
    ServerProcess,
    emit_json,
    ms,
    percentile,
    print_table,
    scratch_database,
    workdir,
)


@dataclass
class VersionedFleet(Fleet):
    """The freshness benchmark's fleet, also remembering the version that delivered each change."""

    #: Each change the Watch stream delivered, with the version of the update that carried it.
    delivered: list[tuple[Change, int]] = field(default_factory=list)

    def arrived(self, cluster: Any, arrived: float) -> None:
        change = self.in_flight.get(str(cluster.id))
        pending = change is not None and math.isnan(change.delivered)
        super().arrived(cluster, arrived)
        if pending and change is not None and not math.isnan(change.delivered):
            self.delivered.append((change, int(cluster.metadata.version)))


@dataclass
class Session:
    """One console session's live stream: per cluster, each (version, arrival) it was told of."""

    number: int
    seen: dict[str, list[tuple[int, float]]] = field(default_factory=dict)
    opened: asyncio.Event = field(default_factory=asyncio.Event)
    events: int = 0
    error: str = ""

    def arrival(self, cluster_id: str, version: int, after: float) -> float:
        """When the first event of ``cluster_id`` at ``version`` or later arrived after ``after``
        (NaN when none did)."""
        return min((at for v, at in self.seen.get(cluster_id, ()) if v >= version and at >= after), default=math.nan)


async def follow(client: httpx.AsyncClient, session: Session) -> None:
    """Read the session's ``/console/live`` until cancelled, recording every cluster change."""
    try:
        async with client.stream("GET", "/console/live", timeout=httpx.Timeout(30, read=None)) as response:
            if response.status_code != 200:
                session.error = f"GET /console/live: HTTP {response.status_code}"
                session.opened.set()
                return
            data = ""
            async for line in response.aiter_lines():
                session.opened.set()
                if line.startswith("data: "):
                    data = line[6:]
                elif not line and data:
                    arrived = time.perf_counter()
                    change = json.loads(data)
                    data = ""
                    session.events += 1
                    if change.get("kind") == "cluster":
                        session.seen.setdefault(change["id"], []).append((int(change["version"]), arrived))
            session.error = "the live stream ended"
    except httpx.HTTPError as error:
        session.error = f"{type(error).__name__}: {error}"
    finally:
        session.opened.set()


def process_cpu_seconds() -> float:
    times = os.times()
    return times.user + times.system


def latencies(sessions: Sequence[Session], changes: Sequence[tuple[Change, int]]) -> dict[str, Any]:
    """Delivery latencies over every (session, change) pair, and per session."""
    every: list[float] = []
    worst = 0.0
    missed = 0
    for session in sessions:
        own = []
        for change, version in changes:
            arrived = session.arrival(change.cluster_id, version, change.sent)
            if math.isnan(arrived):
                missed += 1
            else:
                own.append(arrived - change.sent)
        every += own
        if own:
            worst = max(worst, percentile(sorted(own), 99))
    every.sort()
    return {"pairs": len(every), "missed": missed, "p50_ms": ms(percentile(every, 50)),
            "p99_ms": ms(percentile(every, 99)), "max_ms": ms(every[-1] if every else math.nan),
            "worst_session_p99_ms": ms(worst)}


async def one_database(db: str, clusters: int, per_tenant: int, sessions: int, rate: float, duration: float,
                       concurrency: int, settle: float, ready_timeout: float, seed: int) -> dict[str, Any]:
    with workdir() as directory, scratch_database(db, directory) as url, \
            ServerProcess(url, directory / "data", controllers=True, bootstrap=None,
                          simulator_speed="instant") as server:
        tenants = tenant_names(clusters, per_tenant)
        await onboard(server, tenants)
        fleet = VersionedFleet()
        async with watching(server, tenants, fleet):
            setup = await create_clusters(server, fleet, tenants, clusters, per_tenant, concurrency, ready_timeout)
            print(f"# {db}: {json.dumps(setup)}", file=sys.stderr, flush=True)  # progress
            clients: list[httpx.AsyncClient] = []
            live = [Session(n) for n in range(sessions)]
            readers = []
            try:
                for session in live:
                    # each stream opens right after its sign-in, on the connection the sign-in used,
                    # before the server closes it as idle
                    clients.append(await signed_in(server, server.admin_token()))
                    readers.append(asyncio.create_task(follow(clients[-1], session)))
                async with asyncio.timeout(60):
                    await asyncio.gather(*(s.opened.wait() for s in live))
                refused = sorted({s.error for s in live if s.error})
                if refused:
                    raise RuntimeError(f"live streams refused: {'; '.join(refused)[:300]}")
                fleet.idle = sorted(set(fleet.ready_at) - set(fleet.in_flight))
                load = time.perf_counter()
                before = process_cpu_seconds()
                phase = await inject(server, fleet, rate, duration, settle, seed)
                delivered = list(fleet.delivered)
                # the sessions may still be receiving the last changes
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(settle):
                        while any(math.isnan(s.arrival(c.cluster_id, v, c.sent)) for s in live for c, v in delivered):
                            await asyncio.sleep(0.2)
                client_cpu = (process_cpu_seconds() - before) / (time.perf_counter() - load)
            finally:
                for reader in readers:
                    reader.cancel()
                await asyncio.gather(*readers, return_exceptions=True)
                for client in clients:
                    await client.aclose()
        errors = sorted({s.error for s in live if s.error and s.error != "the live stream ended"})
        return {"db": db, "clusters": clusters, "sessions": sessions, "rate": rate, "duration_s": duration,
                "changes": phase["changes"], "delivered": len(delivered), "skipped": phase["skipped"],
                **latencies(live, delivered), "watch_p99_ms": phase["e2e_p99_ms"],
                "events_per_session": round(sum(s.events for s in live) / max(1, sessions)),
                "server_cpu": phase["server_cpu"], "client_cpu": round(client_cpu, 2),
                "pg_cpu": phase["pg_cpu"], "other_cpu": phase["other_cpu"], "load_avg": _load_average(),
                "errors": "; ".join([*errors, phase["errors"]]).strip("; ")[:160]}


def _load_average() -> str:
    return " ".join(f"{value:.1f}" for value in os.getloadavg())


async def benchmark(databases: Sequence[str] = DATABASES, clusters: int = 1000, clusters_per_tenant: int = 500,
                    sessions: int = 100, rate: float = 10.0, duration: float = 60.0, concurrency: int = 8,
                    settle: float = 30.0, ready_timeout: float = 3600.0, seed: int = 17) -> list[dict[str, Any]]:
    """One fleet and one change phase per database, each on a fresh server; one row each."""
    return [await one_database(db, clusters, clusters_per_tenant, sessions, rate, duration, concurrency, settle,
                               ready_timeout, seed) for db in databases]


COLUMNS = ("db", "clusters", "sessions", "rate", "duration_s", "changes", "delivered", "pairs", "missed", "p50_ms",
           "p99_ms", "max_ms", "worst_session_p99_ms", "watch_p99_ms", "server_cpu", "client_cpu", "pg_cpu",
           "other_cpu", "load_avg", "errors")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.console_live", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", nargs="+", choices=DATABASES, default=list(DATABASES))
    parser.add_argument("--clusters", type=int, default=1000, help="READY clusters (default 1000)")
    parser.add_argument("--clusters-per-tenant", type=int, default=500, help="clusters in each tenant (default 500, at most 511)")
    parser.add_argument("--sessions", type=int, default=100, help="console sessions holding the live stream (default 100)")
    parser.add_argument("--rate", type=float, default=10.0, help="changes per second (default 10)")
    parser.add_argument("--duration", type=float, default=60.0, help="seconds of changes (default 60)")
    parser.add_argument("--concurrency", type=int, default=8, help="clients creating the clusters (default 8)")
    parser.add_argument("--settle", type=float, default=30.0, help="seconds to wait for the last deliveries (default 30)")
    parser.add_argument("--ready-timeout", type=float, default=3600.0, help="seconds to wait for READY (default 3600)")
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)
    if min(args.clusters, args.sessions) < 1 or args.rate <= 0 or args.duration <= 0 \
            or not 1 <= args.clusters_per_tenant <= 511:
        parser.error("--clusters, --sessions, --rate and --duration must be positive, --clusters-per-tenant 1-511")
    rows = asyncio.run(benchmark(args.db, args.clusters, args.clusters_per_tenant, args.sessions, args.rate,
                                 args.duration, args.concurrency, args.settle, args.ready_timeout, args.seed))
    if args.json:
        emit_json("console_live", {k: v for k, v in vars(args).items() if k != "json"}, rows)
        return
    print_table(f"Console live sessions: delivery from the change to each session's event, "
                f"{args.rate:g} changes/s for {args.duration:g} s", rows, COLUMNS)


if __name__ == "__main__":
    main()
