"""Tenant semantics: the tenant name is the object's name; ``shared`` and ``system`` are reserved."""

from __future__ import annotations

from osac import filters
from osac.api.private.v1.tenant_type_pb2 import Tenant
from osac.auth.subject import RESERVED_TENANTS
from osac.model import registry
from osac.model.kinds import Kind, Scope
from osac.model.shape import id_of, metadata_of
from osac.services.core.behaviour import Behaviour, WriteContext
from osac.services.core.dependents import NAMES_SHOWN, Dependents
from osac.services.core.errors import AlreadyExists, InvalidArgument
from osac.services.networking import state_machines
from osac.services.networking.allocation_metrics import DEFAULT, allocation_path
from osac.services.tenancy import default_networking
from osac.store import claims
from osac.store.objects import Tx
from osac.store.tables import LIVE

#: The claim making each e-mail domain belong to one tenant.
DOMAIN_CLAIM = "tenant-domain"

#: Objects that do not keep a tenant from being deleted (they are deleted with it).
NOT_DEFAULT = (
    "!('osac.openshift.io/default' in this.metadata.labels)"
    " || this.metadata.labels['osac.openshift.io/default'] != 'true'"
)


class TenantBehaviour(Behaviour[Tenant]):
    def __init__(self, kind: Kind) -> None:
        super().__init__(kind)
        self.transitions = state_machines.transitions(kind, state_machines.TENANT)

    async def prepare(self, ctx: WriteContext, obj: Tenant, stored: Tenant | None) -> None:
        name = obj.metadata.name
        if stored is None and name in RESERVED_TENANTS:
            raise InvalidArgument(f"metadata.name: '{name}' is reserved; choose another tenant name")
        domains = list(obj.spec.domains)
        for index, domain in enumerate(domains):
            if not domain or "@" in domain or "." not in domain:
                raise InvalidArgument(
                    f"spec.domains[{index}]: '{domain}' is not an e-mail domain (e.g. 'example.com')"
                )
        duplicates = {d for d in domains if domains.count(d) > 1}
        if duplicates:
            raise InvalidArgument(f"spec.domains: '{sorted(duplicates)[0]}' is listed twice")
        await self._claim_domains(ctx, obj, domains)

    async def _claim_domains(self, ctx: WriteContext, obj: Tenant, domains: list[str]) -> None:
        """E-mail domains are globally unique: one claim per domain, enforced by the database."""
        await claims.release_claims(ctx.tx, self.kind.name, obj.id)
        for index, domain in enumerate(domains):
            try:
                await claims.claim(ctx.tx, DOMAIN_CLAIM, domain.lower(), self.kind.name, obj.id)
            except claims.ClaimTaken:
                raise AlreadyExists(
                    f"spec.domains[{index}]: domain '{domain}' already belongs to another tenant"
                ) from None

    async def after_archive(self, tx: Tx, obj: Tenant) -> None:
        await claims.release_claims(tx, self.kind.name, obj.id)

    async def after_create(self, ctx: WriteContext, obj: Tenant) -> None:
        """Default networking in the Tenant's transaction (networking.md §6.1)."""
        with allocation_path(DEFAULT):
            await default_networking.create_default_networking(ctx, obj)

    async def check_delete(self, ctx: WriteContext, obj: Tenant) -> None:
        """A tenant is deleted only once it holds nothing but its defaults (networking.md §4)."""
        tenant = obj.metadata.name
        found = Dependents()
        for kind in registry.KINDS:
            if kind.scope is not Scope.TENANT:
                continue
            table = LIVE[kind.name]
            root = filters.ObjectRoot(kind.private_descriptor, table.c.data)
            not_default = filters.compile_filter(NOT_DEFAULT, root, dialect=ctx.tx.dialect, now=ctx.tx.clock.now())
            condition = (table.c.tenant == tenant) & not_default
            count = await ctx.tx.count(kind, condition)
            if count:
                names = [metadata_of(o).name or id_of(o) for o in await ctx.tx.find(kind, condition, limit=NAMES_SHOWN)]
                found.add(kind.message, count, names)
        found.check(f"Tenant '{tenant}'")


