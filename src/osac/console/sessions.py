"""Console sessions and the one-time sign-in codes of ``osac console``.

Both are kept in the database (``SignInStore``; ``osac.store.sign_ins`` is the one the server
installs), so every API process of a deployment serves every signed-in browser and a restart
signs nobody out. A session holds the bearer token it was made from; every request verifies that
token again exactly as the API does, so a session ends when its token expires (and after
``SESSION_TTL`` at the latest), and the role and tenants are always the token's.

The cookie carries only a random session id (HttpOnly, SameSite=Strict); the database keeps only
its SHA-256. Each session has its own CSRF token, which every state-changing request must send
back (form field or header).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Protocol

from osac.clock import Clock

CODE_TTL = timedelta(seconds=60)
#: The longest a console session lasts, whatever its token's lifetime.
SESSION_TTL = timedelta(hours=12)
COOKIE = "osac_console"
SESSION, CODE = "session", "code"


class SignInStore(Protocol):
    """Entries by kind and secret key, each until it expires, shared by the API processes."""

    async def put(self, kind: str, key: str, data: dict[str, Any], expires_at: datetime,
                  capacity: int | None = None) -> None: ...

    async def get(self, kind: str, key: str) -> dict[str, Any] | None: ...

    async def take(self, kind: str, key: str) -> dict[str, Any] | None: ...

    async def delete(self, kind: str, key: str) -> None: ...


@dataclass(frozen=True)
class Session:
    id: str
    token: str
    csrf: str


class SignInCodes:
    """One-time codes, each valid for ``CODE_TTL`` and exchanged at most once."""

    def __init__(self, store: SignInStore, clock: Clock) -> None:
        self.store = store
        self.clock = clock

    async def issue(self, token: str) -> str:
        code = secrets.token_urlsafe(24)
        await self.store.put(CODE, code, {"token": token}, self.clock.now() + CODE_TTL)
        return code

    async def redeem(self, code: str) -> str | None:
        """The code's token, once; None for an unknown, used or expired code."""
        found = await self.store.take(CODE, code)
        return str(found["token"]) if found is not None else None


class Sessions:
    def __init__(self, store: SignInStore, clock: Clock) -> None:
        self.store = store
        self.clock = clock

    async def open(self, token: str) -> Session:
        session = Session(secrets.token_urlsafe(32), token, secrets.token_urlsafe(24))
        await self.store.put(SESSION, session.id, {"token": token, "csrf": session.csrf},
                             self.clock.now() + SESSION_TTL)
        return session

    async def get(self, session_id: str | None) -> Session | None:
        if not session_id:
            return None
        found = await self.store.get(SESSION, session_id)
        return Session(session_id, str(found["token"]), str(found["csrf"])) if found is not None else None

    async def close(self, session_id: str | None) -> None:
        if session_id:
            await self.store.delete(SESSION, session_id)
