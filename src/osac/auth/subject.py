"""Who is calling: the verified identity every authorisation decision starts from.

A `Subject` is built from a verified token (see `claims.py`) or by `Subject.system()` for the
service's own components. It is immutable so it can be passed through a request freely.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

SHARED_TENANT = "shared"
"""The provider catalogue tenant: readable by everyone, writable by provider admins only."""

SYSTEM_TENANT = "system"
"""The service's internal tenant: hidden from everyone but provider admins."""

RESERVED_TENANTS = frozenset({SHARED_TENANT, SYSTEM_TENANT})

SYSTEM_USER = "system"
"""`metadata.creator` of objects the service creates itself (api.md §2.2)."""


class Role(Enum):
    """The three roles of api.md §9.2, weakest last."""

    PROVIDER_ADMIN = "provider-admin"
    TENANT_ADMIN = "tenant-admin"
    TENANT_USER = "tenant-user"


_STRENGTH = {Role.PROVIDER_ADMIN: 3, Role.TENANT_ADMIN: 2, Role.TENANT_USER: 1}


@dataclass(frozen=True)
class Subject:
    """An authenticated caller.

    `tenants` keeps the token's claim order because the first tenant is the default for Create
    (api.md §9.3). `issuer` records which trusted issuer vouched for the subject, for audit.
    """

    user: str
    tenants: tuple[str, ...]
    roles: frozenset[Role]
    groups: tuple[str, ...] = ()
    issuer: str = ""

    @classmethod
    def system(cls) -> Subject:
        """The service's own components (reconcilers, onboarding): provider-admin rights."""
        return cls(user=SYSTEM_USER, tenants=(), roles=frozenset({Role.PROVIDER_ADMIN}))

    @property
    def role(self) -> Role:
        """The strongest role held; a subject without roles is a tenant user."""
        return max(self.roles, key=_STRENGTH.__getitem__, default=Role.TENANT_USER)

    @property
    def is_provider_admin(self) -> bool:
        return Role.PROVIDER_ADMIN in self.roles

    @property
    def visible_tenants(self) -> frozenset[str] | None:
        """Tenants whose objects this subject may see; None means every tenant.

        The organization tenants plus `shared`. `system` stays hidden even if a token names it.
        """
        if self.is_provider_admin:
            return None
        return frozenset(self.tenants).difference({SYSTEM_TENANT}) | {SHARED_TENANT}

    @property
    def assignable_tenants(self) -> frozenset[str] | None:
        """Tenants this subject may create objects in or change objects of; None means every tenant.

        Reserved tenants are never assignable by non-admins, even when a token names them.
        """
        if self.is_provider_admin:
            return None
        return frozenset(self.tenants) - RESERVED_TENANTS
