"""The Tenant reconciler: tenant state and the DEFAULT_NETWORKING_READY condition.

Default networking objects are created with the tenant by the networking service (issue #3);
until a default network class with ``defaults`` exists, the condition is TRUE with reason
``DefaultsNotConfigured`` and the tenant is READY (networking.md §6.2).
"""

from __future__ import annotations

from osac.controllers.conditions import TRUE, set_condition
from osac.controllers.objects import ObjectReconciler, add_finalizer, copy, is_deleting, remove_finalizer
from osac.controllers.runtime import ObjectKey, Result

DEFAULT_NETWORKING_READY = 1
STATE_READY = 2
NOT_CONFIGURED_MESSAGE = "no tenant defaults are configured; no default networking was created"


class TenantReconciler(ObjectReconciler):
    kind = "tenant"

    async def reconcile(self, key: ObjectKey) -> Result:
        async with self.store.write() as tx:
            stored = await self.load(tx, key.id)
            if stored is None:
                return Result()
            desired = copy(stored)
            if is_deleting(stored):
                remove_finalizer(desired)
                await self.write(tx, desired, stored)
                return Result()
            add_finalizer(desired)
            status = desired.status  # type: ignore[attr-defined]
            set_condition(status.conditions, DEFAULT_NETWORKING_READY, TRUE, "DefaultsNotConfigured",
                          NOT_CONFIGURED_MESSAGE, tx.clock.now())
            status.state = STATE_READY
            status.message = "tenant is ready"
            await self.write(tx, desired, stored)
        return Result()
