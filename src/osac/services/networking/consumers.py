"""The single-consumer rules (networking.md R7, R8, §3.1) on top of ``osac.store.claims``.

- An ExternalIP has one consumer, an ExternalIPAttachment or a NATGateway: FAILED_PRECONDITION
  ``ExternalIP 'web' is already used by NATGateway 'default'``.
- A VirtualNetwork has one NATGateway: ALREADY_EXISTS ``VirtualNetwork 'default' already has
  NATGateway 'default'``.
- A workload endpoint ``(target, target_endpoint)`` has one ExternalIPAttachment: ALREADY_EXISTS
  ``ComputeInstance 'vm' already has ExternalIPAttachment 'web'``.

Writers claim the ExternalIP first, then the VN or target, in that order everywhere, so two
writers never wait for each other in opposite orders. The claims are released by
``release`` when their owner is archived (``Behaviour.after_archive``).
"""

from __future__ import annotations

from google.protobuf.message import Message
from sqlalchemy import select

from osac.model import registry
from osac.model.shape import id_of
from osac.services.core.errors import AlreadyExists, FailedPrecondition
from osac.store import claims
from osac.store.codec import from_storage
from osac.store.objects import Tx, object_label
from osac.store.tables import LIVE

EXTERNAL_IP_CONSUMER = "external-ip-consumer"
VN_NAT_GATEWAY = "vn-nat-gateway"
ATTACHMENT_TARGET = "attachment-target"


async def claim_external_ip(tx: Tx, eip: Message, owner_kind: str, owner_id: str) -> None:
    """Make the owner the ExternalIP's consumer. :raises FailedPrecondition: it has another."""
    try:
        await claims.claim(tx, EXTERNAL_IP_CONSUMER, id_of(eip), owner_kind, owner_id)
    except claims.ClaimTaken as taken:
        holder = await holder_label(tx, taken.holder)
        raise FailedPrecondition(
            f"{object_label(registry.get('external_ip'), eip)} is already used by {holder}"
        ) from taken


async def claim_nat_gateway(tx: Tx, vn: Message, owner_id: str) -> None:
    """Make the gateway the VN's one NATGateway. :raises AlreadyExists: it has one."""
    try:
        await claims.claim(tx, VN_NAT_GATEWAY, id_of(vn), "nat_gateway", owner_id)
    except claims.ClaimTaken as taken:
        holder = await holder_label(tx, taken.holder)
        raise AlreadyExists(f"{object_label(registry.get('virtual_network'), vn)} already has {holder}") from taken


async def claim_target(tx: Tx, target_kind: str, target: Message, endpoint: int, endpoint_name: str, owner_id: str) -> None:
    """Make the attachment the one of ``(target, endpoint)``. :raises AlreadyExists: it has one."""
    key = f"{id_of(target)}/{endpoint}"
    try:
        await claims.claim(tx, ATTACHMENT_TARGET, key, "external_ip_attachment", owner_id)
    except claims.ClaimTaken as taken:
        holder = await holder_label(tx, taken.holder)
        suffix = f" for endpoint {endpoint_name}" if endpoint else ""
        raise AlreadyExists(
            f"{object_label(registry.get(target_kind), target)} already has {holder}{suffix}"
        ) from taken


async def consumer_of(tx: Tx, eip_id: str) -> Message | None:
    """The live consumer of an ExternalIP (attachment or gateway), if any."""
    holder = await claims.holder_of(tx, EXTERNAL_IP_CONSUMER, eip_id)
    return None if holder is None else await _load(tx, holder)


async def release(tx: Tx, owner_kind: str, owner_id: str) -> int:
    """Release every claim of an archived owner."""
    return await claims.release_claims(tx, owner_kind, owner_id)


async def holder_label(tx: Tx, holder: claims.Holder) -> str:
    """``NATGateway 'default'`` (or the id when it has no name)."""
    obj = await _load(tx, holder)
    try:
        message = registry.get(holder.owner_kind).message
    except KeyError:
        message = holder.owner_kind
    if obj is None:
        return f"{message} '{holder.owner_id}'"
    return object_label(registry.get(holder.owner_kind), obj)


async def _load(tx: Tx, holder: claims.Holder) -> Message | None:
    table = LIVE.get(holder.owner_kind)
    if table is None:
        return None
    row = (await tx.conn.execute(select(table.c.data).where(table.c.id == holder.owner_id))).first()
    return None if row is None else from_storage(row[0], registry.get(holder.owner_kind).private_class())
