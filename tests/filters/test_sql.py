"""The filter runs in the database: the predicate is in the statement, and only matches come back."""

from __future__ import annotations

from typing import Any

import pytest
import pytest_asyncio
from sqlalchemy import ColumnElement, event, func, select

from .conftest import Database
from .objects import READY, widget

pytestmark = pytest.mark.asyncio(loop_scope="session")

BULK_SIZE = 10_000
MATCHING = {"b00042", "b05000", "b09999"}
FILTER = (
    "this.metadata.labels['osac.openshift.io/default'] == 'true' "
    "&& this.status.conditions.exists(c, c.reason == 'Stalled') && this.status.available > 9"
)


def _bulk_widget(index: int) -> Any:
    id_ = f"b{index:05d}"
    labels = {"osac.openshift.io/default": "true"} if index % 2 == 0 or id_ in MATCHING else {}
    reason = "Stalled" if index % 3 == 0 or id_ in MATCHING else "AsExpected"
    available = 10 if id_ in MATCHING else index % 10
    return widget(
        id_,
        metadata={"name": f"w{index}", "labels": labels},
        status={"state": READY, "available": available, "conditions": [{"type": 1, "reason": reason}]},
    )


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def bulk(database: Database) -> Database:
    await database.replace_objects("bulk", (_bulk_widget(index) for index in range(BULK_SIZE)))
    return database


async def test_filter_over_many_rows_fetches_only_the_matches(bulk: Database) -> None:
    statements: list[str] = []

    def record(
        conn: Any, cursor: Any, statement: str, parameters: Any, context: Any, executemany: bool
    ) -> None:
        statements.append(statement)

    table = bulk.tables["bulk"]
    predicate = bulk.compile(FILTER, bulk.object_root("bulk"))
    event.listen(bulk.engine.sync_engine, "after_cursor_execute", record)
    try:
        async with bulk.engine.connect() as connection:
            total = (await connection.execute(select(func.count()).select_from(table))).scalar_one()
            result = await connection.execute(select(table.c.id).where(predicate))
            fetched = result.fetchall()
    finally:
        event.remove(bulk.engine.sync_engine, "after_cursor_execute", record)
    assert total == BULK_SIZE
    assert {row.id for row in fetched} == MATCHING
    assert len(fetched) == len(MATCHING)
    where = statements[-1].split("WHERE", 1)[1]
    element_function = "json_each" if bulk.dialect == "sqlite" else "jsonb_array_elements"
    assert element_function in where


@pytest.mark.parametrize(
    ("expression", "fragments"),
    [
        (
            "this.spec.network == 'net-1'",
            {
                "sqlite": ['json_extract(widgets.data, \'$."spec"."network"\')'],
                "postgresql": ["widgets.data #>> ARRAY['spec', 'network']"],
            },
        ),
        (
            "this.status.available > 9",
            {
                "sqlite": ['CAST(json_extract(widgets.data, \'$."status"."available"\') AS BIGINT)'],
                "postgresql": ["CAST(widgets.data #>> ARRAY['status', 'available'] AS BIGINT)"],
            },
        ),
        (
            "this.metadata.labels['osac.openshift.io/default'] == 'true'",
            {
                "sqlite": ['\'$."metadata"."labels"."osac.openshift.io/default"\''],
                "postgresql": ["ARRAY['metadata', 'labels', 'osac.openshift.io/default']"],
            },
        ),
        (
            "this.metadata.name.contains('50%_')",
            {"sqlite": ["instr("], "postgresql": ["LIKE '%%50\\%%\\_%%' ESCAPE '\\'"]},
        ),
        (
            "this.status.conditions.exists(c, c.type == 1)",
            {
                "sqlite": ["EXISTS (SELECT 1", 'json_each(widgets.data, \'$."status"."conditions"\')'],
                "postgresql": [
                    "EXISTS (SELECT 1",
                    "jsonb_array_elements(widgets.data #> ARRAY['status', 'conditions'])",
                ],
            },
        ),
    ],
    ids=["string path", "int64 cast", "label key with dots and slash", "escaped LIKE", "exists"],
)
async def test_compiled_sql_holds_the_predicate(
    database: Database, expression: str, fragments: dict[str, list[str]]
) -> None:
    predicate = database.compile(expression, database.object_root("widgets"))
    assert isinstance(predicate, ColumnElement)
    table = database.tables["widgets"]
    sql = str(
        select(table.c.id).where(predicate).compile(database.engine, compile_kwargs={"literal_binds": True})
    )
    if table.schema:
        sql = sql.replace(f"{table.schema}.", "")
    for fragment in fragments[database.dialect]:
        assert fragment in sql
