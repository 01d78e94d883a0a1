"""Tenant semantics: the tenant name is the object's name; ``shared`` and ``system`` are reserved."""

from __future__ import annotations

from google.protobuf.message import Message

from osac.auth.subject import RESERVED_TENANTS
from osac.services.behaviour import Behaviour, WriteContext
from osac.services.errors import InvalidArgument


class TenantBehaviour(Behaviour):
    async def prepare(self, ctx: WriteContext, obj: Message, stored: Message | None) -> None:
        name = obj.metadata.name  # type: ignore[attr-defined]
        if stored is None and name in RESERVED_TENANTS:
            raise InvalidArgument(f"metadata.name: '{name}' is reserved; choose another tenant name")
        domains = list(obj.spec.domains)  # type: ignore[attr-defined]
        for index, domain in enumerate(domains):
            if not domain or "@" in domain or "." not in domain:
                raise InvalidArgument(
                    f"spec.domains[{index}]: '{domain}' is not an e-mail domain (e.g. 'example.com')"
                )
        duplicates = {d for d in domains if domains.count(d) > 1}
        if duplicates:
            raise InvalidArgument(f"spec.domains: '{sorted(duplicates)[0]}' is listed twice")


BEHAVIOUR = TenantBehaviour
