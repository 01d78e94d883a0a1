"""The web console's sign-in state in the database: sessions, one-time sign-in codes and pending
OpenID Connect sign-ins (``console_sign_ins``), so that every API process of a deployment
serves every signed-in browser (docs/console.md, docs/deploy.md).

Each entry is a kind, a secret key (a session id, a code, an OIDC ``state``), a JSON document and
an expiry. Only the SHA-256 of the key is stored: whoever reads the table cannot present a
cookie, a code or a state. `take` is one ``DELETE ... RETURNING``, so a code or a pending
sign-in is redeemed once however many processes race for it; an expired entry is never answered
and is removed by `prune` (the server's maintenance loop).
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import delete, func, select

from osac.clock import Clock
from osac.store.engine import Engines
from osac.store.schema import console_sign_ins as table


def key_hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


class DatabaseSignIns:
    """`osac.console.sessions.SignInStore` over ``console_sign_ins``."""

    def __init__(self, engines: Engines, clock: Clock) -> None:
        self._engines = engines
        self._clock = clock

    async def put(self, kind: str, key: str, data: dict[str, Any], expires_at: datetime,
                  capacity: int | None = None) -> None:
        """Store an entry; with ``capacity``, then drop the entries of ``kind`` that expire
        soonest beyond that many (a bound on what anonymous requests can make it hold)."""
        async with self._engines.writer.begin() as conn:
            await conn.execute(table.insert().values(kind=kind, key_hash=key_hash(key), data=data,
                                                     expires_at=expires_at.astimezone(UTC)))
            if capacity is not None:
                count = (await conn.execute(select(func.count()).select_from(table).where(table.c.kind == kind))).scalar_one()
                if count > capacity:
                    oldest = (select(table.c.key_hash).where(table.c.kind == kind)
                              .order_by(table.c.expires_at).limit(count - capacity))
                    await conn.execute(delete(table).where(table.c.kind == kind, table.c.key_hash.in_(oldest)))

    async def get(self, kind: str, key: str) -> dict[str, Any] | None:
        """The entry's data while it has not expired."""
        statement = select(table.c.data).where(table.c.kind == kind, table.c.key_hash == key_hash(key),
                                               table.c.expires_at > self._now())
        async with self._engines.reader.connect() as conn:
            data = (await conn.execute(statement)).scalar_one_or_none()
        return dict(data) if data is not None else None

    async def take(self, kind: str, key: str) -> dict[str, Any] | None:
        """Remove the entry and answer its data while it has not expired: once, across processes
        (an expired one is left to `prune`)."""
        statement = (delete(table).where(table.c.kind == kind, table.c.key_hash == key_hash(key),
                                         table.c.expires_at > self._now())
                     .returning(table.c.data))
        async with self._engines.writer.begin() as conn:
            data = (await conn.execute(statement)).scalar_one_or_none()
        return dict(data) if data is not None else None

    async def delete(self, kind: str, key: str) -> None:
        async with self._engines.writer.begin() as conn:
            await conn.execute(delete(table).where(table.c.kind == kind, table.c.key_hash == key_hash(key)))

    async def prune(self) -> int:
        """Remove every expired entry; how many."""
        async with self._engines.writer.begin() as conn:
            result = await conn.execute(delete(table).where(table.c.expires_at <= self._now()))
        return int(result.rowcount or 0)

    def _now(self) -> datetime:
        return self._clock.now().astimezone(UTC)
