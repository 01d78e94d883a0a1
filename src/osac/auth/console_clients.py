"""The web console as an OpenID Connect client of a trusted issuer: the ``console`` settings of
an ``auth.issuers`` entry (docs/auth.md, "Console sign-in").

    auth:
      issuers:
      - issuer: https://keycloak.example.com/realms/osac
        jwks_url: https://keycloak.example.com/realms/osac/protocol/openid-connect/certs
        console:
          client_id: osac-console
          title: Red Hat SSO                  # optional; default the issuer's host
          scopes: [openid, profile]           # optional; default [openid]; must hold openid
          client_secret: s3cr3t               # optional: a confidential client (HTTP Basic)
          authorization_endpoint: https://... # optional, with token_endpoint: no discovery
          token_endpoint: https://...
          redirect_uri: https://console.example.com/console/oidc/callback   # optional

Without both endpoints the console reads them from ``<issuer>/.well-known/openid-configuration``
on the first sign-in. Errors name the path of the bad key, as the rest of ``auth.issuers`` does.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from osac.auth.errors import AuthConfigError

CALLBACK_PATH = "/console/oidc/callback"
"""Where the identity provider sends the browser back; registered as the client's redirect URI."""

DEFAULT_SCOPES = ("openid",)

_KEYS = frozenset({"client_id", "title", "scopes", "client_secret", "authorization_endpoint", "token_endpoint",
                   "redirect_uri"})


@dataclass(frozen=True)
class ConsoleClient:
    """How the console signs users in at one issuer with the authorization-code flow and PKCE."""

    client_id: str
    title: str
    scopes: tuple[str, ...] = DEFAULT_SCOPES
    client_secret: str | None = None
    #: Both set, or both None: then they come from the issuer's discovery document.
    authorization_endpoint: str | None = None
    token_endpoint: str | None = None
    #: None: ``CALLBACK_PATH`` on the host the browser used (set it behind a proxy that renames hosts).
    redirect_uri: str | None = None

    @property
    def needs_discovery(self) -> bool:
        return self.authorization_endpoint is None


def load_console_client(entry: Any, issuer: str, path: str) -> ConsoleClient:
    """The ``console`` mapping of an issuer entry at ``path`` (e.g. ``auth.issuers[0].console``).

    :raises AuthConfigError: a key is unknown, missing or malformed; the message names it.
    """
    if not isinstance(entry, Mapping):
        raise AuthConfigError(f"{path}: must be a mapping with at least client_id")
    unknown = set(entry) - _KEYS
    if unknown:
        raise AuthConfigError(f"{path}: unknown key {_names(unknown)}; expected {_names(_KEYS)}")
    client_id = _string(entry, "client_id", path, required=True)
    assert client_id is not None
    title = _string(entry, "title", path) or (urlsplit(issuer).netloc or issuer)
    scopes = _scopes(entry.get("scopes"), f"{path}.scopes")
    secret = _string(entry, "client_secret", path)
    authorize = _url(entry, "authorization_endpoint", path)
    token = _url(entry, "token_endpoint", path)
    if (authorize is None) != (token is None):
        given, missing = ("authorization_endpoint", "token_endpoint") if token is None else (
            "token_endpoint", "authorization_endpoint")
        raise AuthConfigError(f"{path}.{missing}: required with {given} (give both, or neither to read them "
                              f"from {issuer.rstrip('/')}/.well-known/openid-configuration)")
    if authorize is None:
        parts = urlsplit(issuer)
        if parts.scheme not in ("https", "http") or not parts.netloc:
            raise AuthConfigError(f"{path}: issuer '{issuer}' is not an http(s) URL, so it has no discovery "
                                  "document; set authorization_endpoint and token_endpoint")
    redirect = _url(entry, "redirect_uri", path)
    if redirect is not None and urlsplit(redirect).path != CALLBACK_PATH:
        raise AuthConfigError(f"{path}.redirect_uri: '{redirect}' must end in the path {CALLBACK_PATH}")
    return ConsoleClient(client_id=client_id, title=title, scopes=scopes, client_secret=secret,
                         authorization_endpoint=authorize, token_endpoint=token, redirect_uri=redirect)


def _string(entry: Mapping[str, Any], key: str, path: str, *, required: bool = False) -> str | None:
    value = entry.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value.strip():
        raise AuthConfigError(f"{path}.{key}: {'required, ' if required else ''}must be a non-empty string")
    return value.strip()


def _url(entry: Mapping[str, Any], key: str, path: str) -> str | None:
    value = _string(entry, key, path)
    if value is None:
        return None
    parts = urlsplit(value)
    if parts.scheme not in ("https", "http") or not parts.netloc:
        raise AuthConfigError(f"{path}.{key}: '{value}' is not an http(s) URL")
    if parts.fragment:
        raise AuthConfigError(f"{path}.{key}: '{value}' must not have a fragment (#...)")
    return value


def _scopes(value: Any, path: str) -> tuple[str, ...]:
    if value is None:
        return DEFAULT_SCOPES
    if not isinstance(value, list) or not all(isinstance(s, str) and s and " " not in s for s in value):
        raise AuthConfigError(f"{path}: must be a list of scope names without spaces, e.g. [openid, profile]")
    if "openid" not in value:
        raise AuthConfigError(f"{path}: must include openid (the console signs in with OpenID Connect)")
    return tuple(dict.fromkeys(value))


def _names(keys: set[str] | frozenset[str]) -> str:
    return ", ".join(sorted(map(str, keys)))
