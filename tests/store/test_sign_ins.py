"""The console's sign-in state in the database (``DatabaseSignIns``), on both databases: entries
answered until they expire, taken once, pruned, bounded per kind, and stored only under the
SHA-256 of their key."""

from __future__ import annotations

import asyncio
import hashlib
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from osac.clock import FakeClock
from osac.store.engine import create_engines
from osac.store.schema import console_sign_ins
from osac.store.sign_ins import DatabaseSignIns

NOW = datetime(2026, 3, 4, 10, 0, tzinfo=UTC)


@pytest.fixture
async def sign_ins(db_url: str):
    engines = create_engines(db_url)
    try:
        yield DatabaseSignIns(engines, FakeClock(NOW))
    finally:
        await engines.dispose()


def _clock(sign_ins: DatabaseSignIns) -> FakeClock:
    clock = sign_ins._clock
    assert isinstance(clock, FakeClock)
    return clock


async def test_an_entry_is_answered_until_it_expires(sign_ins: DatabaseSignIns) -> None:
    await sign_ins.put("session", "s-1", {"token": "t", "csrf": "c"}, NOW + timedelta(minutes=5))
    assert await sign_ins.get("session", "s-1") == {"token": "t", "csrf": "c"}
    assert await sign_ins.get("code", "s-1") is None  # another kind
    assert await sign_ins.get("session", "s-2") is None
    _clock(sign_ins).advance(timedelta(minutes=5))
    assert await sign_ins.get("session", "s-1") is None
    assert await sign_ins.take("session", "s-1") is None  # expired: not answered (prune removes it)
    await sign_ins.delete("session", "s-1")


async def test_an_entry_is_taken_once_however_many_race_for_it(sign_ins: DatabaseSignIns) -> None:
    await sign_ins.put("code", "c-1", {"token": "t"}, NOW + timedelta(seconds=60))
    taken = await asyncio.gather(*(sign_ins.take("code", "c-1") for _ in range(8)))
    assert taken.count({"token": "t"}) == 1 and taken.count(None) == 7


async def test_expired_entries_are_pruned_and_only_key_hashes_are_stored(sign_ins: DatabaseSignIns) -> None:
    await sign_ins.put("session", "short", {"n": 1}, NOW + timedelta(seconds=10))
    await sign_ins.put("session", "long", {"n": 2}, NOW + timedelta(hours=1))
    _clock(sign_ins).advance(timedelta(seconds=10))
    assert await sign_ins.prune() == 1
    async with sign_ins._engines.reader.connect() as conn:
        hashes = (await conn.execute(select(console_sign_ins.c.key_hash))).scalars().all()
    assert hashes == [hashlib.sha256(b"long").hexdigest()]


async def test_a_capacity_drops_the_entries_that_expire_soonest(sign_ins: DatabaseSignIns) -> None:
    for index in range(5):
        await sign_ins.put("oidc", f"state-{index}", {"n": index}, NOW + timedelta(minutes=index + 1), capacity=3)
    await sign_ins.put("session", "kept", {"n": 9}, NOW + timedelta(seconds=1), capacity=None)
    found = [await sign_ins.get("oidc", f"state-{index}") for index in range(5)]
    assert found == [None, None, {"n": 2}, {"n": 3}, {"n": 4}]
    assert await sign_ins.get("session", "kept") == {"n": 9}  # other kinds are not counted
