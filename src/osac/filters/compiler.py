"""CEL filter -> one SQLAlchemy predicate over the storage JSON.

The expression is parsed (``syntax.py``), type-checked against the message descriptor of the
API called, and translated node by node; nothing is ever evaluated on fetched rows.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from functools import lru_cache
from typing import Any

from google.protobuf.descriptor import Descriptor
from sqlalchemy import Boolean, ColumnElement, and_, false, func, not_, or_, true

from osac.filters.arithmetic import arithmetic, negate
from osac.filters.cache import CompiledFilters
from osac.filters.dialect import JsonDialect
from osac.filters.enums import EnumIndex
from osac.filters.errors import FilterError
from osac.filters.functions import size, string_test, time_constant, unsupported
from osac.filters.macros import MAX_COMPREHENSION_NESTING, comprehension
from osac.filters.nesting import sql_nesting
from osac.filters.operands import Const, EnumName, EventValue, ListValue, Operand, Ref, Segment, Source, Sql
from osac.filters.postgresql import PostgresqlJson
from osac.filters.relations import compare, map_key, membership
from osac.filters.roots import EventRoot, FilterRoot, ObjectRoot
from osac.filters.sqlite import SqliteJson
from osac.filters.syntax import (
    Binary,
    Call,
    Ident,
    Index,
    ListLiteral,
    Literal,
    Logical,
    Node,
    Select,
    Unary,
    parse,
)
from osac.filters.times import datetime_to_nanos
from osac.filters.types import (
    BOOL,
    DOUBLE,
    INT,
    NULL,
    STRING,
    TIMESTAMP,
    FilterType,
    Kind,
    field_type,
    message_type,
)
from osac.filters.values import Context, as_predicate, describe, presence

_DIALECTS: dict[str, type[JsonDialect]] = {"sqlite": SqliteJson, "postgresql": PostgresqlJson}
_RELATIONS = ("==", "!=", "<", "<=", ">", ">=")

Scope = Mapping[str, Operand]


def compile_filter(expression: str, root: FilterRoot, *, dialect: str, now: datetime) -> ColumnElement[bool]:
    """The SQL predicate of a CEL filter, to put in the WHERE clause of a query over ``root``.

    An empty or blank expression is no filter: ``sqlalchemy.true()``. ``dialect`` is the
    SQLAlchemy dialect name (``"sqlite"`` or ``"postgresql"``); ``now`` (aware) is the request
    time that ``now`` stands for. Rows for which the expression is false or an error (a missing
    map key, a division by zero) do not match. A filter that does not name ``now`` is compiled
    once per expression, dialect and root, and then answered from ``COMPILED`` (``cache.py``).

    :raises FilterError: the expression is outside the supported subset or does not type-check
        against ``root.descriptor`` (the API maps it to INVALID_ARGUMENT).
    :raises ValueError: ``now`` is naive or ``dialect`` is not supported (caller bugs).
    """
    rules = json_dialect(dialect)
    now_nanos = datetime_to_nanos(now)
    if not expression.strip():
        return true()
    tree = parse(expression)
    return COMPILED.get_or_compile((expression, dialect, root), tree, lambda: _compile(tree, root, rules, now_nanos))


#: The compiled filters that do not name ``now``.
COMPILED = CompiledFilters()


def _compile(tree: Node, root: FilterRoot, rules: JsonDialect, now_nanos: int) -> ColumnElement[bool]:
    compiler = _Compiler(root, rules, now_nanos)
    result = compiler.compile(tree, compiler.scope)
    if not (isinstance(result, (Const, Ref, Sql)) and result.type.kind is Kind.BOOL):
        raise FilterError(f"the filter must be a boolean expression, got {describe(result)}")
    predicate = as_predicate(compiler.ctx, result, "the filter")
    if isinstance(predicate, Const):
        return true() if predicate.value else false()
    sql = predicate.expr
    if predicate.nullable:
        # An error (NULL) never matches, even when the caller negates or combines the filter.
        sql = func.coalesce(sql, false(), type_=Boolean)
    if isinstance(root, ObjectRoot) and root.labelled is not None:
        # Each hint is implied by a conjunct that every matching row satisfies: the rows are the
        # same, and the database can start from the label index.
        sql = and_(*(root.labelled(key, value) for key, value in compiler.label_conjuncts(tree)), sql)
    nesting, limit = sql_nesting(sql), rules.max_sql_nesting
    if nesting > limit:
        raise FilterError(
            f"expression is too complex for the database: its SQL nests {nesting} levels deep, at most "
            f"{limit} on {rules.name}; use fewer nested exists()/all(), arithmetic operators or parentheses"
        )
    return sql


def json_dialect(name: str) -> JsonDialect:
    """The JSON extraction rules of the SQL dialect ``name`` (``sqlite``, ``postgresql``)."""
    try:
        return _DIALECTS[name]()
    except KeyError:
        raise ValueError(f"unsupported SQL dialect {name!r}; expected one of {sorted(_DIALECTS)}") from None


class _Compiler:
    def __init__(self, root: FilterRoot, dialect: JsonDialect, now_nanos: int) -> None:
        now = Const(TIMESTAMP, now_nanos)
        if isinstance(root, ObjectRoot):
            this = Ref(message_type(root.descriptor), Source(root.data), (), "this", root.descriptor.name)
            self.scope: Scope = {"this": this, "now": now}
            variable = "this"
        else:
            self.scope = {"event": EventValue(root), "now": now}
            variable = "event"
        self.ctx = Context(dialect, _enum_index(root.descriptor, variable))
        self.hidden_fields = root.hidden_fields
        self.payloads: dict[str, Source] = {}
        self.comprehensions = 0  # exists()/all() being compiled around the current node

    def compile(self, node: Node, scope: Scope) -> Operand:
        if isinstance(node, Literal):
            return _constant(node.value)
        if isinstance(node, Ident):
            return scope.get(node.name) or EnumName(node.name)
        if isinstance(node, Select):
            return self._select(self.compile(node.operand, scope), node.field)
        if isinstance(node, Index):
            return self._index(self.compile(node.operand, scope), self.compile(node.index, scope))
        if isinstance(node, Call):
            return self._call(node, scope)
        if isinstance(node, Unary):
            return self._unary(node.op, self.compile(node.operand, scope))
        if isinstance(node, Logical):
            return self._logical(node.op, [self.compile(item, scope) for item in node.operands])
        if isinstance(node, ListLiteral):
            return ListValue(tuple(self.compile(item, scope) for item in node.items))
        left, right = self.compile(node.left, scope), self.compile(node.right, scope)
        if node.op in _RELATIONS:
            return compare(self.ctx, node.op, left, right)
        if node.op == "in":
            return membership(self.ctx, left, right)
        return arithmetic(self.ctx, node.op, left, right)

    def label_conjuncts(self, node: Node) -> list[tuple[str, str | None]]:
        """``(key, value)`` of each top-level conjunct ``this.metadata.labels[key] == 'value'``
        and ``(key, None)`` of each ``'key' in this.metadata.labels``: what every matching
        object's labels must hold."""
        if isinstance(node, Logical) and node.op == "&&":
            return [found for operand in node.operands for found in self.label_conjuncts(operand)]
        if not isinstance(node, Binary):
            return []
        if node.op == "==":
            for side, other in ((node.left, node.right), (node.right, node.left)):
                key = self._label_key(side)
                if key is not None and isinstance(other, Literal) and isinstance(other.value, str):
                    return [(key, other.value)]
        if node.op == "in" and isinstance(node.left, Literal) and isinstance(node.left.value, str):
            labels = self._labels_map(node.right)
            if labels:
                return [(node.left.value, None)]
        return []

    def _label_key(self, node: Node) -> str | None:
        if not isinstance(node, (Index, Select)):
            return None
        operand = node.operand
        if not self._labels_map(operand):
            return None
        if isinstance(node, Select):
            return node.field
        return node.index.value if isinstance(node.index, Literal) and isinstance(node.index.value, str) else None

    def _labels_map(self, node: Node) -> bool:
        """Whether ``node`` is ``this.metadata.labels`` (the object's own labels)."""
        return (
            isinstance(node, Select)
            and node.field == "labels"
            and isinstance(node.operand, Select)
            and node.operand.field == "metadata"
            and isinstance(node.operand.operand, Ident)
            and node.operand.operand.name == "this"
        )

    def _select(self, operand: Operand, name: str) -> Operand:
        if isinstance(operand, EventValue):
            return self._event_field(operand.root, name)
        if isinstance(operand, EnumName):
            return EnumName(f"{operand.name}.{name}")
        if isinstance(operand, Ref) and operand.type.kind is Kind.MESSAGE:
            descriptor = operand.type.message
            assert descriptor is not None
            field = descriptor.fields_by_name.get(name)
            segment = Segment(name)
            if field is None:
                shown = operand.child(segment, NULL).display
                known = ", ".join(item.name for item in descriptor.fields)
                raise FilterError(f"unknown field '{shown}' on {operand.owner}; known fields: {known}")
            if field.full_name in self.hidden_fields:
                shown = operand.child(segment, NULL).display
                raise FilterError(f"field '{shown}' is write-only and cannot be filtered on")
            return operand.child(segment, field_type(field))
        if isinstance(operand, Ref) and operand.type.kind is Kind.MAP:
            return self._index(operand, Const(STRING, name))
        raise FilterError(f"cannot select '{name}' from {describe(operand)}")

    def _index(self, operand: Operand, index: Operand) -> Operand:
        if isinstance(operand, Ref) and operand.type.kind is Kind.MAP:
            if not isinstance(index, Const):
                raise FilterError(
                    f"the index of {describe(operand)} must be a constant, e.g. {operand.display}['key']"
                )
            value_type = operand.type.element
            assert value_type is not None
            return operand.child(Segment(map_key(operand, index), is_key=True), value_type)
        if isinstance(operand, Ref) and operand.type.kind is Kind.LIST:
            raise FilterError(f"indexing {describe(operand)} is not supported; use 'in', exists() or all()")
        raise FilterError(f"cannot index {describe(operand)}")

    def _event_field(self, root: EventRoot, name: str) -> Operand:
        descriptor = root.descriptor
        field = descriptor.fields_by_name.get(name)
        if field is None:
            known = ", ".join(item.name for item in descriptor.fields)
            raise FilterError(f"unknown field 'event.{name}' on {descriptor.name}; known fields: {known}")
        oneof = field.containing_oneof
        if oneof is not None and oneof.name == root.payload_oneof and field.message_type is not None:
            # One Source per payload: its guard is then recognised where it already holds.
            source = self.payloads.get(name)
            if source is None:
                source = self.payloads[name] = Source(root.data_column, guard=root.kind_column == name)
            return Ref(message_type(field.message_type), source, (), f"event.{name}", descriptor.name)
        columns: dict[str, ColumnElement[Any] | None] = {
            "type": root.type_column,
            "revision": root.revision_column,
            "id": root.id_column,
        }
        column = columns.get(name)
        if column is None:
            raise FilterError(
                f"field 'event.{name}' cannot be filtered; filter on event.type or on a payload "
                f"(has(event.<kind>), event.<kind>.metadata.name == ...)"
            )
        return Sql(field_type(field), column)

    def _call(self, node: Call, scope: Scope) -> Operand:
        name, args = node.function, node.args
        if name == "has":
            if node.target is not None or len(args) != 1 or not isinstance(args[0], (Select, Index)):
                raise FilterError(
                    "has() takes one field selection, e.g. has(this.metadata.deletion_timestamp)"
                )
            operand = self._known(self.compile(args[0], scope))
            if not isinstance(operand, Ref):
                raise FilterError(f"has() applies to fields of the object, not {describe(operand)}")
            return presence(self.ctx, operand)
        if name in ("exists", "all"):
            if node.target is None or len(args) != 2 or not isinstance(args[0], Ident):
                raise FilterError(f"{name}() is written list.{name}(x, predicate over x)")
            variable, body = args[0].name, args[1]
            target = self._known(self.compile(node.target, scope))
            if self.comprehensions >= MAX_COMPREHENSION_NESTING:
                raise FilterError(
                    f"exists() and all() nest at most {MAX_COMPREHENSION_NESTING} levels deep; this "
                    f"{name}() is level {self.comprehensions + 1}"
                )
            self.comprehensions += 1
            try:
                return comprehension(
                    self.ctx, name, target, variable, lambda item: self.compile(body, {**scope, variable: item})
                )
            finally:
                self.comprehensions -= 1
        if name == "size":
            operands = ([node.target] if node.target is not None else []) + list(args)
            if len(operands) != 1:
                raise FilterError("size() takes one argument: size(x) or x.size()")
            return size(self.ctx, self._known(self.compile(operands[0], scope)))
        if name in ("startsWith", "endsWith", "contains"):
            if node.target is None or len(args) != 1:
                raise FilterError(f"{name}() is written text.{name}('part')")
            target, argument = self.compile(node.target, scope), self.compile(args[0], scope)
            return string_test(self.ctx, name, self._known(target), self._known(argument))
        if name in ("timestamp", "duration"):
            if node.target is not None or len(args) != 1:
                raise FilterError(f'{name}() takes one string, e.g. {name}("...")')
            return time_constant(name, self._known(self.compile(args[0], scope)))
        raise unsupported(name)

    def _known(self, operand: Operand) -> Operand:
        """An identifier that is no variable must name an enum value (else: unknown identifier)."""
        if isinstance(operand, EnumName):
            enum, number = self.ctx.enums.resolve(operand.name)
            return Const(FilterType(Kind.INT, enum=enum), number)
        return operand

    def _unary(self, op: str, operand: Operand) -> Operand:
        if op == "-":
            return negate(self.ctx, operand)
        value = as_predicate(self.ctx, operand, "operator '!'")
        if isinstance(value, Const):
            return Const(BOOL, not value.value)
        return Sql(BOOL, not_(value.expr), value.nullable)

    def _logical(self, op: str, operands: list[Operand]) -> Operand:
        absorbing = op == "||"  # true absorbs ||, false absorbs &&
        parts: list[Sql] = []
        for operand in operands:
            value = as_predicate(self.ctx, operand, f"operator '{op}'")
            if isinstance(value, Const):
                if value.value == absorbing:
                    return Const(BOOL, absorbing)
                continue
            parts.append(value)
        if not parts:
            return Const(BOOL, not absorbing)
        combine = or_ if absorbing else and_
        return Sql(BOOL, combine(*(part.expr for part in parts)), any(part.nullable for part in parts))


@lru_cache(maxsize=256)
def _enum_index(descriptor: Descriptor, variable: str) -> EnumIndex:
    return EnumIndex(descriptor, variable)


def _constant(value: object) -> Const:
    if value is None:
        return Const(NULL, None)
    if isinstance(value, bool):
        return Const(BOOL, value)
    if isinstance(value, int):
        return Const(INT, value)
    if isinstance(value, float):
        return Const(DOUBLE, value)
    return Const(STRING, value)
