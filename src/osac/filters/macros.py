"""Comprehensions: ``list.exists(x, p)``, ``list.all(x, p)`` (and over the keys of a map).

Each becomes a correlated ``EXISTS`` over ``json_each`` (SQLite) or ``jsonb_array_elements`` /
``jsonb_each`` (PostgreSQL). When the predicate can be an error (NULL) the result follows CEL:
``exists`` is true if any element matches, else an error if any element errs, else false.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import (
    BigInteger,
    ColumnElement,
    FromClause,
    case,
    cast,
    false,
    literal_column,
    not_,
    null,
    select,
    true,
)

from osac.filters.dialect import rows_exist
from osac.filters.errors import FilterError
from osac.filters.operands import Operand, Ref, Sql
from osac.filters.types import BOOL, FilterType, Kind
from osac.filters.values import Context, as_predicate, describe, guards, predicate_sql, when

RESERVED_NAMES = ("this", "event", "now")
#: Deepest nesting of exists()/all() inside one another. Each level is a correlated subquery,
#: and five levels around an arithmetic comparison stay within SQLite's parser stack.
MAX_COMPREHENSION_NESTING = 5


def comprehension(
    ctx: Context,
    macro: str,
    target: Operand,
    variable: str,
    compile_predicate: Callable[[Operand], Operand],
) -> Operand:
    """``target.<macro>(variable, predicate)`` for macro ``exists`` or ``all``."""
    if variable in RESERVED_NAMES:
        raise FilterError(f"'{variable}' cannot name the variable of {macro}(); pick another name")
    if not (isinstance(target, Ref) and target.type.kind in (Kind.LIST, Kind.MAP)):
        raise FilterError(f"{macro}() applies to repeated and map fields, not {describe(target)}")
    rows, item = _items(ctx, target, variable)
    conditions = guards(ctx, target, len(target.path))
    guard = target.source.guard
    held = guard is not None and any(guard is condition for condition in conditions)
    if guard is not None and held:
        ctx.held_guards.append(guard)  # the result below is NULL unless the guard holds
    try:
        predicate = as_predicate(ctx, compile_predicate(item), f"the predicate of {macro}()")
    finally:
        if held:
            ctx.held_guards.pop()
    condition = predicate_sql(predicate)
    nullable = isinstance(predicate, Sql) and predicate.nullable
    result: ColumnElement[bool]
    if not nullable:
        result = rows_exist(rows, condition) if macro == "exists" else not_(rows_exist(rows, not_(condition)))
    else:
        result = _three_valued(macro, rows, condition)
    return Sql(BOOL, when(conditions, result), nullable or bool(conditions))


def _three_valued(macro: str, rows: FromClause, condition: ColumnElement[bool]) -> ColumnElement[bool]:
    """CEL's rule for a predicate that can err, reading the predicate once per row.

    Each row scores true 2, error 1, false 0; ``exists`` takes the highest score and ``all`` the
    lowest (an empty list: false for exists, true for all).
    """
    # CASE on the predicate's value rather than coalesce(CAST(... AS INTEGER) * 2, 1): the same
    # scores, with the predicate nested one construct deep instead of four (SQL nesting).
    score = case({True: 2, False: 0}, value=condition, else_=1)
    # ORDER BY ... LIMIT 1 rather than max(): an aggregate over a predicate that reads only the
    # outer row would belong to the outer query (and PostgreSQL rejects it in WHERE).
    # Sorting by position keeps the predicate written once (and SQLite does not allow outer
    # columns in a subquery's ORDER BY).
    ranked = select(score).select_from(rows).correlate_except(rows).limit(1)
    first_column: ColumnElement[int] = literal_column("1")
    if macro == "exists":
        best = ranked.order_by(first_column.desc()).scalar_subquery()
        return case({2: true(), 1: null()}, value=best, else_=false())
    worst = ranked.order_by(first_column).scalar_subquery()
    return case({0: false(), 1: null()}, value=worst, else_=true())


def _items(ctx: Context, target: Ref, variable: str) -> tuple[Any, Operand]:
    """The FROM item to iterate and what the variable stands for in each row."""
    element_type = target.type.element
    assert element_type is not None
    if target.type.kind is Kind.LIST:
        rows, source = ctx.dialect.array_elements(target.source, target.keys)
        owner = element_type.message.name if element_type.message is not None else target.owner
        return rows, Ref(element_type, source, (), variable, owner)
    key_type = target.type.key
    assert key_type is not None
    rows, key_text, _ = ctx.dialect.map_entries(target.source, target.keys)
    return rows, _key_value(key_type, key_text)


def _key_value(key_type: FilterType, key_text: ColumnElement[Any]) -> Sql:
    """A map key as its proto type: JSON object keys are always text."""
    if key_type.kind is Kind.BOOL:
        return Sql(key_type, key_text == "true")
    if key_type.kind is Kind.INT:
        return Sql(key_type, cast(key_text, BigInteger()))
    return Sql(key_type, key_text)
