"""Token verification (api.md §9.1): the development issuer round trip, every way a token can be
refused, and an external issuer whose keys are fetched from a JWKS endpoint on 127.0.0.1."""

from __future__ import annotations

import asyncio
import base64
import json
import socket
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

import httpx
import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa

from osac.auth import (
    AuthConfigError,
    DevIssuer,
    Role,
    Subject,
    TokenVerifier,
    TrustedIssuer,
    Unauthenticated,
)
from osac.auth.jwks import MAX_KEY_AGE, MIN_REFETCH_INTERVAL
from osac.clock import FakeClock

from .idp import T0, IdpKey, JwksServer

IDP = "https://idp.example/realms/osac"
USAGE = "pass 'authorization: Bearer <token>'"


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(trust_env=False) as client:
        yield client


@pytest.fixture
def verifier(dev_issuer: DevIssuer, clock: FakeClock) -> TokenVerifier:
    return TokenVerifier([], dev_issuer, clock)


def idp_claims(**overrides: Any) -> dict[str, Any]:
    now = int(T0.timestamp())
    return {
        "iss": IDP,
        "sub": "u-1",
        "preferred_username": "alice",
        "iat": now,
        "exp": now + 300,
        **overrides,
    }


async def refused(verifier: TokenVerifier, authorization: str | None) -> str:
    with pytest.raises(Unauthenticated) as raised:
        await verifier.verify(authorization)
    assert raised.value.code == "UNAUTHENTICATED"
    return raised.value.message


@pytest.mark.parametrize(
    ("role", "roles"),
    [
        pytest.param(Role.PROVIDER_ADMIN, {Role.PROVIDER_ADMIN}, id="provider-admin"),
        pytest.param(Role.TENANT_ADMIN, {Role.TENANT_ADMIN}, id="tenant-admin"),
        pytest.param(Role.TENANT_USER, {Role.TENANT_USER}, id="tenant-user"),
    ],
)
async def test_dev_issuer_round_trip(
    verifier: TokenVerifier, dev_issuer: DevIssuer, role: Role, roles: set[Role]
) -> None:
    token = dev_issuer.mint("alice", ["acme", "beta"], role, groups=["ops"])
    subject = await verifier.verify(f"Bearer {token}")
    assert subject == Subject(
        user="alice",
        tenants=("acme", "beta"),
        roles=frozenset(roles),
        groups=("ops",),
        issuer="urn:osac:dev-issuer",
    )


@pytest.mark.parametrize(
    "authorization",
    [
        pytest.param("Bearer {token}", id="bearer"),
        pytest.param("bearer {token}", id="lowercase-scheme"),
        pytest.param("  Bearer   {token} ", id="extra-spaces"),
        pytest.param("{token}", id="bare-token"),
    ],
)
async def test_authorization_value_forms(
    verifier: TokenVerifier, dev_issuer: DevIssuer, authorization: str
) -> None:
    token = dev_issuer.mint("alice", ["acme"], Role.TENANT_USER)
    assert (await verifier.verify(authorization.format(token=token))).user == "alice"


@pytest.mark.parametrize(
    ("authorization", "message"),
    [
        pytest.param(None, f"missing bearer token; {USAGE}", id="no-header"),
        pytest.param("", f"missing bearer token; {USAGE}", id="empty"),
        pytest.param("   ", f"missing bearer token; {USAGE}", id="blank"),
        pytest.param("Bearer", f"missing bearer token; {USAGE}", id="scheme-only"),
        pytest.param(
            "Basic YWxpY2U6c2VjcmV0", f"authorization scheme 'Basic' is not supported; {USAGE}", id="basic"
        ),
        pytest.param("Bearer a b", f"malformed authorization value; {USAGE}", id="three-words"),
        pytest.param(
            "Bearer garbage",
            "malformed bearer token; expected a JWT (header.payload.signature)",
            id="garbage",
        ),
        pytest.param(
            "Bearer x.y.z",
            "malformed bearer token; expected a JWT (header.payload.signature)",
            id="three-garbage-segments",
        ),
    ],
)
async def test_missing_or_malformed_authorization(
    verifier: TokenVerifier, authorization: str | None, message: str
) -> None:
    assert await refused(verifier, authorization) == message


