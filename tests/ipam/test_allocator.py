"""Allocation semantics (networking.md §5.4) on SQLite and PostgreSQL: determinism, separation of
the workload and VIP ranges, idempotence, release, counters, all-or-nothing and rollback."""

from __future__ import annotations

import ipaddress
import random

import pytest

from osac.ipam import allocator
from osac.ipam.allocator import EXTERNAL, EXTERNAL_SCOPE, VIP, WORKLOAD, Allocation, Counts
from osac.ipam.errors import AddressesExhausted, IpamError, LayoutError, RangeNotFound, RangesInUse
from osac.ipam.layout import subnet_layout
from osac.store.objects import Store, Tx
from tests.ipam.conftest import add_pool, add_subnet, new_id


async def _allocate(tx: Tx, scope: str, owner_id: str, *, kind: str = WORKLOAD, purpose: str = "nic",
                    ordinal: int = 0, owner_type: str = "compute_instance", parent: str | None = None) -> str:
    return await allocator.allocate(tx, scope=scope, kind=kind, owner_type=owner_type, owner_id=owner_id,
                                    purpose=purpose, ordinal=ordinal, parent=parent)


async def _counts(store: Store, scope: str, kind: str = WORKLOAD, parent: str | None = None) -> Counts:
    async with store.read() as tx:
        return await allocator.counts(tx, scope=scope, kind=kind, parent=parent)


async def test_fresh_subnet_yields_addresses_in_order(store: Store) -> None:
    subnet, _ = await add_subnet(store, "10.0.1.0/24")
    got = []
    for index in range(5):
        async with store.write() as tx:
            got.append(await _allocate(tx, subnet, f"vm{index}"))
    assert got == ["10.0.1.2", "10.0.1.3", "10.0.1.4", "10.0.1.5", "10.0.1.6"]
    assert await _counts(store, subnet) == Counts(total=238, allocated=5, available=233)
    assert await _counts(store, subnet, VIP) == Counts(total=15, allocated=0, available=15)


async def test_released_addresses_are_reused_lowest_first(store: Store) -> None:
    subnet, _ = await add_subnet(store, "10.0.1.0/24")
    async with store.write() as tx:
        for index in range(6):
            await _allocate(tx, subnet, f"vm{index}")  # .2 … .7
    async with store.write() as tx:
        # Released out of order: .6, .3, .5
        assert await allocator.release(tx, owner_type="compute_instance", owner_id="vm4") == ["10.0.1.6"]
        assert await allocator.release(tx, owner_type="compute_instance", owner_id="vm1") == ["10.0.1.3"]
        assert await allocator.release(tx, owner_type="compute_instance", owner_id="vm3") == ["10.0.1.5"]
    assert await _counts(store, subnet) == Counts(total=238, allocated=3, available=235)
    async with store.write() as tx:
        again = [await _allocate(tx, subnet, f"new{index}") for index in range(4)]
    assert again == ["10.0.1.3", "10.0.1.5", "10.0.1.6", "10.0.1.8"]
    assert await _counts(store, subnet) == Counts(total=238, allocated=7, available=231)


async def test_vip_and_workload_ranges_never_mix(store: Store) -> None:
    subnet, layout = await add_subnet(store, "10.0.1.64/26")  # workload .66-.111 (46), VIP .112-.126 (15)
    workload = ipaddress.ip_network("10.0.1.64/26")
    vip_first = ipaddress.IPv4Address(layout.vip[0])
    async with store.write() as tx:
        vips = [await _allocate(tx, subnet, "c1", kind=VIP, purpose="vip", ordinal=n) for n in range(15)]
    assert vips == [f"10.0.1.{n}" for n in range(112, 127)]
    async with store.write() as tx:
        with pytest.raises(AddressesExhausted) as error:
            await _allocate(tx, subnet, "c2", kind=VIP, purpose="vip")
    assert (error.value.scope, error.value.kind, error.value.needed, error.value.available) == (subnet, VIP, 1, 0)

    async with store.write() as tx:
        nics = [await _allocate(tx, subnet, f"vm{n}") for n in range(46)]
    assert len(set(nics)) == 46
    assert all(ipaddress.IPv4Address(a) in workload and ipaddress.IPv4Address(a) < vip_first for a in nics)
    assert nics[0] == "10.0.1.66" and nics[-1] == "10.0.1.111"
    async with store.write() as tx:
        with pytest.raises(AddressesExhausted, match=f"no free workload addresses in {subnet}"):
            await _allocate(tx, subnet, "vm-late")
    assert await _counts(store, subnet) == Counts(46, 46, 0)
    assert await _counts(store, subnet, VIP) == Counts(15, 15, 0)


