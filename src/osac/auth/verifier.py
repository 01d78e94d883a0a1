"""Bearer token verification (api.md §9.1): from an `authorization` header to a `Subject`.

Order of checks, each with its own stable message: the header carries a bearer token; the token
is a JWT with an asymmetric algorithm; its `iss` is trusted; its `kid` names a key the issuer
publishes (one refetch of the issuer's JWKS on an unknown `kid`); the signature verifies; `exp` and
`nbf` hold within `CLOCK_SKEW`; the claims map to a subject. Time comes from the injected clock,
never from PyJWT's wall-clock checks, so tests can move it.

Only asymmetric algorithms are accepted: keys come from public JWK Sets, and accepting HS256 with
a public key as the secret, or `none`, would let anyone forge tokens.
"""

from __future__ import annotations

import hmac
import json
import math
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import jwt
from jwt.types import Options

from osac.auth.claims import subject_from_claims
from osac.auth.dev_issuer import DEV_ISSUER, DevIssuer
from osac.auth.errors import AuthConfigError, Unauthenticated
from osac.auth.issuers import TrustedIssuer
from osac.auth.jwks import KeySource, RemoteKeys, StaticKeys
from osac.auth.subject import Subject
from osac.clock import Clock

CLOCK_SKEW = timedelta(seconds=60)
"""Tolerated difference between our clock and the issuer's, on `exp` and `nbf`."""

ALGORITHMS = ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA")

USAGE = "pass 'authorization: Bearer <token>'"

KEY_CACHE_SIZE = 64
"""Verification keys kept built (the oldest goes first)."""

_SIGNATURE_ONLY: Options = {
    "verify_signature": True,
    "verify_exp": False,
    "verify_nbf": False,
    "verify_iat": False,
    "verify_aud": False,
    "verify_iss": False,
    "verify_sub": False,
    "verify_jti": False,
}


@dataclass(frozen=True)
class _Issuer:
    keys: KeySource
    config: TrustedIssuer | None


#: How long a verified token is answered from memory at most (a withdrawn key or a changed issuer
#: setting reaches a token already seen within this), and how many tokens are remembered (the
#: least recently used goes first).
VERIFIED_MAX_AGE = timedelta(seconds=60)
VERIFIED_CAPACITY = 4096


@dataclass(frozen=True)
class _Verified:
    subject: Subject
    valid_from: float
    valid_until: float

    def holds_at(self, now: float) -> bool:
        return self.valid_from <= now < self.valid_until


