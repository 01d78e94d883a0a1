"""The Watch filter over ``event`` (api.md §7.2), on the events outbox in both databases.

Revisions: 1 widget web-ready CREATED, 2 widget web-pending UPDATED, 3 host pool hp-1 DELETED,
4 widget db-failed SIGNALED, 5 host pool hp-2 CREATED.
"""

from __future__ import annotations

import pytest
import pytest_asyncio

from osac.filters.times import datetime_to_nanos

from .conftest import Database
from .objects import NOW, named_events
from .oracle import evaluate
from .schema import load

pytestmark = pytest.mark.asyncio(loop_scope="session")

CASES: list[tuple[str, list[int]]] = [
    ("has(event.widget)", [1, 2, 4]),
    ("has(event.host_pool) || has(event.widget)", [1, 2, 3, 4, 5]),
    ("!has(event.widget)", [3, 5]),
    ("event.type == EVENT_TYPE_OBJECT_DELETED", [3]),
    ("event.type == 'EVENT_TYPE_OBJECT_SIGNALED'", [4]),
    ("event.type in [EVENT_TYPE_OBJECT_CREATED, 'EVENT_TYPE_OBJECT_UPDATED']", [1, 2, 5]),
    ("event.type != 1", [2, 3, 4]),
    ("event.revision > 3", [4, 5]),
    ("event.id == '2'", [2]),
    ("event.widget.spec.network == 'net-1'", [1, 2]),
    # Reading a payload the event does not carry is an error: no match, also not under '!'.
    ("event.widget.spec.network != 'net-1'", [4]),
    ("!(event.widget.spec.network == 'net-1')", [4]),
    ("event.host_pool.capacity > 0", [3]),
    ("event.host_pool.metadata.name == 'pool-a' || event.type == EVENT_TYPE_OBJECT_SIGNALED", [3, 4]),
    ("event.widget.status.conditions.exists(c, c.reason == 'Stalled')", [2, 4]),
    ("has(event.widget) && event.widget.metadata.labels['env'] == 'prod'", [1, 4]),
    ("event.widget.metadata.deletion_timestamp == null", [1, 2]),
    ("has(event.widget.metadata.deletion_timestamp)", [4]),
    ("event.widget.metadata.creation_timestamp > now - duration('1h')", [1]),
    ("event.widget.status.state == WIDGET_STATE_PENDING && event.type == EVENT_TYPE_OBJECT_UPDATED", [2]),
    ("'z1' in event.host_pool.zones", [3]),
    ("event.host_pool.description.startsWith('sp')", [5]),
]


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def outbox(database: Database) -> Database:
    await database.replace_events(named_events())
    return database


@pytest.mark.parametrize(("expression", "expected"), CASES, ids=[case[0] for case in CASES])
async def test_event_filter(outbox: Database, expression: str, expected: list[int]) -> None:
    assert await outbox.event_revisions(expression) == expected
    assert await outbox.event_revisions(expression, public=True) == expected
    files = [load().private.DESCRIPTOR]
    now = datetime_to_nanos(NOW)
    oracle = [
        item.revision
        for item in named_events()
        if evaluate(expression, files=files, now_nanos=now, event=item) is True
    ]
    assert oracle == expected


async def test_payload_filter_is_kind_and_path(outbox: Database) -> None:
    """`event.widget.spec.network == "x"` reads the kind column and a path of the data column."""
    predicate = outbox.compile("event.widget.spec.network == 'net-1'", outbox.event_root())
    sql = str(predicate.compile(outbox.engine, compile_kwargs={"literal_binds": True}))
    assert "events.kind = 'widget'" in sql
    assert "spec" in sql and "network" in sql

