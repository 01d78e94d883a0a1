"""Leases in the database: one holder per name until it expires.

Controllers use them to run each kind in exactly one process of a scale-out deployment
(``controller/<kind>``). Taking, renewing and taking over a lease is one conditional upsert, so two
processes racing for the same name cannot both win, whatever they read before::

    INSERT INTO leases (name, holder, expires_at) VALUES (:name, :holder, :now + ttl)
    ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
    WHERE leases.holder = excluded.holder OR leases.expires_at < :now
    RETURNING holder

A row comes back only if the insert or the update happened. On PostgreSQL a concurrent upsert of
the same name waits for the first to commit and then re-evaluates the WHERE against its row; on
SQLite writers are serialized anyway.

Expiry is judged by the clocks of the competing processes (``clock.now()``), so the ttl must be
much larger than their skew. On SQLite, timestamps are stored as naive UTC text of fixed width,
which compares in time order; hence every value is converted to UTC first.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime, timedelta

from sqlalchemy import delete, or_, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.sql.dml import Insert

from osac.clock import Clock
from osac.store.schema import leases

SUPPORTED_DIALECTS = ("sqlite", "postgresql")


class DatabaseLeaseStore:
    """`osac.controllers.runtime.manager.LeaseStore` over the ``leases`` table.

    Give it the writer engine (on SQLite, the one that begins transactions IMMEDIATE).
    """

    def __init__(self, engine: AsyncEngine, clock: Clock) -> None:
        if engine.dialect.name not in SUPPORTED_DIALECTS:
            raise ValueError(f"leases need one of {', '.join(SUPPORTED_DIALECTS)}, not {engine.dialect.name}")
        self._engine = engine
        self._clock = clock

    async def try_acquire(self, name: str, holder: str, ttl: timedelta) -> bool:
        """Take ``name`` for ``ttl`` if free, expired or already ``holder``'s; report whether held."""
        if ttl <= timedelta(0):
            raise ValueError(f"a lease ttl must be positive, got {ttl}")
        now = self._now()
        statement = self._upsert(name, holder, now, now + ttl).returning(leases.c.holder)
        async with self._engine.begin() as conn:
            row = (await conn.execute(statement)).first()
        return row is not None

    async def try_acquire_many(self, names: Iterable[str], holder: str, ttl: timedelta) -> set[str]:
        """`try_acquire` of every name in one statement; the names ``holder`` holds now."""
        if ttl <= timedelta(0):
            raise ValueError(f"a lease ttl must be positive, got {ttl}")
        rows = [{"name": name, "holder": holder} for name in sorted(set(names))]
        if not rows:
            return set()
        now = self._now()
        statement = self._upsert_many(rows, now, now + ttl).returning(leases.c.name)
        async with self._engine.begin() as conn:
            return set((await conn.execute(statement)).scalars())

    async def release(self, name: str, holder: str) -> None:
        """Delete the lease if ``holder`` holds it; someone else's lease is left alone."""
        await self.release_many([name], holder)

    async def release_many(self, names: Iterable[str], holder: str) -> None:
        """`release` of every name in one statement."""
        wanted = sorted(set(names))
        if not wanted:
            return
        statement = delete(leases).where(leases.c.name.in_(wanted), leases.c.holder == holder)
        async with self._engine.begin() as conn:
            await conn.execute(statement)

    async def live(self, prefix: str) -> dict[str, str]:
        """Every lease whose name starts with ``prefix`` and has not expired: name -> holder."""
        statement = select(leases.c.name, leases.c.holder).where(
            leases.c.name.startswith(prefix, autoescape=True), leases.c.expires_at >= self._now())
        async with self._engine.connect() as conn:
            return {row.name: row.holder for row in await conn.execute(statement)}

    async def holder_of(self, name: str) -> str | None:
        """Who holds ``name`` now (None if nobody, or the lease expired)."""
        statement = select(leases.c.holder).where(leases.c.name == name, leases.c.expires_at >= self._now())
        async with self._engine.connect() as conn:
            return (await conn.execute(statement)).scalar_one_or_none()

    def _now(self) -> datetime:
        return self._clock.now().astimezone(UTC)

    def _upsert(self, name: str, holder: str, now: datetime, expires_at: datetime) -> Insert:
        return self._upsert_many([{"name": name, "holder": holder}], now, expires_at)

    def _upsert_many(self, rows: list[dict[str, str]], now: datetime, expires_at: datetime) -> Insert:
        values = [{**row, "expires_at": expires_at} for row in rows]
        if self._engine.dialect.name == "postgresql":
            pg_insert = postgresql.insert(leases).values(values)
            return pg_insert.on_conflict_do_update(
                index_elements=[leases.c.name],
                set_={"holder": pg_insert.excluded.holder, "expires_at": pg_insert.excluded.expires_at},
                where=or_(leases.c.holder == pg_insert.excluded.holder, leases.c.expires_at < now),
            )
        sqlite_insert = sqlite.insert(leases).values(values)
        return sqlite_insert.on_conflict_do_update(
            index_elements=[leases.c.name],
            set_={"holder": sqlite_insert.excluded.holder, "expires_at": sqlite_insert.excluded.expires_at},
            where=or_(leases.c.holder == sqlite_insert.excluded.holder, leases.c.expires_at < now),
        )
