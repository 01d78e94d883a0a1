"""End-to-end cluster status freshness (cluster-status.md §17, scenario 17): how long an
infrastructure change takes to show on a Watch stream, with N READY clusters and changes injected
at a fixed rate.

The server runs in its own process with controllers on, the simulated HyperShift at ``instant``
speed and the packaged catalogue (template ``ocp-small``: three virtual workers of ``vm-standard``;
tenant default networking with a NAT gateway from the /24 pool ``public-v4``).

Setup. The default NetworkClass's ``vip_prefix_length`` is set to 22 as the provider admin
(before any tenant exists: it applies to subnets created later), so a tenant's default /20
subnet has 1,023 VIPs and 3,070 workload addresses: room for 511 clusters of two VIPs and three
nodes (the packaged /28 range holds seven). Tenants ``f00``, ``f01``, ... (``--clusters-per-tenant``
each) are onboarded and awaited READY, then N clusters are created through REST by
``--concurrency`` clients and awaited READY on the Watch stream. Reported: the time from the
first create to the last READY (``setup_s``, and per cluster), and each cluster's time from
creation to READY (its ``state_transition_time`` minus its ``creation_timestamp``). Then the
benchmark waits until no cluster reconcile has finished for a second (``quiesce_s``; at most
120 s, then it goes on), so the passes that the READY writes set off do not count against the
first changes.

Changes. For ``--duration`` seconds a scheduler injects ``--rate`` changes per second, open loop:
injection ``i`` is sent at start + i / rate whatever happened to the earlier ones (late sends go
at once and are counted in ``late_max_ms``). Each goes to a random cluster and alternates per
cluster between setting and clearing the simulator fault ``hc_degraded``
(``SimulatorFaults.Create`` / ``Delete`` over gRPC, as the provider admin). It is a render-time
fault: the simulated HostedCluster reports ``Degraded=True`` from the moment the record exists
and no longer once it is deleted, and the simulator sends the cluster's reconciler a change
notice stamped with that moment; the derived status flips condition DEGRADED (TRUE
``ControlPlaneDegraded`` / FALSE), nothing else moves on a READY cluster, so every injection is
exactly one infrastructure change and one status write. A cluster is picked only once its
previous change is settled (answered and delivered) and it has rested ``REST_SECONDS`` since:
two changes of one cluster inside one reconcile would merge into one write (or none), and the
status write sets off one more pass of the cluster's reconciler (its own change on the feed)
which, meeting the next change before that change's notice, would write it unannounced, so the
histogram would count the two changes once. An injection due while no cluster is free is skipped
and counted (``skipped``); with 1,000 clusters and sub-second propagation about 50 are busy at a
time.

Measured two ways:

(a) End to end, on one gRPC ``Events.Watch`` stream of a tenant admin of every tenant
    (filter ``has(event.cluster)``, opened before the clusters are created, so it is live):
    latency = arrival of the first cluster update whose DEGRADED status is the injected one
    minus the moment the fault call was **sent** (``e2e_*``). The exact change time (the fault
    record's ``created_at``, the Delete's commit, both stamped by the server on the same host's
    clock) lies between the send and the answer of the call, so ``e2e_*`` is an upper bound;
    ``from_ack_*`` (arrival minus the answer) is the lower bound, and ``call_p99_ms`` is the
    width of the bracket.
(b) The server's histogram ``osac_status_propagation_seconds{object_type="cluster"}``, read from
    ``/metrics`` before and after the phase: ``hist_count`` observations in the phase (one per
    status write that reflected a noticed change: it should equal ``delivered``), the exact mean
    (from ``_sum``) and p50 / p99 interpolated linearly inside the buckets as Prometheus'
    ``histogram_quantile`` does (estimates, bounded by the bucket edges 0.01 … 30 s);
    ``hist_max_le_ms`` is the upper edge of the highest bucket that received an observation.
    The reconciler observes it when it derives the status, inside the write transaction, so it
    leaves out the commit and the Watch fan-out that (a) includes.

CPU (cores) of the server, of this load process, of the PostgreSQL backends and of everything
else on the machine is measured over the change phase, as in the other benchmarks. With
``--workers N`` (PostgreSQL), ``shards`` says how the processes split the controller shards
(their live leases at the end of the phase) and the clusters by their shard, largest first:
``32/32 shards, 503/497 objects``.

    python -m bench.cluster_freshness [--db sqlite postgresql] [--clusters 1000] [--rate 50]
                                      [--duration 600] [--clusters-per-tenant 250] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import json
import math
import random
import struct
import sys
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import grpc
import httpx
from prometheus_client.parser import text_string_to_metric_families

from bench.harness import (
    DATABASES,
    PUBLIC,
    CpuMeter,
    GrpcClient,
    ServerProcess,
    catalogue_ready,
    emit_json,
    ms,
    percentile,
    print_table,
    rest_client,
    run_async,
    scrape,
    scratch_database,
    shard_owners,
    shares,
    workdir,
)
from osac.auth.subject import Role
from osac.model import protos

EVENTS = f"{PUBLIC}.Events"
FAULTS = f"{protos.PRIVATE}.SimulatorFaults"
API = "/api/fulfillment/v1"
PRIVATE_API = "/api/private/v1"
#: The injected change (see the module docstring for why this fault).
FAULT = "hc_degraded"
METRIC = "osac_status_propagation_seconds"
#: How long a cluster rests after its change was delivered (see the module docstring).
REST_SECONDS = 0.25
#: No cluster reconcile for this long = the fleet is at rest (before the changes start).
QUIET_SECONDS = 1.0
QUIESCE_TIMEOUT = 120.0
#: How often the cluster queue's gauges are sampled during a change phase.
QUEUE_SAMPLE_SECONDS = 1.0
#: The VIP block of each tenant's default /20 subnet (see the module docstring).
VIP_PREFIX_LENGTH = 22
#: Clusters a tenant's default subnet holds: 1,023 VIPs, two per cluster.
MAX_CLUSTERS_PER_TENANT = 511
#: Tenants get a NAT address each from the packaged /24 pool.
MAX_TENANTS = 254
TEMPLATE = "ocp-small"
RELEASE_IMAGE = "quay.io/openshift-release-dev/ocp-release:4.17.0-x86_64"
PULL_SECRET = json.dumps({"auths": {"quay.io": {"auth": "YmVuY2g6YmVuY2g="}}})

_CLUSTER = protos.message_class(f"{PUBLIC}.Cluster")
_CONDITION = protos.message_class(f"{PUBLIC}.ClusterCondition")
DEGRADED = _CONDITION.DESCRIPTOR.fields_by_name["type"].enum_type.values_by_name["CLUSTER_CONDITION_TYPE_DEGRADED"].number
TRUE = _CONDITION.DESCRIPTOR.fields_by_name["status"].enum_type.values_by_name["CONDITION_STATUS_TRUE"].number
_STATES = _CLUSTER.DESCRIPTOR.fields_by_name["status"].message_type.fields_by_name["state"].enum_type
READY = _STATES.values_by_name["CLUSTER_STATE_READY"].number
FAILED = _STATES.values_by_name["CLUSTER_STATE_FAILED"].number


def ssh_public_key() -> str:
    """A well-formed ed25519 public key line (the key bytes are arbitrary)."""
    kind = b"ssh-ed25519"
    blob = struct.pack(">I", len(kind)) + kind + struct.pack(">I", 32) + bytes(range(32))
    return f"ssh-ed25519 {base64.b64encode(blob).decode()} bench@example.net"


def tenant_names(clusters: int, per_tenant: int) -> list[str]:
    return [f"f{index:02d}" for index in range(math.ceil(clusters / per_tenant))]


# -- the Watch consumer ----------------------------------------------------------------------------


@dataclass
class Change:
    """One injected change: which cluster, the DEGRADED status it must produce, and when (host
    ``perf_counter``) the call was sent, answered, and the update reflecting it arrived."""

    cluster_id: str
    degraded: bool
    sent: float
    acked: float = math.nan
    delivered: float = math.nan
    error: str = ""

    @property
    def is_settled(self) -> bool:
        return bool(self.error) or not (math.isnan(self.acked) or math.isnan(self.delivered))


@dataclass
class Fleet:
    """What the Watch stream has shown of every cluster, and the changes in flight.

    A cluster is idle (free for the next change) ``REST_SECONDS`` after its previous change was
    answered and delivered; ``fault_ids`` holds the fault in force on each degraded cluster."""

    ready_at: dict[str, float] = field(default_factory=dict)
    ready_seconds: dict[str, float] = field(default_factory=dict)
    failed: dict[str, str] = field(default_factory=dict)
    fault_ids: dict[str, str] = field(default_factory=dict)
    in_flight: dict[str, Change] = field(default_factory=dict)
    idle: list[str] = field(default_factory=list)
    all_ready: asyncio.Event = field(default_factory=asyncio.Event)
    settled: asyncio.Event = field(default_factory=asyncio.Event)
    expected: int = 0
    error: str = ""

    def arrived(self, cluster: Any, arrived: float) -> None:
        """One cluster payload off the stream at ``arrived``."""
        cluster_id = str(cluster.id)
        status = cluster.status
        if status.state == READY and cluster_id not in self.ready_at:
            self.ready_at[cluster_id] = arrived
            created = cluster.metadata.creation_timestamp.ToNanoseconds()
            self.ready_seconds[cluster_id] = (status.state_transition_time.ToNanoseconds() - created) / 1e9
            if len(self.ready_at) >= self.expected:
                self.all_ready.set()
        elif status.state == FAILED:
            self.failed[cluster_id] = "; ".join(f"{c.reason}: {c.message}" for c in status.conditions if c.status == TRUE)
            self.all_ready.set()
        change = self.in_flight.get(cluster_id)
        if change is not None and math.isnan(change.delivered) and is_degraded(cluster) == change.degraded:
            change.delivered = arrived
            self.release(change)

    def release(self, change: Change) -> None:
        """Free the cluster of ``change`` (after its rest) if the change is settled."""
        if change.is_settled and self.in_flight.get(change.cluster_id) is change:
            del self.in_flight[change.cluster_id]
            asyncio.get_running_loop().call_later(REST_SECONDS, self.idle.append, change.cluster_id)
            if not self.in_flight:
                self.settled.set()


    def stopped(self, error: str) -> None:
        """The stream is gone: nothing more will arrive, so nobody should wait."""
        self.error = error
        self.all_ready.set()
        self.settled.set()


def is_degraded(cluster: Any) -> bool:
    return any(c.type == DEGRADED and c.status == TRUE for c in cluster.status.conditions)


async def watch(client: GrpcClient, after: int, fleet: Fleet) -> None:
    """Feed every cluster event after revision ``after`` to ``fleet`` until cancelled."""
    request = GrpcClient.request(EVENTS, "Watch", after_revision=after, filter="has(event.cluster)")
    call = client.stream(EVENTS, "Watch", request)
    try:
        async for response in call:
            if response.event.HasField("cluster"):
                fleet.arrived(response.event.cluster, time.perf_counter())
        fleet.stopped("the Watch stream ended")
    except grpc.aio.AioRpcError as error:
        if error.code() != grpc.StatusCode.CANCELLED:
            fleet.stopped(f"Watch {error.code().name}: {error.details()}")
    finally:
        call.cancel()


@contextlib.asynccontextmanager
async def watching(server: ServerProcess, tenants: Sequence[str], fleet: Fleet) -> AsyncIterator[None]:
    """One Watch stream of a tenant admin of ``tenants``, resuming from the current revision."""
    client = GrpcClient(server.grpc_target, server.token(Role.TENANT_ADMIN, tenants, user="watcher"))
    listing = await client.unary(f"{PUBLIC}.Clusters", "List")(GrpcClient.request(f"{PUBLIC}.Clusters", "List", limit=1))
    task = asyncio.create_task(watch(client, int(listing.revision), fleet))
    try:
        yield
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        await client.close()


# -- phase 1: tenants and clusters -----------------------------------------------------------------


async def onboard(server: ServerProcess, tenants: Sequence[str]) -> None:
    """Widen the default class's VIP block, then create ``tenants`` and wait until all are READY."""
    async with rest_client(server.http_url, server.admin_token()) as admin:
        await catalogue_ready(server)
        classes = (await admin.get(f"{PRIVATE_API}/network_classes")).json()["items"]
        default = next(item for item in classes if item.get("is_default"))
        widened = await admin.patch(
            f"{PRIVATE_API}/network_classes/{default['id']}", params={"update_mask": "spec.vip_prefix_length"},
            json={"spec": {"vip_prefix_length": VIP_PREFIX_LENGTH}},
        )
        widened.raise_for_status()
        await catalogue_ready(server)
        for name in tenants:
            (await admin.post(f"{API}/tenants", json={"metadata": {"name": name}})).raise_for_status()
        async with asyncio.timeout(120):
            while True:
                items = (await admin.get(f"{PRIVATE_API}/tenants", params={"limit": 1000})).json().get("items", [])
                states = {t["metadata"]["name"]: t.get("status", {}).get("state", "") for t in items}
                if any(states.get(name) == "TENANT_STATE_FAILED" for name in tenants):
                    raise RuntimeError(f"a tenant FAILED: {states}")
                if all(states.get(name) == "TENANT_STATE_READY" for name in tenants):
                    return
                await asyncio.sleep(0.25)


