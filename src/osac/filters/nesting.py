"""How deeply a compiled predicate nests, as the SQL parsers see it.

SQLite parses with a fixed stack of 100 entries (before 3.46): every construct that is still
open where a nested expression starts holds some of them (``f(`` three, ``CASE WHEN ... THEN``
five, ``(SELECT ... WHERE`` about eight). A predicate nested beyond that fails in the database
with "parser stack overflow", long after the filter was accepted. ``sql_nesting`` adds up those
costs along the deepest path of the SQLAlchemy expression, each at least what SQLite charges,
so that ``compile_filter`` can refuse such a filter up front. On PostgreSQL, a looser bound keeps
SQLAlchemy's recursive statement compiler far from Python's recursion limit.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.sql.elements import (
    BinaryExpression,
    BindParameter,
    BooleanClauseList,
    Case,
    Cast,
    ClauseElement,
    ClauseList,
    ColumnClause,
    Label,
    TypeCoerce,
    UnaryExpression,
)
from sqlalchemy.sql.functions import FunctionElement
from sqlalchemy.sql.selectable import FromClause, Select

#: Parser stack entries a compiled filter may hold on SQLite, which has 100; the statement
#: around the filter (``SELECT ... FROM t WHERE tenancy AND filter ORDER BY ... LIMIT``) holds
#: up to ten.
MAX_SQL_NESTING_SQLITE = 88
#: PostgreSQL's parser has no fixed stack; the bound there keeps SQLAlchemy's recursive
#: statement compiler far below Python's recursion limit (it fails near 250 in a deep call).
MAX_SQL_NESTING_POSTGRESQL = 160


#: Entries held while a child of the construct is parsed (measured on SQLite 3.40, rounded up).
_SELECT_COLUMN = 5  # (SELECT x
_SELECT_FROM = 5  # (SELECT 1 FROM f( ; the function adds its own
_SELECT_WHERE = 7  # (SELECT 1 FROM f(a) WHERE x
_SELECT_TAIL = 10  # (SELECT 1 FROM f(a) ORDER BY x / LIMIT x
_CASE_VALUE = 1  # CASE x WHEN
_CASE_WHEN = 4  # CASE WHEN x THEN
_CASE_RESULT = 6  # CASE WHEN a THEN x, ELSE x
_FUNCTION = 2  # name( ; the argument list adds its own
_LIST_TAIL = 2  # a, b: an item after the first ('exprlist ,', 'expr AND')
_OPERATOR = 3  # a = b: the right operand
_CAST = 2  # CAST( x AS type
_DEFAULT = 1  # a parenthesis, NOT, EXISTS, IS, a table-valued function's alias


def sql_nesting(expression: ClauseElement) -> int:
    """The parser stack entries the deepest part of ``expression`` needs (an upper bound)."""
    deepest = 0
    pending: list[tuple[ClauseElement, int]] = [(expression, 0)]
    while pending:  # iterative: the point is to measure trees too deep to recurse over
        element, depth = pending.pop()
        deepest = max(deepest, depth)
        for index, child in enumerate(_children(element)):
            pending.append((child, depth + _cost(element, child, index)))
    return deepest


def _children(element: ClauseElement) -> list[ClauseElement]:
    if isinstance(element, (ColumnClause, BindParameter)):
        return []  # a column of a table or of a json_each row: its FROM is walked where it is listed
    if isinstance(element, FromClause) and not isinstance(element, FunctionElement) and not _is_function_table(element):
        return []  # a plain table
    children: list[Any] = list(element.get_children())
    return [child for child in children if isinstance(child, ClauseElement)]


def _is_function_table(element: FromClause) -> bool:
    """A table-valued function (``json_each(...) AS anon``) whose arguments are expressions."""
    return isinstance(getattr(element, "element", None), FunctionElement)


def _cost(element: ClauseElement, child: ClauseElement, index: int) -> int:
    if isinstance(element, Select):
        return _select_cost(element, child)
    if isinstance(element, Case):
        return _case_cost(element, child)
    if isinstance(element, FunctionElement):
        return _FUNCTION
    if isinstance(element, (BooleanClauseList, ClauseList)):
        return _LIST_TAIL if index else 0
    if isinstance(element, BinaryExpression):
        return _OPERATOR if index else 0
    if isinstance(element, Cast):
        return _CAST
    if isinstance(element, (TypeCoerce, Label)):
        return 0
    if isinstance(element, UnaryExpression) and element.operator is None:
        return 0  # a postfix modifier (DESC)
    return _DEFAULT


def _select_cost(select: Select[Any], child: ClauseElement) -> int:
    if any(child is column for column in select._raw_columns):
        return _SELECT_COLUMN
    if select.whereclause is not None and child is select.whereclause:
        return _SELECT_WHERE
    if any(child is item for item in select.get_final_froms()):
        return _SELECT_FROM
    return _SELECT_TAIL


def _case_cost(case: Case[Any], child: ClauseElement) -> int:
    if case.value is not None and child is case.value:
        return _CASE_VALUE
    if any(child is condition for condition, _ in case.whens):
        return _CASE_WHEN
    return _CASE_RESULT
