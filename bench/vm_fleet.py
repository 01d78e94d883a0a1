"""A fleet of VMs with one-call external access, created and then deleted through the API.

Each size runs on a fresh database against a server process with controllers on and the
simulator at ``instant`` speed, seeded with the packaged catalogue (tenant default networking:
a /20 default subnet; pool ``public-v4``, a /24) plus a /22 pool ``bench-v4`` so that 1,000 VMs
find external addresses. Tenant ``acme`` is onboarded, then ``--concurrency`` clients create
``N`` ComputeInstances with ``auto_external_ip_attachment`` (each Create is one transaction: the
VM, its external IP and its attachment, the VM's address). Reported for each size:

- ``create_s``, ``creates_per_s``: the Create requests;
- ``all_public_s``: from the first Create until every VM is RUNNING with its internal and
  external address (the attachment DNATs the external address to the VM in the fabric);
- ``running_p50_s`` / ``running_p99_s``: per VM, ``status.state_transition_time`` (RUNNING)
  minus ``metadata.creation_timestamp``;
- ``delete_s``: the Delete requests; ``all_gone_s``: from the first Delete until no VM and no
  auto-provisioned external IP or attachment is left and the pools hold only the NAT gateway's
  address (the run fails if anything leaked);
- ``up_vms_per_s`` and ``down_vms_per_s``: N over ``all_public_s`` and over ``all_gone_s``;
- ``server_cpu`` / ``postgres_cpu``: cores used during the up and down phases together.

The run looks once a second with counting Lists (a ``filter`` and ``limit=1``, reading
``total``): listing all N VMs on every look would cost the server more than the VMs do.

    python -m bench.vm_fleet [--db sqlite postgresql] [--vms 100 1000] [--concurrency 8] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import time
from datetime import datetime
from typing import Any

import httpx

from bench.harness import (
    CpuMeter,
    ServerProcess,
    catalogue_ready,
    count_items,
    emit_json,
    list_items,
    percentile,
    print_table,
    reconcile_counts,
    rest_client,
    run_async,
    scrape,
    scratch_database,
    workdir,
)

PUBLIC = "/api/fulfillment/v1"
PRIVATE = "/api/private/v1"
AUTO = "osac.openshift.io/auto-provisioned"
#: A /22 pool beside the packaged /24: 1,022 + 254 external addresses.
BENCH_POOL = {"metadata": {"name": "bench-v4"}, "spec": {"cidrs": ["198.18.0.0/22"], "ip_family": "IP_FAMILY_IPV4"}}
MAX_VMS = 1_200
#: How often the run looks (each look is three or four counting Lists).
POLL = 1.0


def _time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


#: The VMs not yet public, as a List filter (the server counts them: polling never lists them all).
NOT_PUBLIC = ("this.status.state != 'COMPUTE_INSTANCE_STATE_RUNNING' || this.status.internal_ip_address == ''"
              " || this.status.external_ip_address == ''")
AUTO_FILTER = f"'{AUTO}' in this.metadata.labels"


async def _until_ready(client: httpx.AsyncClient, path: str, timeout: float = 120) -> None:
    async with asyncio.timeout(timeout):
        while not (await client.get(path)).json().get("status", {}).get("state", "").endswith("_READY"):
            await asyncio.sleep(0.1)


async def _prepare(server: ServerProcess) -> None:
    """The catalogue READY with the extra pool, and tenant ``acme`` READY."""
    await catalogue_ready(server)
    async with rest_client(server.http_url, server.admin_token()) as admin:
        pool = await admin.post(f"{PRIVATE}/external_ip_pools", json=BENCH_POOL)
        pool.raise_for_status()
        await _until_ready(admin, f"{PRIVATE}/external_ip_pools/{pool.json()['id']}")
        tenant = await admin.post(f"{PUBLIC}/tenants", json={"metadata": {"name": "acme"}})
        tenant.raise_for_status()
        await _until_ready(admin, f"{PUBLIC}/tenants/{tenant.json()['id']}")


def _public(vm: dict[str, Any]) -> bool:
    status = vm.get("status", {})
    return (status.get("state") == "COMPUTE_INSTANCE_STATE_RUNNING"
            and bool(status.get("internal_ip_address")) and bool(status.get("external_ip_address")))


async def _allocated(admin: httpx.AsyncClient) -> int:
    return sum(int(pool["status"].get("allocated", 0)) for pool in await list_items(admin, f"{PRIVATE}/external_ip_pools"))


async def fleet(server: ServerProcess, url: str, vms: int, concurrency: int) -> dict[str, Any]:
    await _prepare(server)
    cpu: dict[str, float] = {}
    async with rest_client(server.http_url, server.tenant_token()) as alice, \
            rest_client(server.http_url, server.admin_token()) as admin:
        baseline = await _allocated(admin)  # the NAT gateway's address
        passes_before = reconcile_counts(await scrape(server))
        with CpuMeter(server.pid, url).measure(cpu):
            started = time.perf_counter()

            async def create(_worker: int, index: int) -> None:
                response = await alice.post(f"{PUBLIC}/compute_instances", json={
                    "metadata": {"name": f"vm-{index:04d}"},
                    "spec": {"template": "fedora", "auto_external_ip_attachment": True}})
                response.raise_for_status()

            creates = await run_async(vms, concurrency, create)
            path = f"{PUBLIC}/compute_instances"
            while await count_items(alice, path, NOT_PUBLIC):
                if await count_items(alice, path, "this.status.state == 'COMPUTE_INSTANCE_STATE_FAILED'"):
                    raise RuntimeError("a VM FAILED")
                await asyncio.sleep(POLL)
            all_public = time.perf_counter() - started
            passes = _per_vm(passes_before, reconcile_counts(await scrape(server)), vms)
            listed = await list_items(alice, path)
            if len(listed) != vms or not all(map(_public, listed)):
                raise RuntimeError("the VMs counted public are not all public when listed")
            running = [(_time(vm["status"]["state_transition_time"]) - _time(vm["metadata"]["creation_timestamp"]))
                       .total_seconds() for vm in listed]
            if await _allocated(admin) != baseline + vms:
                raise RuntimeError("the pools do not hold exactly one external address per VM")

            deleting = time.perf_counter()

            async def delete(_worker: int, index: int) -> None:
                response = await alice.delete(f"{PUBLIC}/compute_instances/{listed[index]['id']}")
                response.raise_for_status()

            deletes = await run_async(vms, concurrency, delete)
            while (await count_items(alice, path)
                   or await count_items(alice, f"{PUBLIC}/external_ips", AUTO_FILTER)
                   or await count_items(alice, f"{PUBLIC}/external_ip_attachments", AUTO_FILTER)
                   or await _allocated(admin) != baseline):
                await asyncio.sleep(POLL)
            all_gone = time.perf_counter() - deleting
    return {
        "vms": vms,
        "create_s": round(creates.elapsed, 1),
        "creates_per_s": round(creates.rate, 1),
        "all_public_s": round(all_public, 1),
        "running_p50_s": round(percentile(running, 50), 1),
        "running_p99_s": round(percentile(running, 99), 1),
        "delete_s": round(deletes.elapsed, 1),
        "all_gone_s": round(all_gone, 1),
        "up_vms_per_s": round(vms / all_public, 1),
        "down_vms_per_s": round(vms / all_gone, 1),
        "server_cpu": round(cpu["server"], 2),
        "postgres_cpu": round(cpu["postgres"], 2),
        **({} if server.workers > 1 else passes),
    }


def _per_vm(before: dict[str, tuple[float, float]], after: dict[str, tuple[float, float]],
            vms: int) -> dict[str, str]:
    """Reconcile passes and their statements per VM brought up, by controller kind
    (``passes/statements``): each kind whose controller passed at least once in the up phase.
    One process's counters, so reported only with one worker."""
    found = {}
    for kind, (passes, statements) in sorted(after.items()):
        passes -= before.get(kind, (0.0, 0.0))[0]
        statements -= before.get(kind, (0.0, 0.0))[1]
        if passes:
            found[f"per_vm_{kind}"] = f"{passes / vms:.2f}/{statements / vms:.1f}"
    return found


