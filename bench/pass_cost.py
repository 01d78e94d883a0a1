"""What one cluster reconcile pass costs, counted (not timed): statements, read and write
transactions, objects decoded from storage JSON, copied from the parsed-object cache and encoded,
and the process's CPU time, for three kinds of pass of a settled READY cluster:

(a) ``change``: an infrastructure change that flips one condition (the simulator fault
    ``hc_degraded`` set or cleared; its change notice queues the cluster, the pass writes
    DEGRADED TRUE or FALSE);
(b) ``resync``: the periodic pass of a cluster queued by time (``Controller.enqueue_after``
    with no delay, exactly what the resync timer does), nothing having changed;
(c) ``no_change``: a change notice after which the pass finds nothing changed (the cluster is
    queued as a provider notice queues it, ``Controller.enqueue``).

The server is the real ``Application`` in this process (controllers on, the simulated HyperShift at
``instant`` speed, the benchmark catalogue), so the controller's own pass counter
(``Controller.add_pass_listener``, ``osac.store.cost``) reports each pass. Every pass of the
cluster between the trigger and the quiet point is counted (``passes``: 1 for each case when
nothing is wasted); the other columns are per pass, except ``server_statements``: every
statement the whole process sent from the trigger until it was quiet again (median per trigger:
the fault call's, the simulator scheduler's, the pass's and the controllers' change feed's). The
counts are deterministic; ``cpu_us`` is the median over ``--repeat`` passes and depends on the
machine.

    python -m bench.pass_cost [--db sqlite postgresql] [--repeat 10] [--clusters 3] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx

from bench.cluster_freshness import (
    FAULT,
    FAULTS,
    PULL_SECRET,
    RELEASE_IMAGE,
    TEMPLATE,
    ssh_public_key,
)
from bench.harness import (
    DATABASES,
    GrpcClient,
    emit_json,
    print_table,
    scratch_database,
    workdir,
)
from osac.auth.subject import Role
from osac.controllers.runtime.manager import Controller, Outcome
from osac.model import protos
from osac.server.app import Application
from osac.server.settings import Settings, load_config
from osac.store import cost as store_cost
from osac.store.cost import PassCost

API = "/api/fulfillment/v1"
PRIVATE_API = "/api/private/v1"
CASES = ("change", "resync", "no_change")
#: No pass of the cluster for this long after the trigger: the pass and its follow-ups are done.
QUIET_SECONDS = 0.3


@dataclass
class Passes:
    """The passes of one cluster controller, as its pass listener reports them."""

    seen: list[tuple[str, Outcome, PassCost]] = field(default_factory=list)
    last_at: float = 0.0
    arrived: asyncio.Event = field(default_factory=asyncio.Event)

    def __call__(self, object_id: str, outcome: Outcome, cost: PassCost) -> None:
        self.seen.append((object_id, outcome, cost))
        self.last_at = time.monotonic()
        self.arrived.set()

    async def quiet(self, controller: Controller, seconds: float = QUIET_SECONDS, *, after: int = 0,
                    object_id: str | None = None) -> None:
        """Wait until a pass of ``object_id`` after the ``after``-th one finished (if given), then
        until the controller is idle and no pass finished for ``seconds`` (no polling: the CPU
        of a pass is the process's, so this must not spend any meanwhile)."""
        async with asyncio.timeout(60):
            while object_id is not None and not any(seen[0] == object_id for seen in self.seen[after:]):
                self.arrived.clear()
                await self.arrived.wait()
            while True:
                await controller.wait_idle()
                count = len(self.seen)
                await asyncio.sleep(seconds)
                if len(self.seen) == count and controller.is_idle:
                    return


@contextlib.asynccontextmanager
async def application(db_url: str, data_dir: Path) -> AsyncIterator[Application]:
    config = load_config(None)
    config["simulator"]["inventory"] = {"hosts": []}
    config["simulator"]["speed"] = "instant"
    # No cluster's resync slot falls inside the run: every pass seen is one a trigger caused
    # (the resync case queues its cluster as the timer would).
    config.setdefault("cluster_status", {})["resync_interval"] = "1000h"
    app = Application(Settings(data_dir=data_dir, db_url=db_url, grpc_address="127.0.0.1:0",
                               http_address="127.0.0.1:0", run_controllers=True,
                               config=config))
    await app.start()
    try:
        yield app
    finally:
        await app.stop()


async def _until(client: httpx.AsyncClient, path: str, check: Any, timeout: float = 120) -> dict[str, Any]:
    async with asyncio.timeout(timeout):
        while True:
            body = (await client.get(path)).json()
            if check(body):
                return dict(body)
            await asyncio.sleep(0.1)


def _state(item: dict[str, Any]) -> str:
    return str(item.get("status", {}).get("state", ""))


async def ready_clusters(app: Application, count: int) -> list[str]:
    """A tenant with READY default networking and ``count`` READY clusters; their ids."""
    assert app.dev_issuer is not None
    admin_token = app.dev_issuer.mint("root", [], Role.PROVIDER_ADMIN)
    user_token = app.dev_issuer.mint("alice", ["acme"], Role.TENANT_ADMIN)
    base = f"http://127.0.0.1:{app.http_port}"
    async with httpx.AsyncClient(base_url=base, headers={"authorization": f"Bearer {admin_token}"}) as admin, \
            httpx.AsyncClient(base_url=base, headers={"authorization": f"Bearer {user_token}"}) as alice:
        await _until(admin, f"{PRIVATE_API}/external_ip_pools",
                     lambda page: page["items"] and all(_state(i).endswith("_READY") for i in page["items"]))
        tenant = (await admin.post(f"{API}/tenants", json={"metadata": {"name": "acme"}})).json()
        await _until(admin, f"{API}/tenants/{tenant['id']}", lambda t: _state(t) == "TENANT_STATE_READY")
        ids = []
        for index in range(count):
            body = {"metadata": {"name": f"c{index}"},
                    "spec": {"template": TEMPLATE, "release_image": RELEASE_IMAGE, "pull_secret": PULL_SECRET,
                             "ssh_public_key": ssh_public_key()}}
            response = await alice.post(f"{API}/clusters", json=body)
            response.raise_for_status()
            ids.append(response.json()["id"])
        for cluster_id in ids:
            await _until(alice, f"{API}/clusters/{cluster_id}", lambda c: _state(c) == "CLUSTER_STATE_READY")
    return ids


def _row(db: str, case: str, costs: list[list[PassCost]]) -> dict[str, Any]:
    """Per-pass figures of one case (``costs``: the passes of each trigger)."""
    flat = [cost for passes in costs for cost in passes]
    n = max(len(flat), 1)

    def per_pass(name: str) -> float:
        return round(sum(getattr(cost, name) for cost in flat) / n, 2)

    return {
        "db": db,
        "case": case,
        "triggers": len(costs),
        "passes": round(len(flat) / max(len(costs), 1), 2),
        "statements": per_pass("statements"),
        "read_tx": per_pass("read_transactions"),
        "write_tx": per_pass("write_transactions"),
        "decoded": per_pass("decoded"),
        "copied": per_pass("copied"),
        "encoded": per_pass("encoded"),
        "cpu_us": round(statistics.median(cost.cpu_seconds for cost in flat) * 1e6) if flat else 0,
    }


async def measure(app: Application, cluster_ids: Sequence[str], repeat: int, db: str) -> list[dict[str, Any]]:
    assert app.controllers is not None and app.dev_issuer is not None
    controller = app.controllers.controllers["cluster"]
    passes = Passes()
    controller.add_pass_listener(passes)
    await passes.quiet(controller, 1.0)
    client = GrpcClient(f"127.0.0.1:{app.grpc_port}", app.dev_issuer.mint("root", [], Role.PROVIDER_ADMIN))
    create, delete = client.unary(FAULTS, "Create"), client.unary(FAULTS, "Delete")
    fault_cls = protos.message_class(f"{protos.PRIVATE}.SimulatorFault")
    results: dict[str, list[list[PassCost]]] = {case: [] for case in CASES}
    server_statements: dict[str, list[int]] = {case: [] for case in CASES}
    target = cluster_ids[0]

    async def run(case: str, trigger: Any) -> None:
        start = len(passes.seen)
        before = store_cost.PROCESS.statements
        await trigger()
        await passes.quiet(controller, after=start, object_id=target)
        server_statements[case].append(store_cost.PROCESS.statements - before)
        ours = [cost for object_id, _, cost in passes.seen[start:] if object_id == target]
        others = [object_id for object_id, _, _ in passes.seen[start:] if object_id != target]
        if others:
            raise RuntimeError(f"{case}: passes of other clusters ran too: {others}")
        results[case].append(ours)

    try:
        fault_id: str | None = None
        for _ in range(repeat):
            async def change() -> None:
                nonlocal fault_id
                if fault_id is None:
                    fault = fault_cls(fault=FAULT, target_kind="cluster", target_id=target)
                    fault.params.update({"message": "injected by bench.pass_cost"})
                    fault_id = (await create(GrpcClient.request(FAULTS, "Create", object=fault))).object.id
                else:
                    await delete(GrpcClient.request(FAULTS, "Delete", id=fault_id))
                    fault_id = None

            async def resync() -> None:
                controller.enqueue_after(target, timedelta(0))

            async def no_change() -> None:
                controller.enqueue(target)

            await run("change", change)
            await run("resync", resync)
            await run("no_change", no_change)
    finally:
        await client.close()
    return [{**_row(db, case, results[case]), "server_statements": statistics.median(server_statements[case])}
            for case in CASES]


async def one_database(db: str, repeat: int, clusters: int) -> list[dict[str, Any]]:
    with workdir() as directory, scratch_database(db, directory) as url:
        async with application(url, directory) as app:
            ids = await ready_clusters(app, clusters)
            return await measure(app, ids, repeat, db)


async def benchmark(databases: Sequence[str], repeat: int = 10, clusters: int = 3) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for db in databases:
        rows += await one_database(db, repeat, clusters)
    return rows


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.pass_cost", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", nargs="+", choices=DATABASES, default=list(DATABASES))
    parser.add_argument("--repeat", type=int, default=10, help="triggers of each case (default 10)")
    parser.add_argument("--clusters", type=int, default=3, help="READY clusters in the fleet (default 3)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)
    rows = asyncio.run(benchmark(args.db, args.repeat, args.clusters))
    if args.json:
        emit_json("pass_cost", vars(args), rows)
    else:
        print_table("cluster pass cost (per pass)", rows)


if __name__ == "__main__":
    main()
