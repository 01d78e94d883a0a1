"""Latency from commit to delivery on the change stream, with 1, 100 and 1,000 watchers.

For each database and each watcher count W: start the server (controllers off), onboard tenant
``acme``, open W public watch streams as a tenant admin of ``acme`` (gRPC ``Events.Watch`` by
default, ``--transport rest`` for the NDJSON stream ``/api/events/v1/events``), each resuming from
the revision of a List made just before, so that none can miss an event while it connects. A
marker object is created and awaited on every stream (all streams are live), then one writer
creates VirtualNetworks at ``--rate`` per second for ``--duration`` seconds on a fixed schedule.

Latency of one delivery = arrival time on the watcher − the object's
``metadata.creation_timestamp`` (set by the server inside the Create transaction, same host
clock). It therefore includes the rest of that transaction and its commit (see the writer's
Create latency) and the client's own time to take the message off the socket. ``from_ack`` is
arrival − the moment the writer's Create call returned (negative: the event came first).

    python -m bench.watch_latency [--db sqlite postgresql] [--watchers 1 100 1000] [--rate 20]
                                  [--duration 10] [--transport grpc|rest] [--workers 1 2] [--json]

With ``--workers N`` above 1 the server is ``osac serve --workers N`` (PostgreSQL only; SQLite
rows are run with one process): the streams' connections are spread over the processes by the
kernel (SO_REUSEPORT), each process serving its streams from its own window of the outbox.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import grpc
import httpx
from google.protobuf import json_format

from bench.harness import (
    DATABASES,
    PUBLIC,
    CpuMeter,
    GrpcClient,
    ServerProcess,
    collector_paused,
    emit_json,
    ms,
    percentile,
    pg_transactions,
    print_table,
    scratch_database,
    workdir,
)
from osac.model import protos

TRANSPORTS = ("grpc", "rest")
NETWORKS = f"{PUBLIC}.VirtualNetworks"
EVENTS = f"{PUBLIC}.Events"
WATCH_PATH = "/api/events/v1/events"
#: Seconds for PostgreSQL backends to publish their transaction counts.
STATS_FLUSH = 1.5
#: gRPC streams multiplexed on one channel (one HTTP/2 connection).
STREAMS_PER_CHANNEL = 100


@dataclass
class Watcher:
    """One stream's arrivals: (object id, creation time, arrival time), in order."""

    arrivals: list[tuple[str, float, float]] = field(default_factory=list)
    error: str = ""
    got_marker: asyncio.Event = field(default_factory=asyncio.Event)  # any event arrived


def _grpc_arrival(watcher: Watcher, response: Any, arrived: float) -> None:
    network = response.event.virtual_network
    watcher.arrivals.append((network.id, network.metadata.creation_timestamp.ToNanoseconds() / 1e9, arrived))


def _rest_arrival(watcher: Watcher, line: str, arrived: float) -> None:
    body = json.loads(line)
    if "error" in body:
        raise RuntimeError(f"stream ended with {body['error']}")
    network = body["result"]["event"].get("virtual_network", {})
    created = datetime.fromisoformat(network["metadata"]["creation_timestamp"]).timestamp()
    watcher.arrivals.append((network["id"], created, arrived))


async def watch_grpc(client: GrpcClient, after: int, watcher: Watcher) -> None:
    call = client.stream(EVENTS, "Watch", GrpcClient.request(EVENTS, "Watch", after_revision=after))
    try:
        async for response in call:
            _grpc_arrival(watcher, response, time.time())
            watcher.got_marker.set()
    except grpc.aio.AioRpcError as error:
        if error.code() != grpc.StatusCode.CANCELLED:
            watcher.error = f"{error.code().name}: {error.details()}"
    finally:
        call.cancel()


