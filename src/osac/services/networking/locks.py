"""Transaction-scoped locks of the networking rules that a unique constraint cannot express.

Two kinds, both no-ops on SQLite, whose write transactions (``BEGIN IMMEDIATE``) already exclude
every other writer:

- ``hold(tx, name)``: a named mutex (PostgreSQL advisory transaction lock) around a
  check-then-insert that spans rows, e.g. "no sibling subnet overlaps" (lock
  ``subnets-of:<vn id>``) or "no other pool overlaps" (lock ``external-ip-pools``). It does not
  touch the referenced rows, so it cannot deadlock with the ``FOR KEY SHARE`` locks creators take
  on the objects they reference.
- ``lock_row(tx, kind, id)``: read one object and hold its row for an update of its counters
  (``FOR NO KEY UPDATE``): concurrent allocations from one pool or subnet queue here, while
  creates that merely refer to the row (``FOR KEY SHARE``) are not blocked.

Both are released when the transaction ends.
"""

from __future__ import annotations

import hashlib

from google.protobuf.message import Message
from sqlalchemy import text

from osac.model.kinds import Kind
from osac.store.objects import Tx


def lock_key(name: str) -> int:
    """The signed 64-bit advisory-lock key of ``name`` (stable across processes)."""
    return int.from_bytes(hashlib.blake2b(name.encode(), digest_size=8).digest(), "big", signed=True)


async def hold(tx: Tx, name: str) -> None:
    """Wait for and hold the mutex ``name`` until the transaction ends."""
    if tx.dialect != "postgresql":
        return
    await tx.conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": lock_key(name)})


async def lock_row(tx: Tx, kind: Kind, object_id: str) -> Message | None:
    """The live object, its row held for an update until the transaction ends (None if gone).

    Read after the lock is granted, so it is the newest committed version."""
    return await tx.get(kind, object_id, lock="no_key_update")
