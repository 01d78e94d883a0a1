"""ExternalIPPool: ready as soon as its ranges exist (created with the pool); its ranges are
dropped when the pool is archived (its ExternalIPs block the delete until then)."""

from __future__ import annotations

from google.protobuf.message import Message

from osac.controllers.provisioning import ProvisioningReconciler
from osac.ipam import allocator
from osac.services import addresses
from osac.store.objects import Tx


class ExternalIPPoolReconciler(ProvisioningReconciler):
    kind = "external_ip_pool"

    async def released(self, tx: Tx, obj: Message) -> None:
        await addresses.lock_counted(tx, addresses.POOL, [obj.id])  # type: ignore[attr-defined]
        await allocator.drop_ranges(tx, obj.id)  # type: ignore[attr-defined]
