"""Grouped counts (``Tx.count_grouped``): per tuple of a table column, a JSON scalar and a field of
an array element chosen by its type, exactly what counting the objects read back gives, absent
values included, on both databases."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
from typing import Any

import pytest
from google.protobuf.message import Message

from osac.filters import Encoding
from osac.model import registry
from osac.store.grouping import ElementField, JsonField, TableColumn, grouped_counts_query
from osac.store.objects import Store
from osac.store.tables import LIVE

CLUSTER = registry.get("cluster")
NOW = datetime(2026, 1, 1, tzinfo=UTC)
PROGRESSING, AVAILABLE = 1, 2
KEYS = (
    TableColumn("tenant"),
    JsonField(("status", "state"), Encoding.NUMBER),
    JsonField(("status", "stage"), Encoding.TEXT),
    ElementField(("status", "conditions"), ("type",), PROGRESSING, ("status",), Encoding.NUMBER),
    ElementField(("status", "conditions"), ("type",), PROGRESSING, ("reason",), Encoding.TEXT),
)

#: (tenant, state, stage, conditions as (type, status, reason)) of each cluster.
CLUSTERS: list[tuple[str, int, str, list[tuple[int, int, str]]]] = [
    ("acme", 1, "WorkersJoining", [(AVAILABLE, 2, "Progressing"), (PROGRESSING, 1, "WorkersJoining")]),
    ("acme", 1, "WorkersJoining", [(PROGRESSING, 1, "WorkersJoining"), (AVAILABLE, 2, "Progressing")]),
    ("acme", 1, "ControlPlaneStarting", [(PROGRESSING, 1, "Stalled")]),
    ("acme", 2, "", [(PROGRESSING, 2, "AsExpected"), (AVAILABLE, 1, "")]),
    ("beta", 2, "", [(PROGRESSING, 2, "AsExpected")]),
    ("beta", 1, "WorkersJoining", [(PROGRESSING, 1, "StageUnknown")]),
    ("beta", 0, "", []),  # no state, no stage, no conditions at all
    ("beta", 1, "", [(AVAILABLE, 1, "")]),  # no PROGRESSING condition
    ("beta", 2, "", [(PROGRESSING, 0, "")]),  # PROGRESSING without status and reason
]


def cluster(index: int, tenant: str, state: int, stage: str, conditions: list[tuple[int, int, str]]) -> Message:
    message = CLUSTER.private_class()(id=f"00000000-0000-7000-8000-{index:012d}")
    message.metadata.name = f"c-{index}"
    message.metadata.tenant = tenant
    message.metadata.version = 1
    message.metadata.creation_timestamp.FromDatetime(NOW)
    message.status.state = state  # type: ignore[assignment]
    message.status.stage = stage
    for type_, status, reason in conditions:
        message.status.conditions.add(type=type_, status=status, reason=reason)  # type: ignore[arg-type]
    return message


def expected_groups(messages: list[Message]) -> Counter[tuple[Any, ...]]:
    """What reading the objects gives, with None for what the JSON does not hold."""
    found: Counter[tuple[Any, ...]] = Counter()
    for message in messages:
        status: Any = message.status  # type: ignore[attr-defined]
        progress = next((c for c in status.conditions if c.type == PROGRESSING), None)
        found[(
            message.metadata.tenant,  # type: ignore[attr-defined]
            status.state or None,
            status.stage or None,
            (progress.status or None) if progress is not None else None,
            (progress.reason or None) if progress is not None else None,
        )] += 1
    return found


async def test_grouped_counts_equal_counting_the_objects(store: Store) -> None:
    messages = [cluster(index, *row) for index, row in enumerate(CLUSTERS)]
    async with store.write() as tx:
        for message in messages:
            await tx.insert(CLUSTER, message)
    async with store.read() as tx:
        groups = await tx.count_grouped(CLUSTER, KEYS)
        acme_only = await tx.count_grouped(CLUSTER, KEYS[1:2], tenants=frozenset({"acme"}))
        ready = await tx.count_grouped(CLUSTER, KEYS[:1], LIVE["cluster"].c.name.in_(["c-3", "c-4"]))
        nobody = await tx.count_grouped(CLUSTER, KEYS, tenants=frozenset())
    assert Counter(groups) == expected_groups(messages)
    assert groups[("acme", 1, "WorkersJoining", 1, "WorkersJoining")] == 2  # condition order does not matter
    assert groups[("beta", None, None, None, None)] == 1
    assert acme_only == {(1,): 3, (2,): 1}
    assert ready == {("acme",): 1, ("beta",): 1}
    assert nobody == {}


def test_at_least_one_key() -> None:
    with pytest.raises(ValueError, match="at least one key"):
        grouped_counts_query(LIVE["cluster"], (), (), "sqlite")