async def test_allocate_is_idempotent_per_owner_key(store: Store) -> None:
    subnet, _ = await add_subnet(store)
    async with store.write() as tx:
        first = await _allocate(tx, subnet, "vm", purpose="nic:eth0")
        assert await _allocate(tx, subnet, "vm", purpose="nic:eth0") == first
    async with store.write() as tx:
        assert await _allocate(tx, subnet, "vm", purpose="nic:eth0") == first
        assert await _allocate(tx, subnet, "vm", purpose="nic:eth1") == "10.0.1.3"
        assert await _allocate(tx, subnet, "vm", purpose="nic:eth0", owner_type="baremetal_instance") == "10.0.1.4"
    assert await _counts(store, subnet) == Counts(238, 3, 235)


async def test_an_owner_key_held_elsewhere_is_refused(store: Store) -> None:
    subnet, _ = await add_subnet(store, "10.0.1.0/24")
    other, _ = await add_subnet(store, "10.0.2.0/24")
    async with store.write() as tx:
        await _allocate(tx, subnet, "vm")
    async with store.write() as tx:
        with pytest.raises(IpamError, match="already holds 10.0.1.2 for 'nic' #0 as a workload address"):
            await _allocate(tx, other, "vm")


async def test_release_is_idempotent_and_selective(store: Store) -> None:
    subnet, _ = await add_subnet(store)
    async with store.write() as tx:
        workers = await allocator.allocate_many(tx, scope=subnet, kind=WORKLOAD, owner_type="cluster", owner_id="c",
                                                purpose="node:workers", ordinals=range(5))
        masters = await allocator.allocate_many(tx, scope=subnet, kind=WORKLOAD, owner_type="cluster", owner_id="c",
                                                purpose="node:masters", ordinals=[0, 1, 2])
        vips = [await _allocate(tx, subnet, "c", owner_type="cluster", kind=VIP, purpose=p) for p in ("api", "ingress")]
    assert workers == ["10.0.1.2", "10.0.1.3", "10.0.1.4", "10.0.1.5", "10.0.1.6"]
    assert masters == ["10.0.1.7", "10.0.1.8", "10.0.1.9"]
    assert vips == ["10.0.1.240", "10.0.1.241"]
    async with store.read() as tx:
        held = await allocator.allocations_of(tx, "cluster", "c")
    assert [(a.purpose, a.ordinal, a.address) for a in held] == [
        ("api", 0, "10.0.1.240"), ("ingress", 0, "10.0.1.241"),
        *[("node:masters", n, masters[n]) for n in range(3)],
        *[("node:workers", n, workers[n]) for n in range(5)],
    ]
    assert held[0] == Allocation(scope=subnet, address="10.0.1.240", kind=VIP, parent=subnet, owner_type="cluster",
                                 owner_id="c", purpose="api", ordinal=0)

    # Scale the workers down to 3: ordinals 3 and 4 go.
    async with store.write() as tx:
        assert await allocator.release(tx, owner_type="cluster", owner_id="c", purpose="node:workers",
                                       min_ordinal=3) == ["10.0.1.5", "10.0.1.6"]
    async with store.write() as tx:
        assert await allocator.release(tx, owner_type="cluster", owner_id="c", purpose="node:workers",
                                       min_ordinal=3) == []
    assert await _counts(store, subnet) == Counts(238, 6, 232)
    # Teardown: everything else, VIPs included.
    async with store.write() as tx:
        assert await allocator.release(tx, owner_type="cluster", owner_id="c") == [
            "10.0.1.240", "10.0.1.241", *masters, *workers[:3]]
        assert await allocator.release(tx, owner_type="cluster", owner_id="c") == []
        assert await allocator.allocations_of(tx, "cluster", "c") == []
    assert await _counts(store, subnet) == Counts(238, 0, 238)
    assert await _counts(store, subnet, VIP) == Counts(15, 0, 15)
    async with store.write() as tx:
        assert await allocator.release(tx, owner_type="cluster", owner_id="never") == []


