"""Tenant onboarding at scale: N tenants created through the API, each with its default
networking (VN, subnet, SG, NAT ExternalIP, NAT gateway) driven to READY by the reconcilers on
the simulated fabric at ``instant`` speed.

The server runs in its own process with controllers on and the packaged catalogue (a default
NetworkClass with tenant defaults and the pool ``public-v4``, which holds 254 addresses: one
per tenant's NAT gateway, so at most 254 tenants). Tenants are created by ``--concurrency``
clients; the run ends when every tenant is READY. Reported: the time until all are READY, the
create rate, and per-tenant time from create to DEFAULT_NETWORKING_READY (its condition's
``last_transition_time`` minus the tenant's ``creation_timestamp``).

    python -m bench.onboarding [--db sqlite postgresql] [--tenants 200] [--concurrency 8] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import time
from datetime import datetime
from typing import Any

from bench.harness import (
    ServerProcess,
    catalogue_ready,
    emit_json,
    percentile,
    print_table,
    rest_client,
    run_async,
    scratch_database,
    workdir,
)


def _time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


async def onboard(server: ServerProcess, tenants: int, concurrency: int) -> dict[str, Any]:
    await catalogue_ready(server)
    async with rest_client(server.http_url, server.admin_token()) as admin:
        started = time.perf_counter()

        async def create(_worker: int, index: int) -> None:
            response = await admin.post("/api/fulfillment/v1/tenants", json={"metadata": {"name": f"t{index:04d}"}})
            response.raise_for_status()

        creates = await run_async(tenants, concurrency, create)
        created_at = time.perf_counter()
        while True:
            page = (await admin.get("/api/private/v1/tenants", params={"limit": 1000})).json()
            items = page.get("items", [])
            ready = [t for t in items if t.get("status", {}).get("state") == "TENANT_STATE_READY"]
            failed = [t for t in items if t.get("status", {}).get("state") == "TENANT_STATE_FAILED"]
            if failed:
                raise RuntimeError(f"{len(failed)} tenants FAILED, e.g. {failed[0]['status']}")
            if len(ready) == tenants:
                break
            await asyncio.sleep(0.25)
        finished = time.perf_counter()
    latencies = sorted(
        (_time(t["status"]["conditions"][0]["last_transition_time"]) - _time(t["metadata"]["creation_timestamp"])).total_seconds()
        for t in ready
    )
    return {
        "tenants": tenants,
        "create_s": round(created_at - started, 2),
        "creates_per_s": round(creates.rate, 1),
        "all_ready_s": round(finished - started, 2),
        "ready_p50_s": round(percentile(latencies, 50), 2),
        "ready_p99_s": round(percentile(latencies, 99), 2),
        "ready_max_s": round(latencies[-1], 2),
    }


async def benchmark(dbs: list[str], tenants: int, concurrency: int) -> list[dict[str, Any]]:
    rows = []
    for db in dbs:
        with workdir() as directory, scratch_database(db, directory) as url, \
                ServerProcess(url, directory / "data", controllers=True, bootstrap=None, simulator_speed="instant") as server:
            rows.append({"db": db, **await onboard(server, tenants, concurrency)})
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.onboarding", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", nargs="+", default=["sqlite", "postgresql"], choices=["sqlite", "postgresql"])
    parser.add_argument("--tenants", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if not 1 <= args.tenants <= 254:
        parser.error("--tenants must be 1-254 (one NAT address per tenant from the /24 pool)")
    rows = asyncio.run(benchmark(args.db, args.tenants, args.concurrency))
    if args.json:
        emit_json("onboarding", {k: v for k, v in vars(args).items() if k != "json"}, rows)
    else:
        print_table("Tenant onboarding to READY (simulator at instant speed)", rows)


if __name__ == "__main__":
    main()
