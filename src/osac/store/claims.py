"""Uniqueness claims: at most one owner per ``(claim, key)``, enforced by a primary key.

Some networking rules say "at most one X per Y" across objects of different kinds: an
ExternalIP has one consumer (an ExternalIPAttachment *or* a NATGateway, networking.md R7), a
VirtualNetwork has one NATGateway (R8), a workload endpoint has one ExternalIPAttachment. A
read-then-write check cannot enforce that under concurrency, so the writer inserts a claim row
in its own transaction; the primary key ``(claim, key)`` lets exactly one of any number of
concurrent writers succeed, whatever the isolation level.

===========================  ==================================  ============================
claim                        key                                 owner
===========================  ==================================  ============================
``external-ip-consumer``     ExternalIP id                       ExternalIPAttachment / NATGateway
``vn-nat-gateway``           VirtualNetwork id                   NATGateway
``attachment-target``        ``<target id>/<endpoint number>``   ExternalIPAttachment
===========================  ==================================  ============================

Claims are released with ``release_claims`` when their owner is archived. A claim whose owner is
no longer live (archived without the release having run) is stale: the next ``claim`` on its key
takes it over, so a missed release never blocks anybody for good.

StoreError
 +-- ClaimTaken   another live owner holds the claim (the service answers FAILED_PRECONDITION
                  or ALREADY_EXISTS, naming the holder)
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Column, Index, PrimaryKeyConstraint, String, Table, delete, select

from osac.store import direct, statements
from osac.store.errors import StoreError
from osac.store.objects import Tx
from osac.store.schema import ID_LENGTH, metadata
from osac.store.tables import LIVE

CLAIM_LENGTH = 64
#: Room for ``<id>/<suffix>`` keys.
KEY_LENGTH = 160
OWNER_KIND_LENGTH = 64
#: Attempts of one ``claim`` call (a stale holder is removed between two of them).
ATTEMPTS = 3

claims = Table(
    "claims",
    metadata,
    Column("claim", String(CLAIM_LENGTH), nullable=False),
    Column("key", String(KEY_LENGTH), nullable=False),
    Column("owner_kind", String(OWNER_KIND_LENGTH), nullable=False),
    Column("owner_id", String(ID_LENGTH), nullable=False),
    PrimaryKeyConstraint("claim", "key"),
    # ``release_claims`` finds an owner's claims by owner.
    Index(None, "owner_kind", "owner_id"),
)


@dataclass(frozen=True)
class Holder:
    """The owner of a claim: a kind name (registry) and an object id."""

    owner_kind: str
    owner_id: str


class ClaimTaken(StoreError):
    def __init__(self, claim: str, key: str, holder: Holder) -> None:
        super().__init__(f"claim {claim} {key} is held by {holder.owner_kind} {holder.owner_id}")
        self.claim = claim
        self.key = key
        self.holder = holder


async def claim(tx: Tx, claim: str, key: str, owner_kind: str, owner_id: str) -> None:
    """Make ``(owner_kind, owner_id)`` the holder of ``(claim, key)`` in this transaction.

    Idempotent for the same owner. The insert does nothing when the key is taken (``ON CONFLICT
    DO NOTHING``), so a taken claim costs no error and no SAVEPOINT. On PostgreSQL a concurrent
    uncommitted claim of the same key makes this call wait until that transaction ends (then it
    either succeeds or raises).

    :raises ClaimTaken: another live object holds the claim.
    """
    values = {"claim": claim, "key": key, "owner_kind": owner_kind, "owner_id": owner_id}
    for _ in range(ATTEMPTS):
        if (await direct.execute(tx.conn, statements.insert_unless_taken(claims, tx.dialect), values)).rowcount == 1:
            return
        holder = await holder_of(tx, claim, key)
        if holder is None:
            continue  # released in between: try again
        if holder == Holder(owner_kind, owner_id):
            return
        if await _is_live(tx, holder):
            raise ClaimTaken(claim, key, holder)
        # Stale: its owner was archived without releasing it.
        c = claims.c
        await tx.conn.execute(
            delete(claims).where(c.claim == claim, c.key == key, c.owner_id == holder.owner_id)
        )
    holder = await holder_of(tx, claim, key)
    raise ClaimTaken(claim, key, holder or Holder("unknown", "unknown"))


async def holder_of(tx: Tx, claim: str, key: str) -> Holder | None:
    """Who holds ``(claim, key)``, if anybody (stale holders included)."""
    c = claims.c
    row = (
        await tx.conn.execute(select(c.owner_kind, c.owner_id).where(c.claim == claim, c.key == key))
    ).first()
    return None if row is None else Holder(row.owner_kind, row.owner_id)


async def claims_of(tx: Tx, owner_kind: str, owner_id: str) -> list[tuple[str, str]]:
    """The ``(claim, key)`` pairs an owner holds, sorted."""
    c = claims.c
    rows = await tx.conn.execute(
        select(c.claim, c.key).where(c.owner_kind == owner_kind, c.owner_id == owner_id).order_by(c.claim, c.key)
    )
    return [(row.claim, row.key) for row in rows]


async def release_claims(tx: Tx, owner_kind: str, owner_id: str) -> int:
    """Release every claim of the owner (call it in the transaction that archives the owner).
    Idempotent; returns how many claims were released."""
    c = claims.c
    result = await tx.conn.execute(delete(claims).where(c.owner_kind == owner_kind, c.owner_id == owner_id))
    return int(result.rowcount or 0)


async def _is_live(tx: Tx, holder: Holder) -> bool:
    table = LIVE.get(holder.owner_kind)
    if table is None:
        return True  # not an API kind: never treated as stale
    row = (await tx.conn.execute(select(table.c.id).where(table.c.id == holder.owner_id))).first()
    return row is not None
