"""Which Watch filters only choose payload kinds (served from the shared window, docs/watch.md)."""

from __future__ import annotations

import pytest

from osac.api.public.v1 import event_type_pb2
from osac.filters import EventRoot, compile_filter, payload_kinds
from osac.store import schema


@pytest.mark.parametrize(("expression", "kinds"), [
    ("has(event.cluster)", {"cluster"}),
    ("has(event.cluster) || has(event.compute_instance)", {"cluster", "compute_instance"}),
    ("(has(event.subnet))", {"subnet"}),
    ("has(event.cluster) && has(event.cluster)", None),
    ("has(event.cluster) || event.type == EVENT_TYPE_OBJECT_CREATED", None),
    ("!has(event.cluster)", None),
    ("has(event.cluster.metadata)", None),
    ("has(event.type)", None),
    ("event.type == EVENT_TYPE_OBJECT_CREATED", None),
])
def test_a_filter_that_only_chooses_payload_kinds_is_recognised(expression: str, kinds: set[str] | None) -> None:
    table = schema.events
    root = EventRoot(event_type_pb2.Event.DESCRIPTOR, table.c.type, table.c.kind, table.c.data)
    found = payload_kinds(expression, root)
    assert (None if found is None else set(found)) == kinds


def test_a_recognised_filter_compiles_to_the_same_kinds() -> None:
    from datetime import UTC, datetime

    from sqlalchemy.dialects import sqlite

    table = schema.events
    root = EventRoot(event_type_pb2.Event.DESCRIPTOR, table.c.type, table.c.kind, table.c.data)
    sql = compile_filter("has(event.cluster) || has(event.subnet)", root, dialect="sqlite", now=datetime.now(UTC))
    assert str(sql.compile(dialect=sqlite.dialect(), compile_kwargs={"literal_binds": True})) == (
        "events.kind = 'cluster' OR events.kind = 'subnet'")
