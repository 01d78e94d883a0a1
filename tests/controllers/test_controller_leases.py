"""Leases: the database lease store, and two managers sharing one database (SQLite and PostgreSQL)."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from sqlalchemy import select

from osac.controllers.runtime.manager import lease_name
from osac.controllers.runtime.testing import InMemoryChangeLog, InMemoryLeaseStore
from osac.store.leases import DatabaseLeaseStore
from osac.store.schema import leases as leases_table

TTL = timedelta(seconds=15)
#: A real-time wait bound so long that the managers' loops act only when woken (a stalled process).
STALLED = 60.0


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


# -- two managers on one database -----------------------------------------------------------------


async def test_two_managers_split_nothing_and_the_second_takes_over_after_expiry(
    clock, lease_database, make_manager, make_reconciler, objects, eventually
) -> None:
    log = InMemoryChangeLog()
    objects.add("widget", "w1")
    a_widgets, b_widgets = make_reconciler("widget"), make_reconciler("widget")
    a = await make_manager(
        [a_widgets],
        feed=log.feed(),
        leases=DatabaseLeaseStore(lease_database(), clock),
        holder="a",
        lease_ttl=TTL,
        max_real_wait=STALLED,
    )
    b = await make_manager(
        [b_widgets],
        feed=log.feed(),
        leases=DatabaseLeaseStore(lease_database(), clock),
        holder="b",
        lease_ttl=TTL,
        max_real_wait=STALLED,
    )
    assert a.held_kinds == {"widget"} and b.held_kinds == set()
    assert not b.controllers["widget"].is_running

    log.append("widget", "w2")
    await asyncio.wait_for(a.wait_idle(), 0.5)
    await asyncio.wait_for(b.wait_idle(), 0.5)
    assert sorted(a_widgets.calls) == ["w1", "w2"]
    assert b_widgets.calls == []

    # a stalls (no renewal) past its lease; b's next renewal takes over and resyncs.
    clock.advance(TTL + timedelta(seconds=1))
    await b.renew_leases()
    assert b.held_kinds == {"widget"}
    await asyncio.wait_for(b.wait_idle(), 0.5)
    assert sorted(b_widgets.calls) == ["w1"]

    # a notices at its next renewal and stops its controller.
    await a.renew_leases()
    assert a.held_kinds == set()
    await eventually(lambda: not a.controllers["widget"].is_running)

    log.append("widget", "w3")
    await asyncio.wait_for(b.wait_idle(), 0.5)
    await asyncio.wait_for(a.wait_idle(), 0.5)
    assert sorted(b_widgets.calls) == ["w1", "w3"]
    assert sorted(a_widgets.calls) == ["w1", "w2"]


async def test_the_renewal_loop_keeps_the_lease_and_a_clean_stop_hands_it_over(
    clock, lease_database, make_manager, make_reconciler, eventually
) -> None:
    log = InMemoryChangeLog()
    engine = lease_database()
    a = await make_manager(
        [make_reconciler("widget")],
        feed=log.feed(),
        leases=DatabaseLeaseStore(lease_database(), clock),
        holder="a",
        lease_ttl=TTL,
    )
    b = await make_manager(
        [make_reconciler("widget")],
        feed=log.feed(),
        leases=DatabaseLeaseStore(lease_database(), clock),
        holder="b",
        lease_ttl=TTL,
    )

    async def expires_at():
        async with engine.connect() as conn:
            query = select(leases_table.c.expires_at).where(leases_table.c.name == lease_name("widget"))
            return (await conn.execute(query)).scalar_one()

    # Four renewal periods: a's loop renews each time, so b never gets the lease.
    for _ in range(4):
        clock.advance(TTL / 3)
        a.wake()
        expected = clock.now() + TTL
        stored = None

        async def renewed(expected=expected) -> bool:
            nonlocal stored
            stored = await expires_at()
            return stored.replace(tzinfo=None) == expected.replace(tzinfo=None)

        for _ in range(100):
            if await renewed():
                break
            await asyncio.sleep(0.005)
        assert stored is not None and stored.replace(tzinfo=None) == expected.replace(tzinfo=None)
        await b.renew_leases()
        assert b.held_kinds == set()

    await a.stop()
    await b.renew_leases()
    assert b.held_kinds == {"widget"}
    await eventually(lambda: b.controllers["widget"].is_running)


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
    assert manager.held_kinds == {"widget"}
    assert manager.controllers["widget"].is_running

    clock.advance(timedelta(seconds=1))
    await manager.renew_leases()
    assert manager.held_kinds == set()
    await eventually(lambda: manager.controllers["widget"].is_stopped)

    leases.failing = False
    await manager.renew_leases()  # the stop has finished: the next renewal starts it again
    assert manager.controllers["widget"].is_running
