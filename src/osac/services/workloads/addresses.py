"""The subnet addresses of an instance's network attachments (networking.md §5.3, §7.2, §7.4).

A ComputeInstance or BareMetalInstance holds one workload-range address per attachment, reserved
in its Create transaction so that a full subnet refuses the Create (RESOURCE_EXHAUSTED
``Subnet '<name>' has no free addresses (needed 1, available 0)``) instead of failing later, and
so that the providers are told the address rather than asked for one.

Owner key in IPAM: ``(<kind name>, <instance id>, "attachment", <attachment index>)``; the index
is the attachment's position in the spec (NIC ``nic-<i>`` of a VM, the i-th port of a server),
which never changes because attachments cannot be added or removed. Reconcilers read the
reservations with ``attachment_addresses`` and release them with ``release_attachment_addresses``
once the fabric confirmed the ports gone; archiving the instance releases whatever is left.
"""

from __future__ import annotations

from collections.abc import Sequence

from osac.ipam import allocator
from osac.model import registry
from osac.services.networking import addresses, gates
from osac.store.objects import Tx

PURPOSE = "attachment"


async def reserve_attachment_addresses(
    tx: Tx, kind_name: str, owner_id: str, subnet_ids: Sequence[str]
) -> list[str]:
    """Reserve one address in each attachment's subnet, in attachment order; returns them.
    Subnets are locked in id order first, so instances reserving in the same subnets never
    deadlock. Idempotent per owner key.

    :raises ResourceExhausted: a subnet's workload range is full (the whole Create fails).
    """
    subnet_kind = registry.get(addresses.SUBNET)
    await addresses.lock_counted(tx, addresses.SUBNET, subnet_ids)
    reserved: list[str] = []
    for index, subnet_id in enumerate(subnet_ids):
        subnet = await gates.load(tx, subnet_kind, subnet_id)
        found = await addresses.reserve_workload(
            tx, subnet, owner_type=kind_name, owner_id=owner_id, purpose=PURPOSE, ordinals=(index,)
        )
        reserved.extend(found)
    return reserved


async def attachment_addresses(tx: Tx, kind_name: str, owner_id: str) -> dict[int, str]:
    """The reserved address of each attachment, by attachment index."""
    held = await allocator.allocations_of(tx, kind_name, owner_id)
    return {a.ordinal: a.address for a in held if a.purpose == PURPOSE}


async def release_attachment_addresses(tx: Tx, kind_name: str, owner_id: str) -> list[str]:
    """Give every attachment address of the instance back to its subnet (counters included);
    idempotent. Returns the addresses released by this call."""
    return await addresses.release(tx, owner_type=kind_name, owner_id=owner_id, purpose=PURPOSE)