async def benchmark(dbs: list[str], sizes: list[int], concurrency: int, workers: int = 1) -> list[dict[str, Any]]:
    rows = []
    for db in dbs:
        for size in sizes:
            with workdir() as directory, scratch_database(db, directory) as url, \
                    ServerProcess(url, directory / "data", controllers=True, bootstrap=None,
                                  simulator_speed="instant", workers=workers) as server:
                rows.append({"db": db, "workers": workers, **await fleet(server, url, size, concurrency)})
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.vm_fleet", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", nargs="+", default=["sqlite", "postgresql"], choices=["sqlite", "postgresql"])
    parser.add_argument("--vms", nargs="+", type=int, default=[100, 1000], help="fleet sizes, one run each")
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--workers", type=int, default=1,
                        help="server processes, each with API and controllers (osac serve --workers; PostgreSQL)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.workers > 1 and args.db != ["postgresql"]:
        parser.error("--workers above 1 needs --db postgresql (SQLite is one process)")
    if not all(1 <= size <= MAX_VMS for size in args.vms):
        parser.error(f"--vms must be 1-{MAX_VMS} (external addresses: the /24 and /22 pools less the NAT gateway's)")
    rows = asyncio.run(benchmark(args.db, args.vms, args.concurrency, args.workers))
    if args.json:
        emit_json("vm_fleet", {k: v for k, v in vars(args).items() if k != "json"}, rows)
    else:
        print_table("VMs with automatic external access, up and down (simulator at instant speed)", rows)


if __name__ == "__main__":
    main()
