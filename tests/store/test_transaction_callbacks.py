"""What a writing transaction tells its callbacks: ``after_commit`` once it committed,
``after_rollback`` once it ended without committing (its block raised, or was cancelled); never
both, on both databases."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import insert, select

from osac.store import schema
from osac.store.objects import Store, Tx

COUNTER = schema.revision_counter


def _watched(tx: Tx, ended: list[str]) -> None:
    tx.after_commit(lambda: ended.append("committed"))
    tx.after_rollback(lambda: ended.append("rolled back"))


async def test_a_committed_write_calls_after_commit_only(store: Store) -> None:
    ended: list[str] = []
    async with store.write() as tx:
        _watched(tx, ended)
        await tx.conn.execute(insert(COUNTER).values(id=2, value=5, pruned_through=0))
    assert ended == ["committed"]


async def test_a_raising_block_rolls_back_and_calls_after_rollback_only(store: Store) -> None:
    ended: list[str] = []
    with pytest.raises(RuntimeError, match="changed its mind"):
        async with store.write() as tx:
            _watched(tx, ended)
            await tx.conn.execute(insert(COUNTER).values(id=2, value=5, pruned_through=0))
            raise RuntimeError("changed its mind")
    assert ended == ["rolled back"]
    async with store.read() as tx:
        assert (await tx.conn.execute(select(COUNTER.c.id).where(COUNTER.c.id == 2))).first() is None


async def test_a_cancelled_write_calls_after_rollback(store: Store) -> None:
    ended: list[str] = []
    inside = asyncio.Event()

    async def writer() -> None:
        async with store.write() as tx:
            _watched(tx, ended)
            await tx.conn.execute(insert(COUNTER).values(id=2, value=5, pruned_through=0))
            inside.set()
            await asyncio.Event().wait()

    task = asyncio.create_task(writer())
    await inside.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert ended == ["rolled back"]
