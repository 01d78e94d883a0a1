"""NetworkClass: READY once its managers describe themselves with contract v1 (networking.md §2);
``capabilities`` = the managers' intersection minus ``disable_capabilities``."""

from __future__ import annotations

from osac.api.private.v1.network_class_type_pb2 import (
    NETWORK_CLASS_STATE_FAILED,
    NETWORK_CLASS_STATE_READY,
    NetworkClass,
)
from osac.controllers.networking.provisioning import NetworkingContext
from osac.controllers.runtime.manager import ObjectKey, Result
from osac.controllers.runtime.objects import ObjectReconciler, copy, is_deleting
from osac.model.shape import as_kind
from osac.providers.interfaces import CONTRACT_VERSION
from osac.services.core.catalog import Services

READY, FAILED = NETWORK_CLASS_STATE_READY, NETWORK_CLASS_STATE_FAILED


class NetworkClassReconciler(ObjectReconciler):
    kind = "network_class"
    writes = (*ObjectReconciler.writes, "capabilities")  # what the managers can do, observed

    def __init__(self, services: Services, networking: NetworkingContext) -> None:
        super().__init__(services)
        self.networking = networking

    async def reconcile(self, key: ObjectKey) -> Result:
        async with self.store.read(snapshot=False) as tx:
            found = await self.load(tx, key.id)
        if found is None or is_deleting(found):
            return Result()
        obj = as_kind(found, NetworkClass)
        names = [n for n in (obj.fabric_manager, obj.k8s_manager) if n]
        described = await self.networking.managers.describe_all()
        problems = []
        capabilities: tuple[bool, ...] | None = None
        for name in names:
            entry = described.get(name)
            if entry is None:
                problems.append(f"manager '{name}' is not registered")
            elif not entry.is_ready or entry.description is None:
                problems.append(f"manager '{name}' did not describe itself: {entry.error}")
            elif entry.description.contract_version != CONTRACT_VERSION:
                problems.append(f"manager '{name}' speaks contract {entry.description.contract_version}, not {CONTRACT_VERSION}")
            else:
                caps = entry.description.capabilities
                mine = (caps.ipv4, caps.ipv6, caps.dual_stack, caps.dpu)
                capabilities = mine if capabilities is None else tuple(a and b for a, b in zip(capabilities, mine, strict=True))
        async with self.store.write() as tx:
            stored = await self.load(tx, key.id)
            if stored is None:
                return Result()
            desired = as_kind(copy(stored), NetworkClass)
            if problems:
                desired.status.state = FAILED
                desired.status.message = "; ".join(problems)
            else:
                disabled = desired.spec.disable_capabilities
                ipv4, ipv6, dual, dpu = capabilities or (True, False, False, False)
                result = desired.capabilities
                result.supports_ipv4 = ipv4 and not disabled.supports_ipv4
                result.supports_ipv6 = ipv6 and not disabled.supports_ipv6
                result.supports_dual_stack = dual and not disabled.supports_dual_stack
                result.dpu_support = dpu and not disabled.dpu_support
                desired.status.state = READY
                desired.status.message = ""
            await self.write(tx, desired, stored)
        return Result()