async def test_allocate_many_is_all_or_nothing(store: Store) -> None:
    subnet, layout = await add_subnet(store, "10.0.1.0/28", vip_prefix_length=30)  # workload .2-.11 (10)
    assert layout.workload_size == 10
    kwargs = {"scope": subnet, "kind": WORKLOAD, "owner_type": "cluster", "owner_id": "c", "purpose": "node:w"}
    async with store.write() as tx:
        assert await allocator.allocate_many(tx, **kwargs, ordinals=[2, 0, 1]) == ["10.0.1.4", "10.0.1.2", "10.0.1.3"]
        assert await allocator.allocate_many(tx, **kwargs, ordinals=[]) == []
    async with store.write() as tx:
        with pytest.raises(AddressesExhausted) as error:
            await allocator.allocate_many(tx, **kwargs, ordinals=range(12))  # 9 missing, 7 free
        assert (error.value.needed, error.value.available) == (9, 7)
        # Nothing was taken: the transaction goes on and can still use every free address.
        assert await allocator.counts(tx, scope=subnet, kind=WORKLOAD) == Counts(10, 3, 7)
        grown = await allocator.allocate_many(tx, **kwargs, ordinals=range(10))
    assert grown == [f"10.0.1.{n}" for n in range(2, 12)]
    async with store.write() as tx:
        with pytest.raises(ValueError, match="ordinals must be distinct"):
            await allocator.allocate_many(tx, **kwargs, ordinals=[1, 1])


async def test_nothing_leaks_when_the_transaction_rolls_back(store: Store) -> None:
    subnet, _ = await add_subnet(store)
    async with store.write() as tx:
        await _allocate(tx, subnet, "kept")
    before = await _counts(store, subnet)

    class CreateFailed(Exception):
        pass

    with pytest.raises(CreateFailed):
        async with store.write() as tx:
            assert await _allocate(tx, subnet, "doomed") == "10.0.1.3"
            await allocator.allocate_many(tx, scope=subnet, kind=WORKLOAD, owner_type="cluster", owner_id="doomed",
                                          purpose="node:w", ordinals=range(3))
            raise CreateFailed
    assert await _counts(store, subnet) == before == Counts(238, 1, 237)
    async with store.read() as tx:
        assert await allocator.allocations_of(tx, "compute_instance", "doomed") == []
        assert await allocator.address_in_use(tx, subnet, "10.0.1.3") is None

    # A release that rolls back leaves the allocation in place.
    with pytest.raises(CreateFailed):
        async with store.write() as tx:
            assert await allocator.release(tx, owner_type="compute_instance", owner_id="kept") == ["10.0.1.2"]
            raise CreateFailed
    assert await _counts(store, subnet) == before
    async with store.write() as tx:
        assert await _allocate(tx, subnet, "next") == "10.0.1.3"


async def test_address_in_use(store: Store) -> None:
    subnet, _ = await add_subnet(store)
    async with store.write() as tx:
        await _allocate(tx, subnet, "vm", purpose="nic:eth0")
        held = await allocator.address_in_use(tx, subnet, "10.0.1.2")
        assert held == Allocation(scope=subnet, address="10.0.1.2", kind=WORKLOAD, parent=subnet,
                                  owner_type="compute_instance", owner_id="vm", purpose="nic:eth0", ordinal=0)
        assert await allocator.address_in_use(tx, subnet, "10.0.1.3") is None
        assert await allocator.address_in_use(tx, new_id(), "10.0.1.2") is None


