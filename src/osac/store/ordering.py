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

from sqlalchemy import ColumnElement, Table, func, literal

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
