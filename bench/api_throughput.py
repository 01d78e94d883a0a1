"""Creates/s and gets/s of a tenant object through the API, against the raw-database ceiling.

For each database: start the server (``bench/serve.py``, controllers off), onboard tenant ``acme``
as the provider admin, then as a tenant admin of ``acme`` create ``--ops`` VirtualNetworks and get
``--ops`` of them by id, with ``--concurrency`` closed-loop clients (each on its own gRPC channel or
HTTP connection), over gRPC and over REST.

The ``h2load`` path gets one object over gRPC with nghttp2's load generator, written in C
(Debian's ``nghttp2-client``), ``--concurrency`` connections of one call at a time: the same
calls as the ``grpc`` path's gets for a fraction of the client's CPU, which on a small machine
would otherwise take cores from the server. Its ``client_cpu`` is h2load's. Each response is
checked by its size: an error carries no message, only a status. ``h2load-rest`` does the same
over REST (HTTP/1.1 keep-alive connections), each answer checked by its status and size.

The raw ceiling does the same writes and reads with the plain driver (``sqlite3`` / ``psycopg``,
one connection per client thread) on a fresh database migrated by the project's own migrations:
per create, one transaction with the object row, the revision-counter increment and the outbox
event (plus ``pg_notify`` on PostgreSQL, as the store does), with the very row the API stored as
the template; per get, the point select by id and tenant, JSON decoded.

    python -m bench.api_throughput [--db sqlite postgresql] [--transport grpc rest h2load h2load-rest] [--ops 2000]
                                   [--concurrency 8] [--workers 1 2] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import copy
import json
import random
import re
import shutil
import sqlite3
import struct
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import psycopg
from google.protobuf import json_format
from psycopg.types.json import Jsonb

from bench.harness import (
    DATABASES,
    PUBLIC,
    TENANT,
    CpuMeter,
    GrpcClient,
    Run,
    ServerProcess,
    driver_dsn,
    emit_json,
    ms,
    percentile,
    print_table,
    rest_client,
    run_async,
    run_threads,
    scratch_database,
    stored_object,
    workdir,
)
from osac.model import ids, protos
from osac.store.codec import format_datetime
from osac.store.engine import migrate

TRANSPORTS = ("grpc", "rest", "h2load", "h2load-rest")
#: What runs without ``--transport``: h2load is a program of its own, asked for by name.
DEFAULT_TRANSPORTS = ("grpc", "rest")
SERVICE = f"{PUBLIC}.VirtualNetworks"
COLLECTION = "/api/fulfillment/v1/virtual_networks"
KIND = "virtual_network"
TABLE = "virtual_networks"


def network_body(prefix: str, index: int) -> dict[str, Any]:
    """A VirtualNetwork Create body (public API JSON); names are unique per ``prefix``."""
    return {
        "metadata": {"name": f"{prefix}-{index}"},
        "spec": {"ipv4_cidr": f"10.{index // 256 % 256}.{index % 256}.0/24"},
    }


# -- through the API -----------------------------------------------------------------------------


async def api_phase(server: ServerProcess, transport: str, ops: int, concurrency: int) -> tuple[Run | None, Run]:
    """Timed creates then timed gets, by ``concurrency`` clients of ``transport`` (h2load's:
    gets only)."""
    token = server.tenant_token()
    meter = CpuMeter(server.pid, server.db_url)
    if transport.startswith("h2load"):
        return None, await h2load_gets(server, token, meter, ops, concurrency, rest=transport == "h2load-rest")
    if transport == "grpc":
        clients = [GrpcClient(server.grpc_target, token) for _ in range(concurrency)]
        creates = [client.unary(SERVICE, "Create") for client in clients]
        gets = [client.unary(SERVICE, "Get") for client in clients]
        network_cls = protos.message_class(f"{PUBLIC}.VirtualNetwork")
        ids_made: list[str] = []

        async def create(worker: int, index: int) -> None:
            obj = json_format.ParseDict(network_body("grpc", index), network_cls())
            response = await creates[worker](GrpcClient.request(SERVICE, "Create", object=obj))
            ids_made.append(response.object.id)

        async def get(worker: int, index: int) -> None:
            response = await gets[worker](GrpcClient.request(SERVICE, "Get", id=ids_made[index % len(ids_made)]))
            assert response.object.id

        try:
            return await _create_then_get(meter, ops, concurrency, create, get)
        finally:
            await asyncio.gather(*(client.close() for client in clients))

    async with contextlib.AsyncExitStack() as stack:
        https = [await stack.enter_async_context(rest_client(server.http_url, token)) for _ in range(concurrency)]
        return await _rest_phase(meter, https, ops, concurrency)


async def _rest_phase(meter: CpuMeter, https: list[httpx.AsyncClient], ops: int, concurrency: int) -> tuple[Run, Run]:
    rest_ids: list[str] = []

    async def rest_create(worker: int, index: int) -> None:
        response = await https[worker].post(COLLECTION, json=network_body("rest", index))
        if response.status_code != 200:
            raise RuntimeError(f"create failed: {response.status_code} {response.text}")
        rest_ids.append(response.json()["id"])

    async def rest_get(worker: int, index: int) -> None:
        response = await https[worker].get(f"{COLLECTION}/{rest_ids[index % len(rest_ids)]}")
        if response.status_code != 200:
            raise RuntimeError(f"get failed: {response.status_code} {response.text}")

    return await _create_then_get(meter, ops, concurrency, rest_create, rest_get)


async def _create_then_get(
    meter: CpuMeter, ops: int, concurrency: int, create: Callable[..., Any], get: Callable[..., Any]
) -> tuple[Run, Run]:
    warmup = 2 * concurrency  # connections up, statements prepared, code paths imported
    await run_async(warmup, concurrency, lambda worker, index: create(worker, ops + index))
    cpu: dict[str, float] = {}
    with meter.measure(cpu):
        created = await run_async(ops, concurrency, create)
    created.cpu = cpu
    await run_async(warmup, concurrency, get)
    cpu = {}
    with meter.measure(cpu):
        got = await run_async(ops, concurrency, get)
    got.cpu = cpu
    return created, got


async def h2load_gets(
    server: ServerProcess, token: str, meter: CpuMeter, ops: int, concurrency: int, rest: bool = False
) -> Run:
    """``ops`` Gets of one VirtualNetwork by h2load, over gRPC or REST (see the module's
    docstring)."""
    h2load = shutil.which("h2load")
    if h2load is None:
        raise SystemExit("--transport h2load needs h2load on the PATH (Debian: apt-get install nghttp2-client)")
    # The object, and the size of the answer to a get of it (gRPC: the message with its 5-byte prefix).
    client = GrpcClient(server.grpc_target, token)
    try:
        body = json_format.ParseDict(network_body("h2load-rest" if rest else "h2load", 0),
                                     protos.message_class(f"{PUBLIC}.VirtualNetwork")())
        created = await client.unary(SERVICE, "Create")(GrpcClient.request(SERVICE, "Create", object=body))
        request = GrpcClient.request(SERVICE, "Get", id=created.object.id)
        if not rest:
            answer = 5 + len((await client.unary(SERVICE, "Get")(request)).SerializeToString())
    finally:
        await client.close()
    url = f"{server.http_url}{COLLECTION}/{created.object.id}"
    if rest:
        async with rest_client(server.http_url, token) as http:
            answer = len((await http.get(url)).content)
    with tempfile.TemporaryDirectory(prefix="osac-h2load-") as directory:
        data, log = Path(directory) / "get", Path(directory) / "log"
        options = ["-c", str(concurrency), "-m", "1", "-t", "1", "--log-file", str(log),
                   "-H", f"authorization: Bearer {token}"]
        if rest:
            options += ["--h1", url]
        else:
            message = request.SerializeToString()
            data.write_bytes(b"\0" + struct.pack(">I", len(message)) + message)  # gRPC's length-prefixed message
            options += ["-d", str(data), "-H", "content-type: application/grpc", "-H", "te: trailers",
                        f"http://{server.grpc_target}/{SERVICE}/Get"]

        def run(count: int) -> Run:
            log.unlink(missing_ok=True)  # h2load appends to its log
            output = subprocess.run([h2load, "-n", str(count), *options], check=True, capture_output=True,
                                    text=True).stdout
            return _h2load_run(output, log.read_text(), count, answer)

        await asyncio.to_thread(run, 2 * concurrency)  # connections up, statements prepared
        cpu: dict[str, float] = {}
        with meter.measure(cpu):
            got = await asyncio.to_thread(run, ops)
        got.cpu = cpu
        return got


def _h2load_run(output: str, log: str, count: int, answer: int) -> Run:
    """The Run of one h2load invocation of ``count`` calls, from its report and its log (a line
    per call: start µs, HTTP status, µs to the end of the answer); every call must have been
    answered with status 200 and ``answer`` bytes (a gRPC error's answer is a status alone)."""
    finished = re.search(r"finished in ([\d.]+)(m?s)", output)
    data = re.search(r"traffic: .*?, .*?, \S+ \((\d+)\) data", output)
    lines = [line.split("\t") for line in log.splitlines() if line]
    if finished is None or data is None or len(lines) != count:
        raise RuntimeError(f"h2load: {count} calls asked, its report says otherwise:\n{output}")
    if any(status != "200" for _, status, _ in lines) or int(data.group(1)) != count * answer:
        raise RuntimeError(f"h2load: not every call was answered with the object ({count} x {answer} bytes):"
                           f"\n{output}")
    elapsed = float(finished.group(1)) / (1000 if finished.group(2) == "ms" else 1)
    return Run(elapsed, [int(micros) / 1e6 for _, _, micros in lines])


# -- the raw-database ceiling --------------------------------------------------------------------


def _object(template: dict[str, Any], index: int, now: datetime) -> dict[str, Any]:
    data = copy.deepcopy(template)
    data["id"] = ids.new_id()
    data["metadata"]["name"] = f"raw-{index}"
    data["metadata"]["creation_timestamp"] = format_datetime(now)
    return data


INSERT_OBJECT = (
    f"INSERT INTO {TABLE} (id, name, tenant, creation_timestamp, deletion_timestamp, version, data) "
    "VALUES ({p}, {p}, {p}, {p}, NULL, 0, {p})"
)
BUMP_REVISION = "UPDATE revision_counter SET value = value + 1 WHERE id = 1 RETURNING value"
INSERT_EVENT = (
    "INSERT INTO events (revision, type, kind, object_id, tenant, timestamp, data) "
    "VALUES ({p}, 1, {p}, {p}, {p}, {p}, {p})"
)
POINT_SELECT = f"SELECT data FROM {TABLE} WHERE id = {{p}} AND tenant IN ({{p}})"


class RawSqlite:
    """The store's write and read with ``sqlite3``, connection settings as the product's."""

    def __init__(self, path: str, connections: int) -> None:
        self.conns = [self._connect(path) for _ in range(connections)]

    @staticmethod
    def _connect(path: str) -> sqlite3.Connection:
        conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=30)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA busy_timeout=30000")
        conn.execute("PRAGMA synchronous=NORMAL")
        return conn

    def create(self, worker: int, data: dict[str, Any], now: datetime) -> None:
        conn = self.conns[worker]
        stamp = now.strftime("%Y-%m-%d %H:%M:%S.%f")  # SQLAlchemy's SQLite DATETIME text
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.execute(INSERT_OBJECT.format(p="?"), (data["id"], data["metadata"]["name"], TENANT, stamp,
                                                       json.dumps(data)))
            revision = conn.execute(BUMP_REVISION).fetchone()[0]
            conn.execute(INSERT_EVENT.format(p="?"), (revision, KIND, data["id"], TENANT, stamp, json.dumps(data)))
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    def get(self, worker: int, object_id: str) -> dict[str, Any]:
        row = self.conns[worker].execute(POINT_SELECT.format(p="?"), (object_id, TENANT)).fetchone()
        return dict(json.loads(row[0]))

    def close(self) -> None:
        for conn in self.conns:
            conn.close()