@pytest.mark.parametrize(
    ("moment", "message"),
    [
        pytest.param(timedelta(0), None, id="at-issue"),
        pytest.param(timedelta(hours=1), None, id="at-expiry"),
        pytest.param(timedelta(hours=1, seconds=59), None, id="59s-after-expiry-within-skew"),
        pytest.param(
            timedelta(hours=1, seconds=60),
            "token expired at 2030-01-02T04:04:05Z; get a new token",
            id="60s-after-expiry",
        ),
        pytest.param(
            timedelta(days=30), "token expired at 2030-01-02T04:04:05Z; get a new token", id="long-expired"
        ),
        pytest.param(-timedelta(seconds=60), None, id="60s-before-nbf-within-skew"),
        pytest.param(
            -timedelta(seconds=61),
            "token is not valid before 2030-01-02T03:04:05Z; check the clock of the token issuer",
            id="61s-before-nbf",
        ),
    ],
)
async def test_lifetime_is_checked_against_the_injected_clock(
    verifier: TokenVerifier, dev_issuer: DevIssuer, clock: FakeClock, moment: timedelta, message: str | None
) -> None:
    token = dev_issuer.mint("alice", ["acme"], Role.TENANT_USER, ttl=timedelta(hours=1))
    clock.set(T0 + moment)
    if message is None:
        assert (await verifier.verify(token)).user == "alice"
    else:
        assert await refused(verifier, token) == message


def tampered(token: str, **claims: Any) -> str:
    """The token with its payload replaced, the original signature kept."""
    header, payload, signature = token.split(".")
    body = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    encoded = base64.urlsafe_b64encode(json.dumps({**body, **claims}).encode()).rstrip(b"=").decode()
    return f"{header}.{encoded}.{signature}"


async def test_tampered_payload_fails_the_signature(verifier: TokenVerifier, dev_issuer: DevIssuer) -> None:
    token = tampered(
        dev_issuer.mint("bob", ["acme"], Role.TENANT_USER), realm_access={"roles": ["cloud-provider-admin"]}
    )
    assert await refused(verifier, token) == (
        "token signature does not verify against the keys of issuer 'urn:osac:dev-issuer'"
    )


async def test_token_signed_by_another_key_under_the_dev_key_id(
    verifier: TokenVerifier, dev_issuer: DevIssuer
) -> None:
    forger = IdpKey("forger")
    claims = jwt.decode(dev_issuer.mint("eve", [], Role.TENANT_USER), options={"verify_signature": False})
    token = forger.sign({**claims, "realm_access": {"roles": ["cloud-provider-admin"]}}, kid=dev_issuer.kid)
    assert await refused(verifier, token) == (
        "token signature does not verify against the keys of issuer 'urn:osac:dev-issuer'"
    )


async def test_token_from_another_dev_issuer_has_an_unknown_key_id(
    verifier: TokenVerifier, tmp_path: Any, clock: FakeClock
) -> None:
    other = DevIssuer(tmp_path / "other-data-dir", clock)
    message = await refused(verifier, other.mint("eve", ["acme"], Role.PROVIDER_ADMIN))
    assert message == f"token key id '{other.kid}' is not published by issuer 'urn:osac:dev-issuer'"


@pytest.mark.parametrize(
    ("make_token", "message"),
    [
        pytest.param(
            lambda key: key.sign(idp_claims(iss="https://idp.example")),
            "token issuer 'https://idp.example' is not trusted",
            id="untrusted-issuer",
        ),
        pytest.param(
            lambda key: key.sign({k: v for k, v in idp_claims().items() if k != "iss"}),
            "token has no 'iss' claim",
            id="no-issuer",
        ),
        pytest.param(
            lambda key: jwt.encode(idp_claims(iss="urn:osac:dev-issuer"), None, algorithm="none"),  # type: ignore[arg-type]
            "token algorithm 'none' is not accepted; expected one of "
            "RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512, EdDSA",
            id="alg-none",
        ),
        pytest.param(
            lambda key: jwt.encode(
                idp_claims(iss="urn:osac:dev-issuer"), "a-shared-secret-of-32-bytes-long!", "HS256"
            ),
            "token algorithm 'HS256' is not accepted; expected one of "
            "RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512, EdDSA",
            id="alg-hs256",
        ),
    ],
)
async def test_refused_before_any_key_lookup(verifier: TokenVerifier, make_token: Any, message: str) -> None:
    assert await refused(verifier, make_token(IdpKey("k1"))) == message


