"""What every benchmark shares: scratch databases, the server in a child process, API clients,
CPU accounting, latency statistics and output.

The server runs in its own process (``bench/serve.py``) so that it has an interpreter, a GIL and
an event loop of its own, as in production; the load generators run in the benchmark's process.
On a small machine the two still share the cores (and PostgreSQL), which is why every phase also
reports the CPU each side used.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import itertools
import json
import math
import os
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import httpx
import psycopg
from google.protobuf.message import Message
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy.engine import make_url

from osac.auth.dev_issuer import DevIssuer
from osac.auth.subject import Role
from osac.clock import SystemClock
from osac.controllers.runtime.shards import DEFAULT_SHARDS, SHARD_PREFIX, shard_of
from osac.model import protos

ROOT = Path(__file__).resolve().parents[1]
CATALOGUE = Path(__file__).with_name("catalogue.yaml")
DATABASES = ("sqlite", "postgresql")
TENANT = "acme"
PUBLIC = protos.PUBLIC
PG_ADMIN_DSN = os.environ.get(
    "OSAC_BENCH_PG", os.environ.get("OSAC_TEST_PG", "postgresql://postgres@127.0.0.1:5432/postgres")
)


# -- databases -----------------------------------------------------------------------------------


@contextlib.contextmanager
def scratch_database(db: str, workdir: Path) -> Iterator[str]:
    """A fresh empty database as a SQLAlchemy URL: a file in ``workdir`` for SQLite, a new
    ``osac_bench_*`` database for PostgreSQL (dropped afterwards, connections and all)."""
    if db == "sqlite":
        path = workdir / f"osac-{uuid.uuid4().hex[:8]}.sqlite"
        yield f"sqlite+aiosqlite:///{path}"
        return
    if db != "postgresql":
        raise ValueError(f"unknown database {db!r}; use one of {DATABASES}")
    name = f"osac_bench_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(PG_ADMIN_DSN, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:  # the admin URL's host, port and query (a socket directory: ?host=/var/run/postgresql) kept
        yield make_url(PG_ADMIN_DSN).set(drivername="postgresql+psycopg", database=name).render_as_string(
            hide_password=False)
    finally:
        with psycopg.connect(PG_ADMIN_DSN, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def driver_dsn(url: str) -> str:
    """What the plain drivers take: a file path for SQLite, a libpq URL for PostgreSQL."""
    parsed = make_url(url)
    if parsed.drivername.startswith("sqlite"):
        return str(parsed.database)
    return parsed.set(drivername="postgresql").render_as_string(hide_password=False)


def dialect_of(url: str) -> str:
    return "sqlite" if url.startswith("sqlite") else "postgresql"


def stored_object(url: str, table: str, name: str, tenant: str = TENANT) -> dict[str, Any]:
    """The storage JSON (``data`` column) of the object ``name`` of ``tenant`` in ``table``: the
    template for rows a benchmark writes directly, so they have exactly the API's shape."""
    query = f"SELECT data FROM {table} WHERE tenant = %s AND name = %s"
    if dialect_of(url) == "sqlite":
        with contextlib.closing(sqlite3.connect(driver_dsn(url))) as conn:
            row = conn.execute(query.replace("%s", "?"), (tenant, name)).fetchone()
            assert row is not None, f"no object {name!r} of tenant {tenant} in {table}"
            return dict(json.loads(row[0]))
    with psycopg.connect(driver_dsn(url)) as pg:
        found = pg.execute(query, (tenant, name)).fetchone()
        assert found is not None, f"no object {name!r} of tenant {tenant} in {table}"
        return dict(found[0])


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """The benchmark process's own garbage collector off while it measures. What a client keeps
    (200,000 arrivals of 1,000 watch streams) is no garbage, yet each full collection walked it
    all: a pause of up to 300 ms that held back the writer's schedule and every stream's
    arrival time, counted as the server's latency."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@contextlib.contextmanager
def workdir() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="osac-bench-") as name:
        yield Path(name)


def pg_transactions(url: str) -> int | None:
    """Transactions committed so far in the PostgreSQL database of ``url`` (None on SQLite):
    the difference over a phase counts the statements' transactions the server ran. The
    statistics are flushed by each backend within about a second, so wait before the second read."""
    if dialect_of(url) != "postgresql":
        return None
    with psycopg.connect(driver_dsn(url), autocommit=True) as conn:
        row = conn.execute("SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()").fetchone()
        assert row is not None
        return int(row[0])


def shard_owners(url: str) -> dict[int, str]:
    """The holder of each controller shard whose lease is live (PostgreSQL; docs/deploy.md)."""
    with psycopg.connect(driver_dsn(url), autocommit=True) as pg:
        rows = pg.execute("SELECT name, holder FROM leases WHERE name LIKE %s AND expires_at > now()",
                          (f"{SHARD_PREFIX}%",)).fetchall()
    return {int(name.removeprefix(SHARD_PREFIX)): holder for name, holder in rows}


def shares(owners: dict[int, str], ids: Sequence[str]) -> str:
    """How the shards, and the objects ``ids`` by their shard, are split between the holders:
    ``"32/32 shards, 497/503 objects"`` (largest first; an object of a shard nobody holds is
    counted as ``unowned``)."""
    shards = sorted(Counter(owners.values()).values(), reverse=True)
    objects = Counter(owners.get(shard_of(object_id, DEFAULT_SHARDS), "unowned") for object_id in ids)
    unowned = objects.pop("unowned", 0)
    split = "/".join(str(count) for count in sorted(objects.values(), reverse=True))
    return f"{'/'.join(map(str, shards))} shards, {split} objects" + (f", {unowned} unowned" if unowned else "")


# -- the server ----------------------------------------------------------------------------------


@dataclass
class ServerProcess:
    """``python -m bench.serve`` on ``db_url``; use as a context manager."""

    db_url: str
    data_dir: Path
    controllers: bool = False
    #: The seeded catalogue; the default one has no tenant default networking (see the file).
    bootstrap: Path | None = CATALOGUE
    #: Diagnostic: work around the HTTP listener's missing TCP_NODELAY (see bench/serve.py).
    patch_tcp_nodelay: bool = False
    #: ``--simulator-speed`` of the server (None: the product default).
    simulator_speed: str | None = None
    #: Server processes on the same ports (``osac serve --workers``; PostgreSQL only).
    workers: int = 1
    grpc_port: int = 0
    http_port: int = 0
    pid: int = 0
    _process: subprocess.Popen[str] | None = None
    _issuer: DevIssuer | None = None

    def __enter__(self) -> ServerProcess:
        command = [sys.executable, "-m", "bench.serve", "--db-url", self.db_url, "--data-dir", str(self.data_dir)]
        if self.controllers:
            command.append("--controllers")
        if self.bootstrap is not None:
            command += ["--bootstrap", str(self.bootstrap)]
        if self.patch_tcp_nodelay:
            command.append("--patch-tcp-nodelay")
        if self.simulator_speed is not None:
            command += ["--simulator-speed", self.simulator_speed]
        if self.workers > 1:
            command += ["--workers", str(self.workers)]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
        self._process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
        assert self._process.stdout is not None
        line = self._process.stdout.readline()
        if not line:
            code = self._process.wait()
            raise RuntimeError(f"the server exited with status {code} before listening (see its stderr above)")
        ready = json.loads(line)
        self.grpc_port, self.http_port, self.pid = ready["grpc_port"], ready["http_port"], ready["pid"]
        self._issuer = DevIssuer(self.data_dir, clock=SystemClock())
        return self

    def __exit__(self, *_: object) -> None:
        if self._process is None:
            return
        self._process.terminate()
        try:
            self._process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()

    @property
    def grpc_target(self) -> str:
        return f"127.0.0.1:{self.grpc_port}"

    @property
    def http_url(self) -> str:
        return f"http://127.0.0.1:{self.http_port}"

    def token(self, role: Role, tenants: Sequence[str] = (), user: str = "bench") -> str:
        assert self._issuer is not None
        return self._issuer.mint(user, list(tenants), role)

    def admin_token(self) -> str:
        return self.token(Role.PROVIDER_ADMIN, user="root")

    def tenant_token(self, tenant: str = TENANT) -> str:
        return self.token(Role.TENANT_ADMIN, (tenant,), user="alice")

    async def onboard(self, name: str = TENANT) -> None:
        """As the provider admin: mark the seeded default NetworkClass READY (a private status
        write) if it is not, as its reconciler would, then create tenant ``name``. The benchmarks
        run without controllers, and tenants and VirtualNetworks need a READY class."""
        async with rest_client(self.http_url, self.admin_token()) as admin:
            classes = await admin.get("/api/private/v1/network_classes")
            classes.raise_for_status()
            for item in classes.json().get("items", []):
                if item.get("is_default") and item.get("status", {}).get("state") != "NETWORK_CLASS_STATE_READY":
                    ready = await admin.patch(
                        f"/api/private/v1/network_classes/{item['id']}", params={"update_mask": "status.state"},
                        json={"status": {"state": "NETWORK_CLASS_STATE_READY"}},
                    )
                    ready.raise_for_status()
            response = await admin.post("/api/fulfillment/v1/tenants", json={"metadata": {"name": name}})
            response.raise_for_status()


# -- clients -------------------------------------------------------------------------------------


async def catalogue_ready(server: ServerProcess, timeout: float = 60) -> None:
    """Wait until every NetworkClass and ExternalIPPool of the server is READY (their reconcilers
    run in the server when it has controllers)."""
    async with rest_client(server.http_url, server.admin_token()) as admin, asyncio.timeout(timeout):
        while True:
            classes = (await admin.get("/api/private/v1/network_classes")).json()["items"]
            pools = (await admin.get("/api/private/v1/external_ip_pools")).json()["items"]
            states = [item.get("status", {}).get("state", "") for item in classes + pools]
            if states and all(state.endswith("_READY") for state in states):
                return
            await asyncio.sleep(0.1)



async def list_items(client: httpx.AsyncClient, path: str) -> list[dict[str, Any]]:
    """Every item of a REST collection, page by page (1,000 per page)."""
    items: list[dict[str, Any]] = []
    while True:
        response = await client.get(path, params={"offset": len(items), "limit": 1000})
        response.raise_for_status()
        page = response.json()
        items += page.get("items", [])
        if len(items) >= int(page.get("total", 0)) or not page.get("items"):
            return items


async def count_items(client: httpx.AsyncClient, path: str, condition: str = "") -> int:
    """How many items of a REST collection match the CEL ``condition`` (one page of one item:
    the total), so that polling never lists a large collection."""
    params: dict[str, str | int] = {"limit": 1}
    if condition:
        params["filter"] = condition
    response = await client.get(path, params=params)
    response.raise_for_status()
    return int(response.json().get("total", 0))


async def scrape(server: ServerProcess) -> str:
    """The server's Prometheus exposition (with several workers: the one process that answered)."""
    async with httpx.AsyncClient(timeout=60) as http:
        response = await http.get(f"{server.http_url}/metrics")
        response.raise_for_status()
        return response.text


