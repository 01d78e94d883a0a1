"""ExternalIPPool: ready as soon as its ranges exist (created with the pool); its ranges are
dropped when the pool is archived (its ExternalIPs block the delete until then)."""

from __future__ import annotations

from google.protobuf.message import Message

from osac.controllers.networking_metrics import POOL_ADDRESSES, POOL_UTILIZATION
from osac.controllers.provisioning import ProvisioningReconciler
from osac.controllers.runtime import ObjectKey, Result
from osac.ipam import allocator
from osac.services import addresses
from osac.store.objects import Tx


class ExternalIPPoolReconciler(ProvisioningReconciler):
    kind = "external_ip_pool"

    async def reconcile(self, key: ObjectKey) -> Result:
        """Every counter change of a pool is an UPDATED event, so the gauges follow it here."""
        result = await super().reconcile(key)
        async with self.store.read(snapshot=False) as tx:
            pool = await self.load(tx, key.id)
        if pool is None:
            return result
        name = pool.metadata.name or pool.id  # type: ignore[attr-defined]
        status = pool.status  # type: ignore[attr-defined]
        for state, value in (("total", status.total), ("allocated", status.allocated), ("available", status.available)):
            POOL_ADDRESSES.labels(name, state).set(value)
        POOL_UTILIZATION.labels(name).set(status.allocated / status.total if status.total else 0.0)
        return result

    async def released(self, tx: Tx, obj: Message) -> None:
        await addresses.lock_counted(tx, addresses.POOL, [obj.id])  # type: ignore[attr-defined]
        await allocator.drop_ranges(tx, obj.id)  # type: ignore[attr-defined]
