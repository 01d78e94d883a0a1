"""The tenant a workload (compute instance, bare-metal instance) belongs to, as one pass of its
reconciler reads it (compute.md §2.3 ``TenantNotReady``, §3.2): whether it is READY, which the
derivation needs, and its id, by which a workload waiting for it follows it (``Waiters``), so that
the tenant's change (READY, FAILED, recovered) queues the workload at once.

The workload names its tenant by name (``metadata.tenant``), so the pass learns the id only by
reading the tenant: a pass that follows it for the first time looks again at once
(``Waiters.wait`` says so), since a change committed between that read and the registration was
not routed to the workload.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from osac.api.private.v1.tenant_type_pb2 import Tenant
from osac.controllers.networking import topology
from osac.controllers.runtime.waiters import Awaited
from osac.model import registry
from osac.model.shape import as_kind
from osac.status.workloads.shared import TenantReadiness
from osac.store.objects import Tx

#: A workload whose tenant is not stored has nothing to follow (a tenant is created before its
#: objects), so it looks again this often.
MISSING_TENANT_POLL = timedelta(seconds=5)


@dataclass(frozen=True)
class OwningTenant:
    """The owning tenant as one pass read it; ``id`` is empty when no such tenant is stored."""

    readiness: TenantReadiness
    id: str = ""

    @property
    def awaited(self) -> tuple[Awaited, ...]:
        """What a workload waiting for this tenant to be READY follows: the tenant, until then."""
        if self.readiness.ready or not self.id:
            return ()
        return (("tenant", self.id),)


async def read_owning_tenant(tx: Tx, name: str) -> OwningTenant:
    """``READY`` tenants are ready; any other state (or no tenant at all, ``NOT_FOUND``) is not."""
    kind = registry.get("tenant")
    found = await tx.by_name(kind, name, tenant=name)
    if found is None:
        return OwningTenant(TenantReadiness(name, False, "NOT_FOUND"))
    tenant = as_kind(found, Tenant)
    is_ready = tenant.status.state == kind.state_value("READY")
    return OwningTenant(TenantReadiness(name, is_ready, topology.state_name("tenant", tenant)), tenant.id)
