"""Console sessions and the one-time sign-in codes of ``osac console``.

Both are kept server-side in memory: a restart signs everybody out and voids unused codes, which
is acceptable for a console (sign in again with ``osac console``), and several API processes
would each need their own sign-in (documented in docs/console.md). A session holds the bearer
token it was made from; every request verifies that token again exactly as the API does, so a
session ends when its token expires and the role and tenants are always the token's.

The cookie carries only a random session id (HttpOnly, SameSite=Strict). Each session has its own
CSRF token, which every state-changing request must send back (form field or header).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from osac.clock import Clock

CODE_TTL = timedelta(seconds=60)
COOKIE = "osac_console"


@dataclass(frozen=True)
class Session:
    id: str
    token: str
    csrf: str


@dataclass(frozen=True)
class _Code:
    token: str
    expires_at: datetime


class SignInCodes:
    """One-time codes, each valid for ``CODE_TTL`` and exchanged at most once."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self._codes: dict[str, _Code] = {}

    def issue(self, token: str) -> str:
        self._forget_expired()
        code = secrets.token_urlsafe(24)
        self._codes[code] = _Code(token, self.clock.now() + CODE_TTL)
        return code

    def redeem(self, code: str) -> str | None:
        """The code's token, once; None for an unknown, used or expired code."""
        found = self._codes.pop(code, None)
        if found is None or self.clock.now() >= found.expires_at:
            return None
        return found.token

    def _forget_expired(self) -> None:
        now = self.clock.now()
        for code in [code for code, entry in self._codes.items() if now >= entry.expires_at]:
            del self._codes[code]


class Sessions:
    def __init__(self) -> None:
        self._sessions: dict[str, Session] = {}

    def open(self, token: str) -> Session:
        session = Session(secrets.token_urlsafe(32), token, secrets.token_urlsafe(24))
        self._sessions[session.id] = session
        return session

    def get(self, session_id: str | None) -> Session | None:
        return self._sessions.get(session_id or "")

    def close(self, session_id: str | None) -> None:
        self._sessions.pop(session_id or "", None)
