"""Relations: ``== != < <= > >=``, comparison with ``null``, and ``in``.

Enum names are resolved against the enum of the other side, so ``this.status.state ==
'SUBNET_STATE_READY'``, ``== SUBNET_STATE_READY`` and ``== 2`` are the same integer comparison.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

from sqlalchemy import (
    ColumnElement,
    String,
    case,
    cast,
    false,
    not_,
    null,
    or_,
)
from sqlalchemy.sql.elements import Grouping

from osac.filters.dialect import rows_exist
from osac.filters.enums import resolve_in
from osac.filters.errors import FilterError
from osac.filters.operands import Const, EnumName, EventValue, ListValue, Operand, Ref, Segment, Sql
from osac.filters.times import format_timestamp
from osac.filters.types import BOOL, FilterType, Kind
from osac.filters.values import Context, describe, guards, is_null, presence, to_sql, when

ORDERING = ("<", "<=", ">", ">=")
_PYTHON_OPERATORS: dict[str, Callable[[Any, Any], Any]] = {
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}
_ORDERABLE = (Kind.INT, Kind.DOUBLE, Kind.STRING, Kind.TIMESTAMP, Kind.DURATION, Kind.BOOL)


def compare(ctx: Context, op: str, left: Operand, right: Operand) -> Operand:
    """``left op right`` for one of ``== != < <= > >=``."""
    for side in (left, right):
        if isinstance(side, ListValue):
            raise FilterError(f"a list literal cannot be compared with '{op}'; use 'in'")
        if isinstance(side, EventValue):
            raise FilterError("'event' is not a value; select a field, e.g. event.type")
    if _is_null(left) or _is_null(right):
        return _compare_null(ctx, op, left, right)
    left, right = _resolve_enum_names(ctx, left, right)
    kind = _common_kind(op, left, right)
    if isinstance(left, Const) and isinstance(right, Const):
        return Const(BOOL, bool(_PYTHON_OPERATORS[op](left.value, right.value)))
    left_sql, right_sql = to_sql(ctx, left), to_sql(ctx, right)
    nullable = left_sql.nullable or right_sql.nullable
    if kind is Kind.BOOL:
        return Sql(BOOL, _compare_booleans(op, left_sql.expr, right_sql.expr), nullable)
    left_expr, right_expr = left_sql.expr, right_sql.expr
    if op in ORDERING and kind in (Kind.STRING, Kind.TIMESTAMP):
        left_expr, right_expr = ctx.dialect.ordered(left_expr), ctx.dialect.ordered(right_expr)
    return Sql(BOOL, _PYTHON_OPERATORS[op](left_expr, right_expr), nullable)


def membership(ctx: Context, element: Operand, container: Operand) -> Operand:
    """``element in container``: a list literal, a repeated field, or the keys of a map field."""
    if isinstance(container, ListValue):
        return _in_list_literal(ctx, element, container)
    if isinstance(container, Ref) and container.type.kind is Kind.LIST:
        return _in_repeated(ctx, element, container)
    if isinstance(container, Ref) and container.type.kind is Kind.MAP:
        return _in_map(ctx, element, container)
    raise FilterError(
        f"'in' needs a list literal, a repeated field or a map field on its right, got {describe(container)}"
    )


def _is_null(operand: Operand) -> bool:
    return isinstance(operand, Const) and operand.type.kind is Kind.NULL


def _compare_null(ctx: Context, op: str, left: Operand, right: Operand) -> Operand:
    if op not in ("==", "!="):
        raise FilterError(f"null can only be compared with == or !=, not '{op}'")
    other = right if _is_null(left) else left
    if _is_null(other):
        return Const(BOOL, op == "==")
    if isinstance(other, Const):
        return Const(BOOL, op == "!=")
    if not isinstance(other, Ref):
        raise FilterError(f"only fields can be compared with null, not {describe(other)}")
    present = presence(ctx, other)
    expr = not_(present.expr) if op == "==" else present.expr
    return Sql(BOOL, expr, present.nullable)


def _enum_of(operand: Operand) -> FilterType | None:
    if isinstance(operand, (Ref, Sql, Const)) and operand.type.enum is not None:
        return operand.type
    return None


def _resolve_enum_names(ctx: Context, left: Operand, right: Operand) -> tuple[Operand, Operand]:
    return _resolve_against(ctx, left, _enum_of(right)), _resolve_against(ctx, right, _enum_of(left))


def _resolve_against(ctx: Context, operand: Operand, context: FilterType | None) -> Operand:
    """An enum name (bare, or a string) as an integer constant of the enum of the other side."""
    if isinstance(operand, EnumName):
        if context is not None and context.enum is not None:
            return Const(FilterType(Kind.INT, enum=context.enum), resolve_in(context.enum, operand.name))
        enum, number = ctx.enums.resolve(operand.name)
        return Const(FilterType(Kind.INT, enum=enum), number)
    if (
        isinstance(operand, Const)
        and operand.type.kind is Kind.STRING
        and context is not None
        and context.enum is not None
    ):
        return Const(FilterType(Kind.INT, enum=context.enum), resolve_in(context.enum, operand.value))
    return operand


def _common_kind(op: str, left: Operand, right: Operand) -> Kind:
    for side in (left, right):
        kind = side.type.kind if isinstance(side, (Ref, Sql, Const)) else None
        if kind in (Kind.LIST, Kind.MAP):
            raise FilterError(f"cannot compare {describe(side)}; use 'in', exists(), all() or size()")
        if kind is Kind.MESSAGE:
            raise FilterError(f"cannot compare {describe(side)}; compare its fields or use has()")
        if kind is Kind.OPAQUE:
            raise FilterError(f"{describe(side)} cannot be filtered on except with has()")
    assert isinstance(left, (Ref, Sql, Const)) and isinstance(right, (Ref, Sql, Const))
    left_kind, right_kind = left.type.kind, right.type.kind
    if left.type.is_numeric and right.type.is_numeric:
        return Kind.DOUBLE if Kind.DOUBLE in (left_kind, right_kind) else Kind.INT
    if left_kind is right_kind and left_kind in _ORDERABLE:
        return left_kind
    hint = ""
    if Kind.TIMESTAMP in (left_kind, right_kind) and Kind.STRING in (left_kind, right_kind):
        hint = '; write the time as timestamp("2026-01-02T03:04:05Z") or now - duration("1h")'
    raise FilterError(f"cannot compare {describe(left)} with {describe(right)} using '{op}'{hint}")


def _compare_booleans(op: str, left: ColumnElement[Any], right: ColumnElement[Any]) -> ColumnElement[bool]:
    """Booleans compare directly (false < true in both databases); the parentheses matter, as
    PostgreSQL binds NOT more loosely than = and <."""
    return _PYTHON_OPERATORS[op](Grouping(left), Grouping(right))


def _in_list_literal(ctx: Context, element: Operand, container: ListValue) -> Operand:
    if not container.items:
        if isinstance(element, (Ref, Sql)):
            value = to_sql(ctx, element)
            if value.nullable:  # an error stays an error, even against an empty list
                return Sql(BOOL, case((is_null(value.expr), null()), else_=false()), True)
        return Const(BOOL, False)
    items = [_resolve_against(ctx, item, _enum_of(element)) for item in container.items]
    item_enum = next((_enum_of(item) for item in items if _enum_of(item) is not None), None)
    element = _resolve_against(ctx, element, item_enum)
    if isinstance(element, Const):
        return _combine_or([compare(ctx, "==", element, item) for item in items])
    if isinstance(element, Ref) and _is_null_free(items):
        element = to_sql(ctx, element)  # extract the field once, not once per item
    if isinstance(element, Sql) and _is_null_free(items) and all(isinstance(item, Const) for item in items):
        for item in items:
            _common_kind("in", element, item)
        constants = [_sql_constant(item) for item in items if isinstance(item, Const)]
        return Sql(BOOL, element.expr.in_(constants), element.nullable)
    return _combine_or([compare(ctx, "==", element, item) for item in items])


def _sql_constant(item: Const) -> Any:
    """A constant as the database stores it (timestamps as their fixed-width text)."""
    return format_timestamp(item.value) if item.type.kind is Kind.TIMESTAMP else item.value


def _is_null_free(items: list[Operand]) -> bool:
    return not any(_is_null(item) for item in items)


def _combine_or(results: list[Operand]) -> Operand:
    if any(isinstance(result, Const) and result.value for result in results):
        return Const(BOOL, True)
    sql = [result for result in results if isinstance(result, Sql)]
    if not sql:
        return Const(BOOL, False)
    return Sql(BOOL, or_(*(result.expr for result in sql)), any(result.nullable for result in sql))


def _in_repeated(ctx: Context, element: Operand, container: Ref) -> Operand:
    element_type = container.type.element
    assert element_type is not None
    if not element_type.is_scalar:
        raise FilterError(
            f"'in' cannot search {describe(container)}; use exists(), "
            f"e.g. {container.display}.exists(x, x.name == 'a')"
        )
    rows, item_source = ctx.dialect.array_elements(container.source, container.keys)
    item = Ref(element_type, item_source, (), f"{container.display}[]", container.owner)
    test = compare(ctx, "==", item, element)
    assert isinstance(test, Sql)
    return _found(ctx, container, rows, test.expr, element)


def _in_map(ctx: Context, element: Operand, container: Ref) -> Operand:
    key_type, value_type = container.type.key, container.type.element
    assert key_type is not None and value_type is not None
    if isinstance(element, EnumName):
        element = _resolve_against(ctx, element, None)
    if isinstance(element, Const):
        key = map_key(container, element)
        return presence(ctx, container.child(Segment(key, is_key=True), value_type))
    value = to_sql(ctx, element)
    if value.type.kind is not key_type.kind:
        raise FilterError(f"{describe(element)} cannot be a key of {describe(container)}")
    rows, key_text, _ = ctx.dialect.map_entries(container.source, container.keys)
    return _found(ctx, container, rows, key_text == _as_key_text(value), value)


def _found(ctx: Context, container: Ref, rows: Any, test: ColumnElement[bool], element: Operand) -> Sql:
    """EXISTS over ``rows`` where ``test``, NULL when the element or the container is an error."""
    result = rows_exist(rows, test)
    nullable = False
    if not isinstance(element, Const):
        value = to_sql(ctx, element)
        if value.nullable:
            result = case((is_null(value.expr), null()), else_=result)
            nullable = True
    conditions = guards(ctx, container, len(container.path))
    return Sql(BOOL, when(conditions, result), nullable or bool(conditions))


def _as_key_text(value: Sql) -> ColumnElement[Any]:
    """A key as JSON objects spell it: map<int32, _> and map<bool, _> keys are text in JSON."""
    if value.type.kind is Kind.STRING:
        return value.expr
    if value.type.kind is Kind.BOOL:
        return case((value.expr, "true"), else_="false")
    return cast(value.expr, String())


def map_key(container: Ref, key: Const) -> str:
    """The JSON object key for a constant map index, checked against the map's key type."""
    key_type = container.type.key
    assert key_type is not None
    if key.type.kind is not key_type.kind or key_type.kind not in (Kind.STRING, Kind.INT, Kind.BOOL):
        raise FilterError(f"{describe(key)} cannot be a key of {describe(container)}")
    if key_type.kind is Kind.BOOL:
        return "true" if key.value else "false"
    return str(key.value)
