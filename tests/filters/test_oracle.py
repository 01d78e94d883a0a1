"""SQL results equal the reference evaluator's, on random objects, in both databases.

A fixed corpus (seeded random widgets plus the named ones) is checked against a fixed list of
expressions; hypothesis then draws both the objects and the expressions.
"""

from __future__ import annotations

import os
import random

import pytest
import pytest_asyncio
from google.protobuf.message import Message
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from osac.filters.times import datetime_to_nanos

from .conftest import Database
from .expressions import EXPRESSIONS, FIXED
from .objects import NOW, named_widgets, random_event, random_widget
from .oracle import evaluate
from .schema import load
from .test_nesting import ISSUE_EXAMPLE, issue_events, issue_widgets, nested

pytestmark = pytest.mark.asyncio(loop_scope="session")

CORPUS_SIZE = 300
#: Raise for a longer search, e.g. OSAC_FILTER_EXAMPLES=5000.
EXAMPLES = int(os.environ.get("OSAC_FILTER_EXAMPLES", "150"))


def corpus() -> list[Message]:
    rng = random.Random(20260501)
    return [random_widget(rng, f"r{index:04d}") for index in range(CORPUS_SIZE)] + named_widgets()


def oracle_ids(expression: str, objects: list[Message]) -> list[str]:
    files = [load().private.DESCRIPTOR]
    now = datetime_to_nanos(NOW)
    return sorted(
        item.id for item in objects if evaluate(expression, files=files, now_nanos=now, this=item) is True
    )  # type: ignore[attr-defined]


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def loaded_corpus(database: Database) -> Database:
    await database.replace_objects("corpus", corpus())
    return database


@pytest.mark.parametrize("expression", FIXED)
async def test_fixed_expression_matches_oracle(loaded_corpus: Database, expression: str) -> None:
    assert await loaded_corpus.object_ids("corpus", expression) == oracle_ids(expression, corpus())


widgets = st.lists(st.randoms(use_true_random=False), max_size=8).map(
    lambda rngs: [random_widget(rng, f"h{index}") for index, rng in enumerate(rngs)]
)


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(objects=widgets, expression=EXPRESSIONS)
@example(objects=issue_widgets(), expression=nested("this", 3))  # issue #20 on objects
async def test_random_filters_match_oracle(
    database: Database, objects: list[Message], expression: str
) -> None:
    await database.replace_objects("scratch", objects)
    assert await database.object_ids("scratch", expression) == oracle_ids(expression, objects)


EVENT_ATOMS = st.one_of(
    EXPRESSIONS.map(lambda expression: expression.replace("this.", "event.widget.")),
    st.sampled_from(
        [
            "has(event.widget)",
            "has(event.host_pool)",
            "event.type == EVENT_TYPE_OBJECT_DELETED",
            "event.type in [1, 'EVENT_TYPE_OBJECT_UPDATED']",
            "event.host_pool.capacity > 3",
            "'z2' in event.host_pool.zones",
            "event.host_pool.metadata.name == event.widget.metadata.name",
            "event.revision % 2 == 0",
            "!(event.host_pool.capacity == 0)",
        ]
    ),
)
EVENT_EXPRESSIONS = st.recursive(
    EVENT_ATOMS,
    lambda inner: st.one_of(
        st.builds(lambda a, b: f"({a}) && ({b})", inner, inner),
        st.builds(lambda a, b: f"({a}) || ({b})", inner, inner),
        st.builds(lambda a: f"!({a})", inner),
    ),
    max_leaves=3,
)
events = st.lists(st.randoms(use_true_random=False), max_size=8).map(
    lambda rngs: [random_event(rng, index + 1) for index, rng in enumerate(rngs)]
)


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(items=events, expression=EVENT_EXPRESSIONS)
@example(items=issue_events(), expression=ISSUE_EXAMPLE)  # issue #20: "parser stack overflow" on SQLite
async def test_random_event_filters_match_oracle(
    database: Database, items: list[Message], expression: str
) -> None:
    await database.replace_events(items)
    files = [load().private.DESCRIPTOR]
    now = datetime_to_nanos(NOW)
    expected = [
        item.revision
        for item in items  # type: ignore[attr-defined]
        if evaluate(expression, files=files, now_nanos=now, event=item) is True
    ]
    assert await database.event_revisions(expression) == expected