# --- an external issuer, keys from its JWKS endpoint -------------------------------------------


def idp_verifier(
    server: JwksServer, clock: FakeClock, http: httpx.AsyncClient | None, **config: Any
) -> TokenVerifier:
    return TokenVerifier([TrustedIssuer(IDP, server.url, **config)], None, clock, http)


async def test_external_issuer_keys_are_fetched_once_and_cached(
    jwks_server: JwksServer, clock: FakeClock, http: httpx.AsyncClient
) -> None:
    key = IdpKey("k1")
    jwks_server.publish(key)
    verifier = idp_verifier(jwks_server, clock, http)

    for _ in range(3):
        subject = await verifier.verify(f"Bearer {key.sign(idp_claims(organization={'acme': {}}))}")

    assert (subject.user, subject.tenants, subject.issuer) == ("alice", ("acme",), IDP)
    assert jwks_server.fetches == 1


async def test_unknown_kid_triggers_one_refetch(
    jwks_server: JwksServer, clock: FakeClock, http: httpx.AsyncClient
) -> None:
    """Given the issuer rotated to a new key, a token signed with it causes exactly one refetch;
    a key id the issuer does not publish is refused without hammering the issuer."""
    old, new = IdpKey("old"), IdpKey("new")
    jwks_server.publish(old)
    verifier = idp_verifier(jwks_server, clock, http)
    await verifier.verify(old.sign(idp_claims()))
    clock.advance(MIN_REFETCH_INTERVAL)
    jwks_server.publish(old, new)

    results = await asyncio.gather(*(verifier.verify(new.sign(idp_claims())) for _ in range(5)))

    assert {subject.user for subject in results} == {"alice"}
    assert jwks_server.fetches == 2
    message = await refused(verifier, IdpKey("made-up").sign(idp_claims()))
    assert message == f"token key id 'made-up' is not published by issuer '{IDP}'"
    assert jwks_server.fetches == 2  # rate limited: the previous fetch was just now

    clock.advance(MIN_REFETCH_INTERVAL)
    await refused(verifier, IdpKey("made-up").sign(idp_claims()))
    assert jwks_server.fetches == 3


async def test_a_key_id_republished_with_new_material_verifies_with_the_new_material(
    jwks_server: JwksServer, clock: FakeClock, http: httpx.AsyncClient
) -> None:
    """Verification keys are built once per published key: a key id that comes back with other
    key material is a new key, and the old material no longer verifies under it."""
    first, second = IdpKey("k1"), IdpKey("k1")
    jwks_server.publish(first)
    verifier = idp_verifier(jwks_server, clock, http)
    for _ in range(2):
        assert (await verifier.verify(first.sign(idp_claims()))).user == "alice"
    jwks_server.publish(second)
    clock.advance(MAX_KEY_AGE)
    later = int((T0 + timedelta(hours=2)).timestamp())

    assert (await verifier.verify(second.sign(idp_claims(exp=later)))).user == "alice"
    message = await refused(verifier, first.sign(idp_claims(exp=later)))
    assert message == f"token signature does not verify against the keys of issuer '{IDP}'"


async def test_withdrawn_key_stops_working_once_keys_are_old(
    jwks_server: JwksServer, clock: FakeClock, http: httpx.AsyncClient
) -> None:
    old, new = IdpKey("old"), IdpKey("new")
    jwks_server.publish(old)
    verifier = idp_verifier(jwks_server, clock, http)
    await verifier.verify(old.sign(idp_claims()))
    jwks_server.publish(new)

    clock.advance(MAX_KEY_AGE)
    token = old.sign(idp_claims(exp=int((T0 + timedelta(hours=2)).timestamp())))

    assert await refused(verifier, token) == f"token key id 'old' is not published by issuer '{IDP}'"