def reconcile_counts(text: str) -> dict[str, tuple[float, float]]:
    """Per controller kind: finished passes (``osac_reconcile_total``, every outcome) and the
    statements they sent (``osac_reconcile_statements_sum``), from a Prometheus exposition."""
    passes: dict[str, float] = {}
    statements: dict[str, float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            kind = sample.labels.get("kind")
            if kind is None:
                continue
            if sample.name == "osac_reconcile_total":
                passes[kind] = passes.get(kind, 0.0) + sample.value
            elif sample.name == "osac_reconcile_statements_sum":
                statements[kind] = sample.value
    return {kind: (count, statements.get(kind, 0.0)) for kind, count in passes.items()}


@contextlib.asynccontextmanager
async def rest_client(base_url: str, token: str) -> AsyncIterator[httpx.AsyncClient]:
    """One HTTP/1.1 keep-alive connection's worth of client (a REST user)."""
    headers = {"authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(base_url=base_url, headers=headers, timeout=120) as client:
        yield client


class GrpcClient:
    """A generic gRPC client on its own channel (its own HTTP/2 connection)."""

    def __init__(self, target: str, token: str) -> None:
        # A distinct channel argument keeps gRPC from sharing one subchannel between clients.
        self.channel = grpc.aio.insecure_channel(target, options=[("bench.client", uuid.uuid4().hex)])
        self.metadata = (("authorization", f"Bearer {token}"),)

    async def close(self) -> None:
        await self.channel.close()

    @staticmethod
    def _types(service: str, method: str) -> tuple[str, type[Message], type[Message]]:
        descriptor = protos.service_descriptor(service).methods_by_name[method]
        return (
            f"/{service}/{method}",
            protos.message_class(descriptor.input_type.full_name),
            protos.message_class(descriptor.output_type.full_name),
        )

    @staticmethod
    def request(service: str, method: str, **fields: Any) -> Message:
        return GrpcClient._types(service, method)[1](**fields)

    def unary(self, service: str, method: str) -> Callable[[Message], Awaitable[Any]]:
        path, request_cls, response_cls = self._types(service, method)
        stub = self.channel.unary_unary(
            path, request_serializer=request_cls.SerializeToString, response_deserializer=response_cls.FromString
        )

        def call(request: Message) -> Awaitable[Any]:
            return stub(request, metadata=self.metadata)

        return call

    def stream(self, service: str, method: str, request: Message) -> Any:
        path, request_cls, response_cls = self._types(service, method)
        stub = self.channel.unary_stream(
            path, request_serializer=request_cls.SerializeToString, response_deserializer=response_cls.FromString
        )
        return stub(request, metadata=self.metadata)


# -- load generation -----------------------------------------------------------------------------


@dataclass
class Run:
    """The outcome of one timed phase: wall time and one latency per operation (seconds)."""

    elapsed: float
    latencies: list[float]
    cpu: dict[str, float] = field(default_factory=dict)

    @property
    def rate(self) -> float:
        return len(self.latencies) / self.elapsed if self.elapsed else 0.0


async def run_async(ops: int, concurrency: int, operation: Callable[[int, int], Awaitable[None]]) -> Run:
    """``ops`` calls of ``operation(worker, index)`` by ``concurrency`` tasks, each taking the next
    index as soon as its previous call returned (a closed loop)."""
    indexes = itertools.count()
    latencies: list[float] = []

    async def worker(number: int) -> None:
        while (index := next(indexes)) < ops:
            started = time.perf_counter()
            await operation(number, index)
            latencies.append(time.perf_counter() - started)

    started = time.perf_counter()
    await asyncio.gather(*(worker(number) for number in range(concurrency)))
    return Run(time.perf_counter() - started, latencies)


def run_threads(ops: int, concurrency: int, operation: Callable[[int, int], None]) -> Run:
    """``run_async`` with threads, for the blocking drivers of the raw-database baselines."""
    indexes = itertools.count()
    lock = threading.Lock()
    latencies: list[float] = []
    errors: list[BaseException] = []

    def worker(number: int) -> None:
        try:
            while True:
                with lock:
                    index = next(indexes)
                if index >= ops:
                    return
                started = time.perf_counter()
                operation(number, index)
                elapsed = time.perf_counter() - started
                with lock:
                    latencies.append(elapsed)
        except BaseException as error:  # reported by the caller's thread
            errors.append(error)

    threads = [threading.Thread(target=worker, args=(number,)) for number in range(concurrency)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started
    if errors:
        raise errors[0]
    return Run(elapsed, latencies)


# -- CPU accounting ------------------------------------------------------------------------------

_TICKS = os.sysconf("SC_CLK_TCK")


def _tree_cpu(pid: int) -> float:
    """`_process_cpu` of ``pid`` and of all its descendants (the workers of ``--workers N``)."""
    total, pending = 0.0, [pid]
    while pending:
        current = pending.pop()
        total += _process_cpu(current)
        try:
            with open(f"/proc/{current}/task/{current}/children") as handle:
                pending.extend(int(child) for child in handle.read().split())
        except OSError:
            continue
    return total


def _process_cpu(pid: int, children: bool = False) -> float:
    """User + system CPU seconds of one process (0 once it is gone); with ``children``, also of
    its children that ended and were waited for (the client's h2load)."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            fields = handle.read().rpartition(")")[2].split()
    except OSError:
        return 0.0
    return sum(int(value) for value in fields[11:15 if children else 13]) / _TICKS


def _postgres_backends(url: str | None) -> list[int]:
    """Process ids of the PostgreSQL backends connected to the database of ``url``."""
    if url is None or dialect_of(url) != "postgresql":
        return []
    with psycopg.connect(driver_dsn(url), autocommit=True) as conn:
        rows = conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
        ).fetchall()
    return [int(row[0]) for row in rows]


def _busy_cores_seconds() -> float:
    """CPU seconds the whole machine has been busy (every process, every core)."""
    with open("/proc/stat") as handle:
        fields = [int(value) for value in handle.readline().split()[1:]]
    idle = fields[3] + fields[4]  # idle + iowait
    return (sum(fields[:8]) - idle) / _TICKS


class CpuMeter:
    """CPU used during a phase, in cores (1.0 = one core busy for the whole phase): by the server
    process, by this (client) process and the programs it ran, by the PostgreSQL backends
    connected to the benchmark's database (alive at the phase's end; one that ended during it is
    counted in ``other``), and by everything else on the machine (``other``: other users' work
    competing for the same cores, which makes a run noisy)."""

    def __init__(self, server_pid: int, db_url: str | None = None) -> None:
        self.server_pid = server_pid
        self.db_url = db_url

    def _sample(self) -> dict[str, Any]:
        backends = {pid: _process_cpu(pid) for pid in _postgres_backends(self.db_url)}
        return {"server": _tree_cpu(self.server_pid) if self.server_pid else 0.0,
                "client": _process_cpu(os.getpid(), children=True), "postgres": backends,
                "machine": _busy_cores_seconds()}

    @contextlib.contextmanager
    def measure(self, into: dict[str, float]) -> Iterator[None]:
        before, started = self._sample(), time.perf_counter()
        yield
        after, elapsed = self._sample(), time.perf_counter() - started
        for name in ("server", "client", "machine"):
            into[name] = (after[name] - before[name]) / elapsed
        # A backend started during the phase used all its CPU in it.
        started_with = before["postgres"]
        into["postgres"] = sum(cpu - started_with.get(pid, 0.0) for pid, cpu in after["postgres"].items()) / elapsed
        into["other"] = max(0.0, into.pop("machine") - into["server"] - into["client"] - into["postgres"])


# -- statistics and output -----------------------------------------------------------------------


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (``q`` in 0..100) of unsorted ``values``; NaN when empty."""
    if not values:
        return math.nan
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


def ms(seconds: float) -> float:
    return round(seconds * 1000, 2)


def print_table(title: str, rows: Sequence[dict[str, Any]], columns: Sequence[str] | None = None) -> None:
    """An aligned text table of ``rows`` (dicts), columns in the order given or of the first row."""
    print(f"\n{title}")
    if not rows:
        print("  (no rows)")
        return
    names = list(columns or rows[0].keys())
    cells = [[_cell(row.get(name, "")) for name in names] for row in rows]
    widths = [max(len(name), *(len(line[i]) for line in cells)) for i, name in enumerate(names)]
    print("  " + "  ".join(name.rjust(width) for name, width in zip(names, widths, strict=True)))
    for line in cells:
        print("  " + "  ".join(cell.rjust(width) for cell, width in zip(line, widths, strict=True)))


def _cell(value: Any) -> str:
    if isinstance(value, float):
        if math.isnan(value):
            return "-"
        return f"{value:,.2f}" if abs(value) < 100 else f"{value:,.0f}"
    return str(value)


def machine() -> dict[str, Any]:
    """Where the numbers were taken."""
    with contextlib.suppress(OSError), open("/proc/cpuinfo") as handle:
        model = next((line.split(":", 1)[1].strip() for line in handle if line.startswith("model name")), "?")
        return {"cpus": os.cpu_count(), "cpu_model": model, "python": sys.version.split()[0]}
    return {"cpus": os.cpu_count(), "python": sys.version.split()[0]}


def emit_json(benchmark: str, parameters: dict[str, Any], results: Sequence[dict[str, Any]]) -> None:
    print(json.dumps({"benchmark": benchmark, "machine": machine(), "parameters": parameters,
                      "results": list(results)}, indent=2))
