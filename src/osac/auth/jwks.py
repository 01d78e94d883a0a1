"""Signing keys of trusted issuers, fetched from their JWKS URLs and cached.

Identity providers rotate keys by publishing the new key before signing with it, so a token whose
`kid` is unknown is the signal to refetch (api.md §9.1). Refetches are rate limited per issuer: a
stream of tokens with made-up key ids must not turn the service into a load generator against the
identity provider. Keys are also refetched once they are `MAX_KEY_AGE` old so that a key the issuer
withdrew stops being accepted. A failed refetch keeps the keys already known, since the issuer
being briefly unreachable is no reason to reject tokens that verify.
"""

from __future__ import annotations

import asyncio
from typing import Any, Protocol

import httpx

from osac.auth.errors import Unauthenticated
from osac.clock import Clock

MIN_REFETCH_INTERVAL = 30.0
"""Seconds between two fetches of one issuer's keys, whatever the reason."""

MAX_KEY_AGE = 3600.0
"""Seconds after which known keys are refetched before use."""

FETCH_TIMEOUT = 5.0
"""Seconds a fetch may take; verification of the waiting requests blocks that long at most."""

JWK = dict[str, Any]


class KeySource(Protocol):
    async def find(self, kid: str | None) -> JWK | None:
        """The signing key with id `kid` (None: the token names none), or None if unknown.

        :raises Unauthenticated: no keys are available at all (the issuer cannot be reached).
        """
        ...


class StaticKeys:
    """Keys known in-process, such as the development issuer's: never fetched."""

    def __init__(self, jwks: dict[str, Any]) -> None:
        self._keys = signing_keys(jwks)

    async def find(self, kid: str | None) -> JWK | None:
        return select_key(self._keys, kid)


class RemoteKeys:
    """The keys one issuer publishes at its JWKS URL."""

    def __init__(self, issuer: str, url: str, clock: Clock, http: httpx.AsyncClient | None = None) -> None:
        self._issuer = issuer
        self._url = url
        self._clock = clock
        self._http = http
        self._keys: list[JWK] | None = None
        self._fetched_at: float | None = None
        self._attempted_at: float | None = None
        self._last_error = ""
        self._lock = asyncio.Lock()

    async def find(self, kid: str | None) -> JWK | None:
        if self._keys is None or self._is_stale():
            await self._refresh()
        key = select_key(self._keys or [], kid)
        if key is None:
            await self._refresh()
            key = select_key(self._keys or [], kid)
        if self._keys is None:
            raise Unauthenticated(
                f"cannot fetch the signing keys of issuer '{self._issuer}' from {self._url} "
                f"({self._last_error}); try again later"
            )
        return key

    def _is_stale(self) -> bool:
        return self._fetched_at is not None and self._clock.monotonic() - self._fetched_at >= MAX_KEY_AGE

    async def _refresh(self) -> None:
        """Fetch the keys unless a fetch was attempted less than `MIN_REFETCH_INTERVAL` ago.

        Concurrent callers wait on the lock and then find the attempt just made, so a burst of
        tokens with a new key id causes a single fetch.
        """
        async with self._lock:
            now = self._clock.monotonic()
            if self._attempted_at is not None and now - self._attempted_at < MIN_REFETCH_INTERVAL:
                return
            self._attempted_at = now
            try:
                self._keys = signing_keys(await self._fetch())
            except (httpx.HTTPError, ValueError) as error:
                self._last_error = str(error) or type(error).__name__
                return
            self._fetched_at = now

    async def _fetch(self) -> Any:
        if self._http is None:
            async with httpx.AsyncClient(timeout=FETCH_TIMEOUT) as client:
                response = await client.get(self._url)
        else:
            response = await self._http.get(self._url, timeout=FETCH_TIMEOUT)
        if response.status_code != 200:
            raise ValueError(f"HTTP {response.status_code}")
        return response.json()


def signing_keys(jwks: Any) -> list[JWK]:
    """The signature keys of a JWK Set document; encryption keys are left out.

    :raises ValueError: the document is not a JWK Set.
    """
    if not isinstance(jwks, dict) or not isinstance(jwks.get("keys"), list):
        raise ValueError("response is not a JWK Set (no 'keys' list)")
    return [key for key in jwks["keys"] if isinstance(key, dict) and key.get("use", "sig") == "sig"]


def select_key(keys: list[JWK], kid: str | None) -> JWK | None:
    """The key with id `kid`; a token without `kid` is accepted only when there is a single key."""
    if kid is None:
        return keys[0] if len(keys) == 1 else None
    return next((key for key in keys if key.get("kid") == kid), None)
