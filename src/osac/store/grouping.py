"""Counts of objects grouped by a few of their values, in one aggregate query.

A count per state, per tenant, or per what a status condition says (a cluster's STAGE cell is a
function of its state, ``status.stage`` and its PROGRESSING condition) needs only those few values
of each row, not the objects: the database extracts them from the JSON and groups, so nothing is
read back but the groups and their counts.

Each key of a group is one of:

- ``TableColumn("tenant")``: a column of the kind's table;
- ``JsonField(("status", "state"), Encoding.NUMBER)``: a scalar of the stored object, None where
  absent;
- ``ElementField(("status", "conditions"), ("type",), 1, ("reason",), Encoding.TEXT)``: a scalar of
  the first element of an array whose ``match`` field equals ``value`` (the PROGRESSING
  condition's reason), None where there is no such element or it lacks the field.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, Select, Table, func, select

from osac.filters import Encoding, Source, json_dialect


@dataclass(frozen=True)
class TableColumn:
    name: str


@dataclass(frozen=True)
class JsonField:
    path: tuple[str, ...]
    encoding: Encoding


@dataclass(frozen=True)
class ElementField:
    array: tuple[str, ...]
    match: tuple[str, ...]
    value: int | str
    path: tuple[str, ...]
    encoding: Encoding
    #: How ``match`` is stored (enum numbers: NUMBER).
    match_encoding: Encoding = Encoding.NUMBER


GroupKey = TableColumn | JsonField | ElementField


def grouped_counts_query(table: Table, keys: Sequence[GroupKey], conditions: Sequence[ColumnElement[bool]],
                         dialect: str) -> Select[Any]:
    """``SELECT key1, key2, ..., count(*) ... GROUP BY key1, key2, ...`` over the rows of ``table``
    matching ``conditions``.

    The keys are computed in a subquery and grouped on its columns: PostgreSQL would otherwise see
    the same JSON path bound twice (select list and GROUP BY) as two different expressions."""
    if not keys:
        raise ValueError("grouped counts need at least one key")
    rules = json_dialect(dialect)
    source = Source(table.c.data)
    columns = [_value(table, key, rules, source).label(f"k{index}") for index, key in enumerate(keys)]
    values = select(*columns).select_from(table).where(*conditions).subquery()
    grouped = [values.c[f"k{index}"] for index in range(len(keys))]
    return select(*grouped, func.count()).group_by(*grouped)


def _value(table: Table, key: GroupKey, rules: Any, source: Source) -> ColumnElement[Any]:
    if isinstance(key, TableColumn):
        return table.c[key.name]
    if isinstance(key, JsonField):
        return rules.extract(source, key.path, key.encoding)
    elements, element = rules.array_elements(source, key.array)
    first = (
        select(rules.extract(element, key.path, key.encoding))
        .select_from(elements)
        .where(rules.extract(element, key.match, key.match_encoding) == key.value)
        .limit(1)
        .correlate_except(elements)
    )
    return first.scalar_subquery()
