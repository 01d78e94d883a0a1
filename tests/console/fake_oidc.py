"""An OpenID Connect issuer for the console's sign-in tests, served over real HTTP on a local port.

Each realm (``/realms/<name>``) publishes a discovery document and a JWK Set (RS256), auto-approves
``/authorize`` for its current ``user`` (or answers ``access_denied``) and exchanges a code at
``/token`` only with the PKCE code verifier whose S256 challenge the authorization request carried
(RFC 7636 4.6), for the client and redirect URI the code was issued to. Knobs on a realm make it
misbehave the way a misconfigured or hostile issuer would (another ``iss``, a wrong nonce...).
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import html
import re
import secrets
import socket
import threading
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any
from urllib.parse import parse_qs, unquote, urlencode

import jwt
import uvicorn
from cryptography.hazmat.primitives.asymmetric import rsa
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from osac.clock import Clock

VERIFIER = re.compile(r"[A-Za-z0-9\-._~]{43,128}")
"""RFC 7636 4.1: code_verifier = 43*128unreserved."""


@dataclass
class User:
    sub: str
    username: str
    tenants: tuple[str, ...] = ()
    roles: tuple[str, ...] = ()


@dataclass
class Realm:
    """One issuer. The knobs (``deny`` ...) are reset by ``FakeIssuer.reset``."""

    name: str
    client_id: str
    client_secret: str | None = None
    user: User = field(default_factory=lambda: User("u-1", "alice", ("acme",), ("tenant-admin",)))
    discovery_status: int = 200
    discovery_issuer: str | None = None
    deny: bool = False
    #: Ask the user: ``/authorize`` shows a page whose "Approve" link (a navigation that starts on
    #: the issuer's site, as a real sign-in form's) leads back to the client.
    interactive: bool = False
    access_token_issuer: str | None = None
    id_token_issuer: str | None = None
    id_token_nonce: str | None = None
    id_token_audience: str | None = None
    access_token_sub: str | None = None
    #: What the realm saw, for the tests to check.
    authorize_requests: list[dict[str, str]] = field(default_factory=list)
    token_requests: list[dict[str, str]] = field(default_factory=list)
    issued_access_tokens: list[str] = field(default_factory=list)
    codes: dict[str, dict[str, Any]] = field(default_factory=dict)

    def reset(self) -> None:
        fresh = Realm(self.name, self.client_id, self.client_secret)
        for name in ("user", "discovery_status", "discovery_issuer", "deny", "interactive", "access_token_issuer",
                     "id_token_issuer", "id_token_nonce", "id_token_audience", "access_token_sub"):
            setattr(self, name, getattr(fresh, name))
        self.authorize_requests.clear()
        self.token_requests.clear()
        self.issued_access_tokens.clear()


class FakeIssuer:
    """The issuer's HTTP server, on its own event loop in a daemon thread."""

    def __init__(self, clock: Clock, realms: list[Realm], host: str = "127.0.0.1") -> None:
        """``host`` names the issuer in its URLs: ``localhost`` makes it another site than a
        console at 127.0.0.1 for a browser (ports do not make sites)."""
        self.clock = clock
        self.host = host
        self.realms = {realm.name: realm for realm in realms}
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        public = jwt.algorithms.RSAAlgorithm.to_jwk(self.key.public_key(), as_dict=True)
        self.jwk = {**public, "kid": "fake-1", "use": "sig", "alg": "RS256"}
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="fake-oidc-issuer", daemon=True)
        app = Starlette(routes=[
            Route("/realms/{realm}/.well-known/openid-configuration", self.discovery),
            Route("/realms/{realm}/certs", self.certs),
            Route("/realms/{realm}/authorize", self.authorize),
            Route("/realms/{realm}/approve", self.approve),
            Route("/realms/{realm}/token", self.token, methods=["POST"]),
        ])
        self.server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off", access_log=False))

    def issuer(self, realm: str) -> str:
        return f"http://{self.host}:{self.port}/realms/{realm}"

    def start(self) -> None:
        self.thread.start()
        self._serving = asyncio.run_coroutine_threadsafe(self.server.serve(sockets=[self.sock]), self.loop)
        for _ in range(1000):
            if self.server.started:
                return
            threading.Event().wait(0.01)
        raise RuntimeError("the fake OIDC issuer did not start")

    def stop(self) -> None:
        self.server.should_exit = True
        self._serving.result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()

    def reset(self) -> None:
        for realm in self.realms.values():
            realm.reset()

    # -- endpoints -----------------------------------------------------------------------------

    def _realm(self, request: Request) -> Realm:
        return self.realms[request.path_params["realm"]]

    async def discovery(self, request: Request) -> Response:
        realm = self._realm(request)
        base = self.issuer(realm.name)
        if realm.discovery_status != 200:
            return Response("unavailable", status_code=realm.discovery_status)
        return JSONResponse({
            "issuer": realm.discovery_issuer or base, "authorization_endpoint": f"{base}/authorize",
            "token_endpoint": f"{base}/token", "jwks_uri": f"{base}/certs", "response_types_supported": ["code"],
            "code_challenge_methods_supported": ["S256"], "id_token_signing_alg_values_supported": ["RS256"],
        })

    async def certs(self, _request: Request) -> Response:
        return JSONResponse({"keys": [self.jwk]})

    async def authorize(self, request: Request) -> Response:
        realm = self._realm(request)
        asked = dict(request.query_params)
        realm.authorize_requests.append(asked)
        if asked.get("client_id") != realm.client_id or not asked.get("redirect_uri"):
            return Response("unknown client or no redirect_uri", status_code=400)
        back = asked["redirect_uri"]
        if realm.deny:
            return _back(back, error="access_denied", error_description="The user denied the request",
                         state=asked.get("state", ""))
        if asked.get("response_type") != "code" or asked.get("code_challenge_method") != "S256" \
                or not asked.get("code_challenge") or "openid" not in asked.get("scope", "").split():
            return _back(back, error="invalid_request", state=asked.get("state", ""))
        code = secrets.token_urlsafe(24)
        realm.codes[code] = {"client_id": realm.client_id, "redirect_uri": back, "challenge": asked["code_challenge"],
                             "nonce": asked.get("nonce"), "user": realm.user}
        answer = f"{back}?{urlencode({'code': code, 'state': asked.get('state', '')})}"
        if realm.interactive:
            approve = f"{self.issuer(realm.name)}/approve?{urlencode({'to': answer})}"
            return HTMLResponse(f'<!doctype html><title>Fake SSO</title><p>Sign in to {realm.client_id} as '
                                f'{html.escape(realm.user.username)}?</p><a href="{html.escape(approve)}">Approve</a>')
        return RedirectResponse(answer, status_code=302)

    async def approve(self, request: Request) -> Response:
        return RedirectResponse(request.query_params["to"], status_code=302)

    async def token(self, request: Request) -> Response:
        realm = self._realm(request)
        form = {key: values[0] for key, values in parse_qs((await request.body()).decode()).items()}
        realm.token_requests.append({**form, "authorization": request.headers.get("authorization", "")})
        client_id = self._authenticated_client(realm, request, form)
        if client_id is None:
            return _oauth_error(401, "invalid_client", "client authentication failed")
        if form.get("grant_type") != "authorization_code":
            return _oauth_error(400, "unsupported_grant_type", "only authorization_code")
        issued = realm.codes.pop(form.get("code", ""), None)  # a code is used once
        if issued is None or issued["client_id"] != client_id:
            return _oauth_error(400, "invalid_grant", "unknown or used code")
        if form.get("redirect_uri") != issued["redirect_uri"]:
            return _oauth_error(400, "invalid_grant", "redirect_uri differs from the authorization request")
        verifier = form.get("code_verifier", "")
        if not VERIFIER.fullmatch(verifier):
            return _oauth_error(400, "invalid_grant", "code_verifier missing or malformed")
        challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode("ascii")).digest()).rstrip(b"=").decode()
        if not hmac.compare_digest(challenge, issued["challenge"]):
            return _oauth_error(400, "invalid_grant", "PKCE verification failed: code_verifier does not match "
                                                      "the code_challenge")
        user: User = issued["user"]
        now = int(self.clock.now().timestamp())
        base = self.issuer(realm.name)
        access = {"iss": realm.access_token_issuer or base, "sub": realm.access_token_sub or user.sub,
                  "preferred_username": user.username, "organization": list(user.tenants),
                  "realm_access": {"roles": list(user.roles)}, "azp": client_id, "typ": "Bearer",
                  "iat": now, "nbf": now, "exp": now + int(timedelta(minutes=5).total_seconds())}
        identity = {"iss": realm.id_token_issuer or base, "sub": user.sub, "aud": realm.id_token_audience or client_id,
                    "nonce": realm.id_token_nonce or issued["nonce"], "preferred_username": user.username,
                    "iat": now, "exp": now + 300}
        access_token = self._sign(access)
        realm.issued_access_tokens.append(access_token)
        return JSONResponse({"access_token": access_token, "token_type": "Bearer", "expires_in": 300,
                             "id_token": self._sign(identity), "scope": "openid"},
                            headers={"cache-control": "no-store"})

    def _authenticated_client(self, realm: Realm, request: Request, form: dict[str, str]) -> str | None:
        """The client id, when the client authenticates as the realm expects (a secret by HTTP
        Basic for a confidential client, only its id in the form for a public one)."""
        basic = request.headers.get("authorization", "")
        if realm.client_secret is None:
            return form.get("client_id") if form.get("client_id") == realm.client_id and not basic else None
        if not basic.startswith("Basic "):
            return None
        client_id, _, secret = base64.b64decode(basic[6:]).decode().partition(":")
        if unquote(client_id) == realm.client_id and unquote(secret) == realm.client_secret:
            return realm.client_id
        return None

    def _sign(self, claims: dict[str, Any]) -> str:
        return jwt.encode(claims, self.key, algorithm="RS256", headers={"kid": "fake-1"})


def _back(redirect_uri: str, **params: str) -> Response:
    """The browser's way back to the client with the answer in the query (RFC 6749 4.1.2)."""
    return RedirectResponse(f"{redirect_uri}?{urlencode(params)}", status_code=302)


def _oauth_error(status: int, error: str, description: str) -> Response:
    return JSONResponse({"error": error, "error_description": description}, status_code=status)
