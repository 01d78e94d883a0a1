"""Real databases for the filter tests: SQLite (aiosqlite, a temp file) and PostgreSQL.

PostgreSQL is shared with other test suites, so each run creates its own schema
(``osac_filters_<random>``) and drops it at the end.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import pytest
import pytest_asyncio
from google.protobuf.message import Message
from sqlalchemy import BigInteger, Column, MetaData, SmallInteger, String, Table, delete, insert, select, text
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from osac.filters import EventRoot, ObjectRoot, compile_filter
from osac.store import codec
from osac.store.schema import JSONData

from .objects import NOW
from .schema import load

POSTGRES_URL = os.environ.get("OSAC_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
OBJECT_TABLES = ("widgets", "corpus", "scratch", "bulk", "host_pools")


@dataclass
class Database:
    engine: AsyncEngine
    dialect: str
    tables: dict[str, Table]

    def object_root(self, table: str, public: bool = False) -> ObjectRoot:
        module = load().public if public else load().private
        message = module.HostPool if table == "host_pools" else module.Widget
        return ObjectRoot(message.DESCRIPTOR, self.tables[table].c.data)

    def event_root(self, public: bool = False) -> EventRoot:
        module = load().public if public else load().private
        events = self.tables["events"]
        return EventRoot(
            module.Event.DESCRIPTOR,
            events.c.type,
            events.c.kind,
            events.c.data,
            revision_column=events.c.revision,
            id_column=events.c.event_id,
        )

    def compile(self, expression: str, root: ObjectRoot | EventRoot, now: datetime = NOW) -> Any:
        return compile_filter(expression, root, dialect=self.dialect, now=now)

    async def object_ids(self, table: str, expression: str, *, public: bool = False) -> list[str]:
        predicate = self.compile(expression, self.object_root(table, public))
        rows = self.tables[table]
        async with self.engine.connect() as connection:
            result = await connection.execute(select(rows.c.id).where(predicate).order_by(rows.c.id))
            return list(result.scalars())

    async def event_revisions(self, expression: str, *, public: bool = False) -> list[int]:
        predicate = self.compile(expression, self.event_root(public))
        events = self.tables["events"]
        async with self.engine.connect() as connection:
            result = await connection.execute(
                select(events.c.revision).where(predicate).order_by(events.c.revision)
            )
            return list(result.scalars())

    async def replace_objects(self, table: str, objects: Iterable[Message]) -> None:
        rows = [{"id": item.id, "data": codec.to_storage(item)} for item in objects]  # type: ignore[attr-defined]
        async with self.engine.begin() as connection:
            await connection.execute(delete(self.tables[table]))
            if rows:
                await connection.execute(insert(self.tables[table]), rows)

    async def replace_events(self, events: Iterable[Message]) -> None:
        rows = []
        for event in events:
            kind = event.WhichOneof("payload")  # type: ignore[attr-defined]
            payload = getattr(event, kind)
            rows.append(
                {
                    "revision": event.revision,
                    "event_id": event.id,
                    "type": event.type,  # type: ignore[attr-defined]
                    "kind": kind,
                    "object_id": payload.id,
                    "data": codec.to_storage(payload),
                }
            )
        async with self.engine.begin() as connection:
            await connection.execute(delete(self.tables["events"]))
            if rows:
                await connection.execute(insert(self.tables["events"]), rows)


def _tables(metadata: MetaData) -> dict[str, Table]:
    tables = {
        name: Table(
            name,
            metadata,
            Column("id", String(64), primary_key=True),
            Column("data", JSONData, nullable=False),
        )
        for name in OBJECT_TABLES
    }
    tables["events"] = Table(
        "events",
        metadata,
        Column("revision", BigInteger, primary_key=True, autoincrement=False),
        Column("event_id", String(64), nullable=False),
        Column("type", SmallInteger, nullable=False),
        Column("kind", String(64), nullable=False),
        Column("object_id", String(64), nullable=False),
        Column("data", JSONData, nullable=False),
    )
    return tables


@pytest_asyncio.fixture(scope="session", loop_scope="session", params=["sqlite", "postgresql"])
async def database(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Database]:
    if request.param == "sqlite":
        path = tmp_path_factory.mktemp("filters") / "filters.db"
        engine = create_async_engine(f"sqlite+aiosqlite:///{path}")
        metadata = MetaData()
        schema = None
    else:
        engine = create_async_engine(POSTGRES_URL)
        schema = f"osac_filters_{uuid.uuid4().hex[:12]}"
        metadata = MetaData(schema=schema)
        async with engine.begin() as connection:
            await connection.execute(text(f'CREATE SCHEMA "{schema}"'))
    tables = _tables(metadata)
    try:
        async with engine.begin() as connection:
            await connection.run_sync(metadata.create_all)
        yield Database(engine, engine.dialect.name, tables)
    finally:
        async with engine.begin() as connection:
            if schema is None:
                await connection.run_sync(metadata.drop_all)
            else:
                await connection.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        await engine.dispose()
