"""Console sign-in at a trusted issuer: the OpenID Connect authorization-code flow with PKCE.

``start`` keeps a pending sign-in server-side (state, nonce, PKCE code verifier, the page to
return to), bound to the browser by a pre-session cookie, and answers the URL of the issuer's
authorization endpoint. ``finish`` takes the issuer's answer at the callback: the state must be
known, unused (it is forgotten on first sight), younger than ``PENDING_TTL`` and bound to the
same browser; the code is exchanged at the token endpoint with the code verifier (RFC 7636); the
ID token must verify against the issuer's keys with the nonce and this client's id; the access
token must be accepted by the API's own verifier, for the same subject. The session then holds
the access token, like every other console session (docs/console.md, "OIDC sign-in").

Every refusal is a ``SignInRefused`` with the HTTP status and the message of the page shown.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any
from urllib.parse import quote, urlencode, urlsplit

import httpx
import jwt

from osac.auth.console_clients import ConsoleClient
from osac.auth.errors import AuthError
from osac.auth.issuers import TrustedIssuer
from osac.clock import Clock
from osac.console.deps import Verify, VerifyIdToken
from osac.console.sessions import SignInStore

PENDING_TTL = timedelta(minutes=10)
"""How long a started sign-in waits for the identity provider's answer."""

PENDING_CAPACITY = 10_000
"""Started sign-ins kept at most (the oldest goes first): starting one needs no session."""

HTTP_TIMEOUT = 10.0
"""Seconds a discovery document or a token exchange may take."""

DISCOVERY_MAX_AGE = 3600.0
"""Seconds a discovery document is used before it is read again."""

COOKIE = "osac_console_oidc"
"""The pre-session cookie binding a started sign-in to its browser (SameSite=Lax, see docs)."""

AGAIN = "start again from the sign-in page"
#: The sign-in store's kind of a started sign-in.
PENDING = "oidc"