async def test_known_keys_survive_a_failed_refetch(
    jwks_server: JwksServer, clock: FakeClock, http: httpx.AsyncClient
) -> None:
    key = IdpKey("k1")
    jwks_server.publish(key)
    verifier = idp_verifier(jwks_server, clock, http)
    await verifier.verify(key.sign(idp_claims()))
    jwks_server.status = 500

    clock.advance(MAX_KEY_AGE)
    token = key.sign(idp_claims(exp=int((T0 + timedelta(hours=2)).timestamp())))

    assert (await verifier.verify(token)).user == "alice"
    assert jwks_server.fetches == 2


async def test_issuer_answering_an_error(
    jwks_server: JwksServer, clock: FakeClock, http: httpx.AsyncClient
) -> None:
    jwks_server.status = 503
    verifier = idp_verifier(jwks_server, clock, http)
    message = await refused(verifier, IdpKey("k1").sign(idp_claims()))
    assert message == (
        f"cannot fetch the signing keys of issuer '{IDP}' from {jwks_server.url} (HTTP 503); try again later"
    )


async def test_unreachable_issuer(clock: FakeClock, http: httpx.AsyncClient) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/certs"  # nothing listens here any more
    verifier = TokenVerifier([TrustedIssuer(IDP, url)], None, clock, http)
    message = await refused(verifier, IdpKey("k1").sign(idp_claims()))
    assert message.startswith(f"cannot fetch the signing keys of issuer '{IDP}' from {url} (")
    assert message.endswith("); try again later")


async def test_own_http_client_when_none_is_given(jwks_server: JwksServer, clock: FakeClock) -> None:
    key = IdpKey("k1")
    jwks_server.publish(key)
    verifier = idp_verifier(jwks_server, clock, None)
    assert (await verifier.verify(key.sign(idp_claims()))).user == "alice"


async def test_service_account_with_configured_role_and_tenants(
    jwks_server: JwksServer, clock: FakeClock, http: httpx.AsyncClient
) -> None:
    key = IdpKey("k1")
    jwks_server.publish(key)
    sub = "system:serviceaccount:acme:ci"
    verifier = idp_verifier(
        jwks_server, clock, http, subject_roles={sub: Role.TENANT_ADMIN}, subject_tenants={sub: ("acme",)}
    )
    now = int(T0.timestamp())

    subject = await verifier.verify(key.sign({"iss": IDP, "sub": sub, "iat": now, "exp": now + 600}))

    assert subject == Subject(sub, ("acme",), frozenset({Role.TENANT_ADMIN}), issuer=IDP)


@pytest.mark.parametrize(
    ("claims", "kid", "message"),
    [
        pytest.param(
            idp_claims(exp=None),
            "",
            "token has no 'exp' claim; only expiring tokens are accepted",
            id="no-expiry",
        ),
        pytest.param(
            idp_claims(exp="tomorrow"),
            "",
            "claim 'exp' must be a number of seconds since the epoch",
            id="expiry-not-a-number",
        ),
        pytest.param(
            idp_claims(),
            None,
            f"token header has no 'kid' and issuer '{IDP}' does not publish exactly one key",
            id="no-kid-two-keys",
        ),
    ],
)
async def test_refused_external_tokens(
    jwks_server: JwksServer,
    clock: FakeClock,
    http: httpx.AsyncClient,
    claims: dict[str, Any],
    kid: str | None,
    message: str,
) -> None:
    key = IdpKey("k1")
    jwks_server.publish(key, IdpKey("k2"))
    verifier = idp_verifier(jwks_server, clock, http)
    claims = {name: value for name, value in claims.items() if value is not None}
    assert await refused(verifier, key.sign(claims, kid=kid)) == message


async def test_token_without_kid_is_accepted_when_the_issuer_has_one_key(
    jwks_server: JwksServer, clock: FakeClock, http: httpx.AsyncClient
) -> None:
    key = IdpKey("k1")
    jwks_server.publish(key)
    verifier = idp_verifier(jwks_server, clock, http)
    assert (await verifier.verify(key.sign(idp_claims(), kid=None))).user == "alice"


