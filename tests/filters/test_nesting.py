"""Deeply nested filters (issue #20): answered correctly in both databases, or refused at once
with the limit named, never a query the database cannot parse.

Given nested exists() with an arithmetic term, the deepest nesting the language allows, and the
deepest accepted filter of other shapes, when they are compiled and run, then the rows equal the
reference evaluator's; one level more is a FilterError naming the limit.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from google.protobuf.message import Message

from osac.filters import FilterError
from osac.filters.macros import MAX_COMPREHENSION_NESTING
from osac.filters.times import datetime_to_nanos

from .conftest import Database
from .objects import NOW, _condition, host_pool, widget
from .oracle import evaluate
from .schema import load

pytestmark = pytest.mark.asyncio(loop_scope="session")

#: The filter hypothesis found (issue #20): SQLite failed it with "parser stack overflow".
ISSUE_EXAMPLE = (
    "(event.widget.status.available > 9) && (event.widget.status.conditions.exists(c, "
    "(event.widget.status.conditions.exists(c, (event.widget.status.conditions.exists(c, "
    "(event.widget.status.available * 4 / 4 == event.widget.status.available) && c.type == 1)) "
    "&& c.type == 1)) && c.type == 1))"
)


def nested(root: str, levels: int) -> str:
    """The issue's filter with ``levels`` nested exists() over ``root`` (``this`` or ``event.widget``)."""
    available = f"{root}.status.available"
    inner = f"({available} * 4 / 4 == {available}) && c.type == 1"
    for level in range(levels):
        inner = f"{root}.status.conditions.exists(c, {inner})"
        if level < levels - 1:
            inner = f"({inner}) && c.type == 1"
    return f"({available} > 9) && ({inner})"


def issue_widgets() -> list[Message]:
    """Widgets on both sides of the issue's filter, and one whose arithmetic overflows (an error)."""
    stalled = _condition(1, 1, "Stalled")
    other = _condition(2, 1)
    return [
        widget("match", status={"available": 10, "conditions": [other, stalled]}),
        widget("few", status={"available": 9, "conditions": [stalled]}),
        widget("no-type-1", status={"available": 12, "conditions": [other]}),
        widget("no-conditions", status={"available": 12}),
        widget("overflow", status={"available": 2**62, "conditions": [stalled]}),
        widget("overflow-other", status={"available": 2**62, "conditions": [other, stalled]}),
    ]


def issue_events() -> list[Message]:
    """The widgets above as events, plus a host pool event (no widget payload: an error)."""
    event = load().Event
    items = [
        event(id=str(revision), revision=revision, type=1, widget=item)
        for revision, item in enumerate(issue_widgets(), start=1)
    ]
    items.append(event(id="7", revision=7, type=1, host_pool=host_pool("hp", capacity=4)))
    return items


def oracle_objects(expression: str, objects: list[Message]) -> list[str]:
    files, now = [load().private.DESCRIPTOR], datetime_to_nanos(NOW)
    return sorted(item.id for item in objects if evaluate(expression, files=files, now_nanos=now, this=item) is True)  # type: ignore[attr-defined]


def oracle_events(expression: str, items: list[Message]) -> list[int]:
    files, now = [load().private.DESCRIPTOR], datetime_to_nanos(NOW)
    return [item.revision for item in items if evaluate(expression, files=files, now_nanos=now, event=item) is True]  # type: ignore[attr-defined]


async def test_issue_example_matches_oracle(database: Database) -> None:
    assert nested("event.widget", 3) == ISSUE_EXAMPLE
    await database.replace_events(issue_events())
    assert await database.event_revisions(ISSUE_EXAMPLE) == oracle_events(ISSUE_EXAMPLE, issue_events()) == [1]


@pytest.mark.parametrize("levels", range(1, MAX_COMPREHENSION_NESTING + 1))
async def test_nested_exists_up_to_the_limit_match_oracle_in_watch(database: Database, levels: int) -> None:
    expression = nested("event.widget", levels)
    await database.replace_events(issue_events())
    assert await database.event_revisions(expression) == oracle_events(expression, issue_events()) == [1]


