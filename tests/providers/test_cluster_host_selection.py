"""``ClusterHosts`` against the simulated inventory: node sets' hosts claimed all at once, kept per
ordinal across growth and shrinkage, released once their nodes are gone (networking.md §7.3)."""

from __future__ import annotations

import pytest

from osac.controllers.clusters.hosts import ClusterHosts, NodeSetHosts
from osac.providers.simulator.baremetal.provider import SimulatedBareMetal
from osac.providers.simulator.runtime.context import SimulatorRuntime
from tests.providers.compute_support import HOST_TYPES, inventory

CLUSTER = "c1"


@pytest.fixture
async def hosts(runtime: SimulatorRuntime) -> ClusterHosts:
    provider = SimulatedBareMetal(runtime, inventory(("bm", "bm-standard", 5), ("gpu", "bm-h100", 2)))
    await provider.load_inventory({**HOST_TYPES, "bm-h100": HOST_TYPES["bm-standard"]})
    return ClusterHosts(provider)


def no_nodes(nodes: dict[tuple[str, int], str] | None = None):  # noqa: ANN201 - the running() callable
    async def running() -> dict[tuple[str, int], str]:
        return nodes or {}
    return running


async def owners(hosts: ClusterHosts) -> dict[str, str]:
    return {h.name: h.owner.id if h.owner else "" for h in await hosts.inventory.list_hosts()}


async def test_all_node_sets_or_none(hosts: ClusterHosts) -> None:
    short = await hosts.select(CLUSTER, {"workers": NodeSetHosts("bm-standard", 2), "gpu": NodeSetHosts("bm-h100", 3)},
                               no_nodes())
    assert short.shortage == "node set 'gpu' needs 3 hosts of type 'bm-h100', 2 free"
    assert set((await owners(hosts)).values()) == {""}
    got = await hosts.select(CLUSTER, {"workers": NodeSetHosts("bm-standard", 2), "gpu": NodeSetHosts("bm-h100", 2)},
                             no_nodes())
    assert got.hosts == {"workers": ("bm-001", "bm-002"), "gpu": ("gpu-001", "gpu-002")}
    assert got.selected_message == "2 bm-h100 and 2 bm-standard hosts selected"
    again = await hosts.select(CLUSTER, {"workers": NodeSetHosts("bm-standard", 2), "gpu": NodeSetHosts("bm-h100", 2)},
                               no_nodes())
    assert again.hosts == got.hosts and again.selected_message is None


async def test_ordinals_keep_their_hosts_and_surplus_hosts_go_once_free(hosts: ClusterHosts) -> None:
    other = ClusterHosts(hosts.inventory)
    assert (await other.select("c2", {"a": NodeSetHosts("bm-standard", 1)}, no_nodes())).hosts == {"a": ("bm-001",)}
    three = await hosts.select(CLUSTER, {"w": NodeSetHosts("bm-standard", 3)}, no_nodes())
    assert three.hosts == {"w": ("bm-002", "bm-003", "bm-004")}
    await other.release_all("c2")  # bm-001 is free again, lower than every host c1 holds
    running = {("w", 0): "bm-002", ("w", 1): "bm-003", ("w", 2): "bm-004"}
    four = await hosts.select(CLUSTER, {"w": NodeSetHosts("bm-standard", 4)}, no_nodes(running))
    assert four.hosts == {"w": ("bm-002", "bm-003", "bm-004", "bm-001")}  # running nodes keep theirs
    assert four.selected_message == "1 bm-standard host selected"

    two = await hosts.select(CLUSTER, {"w": NodeSetHosts("bm-standard", 2)}, no_nodes())
    assert two.hosts == {"w": ("bm-002", "bm-003")}
    assert await hosts.release_unused(CLUSTER, {"bm-002", "bm-003", "bm-004"}) == ["bm-001"]  # bm-004 still runs
    assert await hosts.release_unused(CLUSTER, {"bm-002", "bm-003"}) == ["bm-004"]
    assert await hosts.release_unused(CLUSTER, {"bm-002", "bm-003"}) == []  # settled: nothing asked
    assert {name for name, owner in (await owners(hosts)).items() if owner} == {"bm-002", "bm-003"}

    removed = await hosts.select(CLUSTER, {}, no_nodes())
    assert removed.hosts == {}
    assert await hosts.release_unused(CLUSTER, set()) == ["bm-002", "bm-003"]
    assert set((await owners(hosts)).values()) == {""}
