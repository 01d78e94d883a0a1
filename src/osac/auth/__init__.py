"""Authentication and authorisation: token verification, the development issuer, the calling
subject, tenancy and the role x method policy (api.md §4, §8, §9).

Depends on no other osac package except `osac.clock`. The server wires it: `TokenVerifier.verify`
turns the `authorization` value into a `Subject`, `authorize` decides on the call, and
`visible_tenants` / `resolve_create_tenant` give the store and services their tenancy.
"""

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
