"""What the ComputeInstance derivation needs from other objects: the owning tenant's readiness
(``owning_tenant``; compute.md §2.3 ``TenantNotReady``) and the instance's external address
(networking.md §8).

**The external address is read, not pushed.** The ExternalIPAttachment reconciler programs DNAT
to the instance's primary address and marks the attachment READY, but never writes the instance:
one writer per status. The compute reconciler reads, on every pass, the READY attachments that
target the instance and passes the address of their ExternalIP to the derivation as
``external_ip_address``; with none READY (none yet, detached, deleted) it passes an empty one,
which clears the field. The attachments not READY yet are named (``pending``): once the instance
has an address, it follows them (``dependents``), so the attachment's change to READY queues it.
It also follows the READY attachment whose address it publishes (``source``), so that
attachment's deletion (or its leaving READY) clears the address at once.
"""

from __future__ import annotations

from dataclasses import dataclass

from osac.api.private.v1.external_ip_attachment_type_pb2 import ExternalIPAttachment
from osac.api.private.v1.external_ip_type_pb2 import ExternalIP
from osac.controllers.networking import topology
from osac.controllers.networking.external_ip_attachment import TARGET_DELETED
from osac.model import registry
from osac.model.shape import as_kind
from osac.services.core.references import field_equals
from osac.store.objects import Tx


@dataclass(frozen=True)
class ExternalAddress:
    """The address to publish, the attachment it comes from and the attachments that may still
    give one (their ids)."""

    address: str
    source: str = ""
    pending: tuple[str, ...] = ()


async def external_address(tx: Tx, instance_id: str) -> ExternalAddress:
    """The ExternalIP address of the READY attachment targeting the instance (the oldest one when
    several are READY), and the live attachments targeting it that are not READY yet."""
    kind = registry.get("external_ip_attachment")
    ready_state = kind.state_value("READY")
    found = await tx.find(kind, field_equals(tx, kind, "spec.compute_instance", instance_id))
    attachments = [as_kind(attachment, ExternalIPAttachment) for attachment in found]
    address = source = ""
    pending: list[str] = []
    for attachment in sorted(attachments, key=lambda a: a.id):
        if attachment.metadata.HasField("deletion_timestamp"):
            continue
        if attachment.status.state != ready_state:
            if attachment.status.reason != TARGET_DELETED:
                pending.append(attachment.id)
            continue
        eip = await topology.get(tx, "external_ip", attachment.spec.external_ip)
        if eip is not None and not address:
            address, source = str(as_kind(eip, ExternalIP).status.address), attachment.id
    return ExternalAddress(address, source, tuple(pending))
