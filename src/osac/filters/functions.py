"""Functions of the subset: ``has``, ``size``, ``startsWith``, ``endsWith``, ``contains``,
``timestamp`` and ``duration``. Macros (``exists``, ``all``) live in ``macros.py``."""

from __future__ import annotations

from osac.filters.dialect import count_rows
from osac.filters.errors import FilterError
from osac.filters.operands import Const, Operand, Ref, Sql
from osac.filters.times import parse_duration, parse_timestamp
from osac.filters.types import BOOL, DURATION, INT, TIMESTAMP, Kind
from osac.filters.values import Context, describe, guards, to_sql, when

SUPPORTED = ("has", "size", "startsWith", "endsWith", "contains", "exists", "all", "timestamp", "duration")


def unsupported(name: str) -> FilterError:
    if name == "matches":
        return FilterError(
            "unsupported function 'matches': regular expressions are not supported; "
            "use startsWith(), endsWith() or contains()"
        )
    if name in ("map", "filter", "exists_one", "existsOne"):
        return FilterError(f"unsupported macro '{name}'; supported macros: has(), exists(), all()")
    return FilterError(f"unsupported function '{name}'; supported: {', '.join(SUPPORTED)}")


def size(ctx: Context, operand: Operand) -> Operand:
    """Elements of a list, entries of a map, characters of a string."""
    if isinstance(operand, Const) and operand.type.kind is Kind.STRING:
        return Const(INT, len(operand.value))
    if isinstance(operand, Ref) and operand.type.kind in (Kind.LIST, Kind.MAP):
        conditions = guards(ctx, operand, len(operand.path))
        if operand.type.kind is Kind.LIST:
            count = ctx.dialect.array_length(operand.source, operand.keys)
        else:
            rows, _, _ = ctx.dialect.map_entries(operand.source, operand.keys)
            count = count_rows(rows)
        return Sql(INT, when(conditions, count), bool(conditions))
    if isinstance(operand, (Ref, Sql)) and operand.type.kind is Kind.STRING:
        value = to_sql(ctx, operand)
        return Sql(INT, ctx.dialect.string_length(value.expr), value.nullable)
    raise FilterError(f"size() applies to strings, repeated and map fields, not {describe(operand)}")


def string_test(ctx: Context, name: str, target: Operand, argument: Operand) -> Operand:
    """``target.startsWith(argument)`` and friends; case-sensitive, no wildcards."""
    for operand in (target, argument):
        if not (isinstance(operand, (Const, Ref, Sql)) and operand.type.kind is Kind.STRING):
            raise FilterError(f"{name}() applies to strings, not {describe(operand)}")
    assert isinstance(target, (Const, Ref, Sql)) and isinstance(argument, (Const, Ref, Sql))
    if isinstance(target, Const) and isinstance(argument, Const):
        text, part = target.value, argument.value
        folded = {
            "startsWith": text.startswith(part),
            "endsWith": text.endswith(part),
            "contains": part in text,
        }
        return Const(BOOL, folded[name])
    text_sql = to_sql(ctx, target)
    tests = {
        "startsWith": ctx.dialect.starts_with,
        "endsWith": ctx.dialect.ends_with,
        "contains": ctx.dialect.contains,
    }
    if isinstance(argument, Const):
        return Sql(BOOL, tests[name](text_sql.expr, argument.value), text_sql.nullable)
    part_sql = to_sql(ctx, argument)
    return Sql(BOOL, tests[name](text_sql.expr, part_sql.expr), text_sql.nullable or part_sql.nullable)


def time_constant(name: str, argument: Operand) -> Const:
    """``timestamp("...")`` and ``duration("...")`` of a constant string."""
    if not (isinstance(argument, Const) and argument.type.kind is Kind.STRING):
        raise FilterError(f'{name}() needs a string literal, e.g. {name}("{_EXAMPLES[name]}")')
    if name == "timestamp":
        return Const(TIMESTAMP, parse_timestamp(argument.value))
    return Const(DURATION, parse_duration(argument.value))


_EXAMPLES = {"timestamp": "2026-01-02T03:04:05Z", "duration": "1h30m"}
