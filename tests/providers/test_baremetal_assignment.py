"""Assigning inventory hosts (compute.md §4): lowest free name first, atomic, all or nothing for a
list of requests, the same hosts again for the same owner, and never one host for two owners
when callers race (on SQLite and PostgreSQL)."""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest

from osac.providers.baremetal import HostOwner, HostRequest
from osac.providers.interfaces import TerminalProviderError
from osac.providers.simulator.baremetal.provider import SimulatedBareMetal
from osac.providers.simulator.runtime.context import SimulatorRuntime
from tests.providers.compute_support import HOST_TYPES, inventory

BMI = "BareMetalInstance"
POOL = "NodePool"


@pytest.fixture
async def baremetal(runtime: SimulatorRuntime) -> SimulatedBareMetal:
    provider = SimulatedBareMetal(runtime, inventory(("bm-std", "bm-standard", 10), ("bm-big", "bm-large", 3)))
    await provider.load_inventory({**HOST_TYPES, "bm-large": HOST_TYPES["bm-standard"]})
    return provider


async def owners(baremetal: SimulatedBareMetal) -> dict[str, HostOwner | None]:
    return {h.name: h.owner for h in await baremetal.list_hosts()}


async def test_the_lowest_free_host_and_the_same_one_again(baremetal: SimulatedBareMetal) -> None:
    first = await baremetal.assign_free_host("bm-standard", BMI, "bmi-1")
    assert first is not None and first.name == "bm-std-001"
    assert first.owner == HostOwner(BMI, "bmi-1")
    again = await baremetal.assign_free_host("bm-standard", BMI, "bmi-1")
    assert again == first
    second = await baremetal.assign_free_host("bm-standard", BMI, "bmi-2")
    assert second is not None and second.name == "bm-std-002"
    assert await baremetal.assign_free_host("bm-h100", BMI, "bmi-3") is None

    await baremetal.release_host("bm-std-001", "bmi-1")
    third = await baremetal.assign_free_host("bm-standard", BMI, "bmi-3")
    assert third is not None and third.name == "bm-std-001"


async def test_none_when_every_host_is_taken(baremetal: SimulatedBareMetal) -> None:
    for index in range(3):
        assert await baremetal.assign_free_host("bm-large", BMI, f"bmi-{index}") is not None
    assert await baremetal.assign_free_host("bm-large", BMI, "bmi-late") is None
    await baremetal.release_host("bm-big-002", "bmi-1")
    late = await baremetal.assign_free_host("bm-large", BMI, "bmi-late")
    assert late is not None and late.name == "bm-big-002"


async def test_a_list_of_requests_is_met_whole(baremetal: SimulatedBareMetal) -> None:
    requests = [HostRequest("bm-standard", 3, POOL, "cluster-1/workers"), HostRequest("bm-large", 2, POOL, "cluster-1/gpu")]
    result = await baremetal.assign_free_host(requests)
    assert result is not None
    assert [[h.name for h in hosts] for hosts in result] == [
        ["bm-std-001", "bm-std-002", "bm-std-003"], ["bm-big-001", "bm-big-002"]]
    assert {h.owner for hosts in result for h in hosts} == {
        HostOwner(POOL, "cluster-1/workers"), HostOwner(POOL, "cluster-1/gpu")}

    # asking again gives the same hosts; growing takes only the shortfall
    assert await baremetal.assign_free_host(requests) == result
    grown = await baremetal.assign_free_host([HostRequest("bm-standard", 5, POOL, "cluster-1/workers")])
    assert grown is not None and [h.name for h in grown[0]] == [f"bm-std-00{n}" for n in range(1, 6)]


async def test_a_list_that_cannot_be_met_assigns_nothing(baremetal: SimulatedBareMetal) -> None:
    before = await owners(baremetal)
    result = await baremetal.assign_free_host([
        HostRequest("bm-standard", 4, POOL, "cluster-2/workers"), HostRequest("bm-large", 4, POOL, "cluster-2/gpu")])
    assert result is None
    assert await owners(baremetal) == before


async def test_release_frees_only_the_owners_host(baremetal: SimulatedBareMetal) -> None:
    host = await baremetal.assign_free_host("bm-standard", BMI, "bmi-1")
    assert host is not None
    await baremetal.release_host(host.name, "bmi-other")  # not the owner: nothing changes
    assert (await owners(baremetal))[host.name] == HostOwner(BMI, "bmi-1")
    await baremetal.release_host(host.name, "bmi-1")
    await baremetal.release_host(host.name, "bmi-1")  # again: still free, no error
    await baremetal.release_host("bm-nope-001", "bmi-1")
    assert (await owners(baremetal))[host.name] is None


async def test_requests_need_an_owner(baremetal: SimulatedBareMetal) -> None:
    with pytest.raises(TerminalProviderError, match="owner_kind and owner_id are required"):
        await baremetal.assign_free_host("bm-standard", BMI, "")
    with pytest.raises(TerminalProviderError, match="request 1: count must not be negative"):
        await baremetal.assign_free_host([HostRequest("bm-standard", 1, BMI, "a"), HostRequest("bm-standard", -1, BMI, "b")])


async def test_twenty_concurrent_requests_for_ten_hosts(baremetal: SimulatedBareMetal) -> None:
    results = await asyncio.gather(*(
        baremetal.assign_free_host("bm-standard", BMI, f"bmi-{index:02d}") for index in range(20)))
    assigned = [r for r in results if r is not None]
    assert len(assigned) == 10
    assert len({h.name for h in assigned}) == 10
    held = {name: owner for name, owner in (await owners(baremetal)).items() if name.startswith("bm-std")}
    assert all(owner is not None for owner in held.values())
    assert Counter(owner.id for owner in held.values() if owner) == Counter(h.owner.id for h in assigned if h.owner)


async def test_concurrent_lists_never_share_a_host(baremetal: SimulatedBareMetal) -> None:
    calls = [
        baremetal.assign_free_host([HostRequest("bm-large", 1, POOL, f"c{index}/gpu"),
                                    HostRequest("bm-standard", 3, POOL, f"c{index}/workers")])
        for index in range(6)
    ]
    results = await asyncio.gather(*calls)
    met = [r for r in results if r is not None]
    assert len(met) == 3  # three bm-large hosts; 3 x 3 of the ten bm-standard ones
    names = [h.name for result in met for hosts in result for h in hosts]
    assert len(names) == len(set(names)) == 12
    taken = {name for name, owner in (await owners(baremetal)).items() if owner is not None}
    assert taken == set(names)
