"""List latency with a label filter over many objects (100,000 by default).

For each database: start the server (controllers off), onboard tenant ``acme`` and create one
VirtualNetwork through the API. That object's stored row is the template of ``--objects`` more,
bulk-inserted straight into the ``virtual_networks`` table through the product's own SQLAlchemy
table definition (``osac.store.tables.LIVE``), in batches in one transaction: every column as
``Tx.insert`` derives it (id a fresh UUIDv7, name, tenant, creation time, version 0, the storage
JSON in ``data``). Object ``i`` carries the label ``team=x`` when ``i % 100 == 0`` (1% match) and
``team=t<i % 97>`` otherwise, plus ``env=prod``. No outbox rows are written (List never reads
them). PostgreSQL then gets ``ANALYZE`` (what autovacuum would do shortly after such a load);
SQLite gets nothing, since the product never runs ``ANALYZE`` there.

Then, as a tenant admin of ``acme`` over gRPC and REST, with limit 100, ``--repeat`` sequential
Lists of each case: the label filter that matches 1%, the same filter matching nothing, and the
unfiltered first page. Every answer is checked (total, size, the label of every item). ``sql_p50``
is the product's own two statements for that List (``count(*)`` + the page, the filter compiled
by ``osac.filters``) run directly with SQLAlchemy: the database's share of the time.

    python -m bench.list_filter [--db sqlite postgresql] [--objects 100000] [--repeat 30] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
from sqlalchemy import Engine, create_engine, func, insert, select, text

from bench.harness import (
    DATABASES,
    PUBLIC,
    TENANT,
    CpuMeter,
    GrpcClient,
    ServerProcess,
    emit_json,
    ms,
    percentile,
    print_table,
    rest_client,
    scratch_database,
    stored_object,
    workdir,
)
from osac import filters
from osac.model import ids, registry
from osac.store.codec import format_datetime
from osac.store.engine import sync_url
from osac.store.labels import object_root
from osac.store.tables import LIVE

SERVICE = f"{PUBLIC}.VirtualNetworks"
COLLECTION = "/api/fulfillment/v1/virtual_networks"
KIND = registry.get("virtual_network")
TABLE = LIVE[KIND.name]
MATCH_EVERY = 100
LIMIT = 100
BATCH = 5000
CASES = {
    "label_1pct": "this.metadata.labels['team'] == 'x'",
    "label_none": "this.metadata.labels['team'] == 'nobody'",
    "unfiltered": "",
}
TRANSPORTS = ("grpc", "rest")


def team(index: int) -> str:
    return "x" if index % MATCH_EVERY == 0 else f"t{index % 97}"


def bulk_load(url: str, template: dict[str, Any], count: int) -> float:
    """Insert ``count`` copies of ``template``; returns the seconds it took."""
    engine = create_engine(sync_url(url))
    started = time.perf_counter()
    base = datetime.now(UTC)
    try:
        with engine.begin() as conn:
            for first in range(0, count, BATCH):
                rows = []
                for index in range(first, min(first + BATCH, count)):
                    created = base + timedelta(microseconds=index)
                    data = copy.deepcopy(template)
                    data["id"] = ids.new_id()
                    meta = data["metadata"]
                    meta["name"] = f"bulk-{index}"
                    meta["creation_timestamp"] = format_datetime(created)
                    meta["labels"] = {"team": team(index), "env": "prod"}
                    rows.append({"id": data["id"], "name": meta["name"], "tenant": TENANT,
                                 "creation_timestamp": created, "deletion_timestamp": None,
                                 "version": 0, "data": data})
                conn.execute(insert(TABLE), rows)
        if engine.dialect.name == "postgresql":
            with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
                conn.execute(text(f"ANALYZE {TABLE.name}"))
        return time.perf_counter() - started
    finally:
        engine.dispose()


def sql_list_seconds(engine: Engine, expression: str, repeat: int) -> list[float]:
    """The store's statements for one List page (``Tx.page``), timed directly."""
    conditions = [TABLE.c.tenant.in_([TENANT])]
    if expression:
        root = object_root(TABLE, KIND.public_class().DESCRIPTOR)  # as the service compiles it
        conditions.append(filters.compile_filter(expression, root, dialect=engine.dialect.name,
                                                 now=datetime.now(UTC)))
    count = select(func.count()).select_from(TABLE).where(*conditions)
    page = select(TABLE.c.data).where(*conditions).order_by(TABLE.c.id).offset(0).limit(LIMIT)
    seconds = []
    with engine.connect() as conn:
        for _ in range(repeat + 2):
            started = time.perf_counter()
            conn.execute(count).scalar_one()
            conn.execute(page).all()
            seconds.append(time.perf_counter() - started)
            conn.rollback()
    return seconds[2:]


