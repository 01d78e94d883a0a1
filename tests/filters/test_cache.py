"""The cache of compiled filters: a repeated filter is compiled once, a filter naming ``now`` is
compiled with each call's time (never answered with a stale one), and every kind of key counts."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select

from osac.filters import ObjectRoot, compile_filter
from osac.filters.cache import CompiledFilters, names_now
from osac.filters.compiler import COMPILED
from osac.filters.syntax import parse

from .conftest import Database
from .objects import NOW, named_widgets
from .schema import load

SESSION_LOOP = pytest.mark.asyncio(loop_scope="session")

RECENT = "this.metadata.creation_timestamp > now - duration('1h')"
IN_ACME = "this.metadata.tenant == 'acme'"


async def _ids(database: Database, root: ObjectRoot, expression: str, at: object = NOW) -> list[str]:
    predicate = compile_filter(expression, root, dialect=database.dialect, now=at)  # type: ignore[arg-type]
    rows = database.tables["scratch"]
    async with database.engine.connect() as connection:
        return list((await connection.execute(select(rows.c.id).where(predicate).order_by(rows.c.id))).scalars())


@SESSION_LOOP
async def test_a_filter_naming_now_uses_each_calls_time(database: Database) -> None:
    """Given widgets created 30 minutes before NOW, "created in the last hour" matches them at NOW
    and no longer two hours later, with the same root and expression."""
    await database.replace_objects("scratch", named_widgets())
    root = database.object_root("scratch")
    recent_now = await _ids(database, root, RECENT, NOW)
    assert "web-ready" in recent_now
    assert await _ids(database, root, RECENT, NOW + timedelta(hours=2)) == []
    assert await _ids(database, root, RECENT, NOW) == recent_now


@SESSION_LOOP
async def test_a_time_independent_filter_is_compiled_once_per_root_and_dialect(database: Database) -> None:
    await database.replace_objects("scratch", named_widgets())
    root = database.object_root("scratch")
    first = compile_filter(IN_ACME, root, dialect=database.dialect, now=NOW)
    again = compile_filter(IN_ACME, root, dialect=database.dialect, now=NOW + timedelta(days=1))
    assert again is first
    expected = sorted(w.id for w in named_widgets() if w.metadata.tenant == "acme")
    assert expected and await _ids(database, root, IN_ACME) == expected
    # Another root (another table, or the public descriptor) and another dialect are other keys.
    other_table = database.object_root("widgets")
    assert compile_filter(IN_ACME, other_table, dialect=database.dialect, now=NOW) is not first
    public = ObjectRoot(load().public.Widget.DESCRIPTOR, database.tables["scratch"].c.data)
    assert compile_filter(IN_ACME, public, dialect=database.dialect, now=NOW) is not first
    other_dialect = "postgresql" if database.dialect == "sqlite" else "sqlite"
    assert compile_filter(IN_ACME, root, dialect=other_dialect, now=NOW) is not first
    assert compile_filter(IN_ACME + " ", root, dialect=database.dialect, now=NOW) is not first


def test_the_cache_is_bounded_least_recently_used_first() -> None:
    cache = CompiledFilters(size=2)
    made: list[str] = []
    root = object()

    def compiled(expression: str) -> object:
        def compile() -> object:
            made.append(expression)
            return object()
        return cache.get_or_compile((expression, "sqlite", root), parse(expression), compile)  # type: ignore[arg-type]

    a = compiled("this.a == 1")
    compiled("this.b == 1")
    assert compiled("this.a == 1") is a  # a is now the most recent
    compiled("this.c == 1")  # drops b
    assert len(cache) == 2
    compiled("this.b == 1")
    assert made == ["this.a == 1", "this.b == 1", "this.c == 1", "this.b == 1"]
    assert compiled("this.c == 1") is not None and made[-1] == "this.b == 1"


def test_errors_are_not_kept() -> None:
    cache = CompiledFilters()

    def failing() -> object:
        raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):
        cache.get_or_compile(("this.a == 1", "sqlite", object()), parse("this.a == 1"), failing)  # type: ignore[arg-type]
    assert len(cache) == 0


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("this.metadata.name == 'now'", False),
        ("this.now == 1", False),
        ("this.metadata.creation_timestamp > now", True),
        ("this.a.exists(c, c.t < now - duration('1m'))", True),
        ("[now].size() == 1", True),
        ("this.a || !(this.b[now] == 1)", True),
        ("this.a.exists(now, now.t == 1)", True),
    ],
    ids=["string 'now'", "field named now", "comparison", "inside exists", "list", "index", "shadowing variable"],
)
def test_names_now(expression: str, expected: bool) -> None:
    assert names_now(parse(expression)) is expected


def test_the_service_roots_are_shared_so_lists_hit_the_cache() -> None:
    from osac.model import registry
    from osac.store.labels import object_root
    from osac.store.tables import LIVE

    kind = registry.get("cluster")
    descriptor = kind.message_class(False).DESCRIPTOR
    root = object_root(LIVE["cluster"], descriptor, kind.write_only_fields)
    assert object_root(LIVE["cluster"], descriptor, kind.write_only_fields) is root
    size = len(COMPILED)
    expression = "this.status.conditions.exists(c, c.type == 1 && c.reason == 'Stalled')"
    first = compile_filter(expression, root, dialect="sqlite", now=NOW)
    assert compile_filter(expression, object_root(LIVE["cluster"], descriptor, kind.write_only_fields),
                          dialect="sqlite", now=NOW) is first
    assert len(COMPILED) <= size + 1