class TokenVerifier:
    """Verifies bearer tokens of the trusted issuers and, when enabled, the development issuer.

    One instance serves the whole process: it holds each issuer's key cache. `http` is the client
    used to fetch JWK Sets; without one, each fetch opens a short-lived client.

    :raises AuthConfigError: an issuer is listed twice or collides with the development issuer.
    """

    def __init__(
        self,
        trusted: Sequence[TrustedIssuer],
        dev_issuer: DevIssuer | None,
        clock: Clock,
        http: httpx.AsyncClient | None = None,
    ) -> None:
        self._clock = clock
        self._issuers: dict[str, _Issuer] = {}
        self._keys: dict[tuple[str, str], jwt.PyJWK] = {}
        self._verified: OrderedDict[str, _Verified] = OrderedDict()
        if dev_issuer is not None:
            self._issuers[dev_issuer.issuer] = _Issuer(StaticKeys(dev_issuer.jwks()), None)
        for config in trusted:
            if config.issuer == DEV_ISSUER:
                raise AuthConfigError(
                    f"issuer '{DEV_ISSUER}' is the built-in development issuer; remove it from auth.issuers"
                )
            if config.issuer in self._issuers:
                raise AuthConfigError(f"issuer '{config.issuer}' is trusted twice; list it once")
            keys = RemoteKeys(config.issuer, config.jwks_url, clock, http)
            self._issuers[config.issuer] = _Issuer(keys, config)

    def trusted_issuers(self) -> list[str]:
        """Issuer ids for Capabilities (api.md §8); the development issuer first when enabled."""
        return list(self._issuers)

    async def verify(self, authorization: str | None) -> Subject:
        """The subject of a bearer token, from the cache of verified tokens when this exact token
        was verified in the last ``VERIFIED_MAX_AGE`` and the clock is still inside its validity
        window (``exp``/``nbf`` with ``CLOCK_SKEW``), else verified again.

        :raises Unauthenticated: see ``verify_uncached``.
        """
        token = bearer_token(authorization)
        now = self._clock.now().timestamp()
        cached = self._verified.get(token)
        if cached is not None and cached.holds_at(now):
            self._verified.move_to_end(token)
            return cached.subject
        subject = await self.verify_uncached(token)
        claims = jwt.decode(token, options={"verify_signature": False})
        skew = CLOCK_SKEW.total_seconds()
        expires, not_before = _timestamp(claims, "exp"), _timestamp(claims, "nbf")
        self._verified[token] = _Verified(
            subject,
            valid_from=-math.inf if not_before is None else not_before - skew,
            valid_until=min(math.inf if expires is None else expires + skew, now + VERIFIED_MAX_AGE.total_seconds()),
        )
        self._verified.move_to_end(token)
        while len(self._verified) > VERIFIED_CAPACITY:
            self._verified.popitem(last=False)
        return subject

    async def verify_uncached(self, authorization: str | None) -> Subject:
        """The subject of a bearer token, verified now (signature, issuer, lifetime, claims).

        :param authorization: the `authorization` header (or gRPC metadata) value, `Bearer <jwt>`,
            or the bare token.
        :raises Unauthenticated: the token is missing, malformed, untrusted, badly signed, expired
            or not yet valid, or its claims have the wrong shape.
        """
        issuer_id, issuer, claims = await self._signed_claims(bearer_token(authorization))
        config = issuer.config
        if config is not None:
            _check_issuer_limits(claims, config, self._clock.now().timestamp())
        if config is None:
            return subject_from_claims(claims, issuer=issuer_id)
        return subject_from_claims(
            claims,
            issuer=issuer_id,
            admin_subjects=config.admin_subjects,
            subject_roles=config.subject_roles,
            subject_tenants=config.subject_tenants,
        )

    async def verify_id_token(self, token: str, *, issuer: str, client_id: str, nonce: str) -> dict[str, Any]:
        """The claims of an OpenID Connect ID token that ``issuer`` issued to ``client_id`` for the
        sign-in that sent ``nonce`` (OpenID Connect Core 3.1.3.7): the same signature and lifetime
        checks as a bearer token, then ``iss``, ``aud`` (and ``azp``) and ``nonce``.

        :raises Unauthenticated: the token does not verify or was not issued for this sign-in.
        """
        try:
            claimed = jwt.decode(token, options={"verify_signature": False}).get("iss")
        except jwt.InvalidTokenError as error:
            raise Unauthenticated("malformed ID token; expected a JWT (header.payload.signature)") from error
        if claimed != issuer:
            raise Unauthenticated(f"ID token issuer '{claimed}' is not '{issuer}', where this sign-in started")
        _issuer_id, _issuer, claims = await self._signed_claims(token)
        audience = claims.get("aud")
        audiences = [audience] if isinstance(audience, str) else audience if isinstance(audience, list) else []
        if client_id not in audiences:
            raise Unauthenticated(f"ID token audience {audiences!r} does not include this console's client id "
                                  f"'{client_id}'")
        party = claims.get("azp")
        if party is not None and party != client_id:
            raise Unauthenticated(f"ID token was issued to client '{party}', not to this console ('{client_id}')")
        if not isinstance(claims.get("nonce"), str) or not hmac.compare_digest(claims["nonce"], nonce):
            raise Unauthenticated("ID token nonce does not match the one this sign-in sent (a replayed or "
                                  "injected token); sign in again")
        return claims

    async def _signed_claims(self, token: str) -> tuple[str, _Issuer, dict[str, Any]]:
        """The claims of a token whose issuer is trusted, whose signature verifies against its keys
        and whose ``exp``/``nbf`` hold.

        :raises Unauthenticated: as ``verify_uncached`` says."""
        try:
            header = jwt.get_unverified_header(token)
            unverified = jwt.decode(token, options={"verify_signature": False})
        except jwt.InvalidTokenError as error:
            raise Unauthenticated(
                "malformed bearer token; expected a JWT (header.payload.signature)"
            ) from error

        algorithm = header.get("alg")
        if algorithm not in ALGORITHMS:
            raise Unauthenticated(
                f"token algorithm '{algorithm}' is not accepted; expected one of {', '.join(ALGORITHMS)}"
            )
        issuer_id = unverified.get("iss")
        if not isinstance(issuer_id, str) or not issuer_id:
            raise Unauthenticated("token has no 'iss' claim")
        issuer = self._issuers.get(issuer_id)
        if issuer is None:
            raise Unauthenticated(f"token issuer '{issuer_id}' is not trusted")

        kid = header.get("kid")
        jwk = await issuer.keys.find(kid)
        if jwk is None:
            if kid is None:
                raise Unauthenticated(
                    f"token header has no 'kid' and issuer '{issuer_id}' does not publish exactly one key"
                )
            raise Unauthenticated(f"token key id '{kid}' is not published by issuer '{issuer_id}'")
        key_algorithm = jwk.get("alg")
        if key_algorithm is not None and key_algorithm != algorithm:
            raise Unauthenticated(
                f"token algorithm '{algorithm}' does not match the '{key_algorithm}' key of issuer '{issuer_id}'"
            )
        try:
            key = self._key(jwk, algorithm)
        except jwt.PyJWTError as error:
            raise Unauthenticated(
                f"the key of issuer '{issuer_id}' cannot verify '{algorithm}' tokens"
            ) from error

        try:
            claims = jwt.decode(token, key=key.key, algorithms=[algorithm], options=_SIGNATURE_ONLY)
        except jwt.InvalidTokenError as error:
            raise Unauthenticated(
                f"token signature does not verify against the keys of issuer '{issuer_id}'"
            ) from error

        self._check_lifetime(claims)
        return issuer_id, issuer, claims

    def _key(self, jwk: Mapping[str, Any], algorithm: str) -> jwt.PyJWK:
        """The verification key of ``jwk``, built once per key and algorithm (building one
        parses the key material: a good part of a verification). Keyed by the JWK's content,
        so a rotated key is a new entry; at most ``KEY_CACHE_SIZE`` are kept.

        :raises jwt.PyJWTError: the JWK cannot verify ``algorithm`` tokens (never cached)."""
        cache_key = (json.dumps(jwk, sort_keys=True), algorithm)
        key = self._keys.get(cache_key)
        if key is None:
            key = jwt.PyJWK(dict(jwk), algorithm=algorithm)
            if len(self._keys) >= KEY_CACHE_SIZE:
                self._keys.pop(next(iter(self._keys)))
            self._keys[cache_key] = key
        return key

    def _check_lifetime(self, claims: Mapping[str, Any]) -> None:
        now = self._clock.now().timestamp()
        skew = CLOCK_SKEW.total_seconds()
        expires = _timestamp(claims, "exp")
        if expires is None:
            raise Unauthenticated("token has no 'exp' claim; only expiring tokens are accepted")
        if now >= expires + skew:
            raise Unauthenticated(f"token expired at {_format(expires)}; get a new token")
        not_before = _timestamp(claims, "nbf")
        if not_before is not None and now < not_before - skew:
            raise Unauthenticated(
                f"token is not valid before {_format(not_before)}; check the clock of the token issuer"
            )


