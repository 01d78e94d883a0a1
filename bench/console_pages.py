"""Web console page times with a fleet of READY clusters (docs/console.md, the console issue).

Setup: a server in its own process (``bench/serve.py``, reconcilers and the simulator at instant
speed) whose tenants hold ``--clusters`` READY clusters (``--clusters-per-tenant`` each: one
tenant's default subnet has VIPs for 511), made as ``bench/cluster_freshness.py`` makes them.
Then a provider admin (every tenant) and the first tenant's admin, each signed in through the
one-time code of ``osac console``, load each page ``--requests`` times one after the other; the
time is measured at the client over loopback, so it is the server's time to read through the
service layer and render, plus well under a millisecond of HTTP.

Pages: the overview (counts from grouped queries); the cluster list's first and last pages and
the list sorted by name (sorted and paged by the database through the List ``order``); a
cluster detail; the admin stalled list (a CEL ``exists`` filter in SQL). The 100 live sessions
are ``bench/console_live.py``.

    python -m bench.console_pages --db sqlite --clusters 1000
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import sys
import time
from collections.abc import Sequence
from typing import Any

import httpx

from bench.cluster_freshness import Fleet, create_clusters, onboard, tenant_names, watching
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

PER_PAGE = 20
COLUMNS = ("db", "clusters", "who", "page", "requests", "p50_ms", "p95_ms", "max_ms", "bytes")


async def signed_in(server: ServerProcess, token: str) -> httpx.AsyncClient:
    """A client holding a console session, signed in as ``osac console`` does."""
    async with httpx.AsyncClient(timeout=30) as plain:
        code = await plain.post(server.http_url + "/console/sign-in/codes", headers={"authorization": f"Bearer {token}"})
        code.raise_for_status()
    client = httpx.AsyncClient(base_url=server.http_url, timeout=60, follow_redirects=False)
    answer = await client.get(code.json()["url"])
    if answer.status_code != 303:
        raise RuntimeError(f"console sign-in failed: HTTP {answer.status_code} {answer.text[:200]}")
    return client


async def time_page(client: httpx.AsyncClient, path: str, requests: int) -> dict[str, Any]:
    times = []
    size = 0
    for _ in range(requests):
        started = time.perf_counter()
        response = await client.get(path)
        times.append(time.perf_counter() - started)
        if response.status_code != 200:
            raise RuntimeError(f"GET {path}: HTTP {response.status_code} {response.text[:300]}")
        size = len(response.content)
    times.sort()
    return {"requests": requests, "p50_ms": ms(percentile(times, 50)), "p95_ms": ms(percentile(times, 95)),
            "max_ms": ms(times[-1]), "bytes": size}


async def one_database(db: str, clusters: int, per_tenant: int, requests: int, concurrency: int,
                       ready_timeout: float) -> list[dict[str, Any]]:
    with workdir() as directory, scratch_database(db, directory) as url, \
            ServerProcess(url, directory / "data", controllers=True, bootstrap=None,
                          simulator_speed="instant") as server:
        tenants = tenant_names(clusters, per_tenant)
        await onboard(server, tenants)
        fleet = Fleet()
        async with watching(server, tenants, fleet):
            setup = await create_clusters(server, fleet, tenants, clusters, per_tenant, concurrency, ready_timeout)
        print(f"# {db}: {json.dumps(setup)}", file=sys.stderr, flush=True)  # progress
        rows = []
        who_tokens = (("admin", server.admin_token(), clusters),
                      ("tenant", server.tenant_token(tenants[0]), min(per_tenant, clusters)))
        for who, token, visible in who_tokens:
            async with httpx.AsyncClient(base_url=server.http_url, timeout=30,
                                         headers={"authorization": f"Bearer {token}"}) as api:
                a_cluster = (await api.get("/api/fulfillment/v1/clusters", params={"limit": 1})).json()["items"][0]["id"]
            client = await signed_in(server, token)
            try:
                last = max(1, math.ceil(visible / PER_PAGE))
                pages = [("overview", "/"), ("list first page", "/clusters"),
                         ("list last page", f"/clusters?page={last}"), ("list sorted by name", "/clusters?sort=name"),
                         ("cluster detail", f"/clusters/{a_cluster}")]
                if who == "admin":
                    pages.append(("admin stalled", "/admin/stalled"))
                for name, path in pages:
                    await client.get(path)  # warm: parse caches, prepared statements
                    rows.append({"db": db, "clusters": clusters, "who": who, "page": name,
                                 **await time_page(client, path, requests)})
                    print(f"# {json.dumps(rows[-1])}", file=sys.stderr, flush=True)  # progress
            finally:
                await client.aclose()
        return rows


async def benchmark(databases: Sequence[str] = DATABASES, clusters: int = 1000, clusters_per_tenant: int = 500,
                    requests: int = 50, concurrency: int = 8, ready_timeout: float = 3600.0) -> list[dict[str, Any]]:
    rows = []
    for db in databases:
        rows.extend(await one_database(db, clusters, clusters_per_tenant, requests, concurrency, ready_timeout))
    return rows


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.console_pages", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", nargs="+", choices=DATABASES, default=list(DATABASES))
    parser.add_argument("--clusters", type=int, default=1000, help="READY clusters (default 1000)")
    parser.add_argument("--clusters-per-tenant", type=int, default=500, help="clusters in each tenant (default 500, at most 511)")
    parser.add_argument("--requests", type=int, default=50, help="loads of each page (default 50)")
    parser.add_argument("--concurrency", type=int, default=8, help="clients creating the clusters (default 8)")
    parser.add_argument("--ready-timeout", type=float, default=3600.0, help="seconds to wait for READY (default 3600)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)
    if args.clusters < 1 or args.requests < 1 or not 1 <= args.clusters_per_tenant <= 511:
        parser.error("--clusters and --requests must be positive, --clusters-per-tenant 1-511")
    rows = asyncio.run(benchmark(args.db, args.clusters, args.clusters_per_tenant, args.requests, args.concurrency,
                                 args.ready_timeout))
    if args.json:
        emit_json("console_pages", {k: v for k, v in vars(args).items() if k != "json"}, rows)
        return
    print_table(f"Console page times, {args.requests} sequential loads each ({PER_PAGE} rows a page)", rows, COLUMNS)


if __name__ == "__main__":
    main()