async def create_clusters(server: ServerProcess, fleet: Fleet, tenants: Sequence[str], clusters: int,
                          per_tenant: int, concurrency: int, timeout: float) -> dict[str, Any]:
    """Create ``clusters`` clusters (``per_tenant`` in each tenant, in order) and wait on the
    Watch stream until every one is READY; the setup figures."""
    fleet.expected = clusters
    key = ssh_public_key()
    async with contextlib.AsyncExitStack() as stack:
        users = [await stack.enter_async_context(rest_client(server.http_url, server.tenant_token(name)))
                 for name in tenants]
        started = time.perf_counter()

        async def create(_worker: int, index: int) -> None:
            body = {"metadata": {"name": f"c{index:04d}"},
                    "spec": {"template": TEMPLATE, "release_image": RELEASE_IMAGE, "pull_secret": PULL_SECRET,
                             "ssh_public_key": key}}
            response = await users[index // per_tenant].post(f"{API}/clusters", json=body)
            if response.status_code != 200:
                raise RuntimeError(f"creating cluster {index} failed: HTTP {response.status_code} {response.text[:300]}")

        creates = await run_async(clusters, concurrency, create)
        created_at = time.perf_counter()
        try:
            async with asyncio.timeout(timeout):
                await fleet.all_ready.wait()
        except TimeoutError:
            raise RuntimeError(f"{clusters - len(fleet.ready_at)} of {clusters} clusters not READY after "
                               f"{timeout:g} s") from None
        if fleet.error or fleet.failed:
            raise RuntimeError(fleet.error or f"{len(fleet.failed)} clusters FAILED, e.g. {next(iter(fleet.failed.values()))}")
        finished = max(fleet.ready_at.values())
    quiet = await quiesce(server)
    ready = sorted(fleet.ready_seconds.values())
    setup = finished - started
    return {
        "clusters": clusters,
        "tenants": len(tenants),
        "creates_per_s": round(creates.rate, 1),
        "create_s": round(created_at - started, 2),
        "setup_s": round(setup, 2),
        "setup_ms_per_cluster": ms(setup / clusters),
        "ready_p50_s": round(percentile(ready, 50), 2),
        "ready_max_s": round(ready[-1], 2),
        "quiesce_s": quiet,
    }


# -- phase 2: changes ------------------------------------------------------------------------------


def propagation_histogram(text: str) -> dict[str, float]:
    """The cumulative buckets (``le`` -> count), ``_count`` and ``_sum`` of the cluster series of
    ``osac_status_propagation_seconds`` in a Prometheus exposition (zeros if absent)."""
    found: dict[str, float] = {"_count": 0.0, "_sum": 0.0}
    for family in text_string_to_metric_families(text):
        if family.name != METRIC:
            continue
        for sample in family.samples:
            if sample.labels.get("object_type") != "cluster":
                continue
            if sample.name.endswith("_bucket"):
                found[sample.labels["le"]] = sample.value
            elif sample.name.endswith("_count"):
                found["_count"] = sample.value
            elif sample.name.endswith("_sum"):
                found["_sum"] = sample.value
    return found


def reconciles(text: str) -> float:
    """Finished cluster reconciles (``osac_reconcile_total{kind="cluster"}``, every outcome)."""
    return sum(
        sample.value
        for family in text_string_to_metric_families(text) if family.name == "osac_reconcile"
        for sample in family.samples
        if sample.name == "osac_reconcile_total" and sample.labels.get("kind") == "cluster"
    )


def queue_gauges(text: str) -> tuple[float, float]:
    """The cluster controller's ``osac_workqueue_depth`` and ``osac_workqueue_oldest_seconds``."""
    found = {"osac_workqueue_depth": 0.0, "osac_workqueue_oldest_seconds": 0.0}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name in found and sample.labels.get("kind") == "cluster":
                found[sample.name] = sample.value
    return found["osac_workqueue_depth"], found["osac_workqueue_oldest_seconds"]


@dataclass
class QueueWatch:
    """The cluster queue's depth and oldest waiting key's age, sampled from ``/metrics`` every
    ``QUEUE_SAMPLE_SECONDS`` during a change phase; the maxima."""

    depth_max: float = 0.0
    oldest_max_s: float = 0.0

    async def follow(self, server: ServerProcess) -> None:
        while True:
            with contextlib.suppress(httpx.HTTPError):
                depth, oldest = queue_gauges(await scrape(server))
                self.depth_max = max(self.depth_max, depth)
                self.oldest_max_s = max(self.oldest_max_s, oldest)
            await asyncio.sleep(QUEUE_SAMPLE_SECONDS)


async def quiesce(server: ServerProcess, timeout: float = QUIESCE_TIMEOUT) -> float | str:
    """Wait until no cluster reconcile finishes for ``QUIET_SECONDS`` (the passes that the READY
    writes and port changes set off are over); the seconds it took, or ``">{timeout}"`` if the
    reconcilers never paused (a server busy with resyncs alone: the changes start anyway)."""
    started = time.perf_counter()
    previous = reconciles(await scrape(server))
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(timeout):
            while True:
                await asyncio.sleep(QUIET_SECONDS)
                current = reconciles(await scrape(server))
                if current == previous:
                    return round(time.perf_counter() - started, 2)
                previous = current
    return f">{timeout:g}"


def bucket_quantile(buckets: Sequence[tuple[float, float]], q: float) -> float:
    """The ``q`` (0..1) quantile of cumulative ``(upper edge, count)`` buckets, interpolated
    linearly inside its bucket (Prometheus ``histogram_quantile``); the highest finite edge if it
    falls in +Inf; NaN without observations."""
    total = buckets[-1][1] if buckets else 0.0
    if total <= 0:
        return math.nan
    rank = q * total
    lower_edge, lower_count = 0.0, 0.0
    for edge, count in buckets:
        if count >= rank:
            if math.isinf(edge):
                return lower_edge
            return lower_edge + (edge - lower_edge) * (rank - lower_count) / max(count - lower_count, 1e-12)
        lower_edge, lower_count = edge, count
    return lower_edge


def histogram_delta(before: dict[str, float], after: dict[str, float]) -> dict[str, Any]:
    """The phase's share of the histogram: count, exact mean, interpolated p50 / p99, and the
    upper edge of the highest bucket that grew."""
    edges = sorted((le for le in after if not le.startswith("_")), key=float)
    buckets = [(float(le), after[le] - before.get(le, 0.0)) for le in edges]
    count = after["_count"] - before["_count"]
    top, below = math.nan, 0.0
    for edge, cumulative in buckets:
        if cumulative > below:
            top = edge
        below = cumulative
    return {
        "hist_count": int(count),
        "hist_mean_ms": ms((after["_sum"] - before["_sum"]) / count) if count else math.nan,
        "hist_p50_ms": ms(bucket_quantile(buckets, 0.50)),
        "hist_p99_ms": ms(bucket_quantile(buckets, 0.99)),
        "hist_max_le_ms": "+Inf" if math.isinf(top) else ms(top),
    }


async def inject(server: ServerProcess, fleet: Fleet, rate: float, duration: float, settle: float,
                 seed: int) -> dict[str, Any]:
    """Changes at ``rate`` per second for ``duration`` seconds on random idle clusters; wait up
    to ``settle`` seconds for the last ones. The row's change-phase figures."""
    client = GrpcClient(server.grpc_target, server.admin_token())
    create, delete = client.unary(FAULTS, "Create"), client.unary(FAULTS, "Delete")
    fault_cls = protos.message_class(f"{protos.PRIVATE}.SimulatorFault")
    chooser = random.Random(seed)
    changes: list[Change] = []
    skipped = 0
    late = 0.0

    async def change(cluster_id: str) -> None:
        fault_id = fleet.fault_ids.get(cluster_id)
        record = Change(cluster_id, degraded=fault_id is None, sent=time.perf_counter())
        fleet.in_flight[cluster_id] = record
        fleet.settled.clear()
        changes.append(record)
        try:
            if fault_id is None:
                fault = fault_cls(fault=FAULT, target_kind="cluster", target_id=cluster_id)
                fault.params.update({"message": "injected by bench.cluster_freshness"})
                response = await create(GrpcClient.request(FAULTS, "Create", object=fault))
                fleet.fault_ids[cluster_id] = response.object.id
            else:
                await delete(GrpcClient.request(FAULTS, "Delete", id=fault_id))
                del fleet.fault_ids[cluster_id]
        except grpc.aio.AioRpcError as error:
            record.error = f"{FAULT} {'Create' if fault_id is None else 'Delete'} {error.code().name}: {error.details()}"
        record.acked = time.perf_counter()
        fleet.release(record)

    cpu: dict[str, float] = {}
    before = propagation_histogram(await scrape(server))
    queue = QueueWatch()
    sampler = asyncio.create_task(queue.follow(server))
    try:
        with CpuMeter(server.pid, server.db_url).measure(cpu):
            count = max(1, round(rate * duration))
            pending: list[asyncio.Task[None]] = []
            started = time.perf_counter()
            for index in range(count):
                due = started + index / rate
                delay = due - time.perf_counter()
                if delay > 0:
                    await asyncio.sleep(delay)
                else:
                    late = max(late, -delay)
                if not fleet.idle:
                    skipped += 1
                    continue
                chosen = fleet.idle.pop(chooser.randrange(len(fleet.idle)))
                pending.append(asyncio.create_task(change(chosen)))
            # the schedule's length, or longer if the sends fell behind it
            window = max(duration, time.perf_counter() - started)
            await asyncio.gather(*pending)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(settle):
                    while fleet.in_flight and not fleet.error:
                        await fleet.settled.wait()
    finally:
        sampler.cancel()
        await asyncio.gather(sampler, return_exceptions=True)
        await client.close()
    after = propagation_histogram(await scrape(server))

    answered = [c for c in changes if not c.error]
    delivered = [c for c in answered if not math.isnan(c.delivered)]
    e2e = [c.delivered - c.sent for c in delivered]
    from_ack = [c.delivered - c.acked for c in delivered]
    calls = [c.acked - c.sent for c in answered]
    errors = sorted({c.error for c in changes if c.error} | ({fleet.error} if fleet.error else set()))
    return {
        "changes": len(changes),
        "skipped": skipped,
        "change_rate": round(len(changes) / window, 1),
        "late_max_ms": ms(late),
        "delivered": len(delivered),
        "failed_calls": len(changes) - len(answered),
        "e2e_p50_ms": ms(percentile(e2e, 50)),
        "e2e_p99_ms": ms(percentile(e2e, 99)),
        "e2e_max_ms": ms(max(e2e, default=math.nan)),
        "from_ack_p50_ms": ms(percentile(from_ack, 50)),
        "from_ack_p99_ms": ms(percentile(from_ack, 99)),
        "call_p99_ms": ms(percentile(calls, 99)),
        # the histogram and the queue are each process's own: with several workers, a scrape
        # reaches one of them, so those columns are left empty (the e2e ones cover them all)
        **(histogram_delta(before, after) if server.workers == 1 else
           dict.fromkeys(histogram_delta(after, after), "")),
        "queue_depth_max": int(queue.depth_max) if server.workers == 1 else "",
        "oldest_wait_max_s": round(queue.oldest_max_s, 2) if server.workers == 1 else "",
        "server_cpu": round(cpu["server"], 2),
        "client_cpu": round(cpu["client"], 2),
        "pg_cpu": round(cpu["postgres"], 2) if server.db_url.startswith("postgresql") else "",
        "other_cpu": round(cpu["other"], 2),
        "errors": "; ".join(errors)[:160],
    }


# -- the benchmark ---------------------------------------------------------------------------------


async def one_database(db: str, clusters: int, per_tenant: int, rates: Sequence[float], duration: float,
                       concurrency: int, settle: float, ready_timeout: float, seed: int,
                       workers: int = 1) -> list[dict[str, Any]]:
    """One fleet on a fresh server (``workers`` processes, each with API and controllers), then
    one change phase per rate (in the order given) on it; one row per phase."""
    with workdir() as directory, scratch_database(db, directory) as url, \
            ServerProcess(url, directory / "data", controllers=True, bootstrap=None,
                          simulator_speed="instant", workers=workers) as server:
        tenants = tenant_names(clusters, per_tenant)
        await onboard(server, tenants)
        fleet = Fleet()
        async with watching(server, tenants, fleet):
            setup = await create_clusters(server, fleet, tenants, clusters, per_tenant, concurrency, ready_timeout)
            print(f"# {db}: {json.dumps(setup)}", file=sys.stderr, flush=True)  # progress
            rows = []
            for rate in rates:
                fleet.idle = sorted(set(fleet.ready_at) - set(fleet.in_flight))
                changes = await inject(server, fleet, rate, duration, settle, seed)
                # with several processes: how they split the shards and the clusters
                split = shares(shard_owners(url), sorted(fleet.ready_at)) if workers > 1 else ""
                rows.append({"db": db, "workers": workers, **setup, "rate": rate, "duration_s": duration, **changes,
                             "shards": split})
                print(f"# {json.dumps(rows[-1])}", file=sys.stderr, flush=True)  # progress
        return rows


async def benchmark(
    databases: Sequence[str] = DATABASES,
    clusters: int = 1000,
    rates: Sequence[float] = (50.0,),
    duration: float = 600.0,
    clusters_per_tenant: int = 250,
    concurrency: int = 8,
    settle: float = 30.0,
    ready_timeout: float = 3600.0,
    seed: int = 17,
    workers: int = 1,
) -> list[dict[str, Any]]:
    """One fleet per database, each on a fresh server; one row per database and rate."""
    rows = []
    for db in databases:
        rows.extend(await one_database(db, clusters, clusters_per_tenant, rates, duration, concurrency, settle,
                                       ready_timeout, seed, workers))
    return rows


SETUP_COLUMNS = ("db", "clusters", "tenants", "creates_per_s", "create_s", "setup_s", "setup_ms_per_cluster",
                 "ready_p50_s", "ready_max_s", "quiesce_s")
CHANGE_COLUMNS = ("db", "workers", "rate", "duration_s", "changes", "skipped", "change_rate", "late_max_ms", "delivered",
                  "failed_calls", "e2e_p50_ms", "e2e_p99_ms", "e2e_max_ms", "from_ack_p50_ms", "from_ack_p99_ms",
                  "call_p99_ms")
HISTOGRAM_COLUMNS = ("db", "rate", "hist_count", "hist_mean_ms", "hist_p50_ms", "hist_p99_ms", "hist_max_le_ms",
                     "queue_depth_max", "oldest_wait_max_s",
                     "server_cpu", "client_cpu", "pg_cpu", "other_cpu", "shards", "errors")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.cluster_freshness", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", nargs="+", choices=DATABASES, default=list(DATABASES))
    parser.add_argument("--clusters", type=int, default=1000, help="READY clusters (default 1000)")
    parser.add_argument("--rate", type=float, nargs="+", default=[50.0],
                        help="changes per second (default 50); several: one phase per rate on the same fleet")
    parser.add_argument("--duration", type=float, default=600.0, help="seconds of changes (default 600)")
    parser.add_argument("--clusters-per-tenant", type=int, default=250,
                        help=f"clusters in each tenant (default 250, at most {MAX_CLUSTERS_PER_TENANT})")
    parser.add_argument("--concurrency", type=int, default=8, help="clients creating the clusters (default 8)")
    parser.add_argument("--settle", type=float, default=30.0,
                        help="seconds to wait after the last change for its delivery (default 30)")
    parser.add_argument("--ready-timeout", type=float, default=3600.0,
                        help="seconds to wait for every cluster to be READY (default 3600)")
    parser.add_argument("--seed", type=int, default=17, help="seed of the choice of clusters (default 17)")
    parser.add_argument("--workers", type=int, default=1,
                        help="server processes, each with API and controllers (osac serve --workers; PostgreSQL)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of tables")
    args = parser.parse_args(argv)
    if args.workers > 1 and args.db != ["postgresql"]:
        parser.error("--workers above 1 needs --db postgresql (SQLite is one process)")
    if args.clusters < 1 or min(args.rate) <= 0 or args.duration <= 0:
        parser.error("--clusters, --rate and --duration must be positive")
    if not 1 <= args.clusters_per_tenant <= MAX_CLUSTERS_PER_TENANT:
        parser.error(f"--clusters-per-tenant must be 1-{MAX_CLUSTERS_PER_TENANT} (two VIPs each from a /22 block)")
    if len(tenant_names(args.clusters, args.clusters_per_tenant)) > MAX_TENANTS:
        parser.error(f"at most {MAX_TENANTS} tenants (one NAT address each from the /24 pool)")
    rows = asyncio.run(benchmark(args.db, args.clusters, args.rate, args.duration, args.clusters_per_tenant,
                                 args.concurrency, args.settle, args.ready_timeout, args.seed, args.workers))
    if args.json:
        emit_json("cluster_freshness", {k: v for k, v in vars(args).items() if k != "json"}, rows)
        return
    first_per_db = list({row["db"]: row for row in reversed(rows)}.values())[::-1]
    print_table(f"Setup: {args.clusters} clusters from {TEMPLATE} to READY (simulator at instant speed)",
                first_per_db, SETUP_COLUMNS)
    rates = ", ".join(f"{rate:g}" for rate in args.rate)
    print_table(f"Freshness end to end: {rates} {FAULT} set/clear per s for {args.duration:g} s each "
                "(fault call sent -> cluster update on Watch; from_ack: from the call's answer)", rows, CHANGE_COLUMNS)
    print_table(f"{METRIC}{{object_type=\"cluster\"}} over the phase (p50/p99 interpolated in buckets) and CPU (cores)",
                rows, HISTOGRAM_COLUMNS)


if __name__ == "__main__":
    main()