class RawPostgres:
    """The store's write (READ COMMITTED, ``pg_notify`` before commit) and read with psycopg."""

    def __init__(self, dsn: str, connections: int) -> None:
        self.writers = [psycopg.connect(dsn) for _ in range(connections)]
        self.readers = [psycopg.connect(dsn, autocommit=True) for _ in range(connections)]

    def create(self, worker: int, data: dict[str, Any], now: datetime) -> None:
        conn = self.writers[worker]
        with conn.transaction():
            conn.execute(INSERT_OBJECT.format(p="%s"), (data["id"], data["metadata"]["name"], TENANT, now, Jsonb(data)))
            row = conn.execute(BUMP_REVISION).fetchone()
            assert row is not None
            conn.execute(INSERT_EVENT.format(p="%s"), (row[0], KIND, data["id"], TENANT, now, Jsonb(data)))
            conn.execute("SELECT pg_notify('osac_events', %s)", (str(row[0]),))

    def get(self, worker: int, object_id: str) -> dict[str, Any]:
        row = self.readers[worker].execute(POINT_SELECT.format(p="%s"), (object_id, TENANT)).fetchone()
        assert row is not None
        return dict(row[0])

    def close(self) -> None:
        for conn in (*self.writers, *self.readers):
            conn.close()


def raw_phase(db: str, directory: Path, template: dict[str, Any], ops: int, concurrency: int) -> tuple[Run, Run]:
    with scratch_database(db, directory) as url:
        migrate(url)
        raw: RawSqlite | RawPostgres = (
            RawSqlite(driver_dsn(url), concurrency) if db == "sqlite" else RawPostgres(driver_dsn(url), concurrency)
        )
        made: list[str] = []
        meter = CpuMeter(server_pid=0, db_url=url)

        def create(worker: int, index: int) -> None:
            now = datetime.now(UTC)
            data = _object(template, index, now)
            raw.create(worker, data, now)
            made.append(data["id"])

        def get(worker: int, index: int) -> None:
            assert raw.get(worker, made[index % len(made)])["id"]

        try:
            run_threads(2 * concurrency, concurrency, lambda worker, index: create(worker, ops + index))
            cpu: dict[str, float] = {}
            with meter.measure(cpu):
                created = run_threads(ops, concurrency, create)
            created.cpu = cpu
            random.shuffle(made)
            cpu = {}
            with meter.measure(cpu):
                got = run_threads(ops, concurrency, get)
            got.cpu = cpu
            return created, got
        finally:
            raw.close()


