"""The ORDER BY of a List (api.md §6, docs/filters.md "List order"), in SQL on both databases.

Columns are used where the table has them (``id``, ``name``, ``creation_timestamp``);
``status.state`` is read from the object's JSON with the filter compiler's extraction, so it
compares as the enum number. Names compare in code point order (``COLLATE "C"`` on PostgreSQL,
whatever the database collation), an absent name as "" (the proto zero value), an absent state
as 0. The id breaks every tie, ascending, so that offset paging is stable.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, Select, Table, func, literal, select

from osac.filters import Encoding, Source, json_dialect
from osac.model.kinds import STATE_ORDER_FIELD


@dataclass(frozen=True)
class SortKey:
    """One key of an order: a field of ``Kind.order_fields`` and its direction."""

    field: str
    descending: bool = False


def sort_expression(table: Table, field: str, dialect: str) -> ColumnElement[Any]:
    """The SQL value ``field`` of a kind's live ``table`` is ordered by."""
    json = json_dialect(dialect)
    if field == "id":
        return table.c.id
    if field == "metadata.name":
        return json.ordered(func.coalesce(table.c.name, literal("")))
    if field == "metadata.creation_timestamp":
        return table.c.creation_timestamp
    if field == STATE_ORDER_FIELD:
        return func.coalesce(json.extract(Source(table.c.data), ("status", "state"), Encoding.NUMBER), 0)
    raise ValueError(f"{field!r} is not an ordering field")


def order_clauses(table: Table, keys: Sequence[SortKey], dialect: str) -> list[ColumnElement[Any]]:
    """The ORDER BY clauses of ``keys``, then ascending id unless an id key came first."""
    clauses: list[ColumnElement[Any]] = []
    for key in keys:
        expression = sort_expression(table, key.field, dialect)
        clauses.append(expression.desc() if key.descending else expression.asc())
        if key.field == "id":
            return clauses
    return [*clauses, table.c.id.asc()]


def page_query(
    table: Table, conditions: Sequence[ColumnElement[bool]], keys: Sequence[SortKey], dialect: str,
    *, offset: int, limit: int,
) -> Select[tuple[Any]]:
    """The ``data`` of one page of the rows matching ``conditions``, in the order of ``keys``.

    Ordered by id (no keys, or id first) the primary key pages directly. Otherwise the database
    must sort every matching row, so the sort runs over the ids alone and only the page's rows
    are joined back for their JSON: sorting whole objects took SQLite about twice as long at
    100,000 objects (docs/benchmarks.md, List order)."""
    clauses = order_clauses(table, keys, dialect)
    if not keys or keys[0].field == "id":
        return select(table.c.data).where(*conditions).order_by(*clauses).offset(offset).limit(limit)
    page = select(table.c.id).where(*conditions).order_by(*clauses).offset(offset).limit(limit).subquery()
    return select(table.c.data).select_from(table.join(page, page.c.id == table.c.id)).order_by(*clauses)
