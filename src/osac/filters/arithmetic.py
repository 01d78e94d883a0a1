"""Arithmetic: ``+ - * / %`` and unary minus.

Integers follow CEL: 64-bit, division and remainder truncate toward zero, and overflow or a
division by zero is an error. An error in a constant is a FilterError; in SQL it is NULL (the
dialect detects overflow instead of letting the database fail the query), which never matches.
An int mixed with a double is promoted to double. Timestamp and duration
arithmetic is folded to a constant in Python (``now - duration("1h")``); it is not available
on fields, whose comparison is rewritten by the caller (``field > now - duration("1h")``).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, Float, cast, func

from osac.filters.enums import EnumIndex
from osac.filters.errors import FilterError
from osac.filters.literals import INT64_MAX, INT64_MIN
from osac.filters.operands import Const, EnumName, Operand, Ref, Sql
from osac.filters.times import check_duration, check_timestamp
from osac.filters.types import DOUBLE, DURATION, INT, STRING, TIMESTAMP, FilterType, Kind
from osac.filters.values import Context, describe, to_sql

_TIME_HINT = (
    "timestamp and duration arithmetic needs constant operands (now, timestamp(...), "
    'duration(...)); move it to the constant side, e.g. this.metadata.creation_timestamp > now - duration("1h")'
)


def arithmetic(ctx: Context, op: str, left: Operand, right: Operand) -> Operand:
    left, right = _numbers_for_names(ctx.enums, left), _numbers_for_names(ctx.enums, right)
    if not isinstance(left, (Ref, Sql, Const)) or not isinstance(right, (Ref, Sql, Const)):
        raise FilterError(f"operator '{op}' does not apply to {describe(left)} and {describe(right)}")
    kinds = (left.type.kind, right.type.kind)
    if Kind.TIMESTAMP in kinds or Kind.DURATION in kinds:
        return _time_arithmetic(op, left, right)
    result_type = _result_type(op, left, right)
    if isinstance(left, Const) and isinstance(right, Const):
        return Const(result_type, _fold(op, result_type, left.value, right.value))
    left_sql, right_sql = to_sql(ctx, left), to_sql(ctx, right)
    nullable = left_sql.nullable or right_sql.nullable
    if result_type.kind is Kind.STRING:
        return Sql(STRING, left_sql.expr.concat(right_sql.expr), nullable)
    if result_type.kind is Kind.DOUBLE:
        return _double_arithmetic(op, right, _as_double(left_sql), _as_double(right_sql), nullable)
    dialect = ctx.dialect
    if op in ("+", "-", "*", "/"):
        a, b = _int_operand(ctx, left_sql), _int_operand(ctx, right_sql)
        if op == "/":
            divisor, _ = _divisor(right, b)
            # Only int64 min / -1 overflows.
            return _checked(ctx, dialect.int_quotient(a, divisor))
        return _checked(ctx, a + b if op == "+" else a - b if op == "-" else a * b)
    # '%' reads its operands checked: SQLite's '%' would not keep an overflow visible.
    a, b = dialect.int_operand(left_sql.expr), dialect.int_operand(right_sql.expr)
    divisor, may_be_zero = _divisor(right, b)
    return Sql(INT, a % divisor, nullable or may_be_zero)


def _int_operand(ctx: Context, value: Sql) -> ColumnElement[Any]:
    """An integer operand of ``+ - * /``: before its own overflow check when the check can wait."""
    if value.unchecked is not None:
        return value.unchecked
    return ctx.dialect.int_operand(value.expr)


def _checked(ctx: Context, result: ColumnElement[Any]) -> Sql:
    """An integer result, NULL on overflow; the unchecked form travels on where it may."""
    dialect = ctx.dialect
    unchecked = result if dialect.overflow_propagates else None
    return Sql(INT, dialect.checked_int(result), nullable=True, unchecked=unchecked)


def _double_arithmetic(
    op: str, right: Ref | Sql | Const, a: ColumnElement[Any], b: ColumnElement[Any], nullable: bool
) -> Sql:
    if op == "+":
        return Sql(DOUBLE, a + b, nullable)
    if op == "-":
        return Sql(DOUBLE, a - b, nullable)
    if op == "*":
        return Sql(DOUBLE, a * b, nullable)
    divisor, may_be_zero = _divisor(right, b)
    return Sql(DOUBLE, a.op("/", return_type=Float())(divisor), nullable or may_be_zero)


def negate(ctx: Context, operand: Operand) -> Operand:
    operand = _numbers_for_names(ctx.enums, operand)
    if isinstance(operand, Const) and operand.type.kind in (Kind.INT, Kind.DOUBLE, Kind.DURATION):
        if operand.type.kind is Kind.DURATION:
            return Const(DURATION, check_duration(-operand.value))
        result_type = DOUBLE if operand.type.kind is Kind.DOUBLE else INT
        return Const(result_type, _check_int(result_type, -operand.value))
    if isinstance(operand, (Ref, Sql)) and operand.type.is_numeric:
        value = to_sql(ctx, operand)
        if operand.type.kind is Kind.DOUBLE:
            return Sql(DOUBLE, -value.expr, value.nullable)
        return _checked(ctx, -_int_operand(ctx, value))  # -(int64 min) overflows
    raise FilterError(f"unary '-' does not apply to {describe(operand)}")


def _numbers_for_names(enums: EnumIndex, operand: Operand) -> Operand:
    if isinstance(operand, EnumName):
        enum, number = enums.resolve(operand.name)
        return Const(FilterType(Kind.INT, enum=enum), number)
    return operand


def _result_type(op: str, left: Ref | Sql | Const, right: Ref | Sql | Const) -> FilterType:
    kinds = (left.type.kind, right.type.kind)
    if op == "+" and kinds == (Kind.STRING, Kind.STRING):
        return STRING
    if left.type.is_numeric and right.type.is_numeric:
        if Kind.DOUBLE in kinds:
            if op == "%":
                raise FilterError("operator '%' applies to integers only")
            return DOUBLE
        return INT
    raise FilterError(f"operator '{op}' does not apply to {describe(left)} and {describe(right)}")


def _as_double(value: Sql) -> ColumnElement[Any]:
    return cast(value.expr, Float()) if value.type.kind is Kind.INT else value.expr


def _divisor(right: Ref | Sql | Const, expr: ColumnElement[Any]) -> tuple[ColumnElement[Any], bool]:
    if isinstance(right, Const) and right.value != 0:
        return expr, False
    return func.nullif(expr, 0), True


def _fold(op: str, result_type: FilterType, a: Any, b: Any) -> Any:
    if op == "+":
        value = a + b
    elif op == "-":
        value = a - b
    elif op == "*":
        value = a * b
    elif b == 0:
        raise FilterError("division by zero")
    elif result_type.kind is Kind.DOUBLE:
        value = a / b
    else:
        quotient = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)
        value = quotient if op == "/" else a - b * quotient
    return _check_int(result_type, value)


def _check_int(result_type: FilterType, value: Any) -> Any:
    if result_type.kind is Kind.INT and not INT64_MIN <= value <= INT64_MAX:
        raise FilterError("integer overflow in a constant expression")
    return value


def _time_arithmetic(op: str, left: Ref | Sql | Const, right: Ref | Sql | Const) -> Const:
    kinds = (left.type.kind, right.type.kind)
    if not (isinstance(left, Const) and isinstance(right, Const)):
        raise FilterError(_TIME_HINT)
    a, b = left.value, right.value
    if op == "+" and kinds == (Kind.TIMESTAMP, Kind.DURATION):
        return Const(TIMESTAMP, check_timestamp(a + b))
    if op == "+" and kinds == (Kind.DURATION, Kind.TIMESTAMP):
        return Const(TIMESTAMP, check_timestamp(a + b))
    if op == "-" and kinds == (Kind.TIMESTAMP, Kind.DURATION):
        return Const(TIMESTAMP, check_timestamp(a - b))
    if op == "-" and kinds == (Kind.TIMESTAMP, Kind.TIMESTAMP):
        return Const(DURATION, check_duration(a - b))
    if op in ("+", "-") and kinds == (Kind.DURATION, Kind.DURATION):
        return Const(DURATION, check_duration(a + b if op == "+" else a - b))
    raise FilterError(f"operator '{op}' does not apply to {describe(left)} and {describe(right)}")
