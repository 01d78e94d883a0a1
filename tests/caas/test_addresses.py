"""A cluster's addresses (networking.md §5.2, §5.3, §5.5, §7.3): two VIPs from the subnet's VIP
range and one workload address per node, reserved in the Create (or growing Update)
transaction, released when the cluster is archived; exhaustion refuses the request and stores
nothing."""

from __future__ import annotations

import asyncio
import ipaddress

import httpx
import pytest
from sqlalchemy import text

from osac.ipam import allocator
from osac.model import registry
from osac.services.clusters import addresses
from osac.store.errors import Conflict
from osac.store.objects import Store
from tests.caas.conftest import Caas, error


async def _held(caas: Caas, cluster_id: str) -> list[tuple[str, int, str]]:
    async with caas.server.app.store.read() as tx:
        return [(a.purpose, a.ordinal, a.address) for a in await allocator.allocations_of(tx, "cluster", cluster_id)]


async def _subnet(caas: Caas, name: str, cidr: str) -> dict:
    [vn] = await caas.items("virtual_networks", "this.metadata.tenant == 'acme' && this.metadata.name == 'default'")
    subnet = await caas.create("subnets", {"metadata": {"name": name},
                                           "spec": {"virtual_network": vn["id"], "ipv4_cidr": cidr}})
    return await caas.ready("subnets", subnet["id"])


async def test_vips_and_node_addresses_are_reserved_and_released_on_archive(caas: Caas) -> None:
    [subnet] = await caas.items("subnets", "this.metadata.tenant == 'acme'")
    before = subnet["status"]["available_addresses"]
    cluster = await caas.cluster(node_sets={"workers": {"size": 2}})
    held = await _held(caas, cluster["id"])
    assert held == [("node:workers", 0, "10.0.0.2"), ("node:workers", 1, "10.0.0.3"),
                    ("vip", 0, "10.0.15.240"), ("vip", 1, "10.0.15.241")]
    assert subnet["status"]["vip_range"] == "10.0.15.240-10.0.15.254"
    [after] = await caas.items("subnets", f"this.id == '{subnet['id']}'")
    assert after["status"]["available_addresses"] == before - 2
    assert "api_endpoint" not in cluster["status"]  # published by the derivation, not at create

    second = await caas.cluster("second")
    assert [a for p, _, a in await _held(caas, second["id"]) if p == "vip"] == ["10.0.15.242", "10.0.15.243"]

    deleted = await caas.alice.request("DELETE", f"/api/fulfillment/v1/clusters/{cluster['id']}")
    assert deleted.status_code == 200, deleted.text
    assert (await caas.get("clusters", cluster["id"])).status_code == 404  # no finalizer: archived at once
    assert await _held(caas, cluster["id"]) == []
    [restored] = await caas.items("subnets", f"this.id == '{subnet['id']}'")
    assert restored["status"]["available_addresses"] == before - 3  # only the second cluster's three nodes
    third = await caas.cluster("third", node_sets={"workers": {"size": 1}})
    assert await _held(caas, third["id"]) == [("node:workers", 0, "10.0.0.2"),
                                              ("vip", 0, "10.0.15.240"), ("vip", 1, "10.0.15.241")]


async def test_seven_clusters_fill_a_vip_range_and_the_eighth_is_refused(caas: Caas) -> None:
    subnet = await _subnet(caas, "small", "10.0.32.0/24")
    vip_range = subnet["status"]["vip_range"]
    for index in range(7):
        created = await caas.cluster(f"c{index}", network_attachment={"subnet": "small"},
                                     node_sets={"workers": {"size": 1}})
        for _, _, address in await _held(caas, created["id"]):
            assert ipaddress.ip_address(address) in ipaddress.ip_network("10.0.32.0/24")
    before = await caas.revision()
    refused = await caas.post("clusters", {"metadata": {"name": "c7"}, "spec": {
        "template": "ocp-small", "network_attachment": {"subnet": "small"}, "node_sets": {"workers": {"size": 1}}}})
    assert error(refused) == (429, f"Subnet 'small' has no free VIP addresses in {vip_range}")
    assert await caas.revision() == before