def _check_issuer_limits(claims: Mapping[str, Any], config: TrustedIssuer, now: float) -> None:
    """The issuer's maximum token lifetime and expected audience (docs/auth.md)."""
    expires = _timestamp(claims, "exp")
    issued = _timestamp(claims, "iat")
    start = now if issued is None else min(issued, now)
    if expires is not None and expires - start > config.max_token_lifetime + CLOCK_SKEW.total_seconds():
        raise Unauthenticated(
            f"token lifetime exceeds the maximum of {config.max_token_lifetime} s of issuer '{config.issuer}'; "
            "get a token with a shorter lifetime"
        )
    if config.audience is None:
        return
    audience = claims.get("aud")
    audiences = [audience] if isinstance(audience, str) else audience if isinstance(audience, list) else []
    if config.audience not in audiences:
        raise Unauthenticated(
            f"token audience does not include '{config.audience}', which issuer '{config.issuer}' tokens "
            "must carry for this service"
        )


def bearer_token(authorization: str | None) -> str:
    """The token of an `authorization` value: `Bearer <token>` (scheme in any case) or a bare token.

    :raises Unauthenticated: nothing is given, or another scheme such as Basic.
    """
    parts = (authorization or "").split()
    if not parts or (len(parts) == 1 and parts[0].lower() == "bearer"):
        raise Unauthenticated(f"missing bearer token; {USAGE}")
    if len(parts) == 1:
        return parts[0]
    if len(parts) > 2:
        raise Unauthenticated(f"malformed authorization value; {USAGE}")
    scheme, token = parts
    if scheme.lower() != "bearer":
        raise Unauthenticated(f"authorization scheme '{scheme}' is not supported; {USAGE}")
    return token


def _timestamp(claims: Mapping[str, Any], name: str) -> float | None:
    value = claims.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise Unauthenticated(f"claim '{name}' must be a number of seconds since the epoch")
    return float(value)


def _format(timestamp: float) -> str:
    try:
        return datetime.fromtimestamp(timestamp, UTC).isoformat().replace("+00:00", "Z")
    except (OverflowError, OSError, ValueError):
        return f"{timestamp:g} (seconds since the epoch)"
