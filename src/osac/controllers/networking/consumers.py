"""``ExternalIP.status.attached``: true while its consumer (attachment or gateway) is READY."""

from __future__ import annotations

from osac.api.private.v1.external_ip_type_pb2 import ExternalIP
from osac.controllers.runtime.objects import copy
from osac.model import registry
from osac.model.shape import as_kind
from osac.services.core.catalog import Services
from osac.store.objects import Tx


async def set_attached(services: Services, tx: Tx, eip_id: str, attached: bool) -> None:
    """Write the flag on the ExternalIP in the consumer's transaction (no-op when unchanged)."""
    stored = await tx.get(registry.get("external_ip"), eip_id)
    if stored is None or as_kind(stored, ExternalIP).status.attached == attached:
        return
    desired = as_kind(copy(stored), ExternalIP)
    desired.status.attached = attached
    await services["external_ip"].write_status(tx, desired, stored)
