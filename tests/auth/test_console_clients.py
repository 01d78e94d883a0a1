"""The ``console`` settings of a trusted issuer (docs/auth.md, "Console sign-in")."""

from __future__ import annotations

import re
from typing import Any

import pytest

from osac.auth import AuthConfigError, load_trusted_issuers
from osac.auth.console_clients import ConsoleClient

ISSUER = "https://sso.example.com/realms/osac"


def load(console: Any, issuer: str = ISSUER) -> ConsoleClient | None:
    entry = {"issuer": issuer, "jwks_url": f"{ISSUER}/certs", "console": console}
    return load_trusted_issuers({"auth": {"issuers": [{"issuer": "https://other.example", "jwks_url":
                                                       "https://other.example/keys"}, entry]}})[1].console


def test_the_minimal_settings_discover_the_endpoints() -> None:
    client = load({"client_id": "osac-console"})
    assert client == ConsoleClient(client_id="osac-console", title="sso.example.com")
    assert client.needs_discovery


def test_every_setting_is_kept() -> None:
    client = load({"client_id": "osac-console", "title": "Red Hat SSO", "scopes": ["openid", "profile", "openid"],
                   "client_secret": "s3cr3t", "authorization_endpoint": f"{ISSUER}/auth",
                   "token_endpoint": f"{ISSUER}/token",
                   "redirect_uri": "https://console.example.com/console/oidc/callback"})
    assert client == ConsoleClient(client_id="osac-console", title="Red Hat SSO", scopes=("openid", "profile"),
                                   client_secret="s3cr3t", authorization_endpoint=f"{ISSUER}/auth",
                                   token_endpoint=f"{ISSUER}/token",
                                   redirect_uri="https://console.example.com/console/oidc/callback")
    assert not client.needs_discovery


def test_an_issuer_without_console_settings_offers_no_sign_in() -> None:
    issuers = load_trusted_issuers({"auth": {"issuers": [{"issuer": ISSUER, "jwks_url": f"{ISSUER}/certs"}]}})
    assert issuers[0].console is None


P = "auth.issuers[1].console"


@pytest.mark.parametrize(
    ("console", "message"),
    [
        pytest.param("osac-console", f"{P}: must be a mapping with at least client_id", id="not-a-mapping"),
        pytest.param({}, f"{P}.client_id: required, must be a non-empty string", id="no-client-id"),
        pytest.param({"client_id": " "}, f"{P}.client_id: required, must be a non-empty string", id="blank-client-id"),
        pytest.param({"client_id": "c", "clientsecret": "x"},
                     f"{P}: unknown key clientsecret; expected authorization_endpoint, client_id, client_secret, "
                     "redirect_uri, scopes, title, token_endpoint", id="unknown-key"),
        pytest.param({"client_id": "c", "scopes": "openid profile"},
                     f"{P}.scopes: must be a list of scope names without spaces", id="scopes-string"),
        pytest.param({"client_id": "c", "scopes": ["profile"]}, f"{P}.scopes: must include openid",
                     id="scopes-without-openid"),
        pytest.param({"client_id": "c", "client_secret": 42}, f"{P}.client_secret: must be a non-empty string",
                     id="secret-number"),
        pytest.param({"client_id": "c", "authorization_endpoint": f"{ISSUER}/auth"},
                     f"{P}.token_endpoint: required with authorization_endpoint (give both, or neither to read "
                     f"them from {ISSUER}/.well-known/openid-configuration)", id="authorize-without-token"),
        pytest.param({"client_id": "c", "token_endpoint": f"{ISSUER}/token"},
                     f"{P}.authorization_endpoint: required with token_endpoint", id="token-without-authorize"),
        pytest.param({"client_id": "c", "authorization_endpoint": "sso.example.com/auth",
                      "token_endpoint": f"{ISSUER}/token"},
                     f"{P}.authorization_endpoint: 'sso.example.com/auth' is not an http(s) URL", id="relative-url"),
        pytest.param({"client_id": "c", "authorization_endpoint": f"{ISSUER}/auth#x",
                      "token_endpoint": f"{ISSUER}/token"},
                     f"{P}.authorization_endpoint: '{ISSUER}/auth#x' must not have a fragment", id="fragment"),
        pytest.param({"client_id": "c", "redirect_uri": "https://console.example.com/callback"},
                     f"{P}.redirect_uri: 'https://console.example.com/callback' must end in the path "
                     "/console/oidc/callback", id="redirect-elsewhere"),
    ],
)
def test_bad_settings_name_the_key(console: Any, message: str) -> None:
    with pytest.raises(AuthConfigError, match=re.escape(message)):
        load(console)


def test_an_issuer_without_a_url_needs_its_endpoints() -> None:
    with pytest.raises(AuthConfigError, match=re.escape(
            f"{P}: issuer 'urn:example:sso' is not an http(s) URL, so it has no discovery document; set "
            "authorization_endpoint and token_endpoint")):
        load({"client_id": "c"}, issuer="urn:example:sso")
    client = load({"client_id": "c", "authorization_endpoint": "https://sso/auth", "token_endpoint": "https://sso/t"},
                  issuer="urn:example:sso")
    assert client is not None and client.title == "urn:example:sso"
