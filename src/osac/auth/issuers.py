"""Trusted token issuers and their configuration (api.md §9.1).

Besides the built-in development issuer, an installation trusts the issuers listed in the `auth`
section of its configuration file, for example Keycloak and a Kubernetes API server whose service
account tokens metering uses:

    auth:
      issuers:
      - issuer: https://keycloak.example.com/realms/osac
        jwks_url: https://keycloak.example.com/realms/osac/protocol/openid-connect/certs
        admin_subjects: [5d1c0b5e-9a8f-4c1e-8f57-3e1f0f1d2c3b]
      - issuer: https://kubernetes.default.svc.cluster.local
        jwks_url: https://kubernetes.default.svc.cluster.local/openid/v1/jwks
        max_token_lifetime: 3600        # seconds; default 86400
        audience: osac-fulfillment        # optional: the token's aud must contain it
        subjects:
          system:serviceaccount:metering:reader: {role: provider-admin}
          system:serviceaccount:acme:ci: {role: tenant-admin, tenants: [acme]}

An entry's optional ``console`` mapping lets users sign in to the web console at that issuer
(``console_clients.py``).

Subjects are values of the token's `sub` claim. Configuration errors name the path of the bad entry
so they can be fixed without reading this code.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from osac.auth.console_clients import ConsoleClient, load_console_client
from osac.auth.errors import AuthConfigError
from osac.auth.subject import Role

#: Default longest token lifetime of a trusted issuer: 24 hours (Keycloak access tokens last
#: minutes; a Kubernetes service-account token an hour by default, at most a day when projected).
DEFAULT_MAX_TOKEN_LIFETIME = 24 * 3600

@dataclass(frozen=True)
class TrustedIssuer:
    """One identity provider whose tokens are accepted.

    `admin_subjects` are made provider admins. `subject_roles` and `subject_tenants` replace the
    role and the tenants a token of that subject claims; they exist for issuers such as Kubernetes
    that cannot put roles or organizations into their tokens.
    """

    issuer: str
    jwks_url: str
    admin_subjects: frozenset[str] = frozenset()
    subject_roles: Mapping[str, Role] = field(default_factory=dict)
    subject_tenants: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    #: The longest accepted lifetime of a token (``exp`` minus ``iat``, or minus now without
    #: ``iat``), in seconds.
    max_token_lifetime: int = DEFAULT_MAX_TOKEN_LIFETIME
    #: When set, the token's ``aud`` (a string or a list) must contain it.
    audience: str | None = None
    #: When set, the web console offers sign-in at this issuer (``console_clients.py``).
    console: ConsoleClient | None = None


_ISSUER_KEYS = frozenset({"issuer", "jwks_url", "admin_subjects", "subjects", "max_token_lifetime", "audience",
                          "console"})
_SUBJECT_KEYS = frozenset({"role", "tenants"})
_ROLE_NAMES = {role.value: role for role in Role}


def load_trusted_issuers(config: Mapping[str, Any]) -> list[TrustedIssuer]:
    """The issuers listed under `auth.issuers` of a configuration document.

    `config` is the whole parsed configuration file; a missing `auth` section trusts no extra
    issuer.

    :raises AuthConfigError: an entry is malformed; the message names it, e.g.
        `auth.issuers[1].subjects.ci.role: unknown role 'admin'; expected one of ...`.
    """
    auth = config.get("auth")
    if auth is None:
        return []
    if not isinstance(auth, Mapping):
        raise AuthConfigError("auth: must be a mapping")
    unknown = set(auth) - {"issuers"}
    if unknown:
        raise AuthConfigError(f"auth: unknown key {_names(unknown)}; expected issuers")
    entries = auth.get("issuers")
    if entries is None:
        return []
    if not isinstance(entries, list):
        raise AuthConfigError("auth.issuers: must be a list of issuers")
    issuers = [_issuer(entry, f"auth.issuers[{index}]") for index, entry in enumerate(entries)]
    seen: set[str] = set()
    for index, trusted in enumerate(issuers):
        if trusted.issuer in seen:
            raise AuthConfigError(f"auth.issuers[{index}].issuer: '{trusted.issuer}' is listed twice")
        seen.add(trusted.issuer)
    return issuers


def _issuer(entry: Any, path: str) -> TrustedIssuer:
    if not isinstance(entry, Mapping):
        raise AuthConfigError(f"{path}: must be a mapping with issuer and jwks_url")
    unknown = set(entry) - _ISSUER_KEYS
    if unknown:
        raise AuthConfigError(f"{path}: unknown key {_names(unknown)}; expected {_names(_ISSUER_KEYS)}")
    issuer = _required_string(entry, "issuer", path)
    jwks_url = _required_string(entry, "jwks_url", path)
    parts = urlsplit(jwks_url)
    if parts.scheme not in ("https", "http") or not parts.netloc:
        raise AuthConfigError(f"{path}.jwks_url: '{jwks_url}' is not an http(s) URL")
    admin_subjects = _string_list(entry.get("admin_subjects"), f"{path}.admin_subjects")

    subjects = entry.get("subjects")
    if subjects is None:
        subjects = {}
    if not isinstance(subjects, Mapping):
        raise AuthConfigError(f"{path}.subjects: must be a mapping of subject to {{role, tenants}}")
    roles: dict[str, Role] = {}
    tenants: dict[str, tuple[str, ...]] = {}
    for name, mapping in subjects.items():
        subject_path = f"{path}.subjects.{name}"
        if not isinstance(mapping, Mapping):
            raise AuthConfigError(f"{subject_path}: must be a mapping with role and/or tenants")
        unknown = set(mapping) - _SUBJECT_KEYS
        if unknown:
            raise AuthConfigError(f"{subject_path}: unknown key {_names(unknown)}; expected role, tenants")
        if "role" in mapping:
            role = _ROLE_NAMES.get(mapping["role"])
            if role is None:
                raise AuthConfigError(
                    f"{subject_path}.role: unknown role '{mapping['role']}'; expected one of "
                    + ", ".join(_ROLE_NAMES)
                )
            roles[str(name)] = role
        if "tenants" in mapping:
            tenants[str(name)] = _string_list(mapping["tenants"], f"{subject_path}.tenants")

    lifetime = entry.get("max_token_lifetime", DEFAULT_MAX_TOKEN_LIFETIME)
    if not isinstance(lifetime, int) or isinstance(lifetime, bool) or lifetime <= 0:
        raise AuthConfigError(f"{path}.max_token_lifetime: must be a positive number of seconds, got {lifetime!r}")
    audience = entry.get("audience")
    if audience is not None and (not isinstance(audience, str) or not audience):
        raise AuthConfigError(f"{path}.audience: must be a non-empty string")
    console = entry.get("console")
    return TrustedIssuer(
        issuer=issuer,
        jwks_url=jwks_url,
        admin_subjects=frozenset(admin_subjects),
        subject_roles=roles,
        subject_tenants=tenants,
        max_token_lifetime=lifetime,
        audience=audience,
        console=None if console is None else load_console_client(console, issuer, f"{path}.console"),
    )


def _required_string(entry: Mapping[str, Any], key: str, path: str) -> str:
    value = entry.get(key)
    if not isinstance(value, str) or not value:
        raise AuthConfigError(f"{path}.{key}: required, must be a non-empty string")
    return value


def _string_list(value: Any, path: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(item, str) and item for item in value):
        raise AuthConfigError(f"{path}: must be a list of non-empty strings")
    return tuple(value)


def _names(keys: set[str] | frozenset[str]) -> str:
    return ", ".join(sorted(map(str, keys)))