# -- the benchmark -------------------------------------------------------------------------------


def _row(db: str, path: str, op: str, run: Run, concurrency: int, raw: Run | None) -> dict[str, Any]:
    return {
        "db": db, "path": path, "op": op, "ops": len(run.latencies), "clients": concurrency,
        "ops_per_s": round(run.rate, 1),
        "p50_ms": ms(percentile(run.latencies, 50)), "p99_ms": ms(percentile(run.latencies, 99)),
        # The API's rate as a percentage of the raw driver's rate for the same operation.
        "pct_of_raw": round(100 * run.rate / raw.rate, 2) if raw is not None else "",
        "server_cpu": round(run.cpu.get("server", 0.0), 2), "client_cpu": round(run.cpu.get("client", 0.0), 2),
        "pg_cpu": round(run.cpu.get("postgres", 0.0), 2) if db == "postgresql" else "",
        "other_cpu": round(run.cpu.get("other", 0.0), 2),
    }


async def benchmark(
    databases: Sequence[str] = DATABASES,
    transports: Sequence[str] = DEFAULT_TRANSPORTS,
    ops: int = 2000,
    concurrency: int = 8,
    raw: bool = True,
    patch_tcp_nodelay: bool = False,
    workers: Sequence[int] = (1,),
) -> list[dict[str, Any]]:
    """Every phase on every database, with each worker count (above 1 on PostgreSQL only); one
    result row per (database, workers, path, operation)."""
    rows: list[dict[str, Any]] = []
    for db in databases:
        for count in workers:
            if count > 1 and db != "postgresql":
                continue
            with workdir() as directory, scratch_database(db, directory) as url:
                api: dict[str, tuple[Run | None, Run]] = {}
                with ServerProcess(url, directory, patch_tcp_nodelay=patch_tcp_nodelay, workers=count) as server:
                    await server.onboard()
                    for transport in transports:
                        api[transport] = await api_phase(server, transport, ops, concurrency)
                ceiling = None
                if raw and count == workers[0]:
                    ceiling = raw_phase(db, directory, stored_object(url, TABLE, f"{transports[0]}-0"), ops, concurrency)
                for index, op in enumerate(("create", "get")):
                    baseline = ceiling[index] if ceiling else None
                    for transport, runs in api.items():
                        run = runs[index]
                        if run is not None:
                            rows.append({"workers": count, **_row(db, transport, op, run, concurrency, baseline)})
                    if baseline is not None:
                        rows.append({"workers": "", **_row(db, "raw", op, baseline, concurrency, None)})
    return rows


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.api_throughput", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--db", nargs="+", choices=DATABASES, default=list(DATABASES))
    parser.add_argument("--transport", nargs="+", choices=TRANSPORTS, default=list(DEFAULT_TRANSPORTS))
    parser.add_argument("--ops", type=int, default=2000, help="creates, and then gets, per path (default 2000)")
    parser.add_argument("--concurrency", type=int, default=8, help="concurrent clients (default 8)")
    parser.add_argument("--no-raw", action="store_true", help="skip the raw-database ceiling")
    parser.add_argument("--patch-tcp-nodelay", action="store_true",
                        help="diagnostic: run the server with TCP_NODELAY on REST connections (bench/serve.py)")
    parser.add_argument("--workers", nargs="+", type=int, default=[1],
                        help="server processes on the same ports (osac serve --workers; above 1 on PostgreSQL only)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)
    rows = asyncio.run(benchmark(args.db, args.transport, args.ops, args.concurrency, not args.no_raw,
                                 args.patch_tcp_nodelay, args.workers))
    if args.json:
        emit_json("api_throughput", {"ops": args.ops, "concurrency": args.concurrency,
                                     "patch_tcp_nodelay": args.patch_tcp_nodelay}, rows)
    else:
        print_table(f"API throughput: {args.ops} ops per row, {args.concurrency} clients "
                    "(cpu columns: cores used during the phase)", rows)


if __name__ == "__main__":
    main()