async def watch_rest(base_url: str, token: str, after: int, watcher: Watcher) -> None:
    headers = {"authorization": f"Bearer {token}"}
    try:
        async with (
            httpx.AsyncClient(base_url=base_url, headers=headers, timeout=None) as http,
            http.stream("GET", WATCH_PATH, params={"after_revision": str(after)}) as response,
        ):
            if response.status_code != 200:
                watcher.error = f"HTTP {response.status_code}: {(await response.aread())[:200]!r}"
                return
            async for line in response.aiter_lines():
                if line.strip():
                    _rest_arrival(watcher, line, time.time())
                    watcher.got_marker.set()
    except (httpx.HTTPError, RuntimeError) as error:
        watcher.error = str(error)


async def one_size(server: ServerProcess, watchers: int, rate: float, duration: float, transport: str,
                   settle: float) -> dict[str, Any]:
    """W watchers, one writer at ``rate`` for ``duration`` s; the row of results."""
    token = server.tenant_token()
    writer = GrpcClient(server.grpc_target, token)
    create = writer.unary(NETWORKS, "Create")
    network_cls = protos.message_class(f"{PUBLIC}.VirtualNetwork")
    stamp = time.monotonic_ns()

    write_errors: list[str] = []

    async def make(name: str) -> tuple[str, float, float]:
        """Create one object: (id, Create latency, when the answer came); id "" if it failed."""
        obj = json_format.ParseDict({"metadata": {"name": name}, "spec": {"ipv4_cidr": "10.0.0.0/16"}}, network_cls())
        sent = time.perf_counter()
        try:
            response = await create(GrpcClient.request(NETWORKS, "Create", object=obj))
        except grpc.aio.AioRpcError as error:
            write_errors.append(f"Create {error.code().name}: {error.details()}")
            return "", time.perf_counter() - sent, time.time()
        return response.object.id, time.perf_counter() - sent, time.time()

    listing = await writer.unary(NETWORKS, "List")(GrpcClient.request(NETWORKS, "List", limit=1))
    after = int(listing.revision)
    transactions_start = pg_transactions(server.db_url)
    streams = [Watcher() for _ in range(watchers)]
    channels = [GrpcClient(server.grpc_target, token)
                for _ in range(math.ceil(watchers / STREAMS_PER_CHANNEL))] if transport == "grpc" else []
    tasks = [
        asyncio.create_task(
            watch_grpc(channels[index // STREAMS_PER_CHANNEL], after, watcher) if transport == "grpc"
            else watch_rest(server.http_url, token, after, watcher)
        )
        for index, watcher in enumerate(streams)
    ]
    try:
        marker_id = (await make(f"marker-{stamp}"))[0]
        connect_started = time.perf_counter()
        deadline = time.perf_counter() + 120
        while not all(w.got_marker.is_set() or t.done() for w, t in zip(streams, tasks, strict=True)):
            if time.perf_counter() > deadline:
                raise TimeoutError("the watch streams did not all deliver the marker within 120 s")
            await asyncio.sleep(0.05)
        connect_seconds = time.perf_counter() - connect_started
        await asyncio.sleep(STATS_FLUSH)
        transactions_before = pg_transactions(server.db_url)
        count = max(1, round(rate * duration))
        acks: dict[str, float] = {}
        create_latencies: list[float] = []
        cpu: dict[str, float] = {}
        with collector_paused(), CpuMeter(server.pid, server.db_url).measure(cpu):
            started = time.perf_counter()
            pending = []
            for index in range(count):
                delay = started + index / rate - time.perf_counter()
                if delay > 0:
                    await asyncio.sleep(delay)
                pending.append(asyncio.create_task(make(f"w{stamp}-{index}")))
            for object_id, latency, acked in await asyncio.gather(*pending):
                create_latencies.append(latency)
                if object_id:
                    acks[object_id] = acked
            write_time = time.perf_counter() - started
            deadline = time.perf_counter() + settle
            while time.perf_counter() < deadline and any(
                len(w.arrivals) < len(acks) + 1 and not w.error for w in streams
            ):
                await asyncio.sleep(0.05)
        await asyncio.sleep(STATS_FLUSH)
        transactions_after = pg_transactions(server.db_url)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await asyncio.gather(writer.close(), *(channel.close() for channel in channels))

    latencies: list[float] = []
    from_ack: list[float] = []
    delivered = 0
    for watcher in streams:
        seen = [arrival for arrival in watcher.arrivals if arrival[0] != marker_id]
        delivered += len({object_id for object_id, _, _ in seen if object_id in acks})
        for object_id, created, arrived in seen:
            if object_id in acks:
                latencies.append(arrived - created)
                from_ack.append(arrived - acks[object_id])
    errors = sorted({w.error for w in streams if w.error} | set(write_errors))
    return {
        "watchers": watchers, "transport": transport, "events": count,
        "write_rate": round(count / write_time, 1),
        "delivered": delivered, "expected": len(acks) * watchers, "failed_writes": count - len(acks),
        "p50_ms": ms(percentile(latencies, 50)), "p99_ms": ms(percentile(latencies, 99)),
        "max_ms": ms(max(latencies, default=math.nan)),
        "from_ack_p50_ms": ms(percentile(from_ack, 50)),
        "create_p50_ms": ms(percentile(create_latencies, 50)), "create_p99_ms": ms(percentile(create_latencies, 99)),
        "connect_s": round(connect_seconds, 2),
        "db_tx_connect": transactions_before - transactions_start
        if transactions_before is not None and transactions_start is not None else "",
        "db_tx_per_event": round((transactions_after - transactions_before) / max(1, len(acks)), 1)
        if transactions_before is not None and transactions_after is not None else "",
        "server_cpu": round(cpu["server"], 2), "client_cpu": round(cpu["client"], 2),
        "pg_cpu": round(cpu["postgres"], 2) if server.db_url.startswith("postgresql") else "",
        "other_cpu": round(cpu["other"], 2),
        "errors": "; ".join(errors)[:120],
    }


async def benchmark(
    databases: Sequence[str] = DATABASES,
    watcher_counts: Sequence[int] = (1, 100, 1000),
    rate: float = 20.0,
    duration: float = 10.0,
    transport: str = "grpc",
    settle: float = 30.0,
    workers: Sequence[int] = (1,),
) -> list[dict[str, Any]]:
    """Each watcher count on each database with each number of server processes, a fresh
    server each time; one row per run (SQLite: one process only)."""
    rows: list[dict[str, Any]] = []
    for db in databases:
        for count in sorted({1 if db == "sqlite" else count for count in workers}):
            for watchers in watcher_counts:
                with workdir() as directory, scratch_database(db, directory) as url, \
                        ServerProcess(url, directory, workers=count) as server:
                    await server.onboard()
                    row = {"db": db, "workers": count,
                           **await one_size(server, watchers, rate, duration, transport, settle)}
                    print(f"# {json.dumps(row)}", file=sys.stderr, flush=True)  # progress
                    rows.append(row)
    return rows


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.watch_latency", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--db", nargs="+", choices=DATABASES, default=list(DATABASES))
    parser.add_argument("--watchers", nargs="+", type=int, default=[1, 100, 1000], help="watcher counts to run")
    parser.add_argument("--rate", type=float, default=20.0, help="creates per second (default 20)")
    parser.add_argument("--duration", type=float, default=10.0, help="seconds of writing (default 10)")
    parser.add_argument("--transport", choices=TRANSPORTS, default="grpc")
    parser.add_argument("--settle", type=float, default=30.0,
                        help="seconds to wait after the last write for stragglers (default 30)")
    parser.add_argument("--workers", nargs="+", type=int, default=[1],
                        help="server processes on the same ports (osac serve --workers; above 1 on PostgreSQL only)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)
    rows = asyncio.run(benchmark(args.db, args.watchers, args.rate, args.duration, args.transport, args.settle,
                                 args.workers))
    if args.json:
        emit_json("watch_latency", {k: v for k, v in vars(args).items() if k != "json"}, rows)
    else:
        print_table(f"Watch latency: {args.rate:g} creates/s for {args.duration:g} s, {args.transport} "
                    "streams (latency: creation_timestamp -> arrival)", rows)


if __name__ == "__main__":
    main()