async def test_counters_hold_under_random_allocate_and_release(store: Store) -> None:
    """A reference model (a set of used addresses; lowest free wins) against random operations:
    every answer and every counter agrees with it."""
    subnet, layout = await add_subnet(store, "10.0.1.0/26")  # 46 workload addresses
    base = int(ipaddress.IPv4Address(layout.workload[0]))
    size = layout.workload_size
    rng = random.Random(20261201)
    held: dict[str, int] = {}
    for _step in range(250):
        owner = f"vm{rng.randrange(60)}"
        async with store.write() as tx:
            if rng.random() < 0.6:
                used = set(held.values())
                free = [base + n for n in range(size) if base + n not in used]
                if owner in held:
                    expected: int | None = held[owner]
                else:
                    expected = free[0] if free else None
                if expected is None:
                    with pytest.raises(AddressesExhausted):
                        await _allocate(tx, subnet, owner)
                else:
                    got = await _allocate(tx, subnet, owner)
                    assert int(ipaddress.IPv4Address(got)) == expected
                    held[owner] = expected
            else:
                released = await allocator.release(tx, owner_type="compute_instance", owner_id=owner)
                gone = held.pop(owner, None)
                assert released == ([] if gone is None else [str(ipaddress.IPv4Address(gone))])
            counts = await allocator.counts(tx, scope=subnet, kind=WORKLOAD)
        assert counts == Counts(size, len(held), size - len(held))


async def test_unknown_scopes_and_misuse(store: Store) -> None:
    subnet, _ = await add_subnet(store)
    async with store.write() as tx:
        with pytest.raises(RangeNotFound, match="no workload address range in"):
            await _allocate(tx, new_id(), "vm")
        with pytest.raises(ValueError, match="unknown address kind"):
            await _allocate(tx, subnet, "vm", kind="floating")
        with pytest.raises(ValueError, match="does not fit scope"):
            await _allocate(tx, subnet, "vm", kind=EXTERNAL)
        with pytest.raises(ValueError, match="does not fit scope"):
            await _allocate(tx, EXTERNAL_SCOPE, "vm", kind=WORKLOAD)
        with pytest.raises(ValueError, match="need the pool id as parent"):
            await _allocate(tx, EXTERNAL_SCOPE, "vm", kind=EXTERNAL)
        assert await allocator.counts(tx, scope=new_id(), kind=WORKLOAD) == Counts(0, 0, 0)


async def test_subnet_ranges_are_added_once_and_dropped_when_unused(store: Store) -> None:
    subnet, layout = await add_subnet(store)
    async with store.write() as tx:
        await allocator.add_subnet_ranges(tx, subnet, layout)  # a retry: no change
        with pytest.raises(IpamError, match="already has address ranges that differ"):
            await allocator.add_subnet_ranges(tx, subnet, subnet_layout("10.0.1.0/24", 27))
        await _allocate(tx, subnet, "vm")
    assert await _counts(store, subnet) == Counts(238, 1, 237)
    async with store.write() as tx:
        with pytest.raises(RangesInUse, match=r"1 address\(es\) are still allocated"):
            await allocator.drop_ranges(tx, subnet)
    async with store.write() as tx:
        await allocator.release(tx, owner_type="compute_instance", owner_id="vm")
        await allocator.drop_ranges(tx, subnet)
        await allocator.drop_ranges(tx, subnet)
        assert await allocator.counts(tx, scope=subnet, kind=WORKLOAD) == Counts(0, 0, 0)
        with pytest.raises(RangeNotFound):
            await _allocate(tx, subnet, "vm")
    # The same subnet id can be laid out again, from scratch.
    async with store.write() as tx:
        await allocator.add_subnet_ranges(tx, subnet, layout)
        assert await _allocate(tx, subnet, "vm") == "10.0.1.2"


