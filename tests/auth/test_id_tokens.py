"""ID tokens of the console's OpenID Connect sign-in (OpenID Connect Core 3.1.3.7): the bearer
token's signature and lifetime checks, then issuer, audience, authorized party and nonce."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

import httpx
import pytest

from osac.auth import TokenVerifier, TrustedIssuer, Unauthenticated
from osac.clock import FakeClock

from .idp import T0, IdpKey, JwksServer

IDP = "https://idp.example/realms/osac"
CLIENT = "osac-console"
NONCE = "n-0S6_WzA2Mj"


@pytest.fixture
async def verifier(jwks_server: JwksServer, clock: FakeClock) -> AsyncIterator[tuple[TokenVerifier, IdpKey]]:
    key = IdpKey("k1")
    jwks_server.publish(key)
    async with httpx.AsyncClient(trust_env=False) as http:
        yield TokenVerifier([TrustedIssuer(IDP, jwks_server.url)], None, clock, http), key


def claims(**overrides: Any) -> dict[str, Any]:
    now = int(T0.timestamp())
    values = {"iss": IDP, "sub": "u-1", "aud": CLIENT, "nonce": NONCE, "iat": now, "exp": now + 300, **overrides}
    return {name: value for name, value in values.items() if value is not None}


async def test_an_id_token_of_this_sign_in_is_accepted(verifier: tuple[TokenVerifier, IdpKey]) -> None:
    checker, key = verifier
    accepted = await checker.verify_id_token(key.sign(claims(aud=[CLIENT, "account"], azp=CLIENT)), issuer=IDP,
                                             client_id=CLIENT, nonce=NONCE)
    assert accepted["sub"] == "u-1"


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        pytest.param({"iss": "https://rogue.example"},
                     f"ID token issuer 'https://rogue.example' is not '{IDP}', where this sign-in started",
                     id="another-issuer"),
        pytest.param({"aud": "another-app"},
                     f"ID token audience ['another-app'] does not include this console's client id '{CLIENT}'",
                     id="another-audience"),
        pytest.param({"aud": None}, f"ID token audience [] does not include this console's client id '{CLIENT}'",
                     id="no-audience"),
        pytest.param({"aud": [CLIENT, "other"], "azp": "other"},
                     f"ID token was issued to client 'other', not to this console ('{CLIENT}')", id="another-party"),
        pytest.param({"nonce": "guessed"}, "ID token nonce does not match the one this sign-in sent", id="wrong-nonce"),
        pytest.param({"nonce": None}, "ID token nonce does not match the one this sign-in sent", id="no-nonce"),
        pytest.param({"exp": int((T0 - timedelta(minutes=5)).timestamp())}, "token expired at 2030-01-02T02:59:05Z",
                     id="expired"),
    ],
)
async def test_an_id_token_of_another_sign_in_is_refused(verifier: tuple[TokenVerifier, IdpKey],
                                                         overrides: dict[str, Any], message: str) -> None:
    checker, key = verifier
    with pytest.raises(Unauthenticated, match=re.escape(message)):
        await checker.verify_id_token(key.sign(claims(**overrides)), issuer=IDP, client_id=CLIENT, nonce=NONCE)


async def test_a_forged_id_token_is_refused(verifier: tuple[TokenVerifier, IdpKey]) -> None:
    checker, _key = verifier
    with pytest.raises(Unauthenticated, match=f"token signature does not verify against the keys of issuer '{IDP}'"):
        await checker.verify_id_token(IdpKey("k1").sign(claims()), issuer=IDP, client_id=CLIENT, nonce=NONCE)
    with pytest.raises(Unauthenticated, match="malformed ID token"):
        await checker.verify_id_token("not.a.jwt", issuer=IDP, client_id=CLIENT, nonce=NONCE)
