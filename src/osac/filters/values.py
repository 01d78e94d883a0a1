"""Turning operands into SQL: field extraction with zero values, presence, literals.

Zero values: proto3 JSON omits them, so a missing key reads as the field's zero value
(COALESCE). Errors: reading a missing map key, or a payload the event does not carry, is a CEL
error; it becomes SQL NULL, which ``&&``, ``||`` and ``!`` propagate like CEL errors and which
never matches.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import (
    BigInteger,
    ColumnElement,
    Float,
    String,
    and_,
    case,
    false,
    func,
    literal,
    true,
)
from sqlalchemy.sql.elements import Grouping

from osac.filters.dialect import JsonDialect
from osac.filters.enums import EnumIndex
from osac.filters.errors import FilterError
from osac.filters.operands import Const, EnumName, EventValue, ListValue, Operand, Ref, Sql
from osac.filters.times import ZERO_TIMESTAMP_TEXT, format_timestamp
from osac.filters.types import BOOL, FilterType, Kind


@dataclass(frozen=True)
class Context:
    """What every translation step needs: the database and the enum names in scope.

    ``held_guards`` are the payload guards already applied around the SQL being built (the
    body of a comprehension over ``event.widget.…`` is only read when the event is a widget),
    so that a nested reference does not test the kind once more at every level.
    """

    dialect: JsonDialect
    enums: EnumIndex
    held_guards: list[ColumnElement[bool]] = field(default_factory=list)


def describe(operand: Operand) -> str:
    """How an operand is named in error messages."""
    if isinstance(operand, Ref):
        return f"{operand.type.describe()} field '{operand.display}'"
    if isinstance(operand, Const):
        if operand.type.kind is Kind.NULL:
            return "null"
        if operand.type.kind in (Kind.TIMESTAMP, Kind.DURATION):
            return f"{operand.type.kind.value} constant"
        return f"{operand.type.describe()} {operand.value!r}"
    if isinstance(operand, Sql):
        return f"{operand.type.describe()} expression"
    if isinstance(operand, EnumName):
        return f"identifier '{operand.name}'"
    if isinstance(operand, ListValue):
        return "list literal"
    return "'event'"


def guards(ctx: Context, ref: Ref, upto: int) -> list[ColumnElement[bool]]:
    """Conditions for the first ``upto`` steps of ``ref`` to exist (payload kind, map keys)."""
    guard = ref.source.guard
    held = guard is not None and any(guard is item for item in ctx.held_guards)
    conditions = [] if guard is None or held else [guard]
    keys = ref.keys
    for index, segment in enumerate(ref.path[:upto]):
        if segment.is_key:
            conditions.append(ctx.dialect.has_key(ref.source, keys[: index + 1]))
    return conditions


def when(conditions: list[ColumnElement[bool]], value: ColumnElement[Any]) -> ColumnElement[Any]:
    """``value`` where all ``conditions`` hold, else NULL (an error)."""
    if not conditions:
        return value
    return case((and_(*conditions), value))


def presence(ctx: Context, ref: Ref) -> Sql:
    """CEL ``has()``: the field is set (message) or non-zero (scalar, list, map), the map key or
    the event payload is present."""
    if not ref.path:
        if ref.source.guard is None:
            raise FilterError(f"has() needs a field selection such as has({ref.display}.x)")
        return Sql(BOOL, ref.source.guard)
    above = guards(ctx, ref, len(ref.path) - 1)
    test = ctx.dialect.has_key(ref.source, ref.keys)
    return Sql(BOOL, when(above, test), nullable=bool(above))


def to_sql(ctx: Context, operand: Operand) -> Sql:
    """The SQL value of a scalar operand."""
    if isinstance(operand, Sql):
        return operand
    if isinstance(operand, Const):
        return Sql(operand.type, sql_literal(operand))
    if isinstance(operand, Ref):
        return _field_value(ctx, operand)
    if isinstance(operand, EnumName):
        enum, number = ctx.enums.resolve(operand.name)
        return Sql(FilterType(Kind.INT, enum=enum), literal(number, BigInteger()))
    if isinstance(operand, EventValue):
        raise FilterError("'event' is not a value; select a field, e.g. event.type")
    raise FilterError("a list literal can only be used on the right of 'in'")


def sql_literal(const: Const) -> ColumnElement[Any]:
    kind, value = const.type.kind, const.value
    if kind is Kind.BOOL:
        return true() if value else false()
    if kind is Kind.INT:
        return literal(value, BigInteger())
    if kind is Kind.DOUBLE:
        return literal(value, Float())
    if kind is Kind.STRING:
        return literal(value, String())
    if kind is Kind.TIMESTAMP:
        return literal(format_timestamp(value), String())
    raise FilterError(f"a {kind.value} constant cannot be compared with a field")


def _field_value(ctx: Context, ref: Ref) -> Sql:
    field_type = ref.type
    if field_type.kind in (Kind.LIST, Kind.MAP):
        raise FilterError(f"{describe(ref)} cannot be used as a value; use 'in', exists(), all() or size()")
    if field_type.kind is Kind.MESSAGE:
        raise FilterError(f"{describe(ref)} cannot be used as a value; compare its fields or use has()")
    if field_type.kind is Kind.OPAQUE:
        raise FilterError(f"{describe(ref)} cannot be filtered on except with has()")
    dialect = ctx.dialect
    raw = dialect.extract(ref.source, ref.keys, field_type.encoding)
    conditions = guards(ctx, ref, len(ref.path))
    if ref.path and ref.path[-1].is_key and len(conditions) == 1 and ref.source.guard is None:
        # labels['env']: map values are always stored, so NULL already means "no such key".
        value, conditions = raw, []
        nullable = True
    else:
        zero = (
            literal(ZERO_TIMESTAMP_TEXT, String())
            if field_type.kind is Kind.TIMESTAMP
            else dialect.zero(field_type.encoding)
        )
        value = func.coalesce(raw, zero, type_=raw.type)
        nullable = bool(conditions)
    if field_type.kind is Kind.BOOL:
        value = dialect.is_true(value)
    return Sql(field_type, when(conditions, value), nullable=nullable)


def as_predicate(ctx: Context, operand: Operand, construct: str) -> Sql | Const:
    """A boolean operand (a constant or SQL), or FilterError naming ``construct``."""
    if isinstance(operand, Const) and operand.type.kind is Kind.BOOL:
        return operand
    if isinstance(operand, (Ref, Sql)) and operand.type.kind is Kind.BOOL:
        return to_sql(ctx, operand)
    raise FilterError(f"{construct} needs a boolean, got {describe(operand)}")


def is_null(expr: ColumnElement[Any]) -> ColumnElement[bool]:
    """``(expr) IS NULL``, parenthesized: PostgreSQL reads ``NOT a IS NULL`` as ``NOT (a IS NULL)``."""
    return Grouping(expr).is_(None)


def predicate_sql(operand: Sql | Const) -> ColumnElement[bool]:
    if isinstance(operand, Const):
        return true() if operand.value else false()
    return operand.expr
