"""Parsing: CEL text -> a small typed syntax tree.

cel-python's Lark grammar wraps every expression in one node per precedence level; this module
strips those wrappers and rejects, by name, the constructs the filter subset never supports
(the conditional operator, map literals, message construction, leading-dot names, bytes).
What remains is checked and translated by ``compiler.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import lark
import lark.exceptions
from celpy.celparser import CELParseError, CELParser

from osac.filters.errors import FilterError
from osac.filters.literals import decode_int, decode_string

#: Longest accepted expression, in characters (a list of a few hundred ids still fits).
MAX_LENGTH = 16_384
#: Deepest accepted nesting of the syntax tree (chains of && and || count as one level).
MAX_DEPTH = 64


@dataclass(frozen=True, slots=True)
class Literal:
    """A constant: str, int, float, bool or None (``null``)."""

    value: str | int | float | bool | None


@dataclass(frozen=True, slots=True)
class Ident:
    name: str


@dataclass(frozen=True, slots=True)
class Select:
    """``operand.field``."""

    operand: Node
    field: str


@dataclass(frozen=True, slots=True)
class Index:
    """``operand[index]``."""

    operand: Node
    index: Node


@dataclass(frozen=True, slots=True)
class Call:
    """``function(args)`` (``target`` is None) or ``target.function(args)``."""

    function: str
    target: Node | None
    args: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Unary:
    """``!operand`` or ``-operand``."""

    op: str
    operand: Node


@dataclass(frozen=True, slots=True)
class Binary:
    """A relation (``== != < <= > >= in``) or arithmetic (``+ - * / %``)."""

    op: str
    left: Node
    right: Node


@dataclass(frozen=True, slots=True)
class Logical:
    """A chain of ``&&`` or ``||`` (flattened, so long chains stay shallow)."""

    op: str
    operands: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class ListLiteral:
    items: tuple[Node, ...]


Node = Literal | Ident | Select | Index | Call | Unary | Binary | Logical | ListLiteral

_RELATIONS = {
    "relation_lt": "<",
    "relation_le": "<=",
    "relation_gt": ">",
    "relation_ge": ">=",
    "relation_eq": "==",
    "relation_ne": "!=",
    "relation_in": "in",
}
_ARITHMETIC = {
    "addition_add": "+",
    "addition_sub": "-",
    "multiplication_mul": "*",
    "multiplication_div": "/",
    "multiplication_mod": "%",
}
#: Grammar levels that hold a single child when no operator of their level is present.
_WRAPPERS = {
    "expr",
    "conditionalor",
    "conditionaland",
    "relation",
    "addition",
    "multiplication",
    "unary",
    "member",
    "primary",
}


@lru_cache(maxsize=1024)
def parse(expression: str) -> Node:
    """The syntax tree of ``expression``; raises FilterError on a syntax error.

    Parsing costs milliseconds (Lark) and the tree is immutable (frozen dataclasses), so the
    trees of the most recent 1,024 expressions are kept: a List or Watch repeating a filter, a
    console page counting by state, pays only the compile to SQL."""
    if len(expression) > MAX_LENGTH:
        raise FilterError(f"expression is too long ({len(expression)} characters, at most {MAX_LENGTH})")
    try:
        tree = CELParser().parse(expression)
    except CELParseError as error:
        raise FilterError(_describe_syntax_error(expression, error)) from None
    try:
        return _Converter().convert(tree, 0)
    except RecursionError:
        raise FilterError(f"expression is nested too deeply (at most {MAX_DEPTH} levels)") from None


def _describe_syntax_error(expression: str, error: CELParseError) -> str:
    hint = 'check operators, parentheses and quotes (e.g. this.metadata.name == "web")'
    cause = error.__context__
    if isinstance(cause, lark.exceptions.UnexpectedToken) and cause.token.type == "$END":
        return f"syntax error: the expression ends too early; {hint}"
    line, column = error.line, error.column
    if line is None or column is None:
        return f"syntax error; {hint}"
    lines = expression.splitlines() or [""]
    near = lines[line - 1][column - 1 : column + 9]
    where = f"column {column}" if line == 1 else f"line {line}, column {column}"
    return f"syntax error at {where} near '{near}'; {hint}"


class _Converter:
    def convert(self, tree: lark.Tree | lark.Token, depth: int) -> Node:
        if depth > MAX_DEPTH:
            raise FilterError(f"expression is nested too deeply (at most {MAX_DEPTH} levels)")
        assert isinstance(tree, lark.Tree)
        while tree.data in _WRAPPERS and len(tree.children) == 1 and isinstance(tree.children[0], lark.Tree):
            tree = tree.children[0]
        handler = getattr(self, f"_{tree.data}", None)
        if handler is None:
            raise FilterError(f"unsupported syntax '{tree.data}'")
        node: Node = handler(tree, depth + 1)
        return node

    def _children(self, tree: lark.Tree, depth: int) -> tuple[Node, ...]:
        return tuple(self.convert(child, depth) for child in tree.children)

    def _expr(self, tree: lark.Tree, depth: int) -> Node:
        raise FilterError("the conditional operator '? :' is not supported; use && and ||")

    def _conditionalor(self, tree: lark.Tree, depth: int) -> Node:
        return self._chain(tree, "||", depth)

    def _conditionaland(self, tree: lark.Tree, depth: int) -> Node:
        return self._chain(tree, "&&", depth)

    def _chain(self, tree: lark.Tree, op: str, depth: int) -> Node:
        # The grammar is left-recursive: ((a || b) || c) arrives as a left-deep tree.
        operands: list[lark.Tree | lark.Token] = []
        while len(tree.children) == 2:
            left, right = tree.children
            assert isinstance(left, lark.Tree)
            operands.append(right)
            tree = left
        operands.append(tree)
        return Logical(op, tuple(self.convert(item, depth) for item in reversed(operands)))

    def _relation(self, tree: lark.Tree, depth: int) -> Node:
        return self._binary(tree, _RELATIONS, depth)

    def _addition(self, tree: lark.Tree, depth: int) -> Node:
        return self._binary(tree, _ARITHMETIC, depth)

    def _multiplication(self, tree: lark.Tree, depth: int) -> Node:
        return self._binary(tree, _ARITHMETIC, depth)

    def _binary(self, tree: lark.Tree, operators: dict[str, str], depth: int) -> Node:
        operator_tree, right = tree.children
        assert isinstance(operator_tree, lark.Tree)
        (left,) = operator_tree.children
        return Binary(
            operators[str(operator_tree.data)], self.convert(left, depth), self.convert(right, depth)
        )

    def _unary(self, tree: lark.Tree, depth: int) -> Node:
        operator_tree, operand = tree.children
        assert isinstance(operator_tree, lark.Tree)
        op = "!" if operator_tree.data == "unary_not" else "-"
        return Unary(op, self.convert(operand, depth))

    def _member_dot(self, tree: lark.Tree, depth: int) -> Node:
        operand, name = tree.children
        return Select(self.convert(operand, depth), str(name))

    def _member_dot_arg(self, tree: lark.Tree, depth: int) -> Node:
        operand, name, *rest = tree.children
        return Call(str(name), self.convert(operand, depth), self._arguments(rest, depth))

    def _member_index(self, tree: lark.Tree, depth: int) -> Node:
        operand, index = tree.children
        return Index(self.convert(operand, depth), self.convert(index, depth))

    def _member_object(self, tree: lark.Tree, depth: int) -> Node:
        raise FilterError("message construction 'Type{...}' is not supported")

    def _dot_ident(self, tree: lark.Tree, depth: int) -> Node:
        raise FilterError(f"leading-dot name '.{tree.children[0]}' is not supported")

    _dot_ident_arg = _dot_ident

    def _ident_arg(self, tree: lark.Tree, depth: int) -> Node:
        name, *rest = tree.children
        return Call(str(name), None, self._arguments(rest, depth))

    def _ident(self, tree: lark.Tree, depth: int) -> Node:
        return Ident(str(tree.children[0]))

    def _paren_expr(self, tree: lark.Tree, depth: int) -> Node:
        return self.convert(tree.children[0], depth)

    def _list_lit(self, tree: lark.Tree, depth: int) -> Node:
        return ListLiteral(self._arguments(tree.children, depth))

    def _map_lit(self, tree: lark.Tree, depth: int) -> Node:
        raise FilterError("map literals '{...}' are not supported")

    def _arguments(self, rest: list[lark.Tree | lark.Token], depth: int) -> tuple[Node, ...]:
        if not rest:
            return ()
        (exprlist,) = rest
        assert isinstance(exprlist, lark.Tree)
        return self._children(exprlist, depth)

    def _literal(self, tree: lark.Tree, depth: int) -> Node:
        token = tree.children[0]
        assert isinstance(token, lark.Token)
        kind, text = token.type, str(token)
        if kind in ("STRING_LIT", "MLSTRING_LIT"):
            return Literal(decode_string(text))
        if kind in ("INT_LIT", "UINT_LIT"):
            return Literal(decode_int(text))
        if kind == "FLOAT_LIT":
            return Literal(float(text))
        if kind == "BOOL_LIT":
            return Literal(text == "true")
        if kind == "NULL_LIT":
            return Literal(None)
        raise FilterError(f"bytes literal {text} is not supported")
