"""Response headers and request checks that keep the console's sessions safe.

- **Content-Security-Policy**: scripts, styles, fonts and connections from this origin only, no
  inline script or style, no framing; plus ``nosniff`` and ``same-origin`` referrers (with ``no-referrer`` a browser sends
  ``Origin: null`` on its own form posts, which the origin check must refuse).
- **CSRF**: a state-changing request (any method but GET/HEAD) is refused with 403 unless it
  carries the session's CSRF token (form field ``csrf`` or header ``X-CSRF-Token``) and, when the
  browser says where it comes from (``Origin``), comes from this origin. Before sign-in the
  development sign-in form uses a double-submit token: a cookie and the same value in the form.
"""

from __future__ import annotations

import hmac
from urllib.parse import parse_qs, urlsplit

from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self' data:; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'"
)
SECURITY_HEADERS = (
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
    (b"x-frame-options", b"DENY"),
)
SAFE_METHODS = frozenset({"GET", "HEAD"})
CSRF_FIELD = "csrf"
CSRF_HEADER = "x-csrf-token"
PRE_SESSION_COOKIE = "osac_console_csrf"


class SecurityHeaders:
    """ASGI middleware adding ``SECURITY_HEADERS`` to every console response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *SECURITY_HEADERS]
            await send(message)

        await self.app(scope, receive, send_with_headers)


def is_same_origin(request: Request) -> bool:
    """False when the browser names an ``Origin`` other than this server's."""
    origin = Headers(scope=request.scope).get("origin")
    if origin is None:
        return True
    if origin == "null":
        return False
    parts = urlsplit(origin)
    return parts.netloc == request.headers.get("host", "") and parts.scheme == request.url.scheme


async def form_fields(request: Request) -> dict[str, str]:
    """The fields of an ``application/x-www-form-urlencoded`` body (the console's only kind of
    form; the first value of a repeated field), cached on the request for later readers."""
    cached = request.scope.get("osac.form")
    if cached is None:
        body = (await request.body()).decode("utf-8", errors="replace")
        cached = {key: values[0] for key, values in parse_qs(body, keep_blank_values=True).items()}
        request.scope["osac.form"] = cached
    return dict(cached)


def local_path(path: str | None) -> str | None:
    """``path`` when it is a path on this server, else None: the page to go to after sign-in.

    Refused: anything but ``/...``; ``//host`` and ``/\\host`` (browsers read both as another
    host); control characters and whitespace, which browsers drop from URLs (``/<tab>/host``
    becomes ``//host``)."""
    if not path or not path.startswith("/") or path.startswith("//") or "\\" in path:
        return None
    if any(ord(char) < 0x21 or ord(char) == 0x7F for char in path):
        return None
    return path


def tokens_match(expected: str, given: str | None) -> bool:
    return bool(expected) and given is not None and hmac.compare_digest(expected.encode(), given.encode())
