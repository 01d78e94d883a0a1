"""What the ComputeInstance derivation needs from other objects: the owning tenant's readiness
(compute.md §2.3 ``TenantNotReady``) and the instance's external address (networking.md §8).

**The external address is read, not pushed.** The ExternalIPAttachment reconciler programs DNAT
to the instance's primary address and marks the attachment READY, but never writes the instance:
one writer per status. The compute reconciler reads, on every pass, the READY attachments that
target the instance and passes the address of their ExternalIP to the derivation as
``external_ip_address``; with none READY (none yet, detached, deleted) it passes an empty one,
which clears the field. An attachment about to become READY (PENDING while its ExternalIP is
ALLOCATED and the instance's address is known) makes the reconciler look again soon, since the
attachment's own status write does not wake the instance.
"""

from __future__ import annotations

from dataclasses import dataclass

from google.protobuf.message import Message

from osac.controllers import topology
from osac.controllers.external_ip_attachment import TARGET_DELETED
from osac.model import registry
from osac.services.references import field_equals
from osac.status.compute import TenantReadiness
from osac.store.objects import Tx
from osac.store.tables import LIVE


@dataclass(frozen=True)
class ExternalAddress:
    """The address to publish and whether an attachment is about to change it."""

    address: str
    is_settling: bool


async def tenant_readiness(tx: Tx, tenant_name: str) -> TenantReadiness:
    """``READY`` tenants are ready; any other state (or no tenant at all) is not."""
    kind = registry.get("tenant")
    table = LIVE["tenant"]
    found = await tx.find(kind, table.c.name == tenant_name, table.c.tenant == tenant_name)
    if not found:
        return TenantReadiness(tenant_name, False, "NOT_FOUND")
    tenant = found[0]
    phase = topology.state_name("tenant", tenant)
    return TenantReadiness(tenant_name, tenant.status.state == kind.state_value("READY"), phase)  # type: ignore[attr-defined]


async def external_address(tx: Tx, instance_id: str, internal_address: str) -> ExternalAddress:
    """The ExternalIP address of the READY attachment targeting the instance (the oldest one when
    several are READY), and whether a PENDING one is ready to be programmed."""
    kind = registry.get("external_ip_attachment")
    ready_state = kind.state_value("READY")
    pending_state = kind.state_value("PENDING")
    attachments = await tx.find(kind, field_equals(tx, kind, "spec.compute_instance", instance_id))
    address = ""
    is_settling = False
    for attachment in sorted(attachments, key=lambda a: a.id):  # type: ignore[attr-defined]
        if attachment.metadata.HasField("deletion_timestamp"):  # type: ignore[attr-defined]
            continue
        state = attachment.status.state  # type: ignore[attr-defined]
        eip = await topology.get(tx, "external_ip", attachment.spec.external_ip)  # type: ignore[attr-defined]
        if state == ready_state and eip is not None and not address:
            address = str(eip.status.address)  # type: ignore[attr-defined]
        elif (state == pending_state and attachment.status.reason != TARGET_DELETED  # type: ignore[attr-defined]
              and internal_address and _is_allocated(eip)):
            is_settling = True
    return ExternalAddress(address, is_settling)


def _is_allocated(eip: Message | None) -> bool:
    return eip is not None and topology.waiting_message("external_ip", eip, eip.id, "ALLOCATED") is None  # type: ignore[attr-defined]
