"""The subnet addresses of an instance's network attachments (networking.md §5.3, §7.2, §7.4).

A ComputeInstance or BareMetalInstance holds one workload-range address per attachment, reserved
in its Create transaction (as its last work, ``reservations``) so that a full subnet refuses the Create (RESOURCE_EXHAUSTED
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
from osac.services.networking import addresses, reservations
from osac.store.objects import Tx

PURPOSE = "attachment"


def reserve_attachment_addresses(tx: Tx, kind_name: str, owner_id: str, subnet_ids: Sequence[str]) -> None:
    """Reserve one address in each attachment's subnet, in attachment order, at commit
    (``reservations``: the subnet's lock is held for the last statements of the Create only).
    Idempotent per owner key.

    :raises ResourceExhausted: at commit, a subnet's workload range is full (the whole Create fails).
    """
    for index, subnet_id in enumerate(subnet_ids):
        reservations.workload_at_commit(tx, subnet_id, owner_type=kind_name, owner_id=owner_id, purpose=PURPOSE,
                                        ordinal=index)


async def attachment_addresses(tx: Tx, kind_name: str, owner_id: str) -> dict[int, str]:
    """The reserved address of each attachment, by attachment index."""
    held = await allocator.allocations_of(tx, kind_name, owner_id)
    return {a.ordinal: a.address for a in held if a.purpose == PURPOSE}


async def release_attachment_addresses(tx: Tx, kind_name: str, owner_id: str) -> list[str]:
    """Give every attachment address of the instance back to its subnet (counters included);
    idempotent. Returns the addresses released by this call."""
    return await addresses.release(tx, owner_type=kind_name, owner_id=owner_id, purpose=PURPOSE)
