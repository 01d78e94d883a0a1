"""Leases: the database lease store, and managers sharing one database that split every kind's
keys by shard (SQLite and PostgreSQL)."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from sqlalchemy import select

from osac.controllers.runtime.shards import dealt_to, member_lease, shard_lease, shard_of
from osac.controllers.runtime.testing import InMemoryChangeLog, InMemoryLeaseStore
from osac.store.leases import DatabaseLeaseStore
from osac.store.schema import leases as leases_table

TTL = timedelta(seconds=15)
#: A real-time wait bound so long that the managers' loops act only when woken (a stalled process).
STALLED = 60.0
SHARDS = 4


def ids_in(shard: int, count: int = 2) -> list[str]:
    """``count`` widget ids of ``shard`` (of ``SHARDS``)."""
    found = [f"w{n}" for n in range(200) if shard_of(f"w{n}", SHARDS) == shard]
    return found[:count]


async def test_a_lease_has_one_holder_until_it_expires(clock, lease_store) -> None:
    store = lease_store()
    assert await store.try_acquire("controller/widget", "a", TTL)
    assert not await store.try_acquire("controller/widget", "b", TTL)
    assert await store.try_acquire("controller/gadget", "b", TTL)  # names are independent

    clock.advance(TTL)  # expires_at == now: still a's
    assert not await store.try_acquire("controller/widget", "b", TTL)
    assert await store.holder_of("controller/widget") == "a"
    clock.advance(timedelta(microseconds=1))
    assert await store.holder_of("controller/widget") is None
    assert await store.try_acquire("controller/widget", "b", TTL)
    assert not await store.try_acquire("controller/widget", "a", TTL)


async def test_renewing_extends_the_lease(clock, lease_store) -> None:
    store = lease_store()
    assert await store.try_acquire("controller/widget", "a", TTL)
    for _ in range(5):
        clock.advance(TTL / 3)
        assert await store.try_acquire("controller/widget", "a", TTL)
        assert not await store.try_acquire("controller/widget", "b", TTL)


async def test_only_the_holder_releases(clock, lease_store) -> None:
    store = lease_store()
    assert await store.try_acquire("controller/widget", "a", TTL)
    await store.release("controller/widget", "b")
    assert await store.holder_of("controller/widget") == "a"
    await store.release("controller/widget", "a")
    assert await store.holder_of("controller/widget") is None
    assert await store.try_acquire("controller/widget", "b", TTL)


async def test_of_many_concurrent_takers_exactly_one_wins(clock, lease_database) -> None:
    stores = [DatabaseLeaseStore(lease_database(), clock) for _ in range(6)]
    assert await stores[0].try_acquire("controller/widget", "old", TTL)
    clock.advance(TTL * 2)  # expired: everybody races for the takeover
    for _ in range(3):
        results = await asyncio.gather(
            *(store.try_acquire("controller/widget", f"holder-{n}", TTL) for n, store in enumerate(stores))
        )
        assert sum(results) == 1
        clock.advance(TTL * 2)


async def test_many_leases_are_taken_and_released_in_one_call(clock, lease_store) -> None:
    a, b = lease_store(), lease_store()
    assert await a.try_acquire_many(["s/0", "s/1", "s/2"], "a", TTL) == {"s/0", "s/1", "s/2"}
    assert await b.try_acquire_many(["s/1", "s/2", "s/3"], "b", TTL) == {"s/3"}
    assert await b.live("s/") == {"s/0": "a", "s/1": "a", "s/2": "a", "s/3": "b"}
    await a.release_many(["s/1", "s/3"], "a")  # s/3 is b's: left alone
    assert await b.live("s/") == {"s/0": "a", "s/2": "a", "s/3": "b"}
    assert await b.live("s%") == {}  # a prefix, not a pattern
    clock.advance(TTL + timedelta(seconds=1))
    assert await b.live("s/") == {}
    assert await b.try_acquire_many(["s/0"], "b", TTL) == {"s/0"}


# -- managers on one database ---------------------------------------------------------------------


async def test_two_managers_split_the_shards_and_each_key_runs_in_its_owner_only(
    clock, lease_database, make_manager, make_reconciler, objects, eventually
) -> None:
    log = InMemoryChangeLog()
    objects.add("widget", *[key for shard in range(SHARDS) for key in ids_in(shard)])
    a_widgets, b_widgets = make_reconciler("widget"), make_reconciler("widget")
    options = {"feed": log.feed(), "lease_ttl": TTL, "max_real_wait": STALLED, "shards": SHARDS}
    a = await make_manager([a_widgets], **options, leases=DatabaseLeaseStore(lease_database(), clock), holder="a")
    assert a.held_shards == set(range(SHARDS)) and a.leads and a.members == ("a",)
    await asyncio.wait_for(a.wait_idle(), 0.5)
    assert sorted(a_widgets.calls) == sorted(objects.by_kind["widget"])

    options["feed"] = log.feed()
    b = await make_manager([b_widgets], **options, leases=DatabaseLeaseStore(lease_database(), clock), holder="b")
    assert b.held_shards == set()  # dealt {1, 3}, still a's
    await a.renew_leases()  # a sees b and hands {1, 3} over
    assert a.held_shards == {0, 2} and a.members == ("a", "b")
    await b.renew_leases()
    assert b.held_shards == {1, 3} and not b.leads
    await asyncio.wait_for(b.wait_idle(), 0.5)
    assert sorted(b_widgets.calls) == sorted(ids_in(1) + ids_in(3))  # b resyncs what it took

    a_widgets.calls.clear()
    b_widgets.calls.clear()
    for shard in range(SHARDS):
        log.append("widget", ids_in(shard)[0])
    await asyncio.wait_for(a.wait_idle(), 0.5)
    await asyncio.wait_for(b.wait_idle(), 0.5)
    assert sorted(a_widgets.calls) == sorted([ids_in(0)[0], ids_in(2)[0]])
    assert sorted(b_widgets.calls) == sorted([ids_in(1)[0], ids_in(3)[0]])

    # b stalls (no renewal) past its leases; a's next renewal deals without it and takes over.
    clock.advance(TTL + timedelta(seconds=1))
    await a.renew_leases()
    assert a.held_shards == set(range(SHARDS)) and a.members == ("a",)
    # b notices at its next renewal: it rejoins, a hands its share back at a's next one
    await b.renew_leases()
    assert b.held_shards == set()
    await eventually(lambda: b.controllers["widget"].is_stopped)
    await a.renew_leases()
    await b.renew_leases()
    assert (a.held_shards, b.held_shards) == ({0, 2}, {1, 3})


async def test_the_renewal_loop_keeps_the_shards_and_a_clean_stop_hands_them_over(
    clock, lease_database, make_manager, make_reconciler, eventually
) -> None:
    log = InMemoryChangeLog()
    engine = lease_database()
    options = {"lease_ttl": TTL, "shards": SHARDS}
    a = await make_manager([make_reconciler("widget")], feed=log.feed(), **options,
                           leases=DatabaseLeaseStore(lease_database(), clock), holder="a")
    b = await make_manager([make_reconciler("widget")], feed=log.feed(), **options,
                           leases=DatabaseLeaseStore(lease_database(), clock), holder="b")
    await a.renew_leases()
    await b.renew_leases()
    assert (a.held_shards, b.held_shards) == ({0, 2}, {1, 3})

    async def expires_at(name: str):
        async with engine.connect() as conn:
            query = select(leases_table.c.expires_at).where(leases_table.c.name == name)
            return (await conn.execute(query)).scalar_one()

    # Four renewal periods: each loop renews its own shards, so neither takes the other's.
    for _ in range(4):
        clock.advance(TTL / 3)
        a.wake()
        b.wake()
        expected = (clock.now() + TTL).replace(tzinfo=None)
        for _ in range(200):
            stored = [await expires_at(shard_lease(shard)) for shard in range(SHARDS)]
            if all(value.replace(tzinfo=None) == expected for value in stored):
                break
            await asyncio.sleep(0.005)
        assert [value.replace(tzinfo=None) for value in stored] == [expected] * SHARDS
        assert (a.held_shards, b.held_shards) == ({0, 2}, {1, 3})

    await a.stop()
    assert await b._leases.live("controllers/") == {
        member_lease("b", SHARDS): "b", shard_lease(1): "b", shard_lease(3): "b"}
    await b.renew_leases()
    assert b.held_shards == set(range(SHARDS)) and b.leads
    await eventually(lambda: b.controllers["widget"].is_running)


async def test_a_manager_with_another_shard_count_takes_no_new_shards(
    clock, make_manager, make_reconciler
) -> None:
    leases = InMemoryLeaseStore(clock)
    log = InMemoryChangeLog()
    a = await make_manager([make_reconciler("widget")], feed=log.feed(), leases=leases, holder="a",
                           lease_ttl=TTL, shards=SHARDS, max_real_wait=STALLED)
    b = await make_manager([make_reconciler("widget")], feed=log.feed(), leases=leases, holder="b",
                           lease_ttl=TTL, shards=SHARDS * 2, max_real_wait=STALLED)
    assert a.held_shards == set(range(SHARDS))
    assert b.held_shards == set() and not b.controllers["widget"].is_running
    await a.renew_leases()
    assert a.held_shards == set(range(SHARDS))  # a keeps what it holds, takes nothing new


def test_the_shards_are_dealt_evenly_over_the_members() -> None:
    members = ["p1", "p2", "p3"]
    dealt = [dealt_to(member, members, 16) for member in members]
    assert sorted(len(shards) for shards in dealt) == [5, 5, 6]
    assert set().union(*dealt) == set(range(16))
    assert all(not (x & y) for n, x in enumerate(dealt) for y in dealt[n + 1:])
    assert dealt_to("p9", [], 4) == {0, 1, 2, 3}


class UnreachableLeaseStore:
    """A lease store whose database may be unreachable (``failing``)."""

    def __init__(self, store: InMemoryLeaseStore) -> None:
        self.store = store
        self.failing = False

    async def try_acquire(self, name: str, holder: str, ttl: timedelta) -> bool:
        if self.failing:
            raise ConnectionError("database unreachable")
        return await self.store.try_acquire(name, holder, ttl)

    async def release(self, name: str, holder: str) -> None:
        if self.failing:
            raise ConnectionError("database unreachable")
        await self.store.release(name, holder)

    async def try_acquire_many(self, names, holder: str, ttl: timedelta) -> set[str]:
        if self.failing:
            raise ConnectionError("database unreachable")
        return await self.store.try_acquire_many(names, holder, ttl)

    async def release_many(self, names, holder: str) -> None:
        if self.failing:
            raise ConnectionError("database unreachable")
        await self.store.release_many(names, holder)

    async def live(self, prefix: str) -> dict[str, str]:
        if self.failing:
            raise ConnectionError("database unreachable")
        return await self.store.live(prefix)


async def test_when_renewals_fail_the_controller_runs_until_the_lease_would_expire(
    clock, make_manager, make_reconciler, eventually
) -> None:
    leases = UnreachableLeaseStore(InMemoryLeaseStore(clock))
    manager = await make_manager(
        [make_reconciler("widget")],
        feed=InMemoryChangeLog().feed(),
        leases=leases,
        holder="a",
        lease_ttl=TTL,
        max_real_wait=STALLED,
    )
    leases.failing = True
    clock.advance(TTL - timedelta(seconds=1))
    await manager.renew_leases()
    assert manager.held_shards == set(range(16))
    assert manager.controllers["widget"].is_running

    clock.advance(timedelta(seconds=1))
    await manager.renew_leases()
    assert manager.held_shards == set()
    await eventually(lambda: manager.controllers["widget"].is_stopped)

    leases.failing = False
    await manager.renew_leases()  # the stop has finished: the next renewal starts it again
    assert manager.controllers["widget"].is_running
