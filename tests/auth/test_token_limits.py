"""Issuer settings that bound tokens (docs/auth.md): the maximum lifetime and the expected
audience of a trusted issuer, and the message for a token whose organization is reserved."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from osac.auth import PermissionDenied, Role, Subject, TokenVerifier, TrustedIssuer
from osac.auth.issuers import DEFAULT_MAX_TOKEN_LIFETIME, load_trusted_issuers
from osac.auth.policy import resolve_create_tenant
from osac.clock import FakeClock

from .idp import IdpKey, JwksServer
from .test_verifier import IDP, idp_claims, refused


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(trust_env=False) as client:
        yield client


def _verifier(server: JwksServer, clock: FakeClock, http: httpx.AsyncClient, **config) -> TokenVerifier:
    return TokenVerifier([TrustedIssuer(IDP, server.url, **config)], None, clock, http)


async def test_a_token_living_longer_than_the_issuer_allows_is_refused(
    jwks_server: JwksServer, clock: FakeClock, http: httpx.AsyncClient
) -> None:
    key = IdpKey("k1")
    jwks_server.publish(key)
    verifier = _verifier(jwks_server, clock, http)
    claims = idp_claims()
    far = key.sign({**claims, "exp": 10**20})
    assert await refused(verifier, f"Bearer {far}") == (
        f"token lifetime exceeds the maximum of {DEFAULT_MAX_TOKEN_LIFETIME} s of issuer '{IDP}'; "
        "get a token with a shorter lifetime")
    day = key.sign({**claims, "exp": claims["iat"] + DEFAULT_MAX_TOKEN_LIFETIME})
    assert (await verifier.verify(f"Bearer {day}")).user == "alice"
    short = _verifier(jwks_server, clock, http, max_token_lifetime=600)
    hour = key.sign({**claims, "exp": claims["iat"] + 3600})
    assert "maximum of 600 s" in await refused(short, f"Bearer {hour}")


async def test_the_expected_audience_is_required(
    jwks_server: JwksServer, clock: FakeClock, http: httpx.AsyncClient
) -> None:
    key = IdpKey("k1")
    jwks_server.publish(key)
    verifier = _verifier(jwks_server, clock, http, audience="osac")
    message = (f"token audience does not include 'osac', which issuer '{IDP}' tokens must carry for this "
               "service")
    assert await refused(verifier, f"Bearer {key.sign(idp_claims())}") == message
    assert await refused(verifier, f"Bearer {key.sign(idp_claims(aud=['other']))}") == message
    assert (await verifier.verify(f"Bearer {key.sign(idp_claims(aud=['other', 'osac']))}")).user == "alice"
    assert (await verifier.verify(f"Bearer {key.sign(idp_claims(aud='osac'))}")).user == "alice"


def test_issuer_settings_are_read_and_checked() -> None:
    base = {"issuer": IDP, "jwks_url": "https://idp.example/certs"}
    [default] = load_trusted_issuers({"auth": {"issuers": [base]}})
    assert (default.max_token_lifetime, default.audience) == (DEFAULT_MAX_TOKEN_LIFETIME, None)
    [tuned] = load_trusted_issuers({"auth": {"issuers": [{**base, "max_token_lifetime": 600, "audience": "osac"}]}})
    assert (tuned.max_token_lifetime, tuned.audience) == (600, "osac")
    from osac.auth import AuthConfigError

    with pytest.raises(AuthConfigError, match=r"auth.issuers\[0\].max_token_lifetime: must be a positive"):
        load_trusted_issuers({"auth": {"issuers": [{**base, "max_token_lifetime": 0}]}})


@pytest.mark.parametrize("organization", ["system", "shared"])
def test_a_reserved_organization_is_named(organization: str) -> None:
    subject = Subject(user="mallory", tenants=(organization,), roles=frozenset({Role.TENANT_ADMIN}))
    with pytest.raises(PermissionDenied) as raised:
        resolve_create_tenant(subject, None)
    assert raised.value.message == (
        f"token organization '{organization}' is reserved for the service's own objects and names no tenant; "
        "cannot create objects; use a token whose organization is your tenant")