@pytest.mark.parametrize("levels", range(1, MAX_COMPREHENSION_NESTING + 1))
async def test_nested_exists_up_to_the_limit_match_oracle_in_list(database: Database, levels: int) -> None:
    expression = nested("this", levels)
    await database.replace_objects("scratch", issue_widgets())
    assert await database.object_ids("scratch", expression) == oracle_objects(expression, issue_widgets()) == ["match"]


@pytest.mark.parametrize("root", ["this", "event.widget"])
async def test_one_comprehension_level_too_many_is_refused_naming_the_limit(database: Database, root: str) -> None:
    target = database.object_root("scratch") if root == "this" else database.event_root()
    with pytest.raises(FilterError) as raised:
        database.compile(nested(root, MAX_COMPREHENSION_NESTING + 1), target)
    assert str(raised.value) == (
        f"filter: exists() and all() nest at most {MAX_COMPREHENSION_NESTING} levels deep; "
        f"this exists() is level {MAX_COMPREHENSION_NESTING + 1}"
    )


async def test_compiled_sql_grows_linearly_with_nesting(database: Database) -> None:
    """Each level adds the same SQL (up to alias numbers): nothing of the outer levels is repeated."""
    root = database.event_root()
    sizes = [len(_sql(database, nested("event.widget", levels), root)) for levels in range(1, 6)]
    steps = [later - earlier for earlier, later in zip(sizes, sizes[1:], strict=False)]
    assert max(steps) - min(steps) <= 8, sizes  # generated aliases grow from anon_9 to anon_10
    assert max(steps) < 600, sizes


A = "this.status.available"
#: Filter shapes that nest the SQL deeper with ``n``; each stays within the 64 syntax levels.
SHAPES: dict[str, Callable[[int], str]] = {
    "&& and || alternating": lambda n: "".join(f"{A} > {i} {'&&' if i % 2 else '||'} (" for i in range(n))
    + "true"
    + ")" * n,
    "!": lambda n: "!(" * n + f"{A} > 1" + ")" * n,
    "+ chain": lambda n: " + ".join([A] * n) + " > 1",
    "+ nested right": lambda n: f"{A} + (" * n + A + ")" * n + " > 1",
    "* chain": lambda n: " * ".join([A] * n) + " != 0",
    "exists around + nested right": lambda n: "this.status.conditions.exists(c, "
    + "c.type + (" * n
    + "c.type"
    + ")" * n
    + " > 1)",
    "exists in exists, error-free": lambda n: "this.status.conditions.exists(c, c.type == 1 && (" * n
    + "true"
    + "))" * n,
    "all in all around a division": lambda n: "this.status.conditions.all(c, (" * n + f"{A} / c.type > 1" + "))" * n,
}


@pytest.mark.parametrize("shape", SHAPES, ids=list(SHAPES))
async def test_deepest_accepted_filter_of_each_shape_runs_and_matches_oracle(database: Database, shape: str) -> None:
    """Grow the filter until it is refused: the refusal names the limit, and the deepest accepted
    filter runs in the database (no "parser stack overflow") with the reference's answer."""
    make = SHAPES[shape]
    root = database.object_root("scratch")
    deepest, refusal = 0, None
    for n in range(1, 64):
        try:
            database.compile(make(n), root)
        except FilterError as error:
            refusal = str(error)
            break
        deepest = n
    assert deepest >= 5, shape
    if refusal is not None:
        limits = (
            r"filter: expression is too complex for the database: its SQL nests \d+ levels deep, at most \d+ "
            r"on (sqlite|postgresql); use fewer nested exists\(\)/all\(\), arithmetic operators or parentheses",
            r"filter: expression is nested too deeply \(at most 64 levels\)",
            r"filter: exists\(\) and all\(\) nest at most \d levels deep; this (exists|all)\(\) is level \d",
        )
        assert any(re.fullmatch(limit, refusal) for limit in limits), refusal
    expression = make(deepest)
    objects = issue_widgets() + [widget("small", status={"available": 1, "conditions": [_condition(1, 1)]})]
    await database.replace_objects("scratch", objects)
    assert await database.object_ids("scratch", expression) == oracle_objects(expression, objects)


def _sql(database: Database, expression: str, root: object) -> str:
    predicate = database.compile(expression, root)  # type: ignore[arg-type]
    return str(predicate.compile(database.engine, compile_kwargs={"literal_binds": database.dialect == "sqlite"}))