async def test_node_addresses_beyond_the_workload_range_are_refused(caas: Caas) -> None:
    subnet = await _subnet(caas, "tiny", "10.0.40.0/27")  # workload range .2-.15: 14 addresses
    assert subnet["status"]["available_addresses"] == 14
    refused = await caas.post("clusters", {"metadata": {"name": "big"}, "spec": {
        "template": "ocp-small", "network_attachment": {"subnet": "tiny"}, "node_sets": {"workers": {"size": 15}}}})
    assert error(refused) == (429, "Subnet 'tiny' has no free addresses (needed 15, available 14)")
    cluster = await caas.cluster(network_attachment={"subnet": "tiny"}, node_sets={"workers": {"size": 4}})
    grow = await caas.patch("clusters", cluster["id"], {"spec": {"node_sets": {"workers": {"size": 20}}}},
                            mask="spec.node_sets")
    assert error(grow) == (429, "Subnet 'tiny' has no free addresses (needed 16, available 10)")
    stored = (await caas.get("clusters", cluster["id"])).json()
    assert stored["spec"]["node_sets"]["workers"]["size"] == 4 and stored["metadata"].get("version", 0) == 0
    grown = await caas.patch("clusters", cluster["id"], {"spec": {"node_sets": {"workers": {"size": 6}}}},
                             mask="spec.node_sets")
    assert grown.status_code == 200, grown.text
    assert [o for p, o, _ in await _held(caas, cluster["id"]) if p == "node:workers"] == [0, 1, 2, 3, 4, 5]
    # Shrinking releases nothing yet: the reconciler does once the nodes are gone.
    shrunk = await caas.patch("clusters", cluster["id"], {"spec": {"node_sets": {"workers": {"size": 1}}}},
                              mask="spec.node_sets")
    assert shrunk.status_code == 200, shrunk.text
    assert len([p for p, _, _ in await _held(caas, cluster["id"]) if p == "node:workers"]) == 6


async def test_a_growth_committed_during_a_reconcile_pass_is_not_released_as_surplus(caas: Caas) -> None:
    """A pass that read the cluster at size 3 and releases surplus node addresses after a growth
    to 5 committed (each PostgreSQL statement sees the latest commits, so the new ordinals 3 and 4
    look surplus to it) fails with Conflict and releases nothing: the pass holds the cluster's row
    as of the version it read. On SQLite the one writer rules the interleaving out."""
    if caas.server.app.store.dialect != "postgresql":
        pytest.skip("SQLite serialises the two writes")
    cluster = await caas.cluster()
    kind = registry.get("cluster")
    store = caas.server.app.store
    with pytest.raises(Conflict):
        async with store.write() as tx:
            stored = await tx.get(kind, cluster["id"])  # the pass's read: size 3
            assert stored is not None
            response = await caas.patch("clusters", cluster["id"],
                                        {"spec": {"node_sets": {"workers": {"size": 5}}}}, mask="spec.node_sets")
            assert response.status_code == 200, response.text
            await addresses.release_surplus_nodes(tx, stored, {("workers", i) for i in range(3)})
    assert [(p, o) for p, o, _ in await _held(caas, cluster["id"]) if p == "node:workers"] == [
        ("node:workers", i) for i in range(5)]


async def test_a_growth_racing_a_release_of_surplus_nodes_queues_behind_it_instead_of_deadlocking(caas: Caas) -> None:
    """The reconciler releasing surplus node addresses holds the cluster's row, then the subnet's;
    an Update growing a node set meanwhile takes them in the same order, so it waits for the
    release and then succeeds (taken the other way round, PostgreSQL aborts one of the two as a
    deadlock). On SQLite the one writer rules the interleaving out."""
    store = caas.server.app.store
    if store.dialect != "postgresql":
        pytest.skip("SQLite serialises the two writes")
    cluster = await caas.cluster()
    shrunk = await caas.patch("clusters", cluster["id"], {"spec": {"node_sets": {"workers": {"size": 2}}}},
                              mask="spec.node_sets")
    assert shrunk.status_code == 200, shrunk.text
    kind = registry.get("cluster")
    growth: asyncio.Task[httpx.Response] | None = None
    for _ in range(20):  # the reconciler may write the cluster between our read and our hold
        try:
            async with store.write() as tx:
                stored = await tx.get(kind, cluster["id"])
                assert stored is not None and stored.spec.node_sets["workers"].size == 2
                await tx.hold(kind, stored)  # the release's first lock
                growth = asyncio.create_task(caas.patch(
                    "clusters", cluster["id"], {"spec": {"node_sets": {"workers": {"size": 5}}}}, mask="spec.node_sets"))
                await _until_a_writer_waits_for_a_lock(store)
                released = await addresses.release_surplus_nodes(tx, stored, {("workers", 0), ("workers", 1)})
                assert released
            break
        except Conflict:
            assert growth is None
    assert growth is not None
    response = await asyncio.wait_for(growth, 30)
    assert response.status_code == 200, response.text
    assert [(p, o) for p, o, _ in await _held(caas, cluster["id"]) if p == "node:workers"] == [
        ("node:workers", i) for i in range(5)]


async def _until_a_writer_waits_for_a_lock(store: Store) -> None:
    waiting = text("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                   "AND wait_event_type = 'Lock'")
    for _ in range(300):
        async with store.read(snapshot=False) as tx:
            if (await tx.conn.execute(waiting)).scalar_one():
                return
        await asyncio.sleep(0.01)
    raise AssertionError("the Update never waited for the cluster's row")