async def test_external_pool_fills_its_cidrs_lowest_first(store: Store) -> None:
    async with store.write() as tx:
        pool = new_id()
        counts = await allocator.add_pool_ranges(tx, pool, ["203.0.113.8/30", "198.51.100.0/31", "192.0.2.7/32"])
        assert counts == Counts(2 + 2 + 1, 0, 5)
        assert await allocator.add_pool_ranges(tx, pool, ["203.0.113.8/30"]) == counts  # already there
        got = [await _allocate(tx, EXTERNAL_SCOPE, f"eip{n}", kind=EXTERNAL, owner_type="external_ip",
                               purpose="address", parent=pool) for n in range(5)]
        assert got == ["192.0.2.7", "198.51.100.0", "198.51.100.1", "203.0.113.9", "203.0.113.10"]
        with pytest.raises(AddressesExhausted) as error:
            await _allocate(tx, EXTERNAL_SCOPE, "eip5", kind=EXTERNAL, owner_type="external_ip",
                            purpose="address", parent=pool)
        assert (error.value.scope, error.value.kind) == (EXTERNAL_SCOPE, EXTERNAL)
        assert await allocator.release(tx, owner_type="external_ip", owner_id="eip3") == ["203.0.113.9"]
        assert await allocator.release(tx, owner_type="external_ip", owner_id="eip1") == ["198.51.100.0"]
        again = [await _allocate(tx, EXTERNAL_SCOPE, f"new{n}", kind=EXTERNAL, owner_type="external_ip",
                                 purpose="address", parent=pool) for n in range(2)]
        assert again == ["198.51.100.0", "203.0.113.9"]
        held = await allocator.address_in_use(tx, EXTERNAL_SCOPE, "203.0.113.9")
        assert held is not None and held.parent == pool and held.owner_id == "new1"
        assert (await allocator.pool_counts(tx, [pool]))[pool] == Counts(5, 5, 0)


async def test_pools_share_one_space(store: Store) -> None:
    first = await add_pool(store, "203.0.113.0/24")
    second = await add_pool(store, "198.51.100.0/25", "198.51.100.128/25")
    empty = new_id()
    async with store.write() as tx:
        with pytest.raises(IpamError, match="already belong to pool"):
            await allocator.add_pool_ranges(tx, new_id(), ["203.0.113.0/24"])
        with pytest.raises(LayoutError, match="IPv6"):
            await allocator.add_pool_ranges(tx, new_id(), ["2001:db8::/64"])
        a = await _allocate(tx, EXTERNAL_SCOPE, "x", kind=EXTERNAL, owner_type="external_ip", purpose="address",
                            parent=first)
        b = await _allocate(tx, EXTERNAL_SCOPE, "y", kind=EXTERNAL, owner_type="external_ip", purpose="address",
                            parent=second)
        assert (a, b) == ("203.0.113.1", "198.51.100.1")
        assert await allocator.pool_counts(tx, [first, second, empty]) == {
            first: Counts(254, 1, 253), second: Counts(252, 1, 251), empty: Counts(0, 0, 0)}
        assert await allocator.pool_counts(tx, []) == {}
        assert await allocator.counts(tx, scope=EXTERNAL_SCOPE, kind=EXTERNAL) == Counts(506, 2, 504)
        assert await allocator.counts(tx, scope=EXTERNAL_SCOPE, kind=EXTERNAL, parent=second) == Counts(252, 1, 251)
        with pytest.raises(RangesInUse):
            await allocator.drop_ranges(tx, first)
        await allocator.release(tx, owner_type="external_ip", owner_id="x")
        await allocator.drop_ranges(tx, first)
        assert (await allocator.pool_counts(tx, [first]))[first] == Counts(0, 0, 0)
        # Its CIDR is free for another pool now.
        third = new_id()
        assert await allocator.add_pool_ranges(tx, third, ["203.0.113.0/24"]) == Counts(254, 0, 254)


async def test_lock_ranges_takes_several_scopes(store: Store) -> None:
    one, _ = await add_subnet(store, "10.0.1.0/24")
    two, _ = await add_subnet(store, "10.0.2.0/24")
    async with store.write() as tx:
        await allocator.lock_ranges(tx, [two, one, two])
        await allocator.lock_ranges(tx, [])
        assert await _allocate(tx, two, "vm", purpose="nic:eth1") == "10.0.2.2"
        assert await _allocate(tx, one, "vm", purpose="nic:eth0") == "10.0.1.2"
