"""Mapping of verified token claims to a `Subject` (api.md §9.1).

Tokens come in the Keycloak/OIDC shape; other issuers (Kubernetes service accounts) carry only
`sub`, so their role and tenants can be configured per subject instead. The claims have already
passed signature verification here, but their shape is still untrusted input: a claim of the wrong
type is refused with a message naming it rather than silently ignored, so a misconfigured identity
provider is noticed at the first call.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from osac.auth.errors import Unauthenticated
from osac.auth.subject import Role, Subject

USER_CLAIMS = ("preferred_username", "username", "sub")
"""Claims naming the user, in order of preference; the first non-empty one wins."""

REALM_ROLES: Mapping[str, Role] = {
    "cloud-provider-admin": Role.PROVIDER_ADMIN,
    "tenant-admin": Role.TENANT_ADMIN,
}
"""Keycloak realm roles that grant more than the tenant-user role."""

ADMIN_GROUPS = frozenset({"admins", "/admins"})
"""Members are provider admins. `/admins` is Keycloak's full-path spelling of the same group."""


def subject_from_claims(
    claims: Mapping[str, Any],
    *,
    issuer: str,
    admin_subjects: frozenset[str] = frozenset(),
    subject_roles: Mapping[str, Role] | None = None,
    subject_tenants: Mapping[str, tuple[str, ...]] | None = None,
) -> Subject:
    """Build the subject of verified `claims`.

    `admin_subjects`, `subject_roles` and `subject_tenants` are keyed by the `sub` claim (never by
    the user name, which some identity providers let users choose). A configured role or tenant
    list replaces what the claims say; an admin subject or the `admins` group adds provider admin.
    Realm roles other than those in `REALM_ROLES` make a tenant user.

    :raises Unauthenticated: a claim has the wrong shape, or no claim names the user.
    """
    sub = _optional_string(claims, "sub")
    user = next((value for name in USER_CLAIMS if (value := _optional_string(claims, name))), None)
    if user is None:
        raise Unauthenticated("token names no user; expected claim 'preferred_username', 'username' or 'sub'")

    groups = _string_list(claims.get("groups"), "groups")
    configured_roles = subject_roles or {}
    configured_tenants = subject_tenants or {}

    if sub is not None and sub in configured_roles:
        roles = {configured_roles[sub]}
    else:
        roles = {REALM_ROLES.get(name, Role.TENANT_USER) for name in _realm_roles(claims)}
    if (sub is not None and sub in admin_subjects) or ADMIN_GROUPS.intersection(groups):
        roles.add(Role.PROVIDER_ADMIN)
    if roles - {Role.TENANT_USER}:
        roles.discard(Role.TENANT_USER)
    if not roles:
        roles.add(Role.TENANT_USER)

    if sub is not None and sub in configured_tenants:
        tenants = tuple(configured_tenants[sub])
    else:
        tenants = _organization(claims.get("organization"))

    return Subject(user=user, tenants=tenants, roles=frozenset(roles), groups=groups, issuer=issuer)


def _optional_string(claims: Mapping[str, Any], name: str) -> str | None:
    value = claims.get(name)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise Unauthenticated(f"claim '{name}' must be a string, got {type(value).__name__}")
    return value


def _string_list(value: Any, path: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise Unauthenticated(f"claim '{path}' must be a list of strings")
    return tuple(value)


def _realm_roles(claims: Mapping[str, Any]) -> tuple[str, ...]:
    realm_access = claims.get("realm_access")
    if realm_access is None:
        return ()
    if not isinstance(realm_access, dict):
        raise Unauthenticated("claim 'realm_access' must be an object with a 'roles' list")
    return _string_list(realm_access.get("roles"), "realm_access.roles")


def _organization(value: Any) -> tuple[str, ...]:
    """Tenants from `["acme", …]` or `{"acme": {…}, …}`, in claim order, without duplicates."""
    if value is None:
        return ()
    if isinstance(value, dict):
        names = list(value)
    elif isinstance(value, list) and all(isinstance(item, str) for item in value):
        names = value
    else:
        raise Unauthenticated(
            "claim 'organization' must be a list of tenant names or an object keyed by tenant name"
        )
    if "" in names:
        raise Unauthenticated("claim 'organization' contains an empty tenant name")
    return tuple(dict.fromkeys(names))
