"""Address reservations made as the writing transaction's last work (networking.md §5.3, §5.4).

A reservation locks the row of its subnet or pool until the commit (``addresses``), and every
other reservation from that subnet or pool waits for it: every VM Create of a tenant waits on its
default subnet, every automatic external IP of the cloud on the best pool. Reserved where the
Create asks for them, the locks would be held through the rest of the Create (the instance, its
external IP, its attachment, their events: tens of statements, each an event-loop turn of a busy
process). So the Creates ask here, and the addresses are reserved in ``Tx.before_commit``, after
everything else the transaction writes and just before its events are numbered: still in the
Create's transaction (a full subnet or pool refuses the Create and nothing is stored), but with
the locks held for a few statements.

**Order.** Subnets first, in id order, then pools, in id order: the order of a Cluster Create,
which reserves its VIPs and node addresses in its subnet as it goes and its external IPs here. So
two transactions never take a subnet and a pool in opposite orders.

**What waits for an address.** An object storing a reserved address (an ExternalIP's
``status.address``, an attachment's copy of it) is written without it and amended
(``Tx.amend``) once it is known: ``when_reserved``. Nobody outside the transaction sees the
version without it.

**Falling back.** The automatic paths choose a pool when they create the ExternalIP, without
its lock; if it has no address left at commit (concurrent Creates took them) the reservation
moves to the next best pool (``fall_back``), as it would have at create.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from weakref import WeakKeyDictionary

from google.protobuf.message import Message

from osac.api.private.v1.external_ip_pool_type_pb2 import ExternalIPPool
from osac.api.private.v1.subnet_type_pb2 import Subnet
from osac.model import registry
from osac.model.kinds import Kind
from osac.model.shape import as_kind, id_of
from osac.services.core.errors import ResourceExhausted
from osac.services.networking import addresses, locks
from osac.services.networking.allocation_metrics import allocation_path, current_path
from osac.store.objects import Tx

#: Called with the reserved address and the pool it came from.
Reserved = Callable[[str, str], Awaitable[None]]
#: The next best pool for an automatic external address, excluding the pools tried (none: raise).
NextPool = Callable[[Tx, set[str]], Awaitable[Message]]


@dataclass
class _Workload:
    subnet_id: str
    owner_type: str
    owner_id: str
    purpose: str
    ordinal: int
    path: str


@dataclass
class _External:
    pool_id: str
    owner_type: str
    owner_id: str
    path: str
    next_pool: NextPool | None = None
    then: list[Reserved] = field(default_factory=list)


@dataclass
class _Pending:
    workload: list[_Workload] = field(default_factory=list)
    external: dict[str, _External] = field(default_factory=dict)


_PENDING: WeakKeyDictionary[Tx, _Pending] = WeakKeyDictionary()


def _pending(tx: Tx) -> _Pending:
    if tx.savepoints:
        # A rolled-back SAVEPOINT would undo the owner but not the reservation made at commit.
        raise RuntimeError("addresses are reserved at commit; ask for them outside a SAVEPOINT")
    pending = _PENDING.get(tx)
    if pending is None:
        pending = _PENDING[tx] = _Pending()

        async def reserve() -> None:
            del _PENDING[tx]
            await _reserve(tx, pending)

        tx.before_commit(reserve)
    return pending


def workload_at_commit(tx: Tx, subnet_id: str, *, owner_type: str, owner_id: str, purpose: str, ordinal: int) -> None:
    """Reserve a workload-range address of the subnet for the owner key at commit
    (``addresses.reserve_workload``; a full subnet fails the transaction)."""
    _pending(tx).workload.append(_Workload(subnet_id, owner_type, owner_id, purpose, ordinal, current_path()))


def external_at_commit(tx: Tx, pool_id: str, *, owner_type: str, owner_id: str, then: Reserved) -> None:
    """Reserve the owner's (an ExternalIP's) external address in the pool at commit
    (``addresses.reserve_external``), then call ``then``."""
    _pending(tx).external[owner_id] = _External(pool_id, owner_type, owner_id, current_path(), then=[then])


def when_reserved(tx: Tx, owner_id: str, then: Reserved) -> None:
    """Call ``then`` once the owner's external address is reserved at commit (nothing when none
    is pending in this transaction)."""
    request = _external(tx, owner_id)
    if request is not None:
        request.then.append(then)


def fall_back(tx: Tx, owner_id: str, next_pool: NextPool) -> None:
    """Let the owner's pending external reservation move to ``next_pool`` when its pool is
    exhausted at commit (the automatic paths)."""
    request = _external(tx, owner_id)
    if request is not None:
        request.next_pool = next_pool


def amending(tx: Tx, kind: Kind, obj: Message, fill: Callable[[Message, str, str], None]) -> Reserved:
    """A ``then`` for an object this transaction wrote that stores the reserved address:
    ``fill(message, address, pool id)`` edits ``obj`` (the message the Create answers with) and,
    amended (``Tx.amend``), its row and its event."""

    async def then(address: str, pool_id: str) -> None:
        fill(obj, address, pool_id)
        await tx.amend(kind, id_of(obj), lambda stored: fill(stored, address, pool_id))

    return then


def _external(tx: Tx, owner_id: str) -> _External | None:
    pending = _PENDING.get(tx)
    return pending.external.get(owner_id) if pending is not None else None


async def _reserve(tx: Tx, pending: _Pending) -> None:
    subnet_kind = registry.get(addresses.SUBNET)
    async with addresses.deferred_counters(tx):
        for subnet_id in sorted({request.subnet_id for request in pending.workload}):
            subnet = await locks.lock_row(tx, subnet_kind, subnet_id)
            if subnet is None:  # held FOR KEY SHARE since the Create referred to it
                raise RuntimeError(f"subnet {subnet_id} vanished while a transaction referring to it was open")
            for request in (r for r in pending.workload if r.subnet_id == subnet_id):
                with allocation_path(request.path):
                    await addresses.reserve_workload(
                        tx, as_kind(subnet, Subnet), owner_type=request.owner_type, owner_id=request.owner_id,
                        purpose=request.purpose, ordinals=(request.ordinal,),
                    )
        for external in sorted(pending.external.values(), key=lambda r: (r.pool_id, r.owner_id)):
            with allocation_path(external.path):
                address, pool_id = await _reserve_external(tx, external)
            for then in external.then:
                await then(address, pool_id)


async def _reserve_external(tx: Tx, request: _External) -> tuple[str, str]:
    pool_kind = registry.get(addresses.POOL)
    tried: set[str] = set()
    pool_id = request.pool_id
    while True:
        pool = await locks.lock_row(tx, pool_kind, pool_id)
        if pool is None:  # held FOR KEY SHARE since the Create referred to it
            raise RuntimeError(f"external IP pool {pool_id} vanished while a transaction referring to it was open")
        try:
            address = await addresses.reserve_external(tx, as_kind(pool, ExternalIPPool), request.owner_type,
                                                       request.owner_id)
        except ResourceExhausted:
            if request.next_pool is None:
                raise
            tried.add(pool_id)
            pool_id = (await request.next_pool(tx, tried)).id
            continue
        return address, pool_id
