"""Address reservations with their counters (networking.md §5.3–§5.5), for the services.

IPAM (``osac.ipam.allocator``) knows scopes and ranges, not object names; this module turns its
results into API errors naming the object, and keeps the counters of the objects in step with
the allocations, in the same transaction (§5.4): ``ExternalIPPool.status.total / allocated /
available`` and ``Subnet.status.available_addresses`` (workload range).

**Locks.** Every reservation and release first locks the row of the pool or subnet it counts
against (``locks.lock_row``, ``FOR NO KEY UPDATE``), then IPAM locks the range rows. Row first,
then ranges, always: two transactions reserving from (or releasing into) the same pool queue on
the pool row and never deadlock. A transaction touching several subnets locks them in ascending
id order (``lock_counted``).

**Counters** are re-read from IPAM (``total = allocated + available`` by construction) and the
object is written only when they changed; the write is an ordinary UPDATED event. Inside
``deferred_counters`` (``gates.together``) the writes happen once, at the end of the scope.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from contextvars import ContextVar

from google.protobuf.message import Message

from osac.api.private.v1.external_ip_pool_type_pb2 import ExternalIPPool
from osac.api.private.v1.subnet_type_pb2 import Subnet
from osac.ipam import allocator
from osac.ipam.errors import AddressesExhausted, RangeNotFound
from osac.model import registry
from osac.model.shape import as_kind, id_of, metadata_of
from osac.services.core.errors import ResourceExhausted
from osac.services.networking import locks
from osac.services.networking.allocation_metrics import EXTERNAL, VIP, WORKLOAD, count_failure
from osac.store.objects import Tx

POOL = "external_ip_pool"
SUBNET = "subnet"
#: The purpose of an ExternalIP's one external address.
EXTERNAL_PURPOSE = "address"
#: The purpose of a cluster's VIP pair (ordinal 0 = API, 1 = INGRESS).
VIP_PURPOSE = "vip"

_DEFERRED: ContextVar[dict[tuple[str, str], None] | None] = ContextVar("osac_deferred_counters", default=None)


@asynccontextmanager
async def deferred_counters(tx: Tx) -> AsyncIterator[None]:
    """Collect counter changes and write each changed object once when the block ends (not at
    all if it raises: the transaction is failing anyway). Nested blocks join the outer one."""
    if _DEFERRED.get() is not None:
        yield
        return
    token = _DEFERRED.set({})
    try:
        yield
        pending = list(_DEFERRED.get() or {})
    finally:
        _DEFERRED.reset(token)
    for kind_name, object_id in pending:
        await refresh_counters(tx, kind_name, object_id)


async def counters_changed(tx: Tx, kind_name: str, object_id: str) -> None:
    """Allocations of a pool (``external_ip_pool``) or subnet (``subnet``) changed: write its
    counters now, or at the end of the enclosing ``deferred_counters`` block."""
    pending = _DEFERRED.get()
    if pending is not None:
        pending[(kind_name, object_id)] = None
        return
    await refresh_counters(tx, kind_name, object_id)


async def refresh_counters(tx: Tx, kind_name: str, object_id: str) -> Message | None:
    """Write the object's counters from IPAM if they differ; returns the stored object (None if
    it is gone). Reconcilers call it after releasing addresses."""
    kind = registry.get(kind_name)
    stored = await locks.lock_row(tx, kind, object_id)
    if stored is None:
        return None
    updated = type(stored)()
    updated.CopyFrom(stored)
    if kind_name == POOL:
        counts = (await allocator.pool_counts(tx, [object_id]))[object_id]
        status = as_kind(updated, ExternalIPPool).status
        status.total, status.allocated, status.available = counts.total, counts.allocated, counts.available
    elif kind_name == SUBNET:
        counts = await allocator.counts(tx, scope=object_id, kind=allocator.WORKLOAD)
        as_kind(updated, Subnet).status.available_addresses = counts.available
    else:
        raise ValueError(f"{kind.message} has no address counters")
    if updated == stored:
        return stored
    written = await tx.replace(kind, updated, metadata_of(stored).version)
    return written.object


async def lock_counted(tx: Tx, kind_name: str, object_ids: Sequence[str]) -> None:
    """Lock several pools or subnets in ascending id order before reserving from all of them."""
    kind = registry.get(kind_name)
    for object_id in sorted(set(object_ids)):
        await locks.lock_row(tx, kind, object_id)


# -- external addresses ----------------------------------------------------------------------------


async def drop_ranges(tx: Tx, kind_name: str, object_id: str) -> None:
    """Forget a released subnet's or pool's address ranges, under the lock of its counters."""
    await lock_counted(tx, kind_name, [object_id])
    await allocator.drop_ranges(tx, object_id)


async def reserve_external(tx: Tx, pool: Message, owner_kind: str, owner_id: str) -> str:
    """Reserve one address of ``pool`` for the owner (an ExternalIP) and count it.

    :raises ResourceExhausted: ``ExternalIPPool '<name>' has no available addresses``.
    """
    await locks.lock_row(tx, registry.get(POOL), id_of(pool))
    try:
        address = await allocator.allocate(
            tx,
            scope=allocator.EXTERNAL_SCOPE,
            kind=allocator.EXTERNAL,
            owner_type=owner_kind,
            owner_id=owner_id,
            purpose=EXTERNAL_PURPOSE,
            parent=id_of(pool),
        )
    except (AddressesExhausted, RangeNotFound) as error:
        count_failure(EXTERNAL)
        raise ResourceExhausted(f"ExternalIPPool '{_name(pool)}' has no available addresses") from error
    await counters_changed(tx, POOL, id_of(pool))
    return address


async def pool_availability(tx: Tx, pool_ids: Sequence[str]) -> dict[str, int]:
    """Available addresses per pool, from IPAM."""
    return {pool_id: counts.available for pool_id, counts in (await allocator.pool_counts(tx, pool_ids)).items()}


# -- subnet addresses ------------------------------------------------------------------------------


async def reserve_workload(
    tx: Tx, subnet: Message, *, owner_type: str, owner_id: str, purpose: str, ordinals: Sequence[int] = (0,)
) -> list[str]:
    """Reserve workload-range addresses of ``subnet`` (one per ordinal, ascending) and count them.
    Idempotent per owner key. With several subnets, call ``lock_counted`` first.

    :raises ResourceExhausted: ``Subnet '<name>' has no free addresses (needed N, available M)``.
    """
    await locks.lock_row(tx, registry.get(SUBNET), id_of(subnet))
    try:
        found = await allocator.allocate_many(
            tx,
            scope=id_of(subnet),
            kind=allocator.WORKLOAD,
            owner_type=owner_type,
            owner_id=owner_id,
            purpose=purpose,
            ordinals=list(ordinals),
        )
    except AddressesExhausted as error:
        count_failure(WORKLOAD)
        raise ResourceExhausted(
            f"Subnet '{_name(subnet)}' has no free addresses (needed {error.needed}, available {error.available})"
        ) from error
    await counters_changed(tx, SUBNET, id_of(subnet))
    return list(found)


async def reserve_vips(tx: Tx, subnet: Subnet, *, owner_type: str, owner_id: str, count: int = 2) -> list[str]:
    """Reserve ``count`` VIP-range addresses of ``subnet`` (ordinal 0 = API, 1 = INGRESS).

    :raises ResourceExhausted: ``Subnet '<name>' has no free VIP addresses in <range>``.
    """
    await locks.lock_row(tx, registry.get(SUBNET), id_of(subnet))
    try:
        found = await allocator.allocate_many(
            tx,
            scope=id_of(subnet),
            kind=allocator.VIP,
            owner_type=owner_type,
            owner_id=owner_id,
            purpose=VIP_PURPOSE,
            ordinals=list(range(count)),
        )
    except AddressesExhausted as error:
        count_failure(VIP)
        vip_range = subnet.status.vip_range
        raise ResourceExhausted(f"Subnet '{_name(subnet)}' has no free VIP addresses in {vip_range}") from error
    return list(found)


# -- release ---------------------------------------------------------------------------------------


async def release(
    tx: Tx, *, owner_type: str, owner_id: str, purpose: str | None = None, min_ordinal: int | None = None
) -> list[str]:
    """Release an owner's addresses (as ``allocator.release``) and update the counters of the
    pools and subnets they came from. Call it in the transaction recording the confirmed
    teardown (networking.md §5.3)."""
    held = await allocator.allocations_of(tx, owner_type, owner_id)
    held = [a for a in held if (purpose is None or a.purpose == purpose)
            and (min_ordinal is None or a.ordinal >= min_ordinal)]
    if not held:
        return []
    pools = sorted({a.parent for a in held if a.kind == allocator.EXTERNAL})
    subnets = sorted({a.scope for a in held if a.kind == allocator.WORKLOAD})
    await lock_counted(tx, POOL, pools)
    await lock_counted(tx, SUBNET, subnets)
    released = await allocator.release(
        tx, owner_type=owner_type, owner_id=owner_id, purpose=purpose, min_ordinal=min_ordinal
    )
    for pool_id in pools:
        await counters_changed(tx, POOL, pool_id)
    for subnet_id in subnets:
        await counters_changed(tx, SUBNET, subnet_id)
    return released


def _name(obj: Message) -> str:
    return metadata_of(obj).name or id_of(obj)
