"""Shards: how the controller processes of one deployment split every kind's keys.

A key belongs to shard ``crc32(id) mod shards`` (the same in every process and after a restart).
Shard ``n`` is the lease ``controllers/shard/<n>``; its holder reconciles the keys of shard ``n`` of
every kind, and nobody else does. Each manager also holds a membership lease
``controllers/members/<shards>/<holder>`` for as long as it runs, so every manager sees who is
alive. The shards are dealt out over the live members in name order (shard ``n`` to the member
``n mod members``): with M members each owns ``shards / M`` of them, ± 1.

Each renewal round a manager renews its membership, reads the live members, then asks for the
shards dealt to it and releases the ones it holds that are dealt to someone else (so a process
that joins gets its share at the others' next round). A member that dies stops renewing: its
membership and its shards expire together, the survivors deal again without it and take its
shards over. A shard is only ever taken with the race-free lease upsert, so two managers whose
views of the members differ for a moment still never both hold it.

All managers of one deployment must use the same shard count (a key would otherwise belong to
two shards). The count is part of the membership lease's name, so a manager that finds a live
member with another count refuses to take shards and says so.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Sequence

#: Shards per deployment (``controllers.shards``): enough that two to eight processes split
#: every kind evenly, few enough that renewing them all is one small statement.
DEFAULT_SHARDS = 16
#: The largest ``controllers.shards`` accepted.
MAX_SHARDS = 1024
SHARD_PREFIX = "controllers/shard/"
MEMBER_PREFIX = "controllers/members/"


def shard_of(object_id: str, shards: int) -> int:
    """The shard of a key: a hash of its id (not Python's ``hash``, which differs per process)."""
    return zlib.crc32(object_id.encode()) % shards


def shard_lease(shard: int) -> str:
    return f"{SHARD_PREFIX}{shard}"


def member_lease(holder: str, shards: int) -> str:
    return f"{MEMBER_PREFIX}{shards}/{holder}"


def parse_member(name: str) -> tuple[int, str] | None:
    """``(shards, holder)`` of a membership lease name (None if it is not one)."""
    if not name.startswith(MEMBER_PREFIX):
        return None
    count, _, holder = name[len(MEMBER_PREFIX):].partition("/")
    return (int(count), holder) if count.isdigit() and holder else None


def dealt_to(holder: str, members: Iterable[str], shards: int) -> frozenset[int]:
    """The shards dealt to ``holder`` among the live ``members`` (``holder`` counts as live)."""
    ordered: Sequence[str] = sorted({*members, holder})
    position = ordered.index(holder)
    return frozenset(range(position, shards, len(ordered)))
