"""Addresses are reserved as a Create's last work (``services/networking/reservations.py``): an
open VM Create does not hold its subnet or its pool, so other Creates in them go on; a pool
emptied by them before the commit sends the automatic external IP to the next best pool, and the
ExternalIP and its attachment are stored (and announced) with the address reserved then.

PostgreSQL only: SQLite's one writer never lets another Create run while one is open."""

from __future__ import annotations

import asyncio
from ipaddress import ip_address
from typing import Any

import pytest

from osac.api.private.v1.compute_instance_type_pb2 import ComputeInstance
from osac.services.core.context import Caller
from osac.services.networking import pool_selection
from osac.services.networking.allocation_metrics import AUTO, allocation_path
from osac.store import outbox
from tests.support.networking import find_by_name, set_state
from tests.workloads.conftest import VMS, Workloads

pytestmark = pytest.mark.asyncio


def _postgresql_only(wl: Workloads) -> None:
    if wl.server.app.store.dialect != "postgresql":
        pytest.skip("SQLite serialises the Creates: none runs while another is open")


async def _addresses(wl: Workloads, vm: dict[str, Any]) -> list[str]:
    return [address for _, address, _, _ in await wl.allocations("compute_instance", vm["id"])]


async def test_an_open_vm_create_does_not_hold_its_subnet(wl: Workloads) -> None:
    _postgresql_only(wl)
    app = wl.server.app
    available = (await wl.get("subnets", wl.defaults["subnets"]["id"]))["status"]["available_addresses"]
    vm = ComputeInstance()
    vm.metadata.name = "open"
    vm.metadata.tenant = "acme"
    vm.spec.template = "fedora"
    vm.spec.auto_external_ip_attachment = True
    async with app.store.write() as tx:
        opened = await app.services["compute_instance"].create_in(tx, Caller.system(), vm)
        # The Create above is written but not committed: another VM Create in the same subnet,
        # with an external IP from the same pool, completes meanwhile.
        other = await asyncio.wait_for(wl.create(VMS, {"metadata": {"name": "other"}, "spec": {
            "template": "fedora", "auto_external_ip_attachment": True}}), 30)
    [first] = await _addresses(wl, other)
    [second] = await _addresses(wl, {"id": opened.id})
    assert (first, second) == ("10.0.0.2", "10.0.0.3")  # the one committed first got the lowest
    eips = {eip["metadata"]["name"]: ip_address(eip["status"]["address"]) for eip in await wl.items("external_ips")}
    assert eips[f"auto-{opened.id}"] == eips[f"auto-{other['id']}"] + 1  # in the pool too
    subnet = await wl.get("subnets", wl.defaults["subnets"]["id"])
    assert subnet["status"]["available_addresses"] == available - 2


async def test_a_pool_emptied_before_the_commit_sends_the_external_ip_to_the_next_best(wl: Workloads) -> None:
    _postgresql_only(wl)
    app = wl.server.app
    public = await find_by_name(wl.admin, "external_ip_pools", "public-v4")
    await set_state(wl.admin, "external_ip_pools", public["id"], "EXTERNAL_IP_POOL_STATE_PENDING")  # not READY
    first = await wl.pool("a-first", ["198.51.100.0/31"])  # two addresses each; a tie goes to the name
    second = await wl.pool("b-second", ["198.51.100.2/31"])
    before = await wl.revision()
    async with app.store.write() as tx:
        with allocation_path(AUTO):
            eip = await pool_selection.create_external_ip(tx, app.services, tenant="acme", name="late", labels={})
        assert (eip.spec.pool, eip.status.address) == (first["id"], "")  # chosen now, reserved at commit
        for name in ("x", "y"):  # two Creates that commit meanwhile take a-first's addresses
            await asyncio.wait_for(wl.create("external_ips", {"metadata": {"name": name},
                                                              "spec": {"pool": first["id"]}}), 30)
    assert (eip.spec.pool, eip.status.pool, eip.status.address) == (second["id"], second["id"], "198.51.100.2")
    stored = await wl.get("external_ips", eip.id)
    assert (stored["spec"]["pool"], stored["status"]["pool"], stored["status"]["address"]) == (
        second["id"], second["id"], "198.51.100.2")
    pools = {pool["metadata"]["name"]: pool["status"] for pool in await wl.items("external_ip_pools")}
    assert (int(pools["a-first"].get("available", 0)), int(pools["b-second"]["available"])) == (0, 1)
    async with app.store.read() as read:
        events = await outbox.events_after(read, before)
    created = [event.data for event in events if event.kind == "external_ip" and event.data["id"] == eip.id]
    assert [(data["spec"]["pool"], data["status"]["address"]) for data in created] == [(second["id"], "198.51.100.2")]