async def test_algorithm_must_match_the_published_key(
    jwks_server: JwksServer, clock: FakeClock, http: httpx.AsyncClient
) -> None:
    jwks_server.publish(IdpKey("k1"))
    verifier = idp_verifier(jwks_server, clock, http)
    rsa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    token = jwt.encode(idp_claims(), rsa_key, algorithm="RS256", headers={"kid": "k1"})
    assert (
        await refused(verifier, token)
        == f"token algorithm 'RS256' does not match the 'ES256' key of issuer '{IDP}'"
    )


def test_trusted_issuers_for_capabilities(dev_issuer: DevIssuer, clock: FakeClock) -> None:
    configured = [
        TrustedIssuer(IDP, "https://idp.example/certs"),
        TrustedIssuer("https://k8s", "https://k8s/jwks"),
    ]
    assert TokenVerifier(configured, dev_issuer, clock).trusted_issuers() == [
        "urn:osac:dev-issuer",
        IDP,
        "https://k8s",
    ]
    assert TokenVerifier(configured, None, clock).trusted_issuers() == [IDP, "https://k8s"]


@pytest.mark.parametrize(
    ("issuers", "message"),
    [
        pytest.param([IDP, IDP], f"issuer '{IDP}' is trusted twice; list it once", id="listed-twice"),
        pytest.param(
            ["urn:osac:dev-issuer"],
            "issuer 'urn:osac:dev-issuer' is the built-in development issuer; remove it from auth.issuers",
            id="collides-with-dev-issuer",
        ),
    ],
)
def test_an_issuer_can_be_trusted_only_once(
    dev_issuer: DevIssuer, clock: FakeClock, issuers: list[str], message: str
) -> None:
    with pytest.raises(AuthConfigError) as raised:
        TokenVerifier([TrustedIssuer(name, "https://x/certs") for name in issuers], dev_issuer, clock)
    assert str(raised.value) == message


async def test_a_verified_token_is_answered_from_memory_within_its_validity_only(
    verifier: TokenVerifier, dev_issuer: DevIssuer, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The second verify of the same token checks no signature; the cache never widens what the
    token allows: past its ``exp`` (with the skew) it is refused as if never seen, and after
    ``VERIFIED_MAX_AGE`` it is verified again."""
    from osac.auth import verifier as verifier_module

    token = dev_issuer.mint("alice", ["acme"], Role.TENANT_USER, ttl=timedelta(minutes=10))
    signatures = 0
    uncached = TokenVerifier.verify_uncached

    async def counting(self: TokenVerifier, authorization: str | None) -> Subject:
        nonlocal signatures
        signatures += 1
        return await uncached(self, authorization)

    monkeypatch.setattr(TokenVerifier, "verify_uncached", counting)
    assert (await verifier.verify(token)).user == "alice"
    assert (await verifier.verify(f"Bearer {token}")).user == "alice"
    assert signatures == 1
    clock.advance(verifier_module.VERIFIED_MAX_AGE)
    assert (await verifier.verify(token)).user == "alice"
    assert signatures == 2
    # a tampered copy is another token: verified, and refused
    assert await refused(verifier, tampered(token, sub="mallory")) == (
        "token signature does not verify against the keys of issuer 'urn:osac:dev-issuer'"
    )
    clock.advance(timedelta(minutes=10) + verifier_module.CLOCK_SKEW - verifier_module.VERIFIED_MAX_AGE - timedelta(seconds=1))
    assert (await verifier.verify(token)).user == "alice"  # inside the skew after exp, verified anew
    clock.advance(timedelta(seconds=verifier_module.VERIFIED_MAX_AGE.total_seconds() // 2))
    assert (await refused(verifier, token)).startswith("token expired at ")


async def test_the_cache_keeps_the_most_recently_used_tokens(
    verifier: TokenVerifier, dev_issuer: DevIssuer, monkeypatch: pytest.MonkeyPatch
) -> None:
    from osac.auth import verifier as verifier_module

    monkeypatch.setattr(verifier_module, "VERIFIED_CAPACITY", 3)
    tokens = [dev_issuer.mint(f"user{i}", ["acme"], Role.TENANT_USER) for i in range(5)]
    for token in tokens:
        await verifier.verify(token)
    assert list(verifier._verified) == tokens[2:]