def check(case: str, total: int, labels: list[str], objects: int, existing: int) -> None:
    """The List answer is right for ``case``: ``objects`` bulk rows plus ``existing`` objects
    made through the API (the template, the tenant's default network), none labelled team=x."""
    expected = {"label_1pct": len(range(0, objects, MATCH_EVERY)), "label_none": 0,
                "unfiltered": objects + existing}[case]
    if total != expected or len(labels) != min(LIMIT, expected):
        raise AssertionError(f"{case}: total {total}, size {len(labels)}; expected total {expected}")
    if case == "label_1pct" and any(label != "x" for label in labels):
        raise AssertionError(f"{case}: an item without team=x: {labels}")


async def timed_lists(
    server: ServerProcess, transport: str, case: str, objects: int, existing: int, repeat: int
) -> tuple[list[float], dict[str, float]]:
    token = server.tenant_token()
    expression = CASES[case]
    latencies: list[float] = []
    cpu: dict[str, float] = {}
    call: Callable[[], Any]
    if transport == "grpc":
        client = GrpcClient(server.grpc_target, token)
        list_call = client.unary(SERVICE, "List")
        fields: dict[str, Any] = {"limit": LIMIT}
        if expression:
            fields["filter"] = expression
        request = GrpcClient.request(SERVICE, "List", **fields)

        async def grpc_list() -> tuple[int, list[str]]:
            response = await list_call(request)
            return int(response.total), [item.metadata.labels.get("team", "") for item in response.items]

        call = grpc_list
        try:
            await _run(call, case, (objects, existing), repeat, latencies, cpu, server)
        finally:
            await client.close()
        return latencies, cpu

    params = {"limit": str(LIMIT), **({"filter": expression} if expression else {})}
    async with rest_client(server.http_url, token) as http:

        async def rest_list() -> tuple[int, list[str]]:
            response = await http.get(COLLECTION, params=params)
            if response.status_code != 200:
                raise httpx.HTTPStatusError(response.text, request=response.request, response=response)
            body = response.json()
            return int(body["total"]), [item["metadata"].get("labels", {}).get("team", "")
                                        for item in body.get("items", [])]

        await _run(rest_list, case, (objects, existing), repeat, latencies, cpu, server)
    return latencies, cpu


async def _run(call: Callable[[], Any], case: str, counts: tuple[int, int], repeat: int,
               latencies: list[float], cpu: dict[str, float], server: ServerProcess) -> None:
    for _ in range(2):  # warm-up: caches, prepared statements
        total, labels = await call()
        check(case, total, labels, *counts)
    with CpuMeter(server.pid, server.db_url).measure(cpu):
        for _ in range(repeat):
            started = time.perf_counter()
            total, labels = await call()
            latencies.append(time.perf_counter() - started)
            check(case, total, labels, *counts)


async def benchmark(
    databases: Sequence[str] = DATABASES,
    objects: int = 100_000,
    repeat: int = 30,
    transports: Sequence[str] = TRANSPORTS,
) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for db in databases:
        with workdir() as directory, scratch_database(db, directory) as url, ServerProcess(url, directory) as server:
            await server.onboard()
            async with rest_client(server.http_url, server.tenant_token()) as http:
                made = await http.post(COLLECTION, json={"metadata": {"name": "template"},
                                                         "spec": {"ipv4_cidr": "10.0.0.0/16"}})
                made.raise_for_status()
                before = await http.get(COLLECTION, params={"limit": "1"})
                before.raise_for_status()
                existing = int(before.json()["total"])
            load_seconds = bulk_load(url, stored_object(url, TABLE.name, "template"), objects)
            engine = create_engine(sync_url(url))
            try:
                sql = {case: sql_list_seconds(engine, expression, repeat) for case, expression in CASES.items()}
            finally:
                engine.dispose()
            for case in CASES:
                for transport in transports:
                    latencies, cpu = await timed_lists(server, transport, case, objects, existing, repeat)
                    rows.append({
                        "db": db, "objects": objects + existing, "case": case, "transport": transport,
                        "lists": len(latencies), "p50_ms": ms(percentile(latencies, 50)),
                        "p99_ms": ms(percentile(latencies, 99)), "sql_p50_ms": ms(percentile(sql[case], 50)),
                        "server_cpu": round(cpu["server"], 2),
                        "pg_cpu": round(cpu["postgres"], 2) if db == "postgresql" else "",
                        "other_cpu": round(cpu["other"], 2),
                        "load_rows_per_s": round(objects / load_seconds),
                    })
    return rows


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.list_filter", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--db", nargs="+", choices=DATABASES, default=list(DATABASES))
    parser.add_argument("--objects", type=int, default=100_000, help="objects bulk-loaded (default 100000)")
    parser.add_argument("--repeat", type=int, default=30, help="timed Lists per case and transport (default 30)")
    parser.add_argument("--transport", nargs="+", choices=TRANSPORTS, default=list(TRANSPORTS))
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)
    rows = asyncio.run(benchmark(args.db, args.objects, args.repeat, args.transport))
    if args.json:
        emit_json("list_filter", {"objects": args.objects, "repeat": args.repeat, "limit": LIMIT}, rows)
    else:
        print_table(f"List latency, limit {LIMIT}, {args.objects:,} bulk objects + those made by the API "
                    f"(1 in {MATCH_EVERY} labelled team=x)", rows)


if __name__ == "__main__":
    main()