class SignInRefused(Exception):
    """A sign-in that creates no session: ``status`` and ``message`` make the page."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True)
class Provider:
    """A trusted issuer with console sign-in; ``number`` is its place in ``auth.issuers``."""

    number: int
    issuer: str
    client: ConsoleClient

    @property
    def title(self) -> str:
        return self.client.title


@dataclass(frozen=True)
class Endpoints:
    authorization: str
    token: str


@dataclass(frozen=True)
class _Pending:
    """A started sign-in, kept as ``oidc`` in the sign-in store by its ``state``."""

    provider: Provider
    binding: str
    nonce: str
    verifier: str
    redirect_uri: str
    next_path: str

    def stored(self) -> dict[str, Any]:
        return {"provider": self.provider.number, "binding": self.binding, "nonce": self.nonce,
                "verifier": self.verifier, "redirect_uri": self.redirect_uri, "next_path": self.next_path}


def code_challenge(verifier: str) -> str:
    """The S256 code challenge of a PKCE code verifier (RFC 7636 4.2)."""
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


class OidcSignIn:
    """The pending sign-ins (in the sign-in store, so the callback may reach another API process
    than the start) and the issuers' endpoints.

    ``http`` is the client for discovery and token requests; without one, each request opens a
    short-lived client with ``HTTP_TIMEOUT``.
    """

    def __init__(self, issuers: Sequence[TrustedIssuer], clock: Clock, verify: Verify,
                 verify_id_token: VerifyIdToken | None, sign_ins: SignInStore,
                 http: httpx.AsyncClient | None = None) -> None:
        self.providers = [Provider(number, trusted.issuer, trusted.console)
                          for number, trusted in enumerate(issuers) if trusted.console is not None]
        self._clock = clock
        self._verify = verify
        self._verify_id_token = verify_id_token
        self._http = http
        self._sign_ins = sign_ins
        self._endpoints: dict[int, tuple[Endpoints, float]] = {}

    def provider(self, number: int) -> Provider | None:
        return next((provider for provider in self.providers if provider.number == number), None)

    # -- start ---------------------------------------------------------------------------------

    async def start(self, provider: Provider, binding: str, redirect_uri: str, next_path: str) -> str:
        """Remember a new sign-in and answer the authorization URL to send the browser to.

        :raises SignInRefused: the issuer's endpoints cannot be read (503).
        """
        endpoints = await self.endpoints(provider)
        state, nonce, verifier = secrets.token_urlsafe(32), secrets.token_urlsafe(32), secrets.token_urlsafe(64)
        pending = _Pending(provider, binding, nonce, verifier, redirect_uri, next_path)
        await self._sign_ins.put(PENDING, state, pending.stored(), self._clock.now() + PENDING_TTL,
                                 capacity=PENDING_CAPACITY)
        query = urlencode({
            "response_type": "code", "client_id": provider.client.client_id, "redirect_uri": redirect_uri,
            "scope": " ".join(provider.client.scopes), "state": state, "nonce": nonce,
            "code_challenge": code_challenge(verifier), "code_challenge_method": "S256",
        }, quote_via=quote)
        separator = "&" if urlsplit(endpoints.authorization).query else "?"
        return f"{endpoints.authorization}{separator}{query}"

    async def endpoints(self, provider: Provider) -> Endpoints:
        """The configured endpoints, or those of the issuer's discovery document (cached).

        :raises SignInRefused: the document cannot be read or does not fit the issuer (503).
        """
        client = provider.client
        if client.authorization_endpoint is not None and client.token_endpoint is not None:
            return Endpoints(client.authorization_endpoint, client.token_endpoint)
        cached = self._endpoints.get(provider.number)
        if cached is not None and self._clock.monotonic() - cached[1] < DISCOVERY_MAX_AGE:
            return cached[0]
        url = f"{provider.issuer.rstrip('/')}/.well-known/openid-configuration"
        try:
            response = await self._request("GET", url)
        except httpx.HTTPError as error:
            raise SignInRefused(503, f"cannot read the OpenID configuration of '{provider.issuer}' from {url} "
                                     f"({_describe(error)}); try again later") from error
        document = _json(response)
        problem = _discovery_problem(document, provider.issuer) if response.status_code == 200 else (
            f"HTTP {response.status_code}")
        if problem:
            raise SignInRefused(503, f"cannot use the OpenID configuration of '{provider.issuer}' at {url}: "
                                     f"{problem}; try again later")
        endpoints = Endpoints(str(document["authorization_endpoint"]), str(document["token_endpoint"]))
        self._endpoints[provider.number] = (endpoints, self._clock.monotonic())
        return endpoints

    # -- finish --------------------------------------------------------------------------------

    async def finish(self, answer: Mapping[str, str], binding: str | None) -> tuple[str, str]:
        """The access token of a completed sign-in and the page to go to.

        :param answer: the callback's query parameters.
        :param binding: the pre-session cookie of the browser at the callback.
        :raises SignInRefused: anything amiss; no session may be opened.
        """
        state = answer.get("state")
        if not state:
            error = answer.get("error")
            if error:
                raise SignInRefused(401, f"the identity provider did not sign you in: {_idp_error(answer)}; {AGAIN}")
            raise SignInRefused(400, f"the identity provider's answer carries no state; {AGAIN}")
        pending = self._pending(await self._sign_ins.take(PENDING, state))
        if pending is None:
            raise SignInRefused(400, "this sign-in is unknown, already used or expired (a sign-in is valid once, "
                                     f"for {int(PENDING_TTL.total_seconds() // 60)} minutes); {AGAIN}")
        if not binding or not hmac.compare_digest(pending.binding, binding):
            raise SignInRefused(400, "this sign-in was started in another browser (its sign-in cookie is missing "
                                     f"or different); {AGAIN}")
        provider = pending.provider
        if answer.get("error"):
            raise SignInRefused(401, f"{provider.title} did not sign you in: {_idp_error(answer)}; {AGAIN}")
        named = answer.get("iss")
        if named is not None and named != provider.issuer:  # RFC 9207: a mixed-up answer
            raise SignInRefused(400, f"the answer comes from issuer '{named}', not from '{provider.issuer}' where "
                                     f"this sign-in started; {AGAIN}")
        code = answer.get("code")
        if not code:
            raise SignInRefused(400, f"the answer of {provider.title} carries no authorization code; {AGAIN}")
        tokens = await self._exchange(pending, code)
        access_token = await self._accept(pending, tokens)
        return access_token, pending.next_path

    async def _exchange(self, pending: _Pending, code: str) -> Mapping[str, Any]:
        provider = pending.provider
        url = (await self.endpoints(provider)).token
        form = {"grant_type": "authorization_code", "code": code, "redirect_uri": pending.redirect_uri,
                "code_verifier": pending.verifier}
        headers = {"accept": "application/json"}
        client = provider.client
        if client.client_secret is None:
            form["client_id"] = client.client_id
        else:  # client_secret_basic, RFC 6749 2.3.1: both parts form-encoded first
            pair = f"{quote(client.client_id, safe='')}:{quote(client.client_secret, safe='')}"
            headers["authorization"] = "Basic " + base64.b64encode(pair.encode()).decode("ascii")
        try:
            response = await self._request("POST", url, data=form, headers=headers)
        except httpx.HTTPError as error:
            raise SignInRefused(503, f"cannot reach the token endpoint {url} of '{provider.issuer}' "
                                     f"({_describe(error)}); try again later") from error
        body = _json(response)
        if response.status_code != 200:
            reason = _idp_error(body) if isinstance(body, Mapping) and body.get("error") else (
                f"HTTP {response.status_code}")
            raise SignInRefused(401, f"the token endpoint of '{provider.issuer}' refused the authorization code: "
                                     f"{reason}; {AGAIN}")
        if not isinstance(body, Mapping):
            raise SignInRefused(502, f"the token endpoint {url} of '{provider.issuer}' answered without a JSON "
                                     f"object; {AGAIN}")
        for field in ("access_token", "id_token"):
            if not isinstance(body.get(field), str) or not body[field]:
                raise SignInRefused(502, f"the token endpoint of '{provider.issuer}' answered without an {field} "
                                         f"(the console asks for the scopes {' '.join(client.scopes)}); {AGAIN}")
        token_type = body.get("token_type")
        if not isinstance(token_type, str) or token_type.lower() != "bearer":
            raise SignInRefused(502, f"the token endpoint of '{provider.issuer}' answered a token of type "
                                     f"{token_type!r}, not Bearer; {AGAIN}")
        return body

    async def _accept(self, pending: _Pending, tokens: Mapping[str, Any]) -> str:
        """The access token, once the ID token proves this sign-in and the API accepts the token."""
        provider = pending.provider
        if self._verify_id_token is None:
            raise SignInRefused(503, "this server cannot verify ID tokens; sign in with 'osac console'")
        try:
            identity = await self._verify_id_token(tokens["id_token"], issuer=provider.issuer,
                                                   client_id=provider.client.client_id, nonce=pending.nonce)
        except AuthError as error:
            raise SignInRefused(401, f"the ID token of '{provider.issuer}' is refused: {error}; {AGAIN}") from error
        access_token = str(tokens["access_token"])
        try:
            subject = await self._verify(f"Bearer {access_token}")
        except AuthError as error:
            raise SignInRefused(401, f"the access token of '{provider.issuer}' is refused by the API: {error} "
                                     "(the console keeps the token the API verifies, so it must be a JWT this "
                                     "server trusts)") from error
        if subject.issuer != provider.issuer:
            raise SignInRefused(401, f"the access token was issued by '{subject.issuer}', not by "
                                     f"'{provider.issuer}' where this sign-in took place; {AGAIN}")
        token_subject = _unverified_sub(access_token)
        if token_subject != identity.get("sub"):
            raise SignInRefused(401, f"the access token's subject '{token_subject}' is not the ID token's "
                                     f"'{identity.get('sub')}'; {AGAIN}")
        return access_token

    # -- plumbing ------------------------------------------------------------------------------

    async def _request(self, method: str, url: str, **kwargs: Any) -> httpx.Response:
        if self._http is not None:
            return await self._http.request(method, url, timeout=HTTP_TIMEOUT, **kwargs)
        async with httpx.AsyncClient(timeout=HTTP_TIMEOUT) as client:
            return await client.request(method, url, **kwargs)

    def _pending(self, stored: Mapping[str, Any] | None) -> _Pending | None:
        """A stored sign-in, if its issuer still offers console sign-in."""
        provider = self.provider(int(stored["provider"])) if stored is not None else None
        if stored is None or provider is None:
            return None
        return _Pending(provider, str(stored["binding"]), str(stored["nonce"]), str(stored["verifier"]),
                        str(stored["redirect_uri"]), str(stored["next_path"]))


def _discovery_problem(document: Any, issuer: str) -> str:
    """What makes a discovery document unusable for this issuer; empty when it fits."""
    if not isinstance(document, Mapping):
        return "the answer is not a JSON object"
    if document.get("issuer") != issuer:  # OpenID Connect Discovery 4.3
        return f"it names the issuer {document.get('issuer')!r}"
    for key in ("authorization_endpoint", "token_endpoint"):
        value = document.get(key)
        parts = urlsplit(value) if isinstance(value, str) else None
        if parts is None or parts.scheme not in ("https", "http") or not parts.netloc:
            return f"{key} {value!r} is not an http(s) URL"
    methods = document.get("code_challenge_methods_supported")
    if isinstance(methods, list) and "S256" not in methods:
        return f"it does not offer PKCE with S256 (code_challenge_methods_supported: {methods})"
    return ""


def _idp_error(answer: Mapping[str, Any]) -> str:
    error = str(answer.get("error"))
    description = answer.get("error_description")
    return f"{error} ({description})" if description else error


def _json(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return None


def _describe(error: Exception) -> str:
    return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__


def _unverified_sub(token: str) -> Any:
    """The ``sub`` of a token the verifier has just accepted."""
    return jwt.decode(token, options={"verify_signature": False}).get("sub")
