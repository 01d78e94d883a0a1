"""Authentication and authorisation: token verification, the development issuer, the calling
subject, tenancy and the role x method policy (api.md §4, §8, §9).

Depends on no other osac package except `osac.clock`. The server wires it: `TokenVerifier.verify`
turns the `authorization` value into a `Subject`, `authorize` decides on the call, and
`visible_tenants` / `resolve_create_tenant` give the store and services their tenancy.

The names below are loaded on first use (PEP 562), so importing one module of the package, such
as ``osac.auth.subject`` for the CLI's ``--role``, loads no JWT, cryptography or HTTP library.
"""

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from osac.auth.claims import subject_from_claims
    from osac.auth.dev_issuer import DEFAULT_TOKEN_TTL, DEV_ISSUER, DevIssuer
    from osac.auth.errors import AuthConfigError, AuthError, PermissionDenied, Unauthenticated
    from osac.auth.issuers import TrustedIssuer, load_trusted_issuers
    from osac.auth.policy import (
        DEFAULT_LABEL,
        KINDS,
        Api,
        Method,
        authorize,
        is_tenant_visible,
        resolve_create_tenant,
        visible_tenants,
    )
    from osac.auth.subject import SHARED_TENANT, SYSTEM_TENANT, SYSTEM_USER, Role, Subject
    from osac.auth.verifier import CLOCK_SKEW, TokenVerifier, bearer_token

#: The module of each exported name.
_EXPORTS = {
    "subject_from_claims": "osac.auth.claims",
    "DEFAULT_TOKEN_TTL": "osac.auth.dev_issuer",
    "DEV_ISSUER": "osac.auth.dev_issuer",
    "DevIssuer": "osac.auth.dev_issuer",
    "AuthConfigError": "osac.auth.errors",
    "AuthError": "osac.auth.errors",
    "PermissionDenied": "osac.auth.errors",
    "Unauthenticated": "osac.auth.errors",
    "TrustedIssuer": "osac.auth.issuers",
    "load_trusted_issuers": "osac.auth.issuers",
    "DEFAULT_LABEL": "osac.auth.policy",
    "KINDS": "osac.auth.policy",
    "Api": "osac.auth.policy",
    "Method": "osac.auth.policy",
    "authorize": "osac.auth.policy",
    "is_tenant_visible": "osac.auth.policy",
    "resolve_create_tenant": "osac.auth.policy",
    "visible_tenants": "osac.auth.policy",
    "SHARED_TENANT": "osac.auth.subject",
    "SYSTEM_TENANT": "osac.auth.subject",
    "SYSTEM_USER": "osac.auth.subject",
    "Role": "osac.auth.subject",
    "Subject": "osac.auth.subject",
    "CLOCK_SKEW": "osac.auth.verifier",
    "TokenVerifier": "osac.auth.verifier",
    "bearer_token": "osac.auth.verifier",
}


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


__all__ = [
    "CLOCK_SKEW",
    "DEFAULT_LABEL",
    "DEFAULT_TOKEN_TTL",
    "DEV_ISSUER",
    "KINDS",
    "SHARED_TENANT",
    "SYSTEM_TENANT",
    "SYSTEM_USER",
    "Api",
    "AuthConfigError",
    "AuthError",
    "DevIssuer",
    "Method",
    "PermissionDenied",
    "Role",
    "Subject",
    "TokenVerifier",
    "TrustedIssuer",
    "Unauthenticated",
    "authorize",
    "bearer_token",
    "is_tenant_visible",
    "load_trusted_issuers",
    "resolve_create_tenant",
    "subject_from_claims",
    "visible_tenants",
]
