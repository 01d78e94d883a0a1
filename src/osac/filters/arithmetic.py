"""Arithmetic: ``+ - * / %`` and unary minus.

Integers follow CEL (64-bit, division and remainder truncate toward zero); an int mixed with a
double is promoted to double. Division or remainder by zero is an error: a constant one is a
FilterError, a computed one is NULL in SQL and so never matches. Timestamp and duration
arithmetic is folded to a constant in Python (``now - duration("1h")``); it is not available
on fields, whose comparison is rewritten by the caller (``field > now - duration("1h")``).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import BigInteger, ColumnElement, Float, cast, func

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
    sql_type = Float() if result_type.kind is Kind.DOUBLE else BigInteger()
    a, b = _numeric(left_sql, sql_type), _numeric(right_sql, sql_type)
    if op == "+":
        return Sql(result_type, a + b, nullable)
    if op == "-":
        return Sql(result_type, a - b, nullable)
    if op == "*":
        return Sql(result_type, a * b, nullable)
    divisor, may_be_zero = _divisor(right, b)
    if op == "/":
        return Sql(result_type, a.op("/", return_type=sql_type)(divisor), nullable or may_be_zero)
    return Sql(result_type, a % divisor, nullable or may_be_zero)


def negate(ctx: Context, operand: Operand) -> Operand:
    operand = _numbers_for_names(ctx.enums, operand)
    if isinstance(operand, Const) and operand.type.kind in (Kind.INT, Kind.DOUBLE, Kind.DURATION):
        if operand.type.kind is Kind.DURATION:
            return Const(DURATION, check_duration(-operand.value))
        result_type = DOUBLE if operand.type.kind is Kind.DOUBLE else INT
        return Const(result_type, _check_int(result_type, -operand.value))
    if isinstance(operand, (Ref, Sql)) and operand.type.is_numeric:
        value = to_sql(ctx, operand)
        result_type = DOUBLE if operand.type.kind is Kind.DOUBLE else INT
        return Sql(result_type, -value.expr, value.nullable)
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


def _numeric(value: Sql, sql_type: Any) -> ColumnElement[Any]:
    if isinstance(sql_type, Float) and value.type.kind is Kind.INT:
        return cast(value.expr, Float())
    return value.expr


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
