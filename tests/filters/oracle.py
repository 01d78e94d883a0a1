"""A reference evaluator of the filter subset, in Python, over proto messages.

It reads fields with protobuf semantics (an unset field is its zero value) rather than from the
storage JSON, and models CEL errors (a missing map key, an absent event payload, a division by
zero) as ``ERROR`` with CEL's rules for ``&&``, ``||``, ``!``, ``exists`` and ``all``. A row
matches when the result is ``True``. Timestamps and durations are parsed with celpy's own types,
independently of ``osac.filters.times``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from celpy import celtypes
from google.protobuf.descriptor import EnumDescriptor, FieldDescriptor, FileDescriptor
from google.protobuf.message import Message

from osac.filters import syntax
from osac.filters.syntax import Binary, Call, Ident, Index, ListLiteral, Literal, Logical, Select, Unary


class _Error:
    def __repr__(self) -> str:
        return "ERROR"


ERROR: Any = _Error()
_NANOS = 10**9
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


@dataclass(frozen=True, order=True)
class Ts:
    nanos: int


@dataclass(frozen=True, order=True)
class Dur:
    nanos: int


class EnumInt(int):
    enum: EnumDescriptor

    def __new__(cls, value: int, enum: EnumDescriptor) -> EnumInt:
        instance = super().__new__(cls, value)
        instance.enum = enum
        return instance


@dataclass(frozen=True)
class EnumName:
    name: str


def evaluate(
    expression: str,
    *,
    files: list[FileDescriptor],
    now_nanos: int,
    this: Message | None = None,
    event: Message | None = None,
) -> Any:
    """True, False or ERROR."""
    scope: dict[str, Any] = {"now": Ts(now_nanos)}
    if this is not None:
        scope["this"] = this
    if event is not None:
        scope["event"] = _EventView(event)
    enums: dict[str, EnumDescriptor] = {}
    for file in files:
        for enum in file.enum_types_by_name.values():
            for value in enum.values:
                enums[value.name] = enum
    return _Evaluator(enums).eval(syntax.parse(expression), scope)


@dataclass(frozen=True)
class _EventView:
    message: Message


class _Evaluator:
    def __init__(self, enums: dict[str, EnumDescriptor]) -> None:
        self.enums = enums

    def eval(self, node: syntax.Node, scope: dict[str, Any]) -> Any:
        if isinstance(node, Literal):
            return node.value
        if isinstance(node, Ident):
            return scope[node.name] if node.name in scope else EnumName(node.name)
        if isinstance(node, Select):
            return self.select(self.eval(node.operand, scope), node.field)
        if isinstance(node, Index):
            base, key = self.eval(node.operand, scope), self.eval(node.index, scope)
            return base.get(key, ERROR) if isinstance(base, dict) else ERROR
        if isinstance(node, ListLiteral):
            return [self.eval(item, scope) for item in node.items]
        if isinstance(node, Unary):
            value = self.eval(node.operand, scope)
            if value is ERROR:
                return ERROR
            if node.op == "!":
                return not value
            value = self.number(value)
            if isinstance(value, Dur):
                return Dur(-value.nanos)
            if isinstance(value, int) and not _INT64_MIN <= -value <= _INT64_MAX:
                return ERROR
            return -value
        if isinstance(node, Logical):
            values = [self.eval(item, scope) for item in node.operands]
            decisive = node.op == "||"
            if any(value is decisive for value in values):
                return decisive
            if any(value is ERROR for value in values):
                return ERROR
            return not decisive
        if isinstance(node, Call):
            return self.call(node, scope)
        assert isinstance(node, Binary)
        if node.op in ("==", "!=") and (_is_null(node.left) or _is_null(node.right)):
            field = node.right if _is_null(node.left) else node.left
            if _is_null(field):
                return node.op == "=="
            present = self.has(field, scope)
            return ERROR if present is ERROR else (present if node.op == "!=" else not present)
        left, right = self.eval(node.left, scope), self.eval(node.right, scope)
        if node.op == "in":
            return self.member(left, right)
        if left is ERROR or right is ERROR:
            return ERROR
        if node.op in ("==", "!=", "<", "<=", ">", ">="):
            left, right = self.resolve(left, right), self.resolve(right, left)
            return {
                "==": left == right,
                "!=": left != right,
                "<": left < right,
                "<=": left <= right,
                ">": left > right,
                ">=": left >= right,
            }[node.op]
        return self.arithmetic(node.op, self.number(left), self.number(right))

    def select(self, base: Any, name: str) -> Any:
        if base is ERROR:
            return ERROR
        if isinstance(base, EnumName):
            return EnumName(f"{base.name}.{name}")
        if isinstance(base, _EventView):
            field = base.message.DESCRIPTOR.fields_by_name[name]
            if (
                field.containing_oneof is not None
                and base.message.WhichOneof(field.containing_oneof.name) != name
            ):
                return ERROR
            return _read(base.message, name)
        if isinstance(base, dict):
            return base.get(name, ERROR)
        return _read(base, name)

    def has(self, node: syntax.Node, scope: dict[str, Any]) -> Any:
        if isinstance(node, Index):
            base, key = self.eval(node.operand, scope), self.eval(node.index, scope)
            return ERROR if base is ERROR else key in base
        assert isinstance(node, Select)
        base = self.eval(node.operand, scope)
        if base is ERROR:
            return ERROR
        if isinstance(base, dict):
            return node.field in base
        message = base.message if isinstance(base, _EventView) else base
        field = message.DESCRIPTOR.fields_by_name[node.field]
        if field.containing_oneof is not None and isinstance(base, _EventView):
            return message.WhichOneof(field.containing_oneof.name) == node.field
        if field.is_repeated:
            return len(getattr(message, node.field)) > 0
        if field.type == FieldDescriptor.TYPE_MESSAGE or field.has_presence:
            return message.HasField(node.field)
        return getattr(message, node.field) != field.default_value

    def resolve(self, value: Any, other: Any) -> Any:
        """Enum names (bare or strings) as numbers of the other side's enum."""
        enum = other.enum if isinstance(other, EnumInt) else None
        if isinstance(value, EnumName):
            name = value.name.rpartition(".")[2]
            enum = enum or self.enums[name]
            return EnumInt(enum.values_by_name[name].number, enum)
        if isinstance(value, str) and enum is not None:
            return EnumInt(enum.values_by_name[value].number, enum)
        return value

    def number(self, value: Any) -> Any:
        if isinstance(value, EnumName):
            return self.resolve(value, None)
        return value

    def member(self, element: Any, container: Any) -> Any:
        if element is ERROR or container is ERROR:
            return ERROR
        if isinstance(container, dict):
            return element in container
        results = []
        for item in container:
            if item is ERROR:
                results.append(ERROR)
                continue
            results.append(self.resolve(element, item) == self.resolve(item, element))
        if any(result is True for result in results):
            return True
        return ERROR if any(result is ERROR for result in results) else False

    def arithmetic(self, op: str, a: Any, b: Any) -> Any:
        if isinstance(a, (Ts, Dur)) or isinstance(b, (Ts, Dur)):
            if op == "+" and isinstance(a, Ts) and isinstance(b, Dur):
                return Ts(a.nanos + b.nanos)
            if op == "-" and isinstance(a, Ts) and isinstance(b, Dur):
                return Ts(a.nanos - b.nanos)
            if op == "-" and isinstance(a, Ts) and isinstance(b, Ts):
                return Dur(a.nanos - b.nanos)
            raise AssertionError(f"oracle: {op} on {a!r} {b!r}")
        if op == "+" and isinstance(a, str):
            return a + b
        if op in ("/", "%") and b == 0:
            return ERROR
        if isinstance(a, float) or isinstance(b, float):
            return {"+": a + b, "-": a - b, "*": a * b, "/": a / b if b else 0.0}[op]
        quotient = _trunc_div(a, b) if b else 0
        result = {"+": a + b, "-": a - b, "*": a * b, "/": quotient, "%": a - b * quotient}[op]
        return result if _INT64_MIN <= result <= _INT64_MAX else ERROR

    def call(self, node: Call, scope: dict[str, Any]) -> Any:
        name = node.function
        if name == "has":
            return self.has(node.args[0], scope)
        if name in ("timestamp", "duration"):
            text = self.eval(node.args[0], scope)
            if name == "duration":
                return Dur(_micros(celtypes.DurationType(text)) * 1000)
            moment = celtypes.TimestampType(text)
            epoch = celtypes.TimestampType("1970-01-01T00:00:00Z")
            return Ts(_micros(moment - epoch) * 1000)
        if name in ("exists", "all"):
            assert node.target is not None and isinstance(node.args[0], Ident)
            container = self.eval(node.target, scope)
            if container is ERROR:
                return ERROR
            items = list(container) if isinstance(container, dict) else container
            variable = node.args[0].name
            results = [self.eval(node.args[1], {**scope, variable: item}) for item in items]
            decisive = name == "exists"
            if any(result is decisive for result in results):
                return decisive
            return ERROR if any(result is ERROR for result in results) else not decisive
        operands = [self.eval(arg, scope) for arg in ([node.target] if node.target else []) + list(node.args)]
        if any(operand is ERROR for operand in operands):
            return ERROR
        if name == "size":
            return len(operands[0])
        text, part = operands
        return {"startsWith": text.startswith, "endsWith": text.endswith, "contains": text.__contains__}[
            name
        ](part)


def _read(message: Message, name: str) -> Any:
    field = message.DESCRIPTOR.fields_by_name[name]
    value = getattr(message, name)
    entry = field.message_type
    if entry is not None and entry.GetOptions().map_entry:
        value_field = entry.fields_by_name["value"]
        return {key: _single(value_field, item) for key, item in value.items()}
    if field.is_repeated:
        return [_single(field, item) for item in value]
    return _single(field, value)


def _single(field: FieldDescriptor, value: Any) -> Any:
    if field.type == FieldDescriptor.TYPE_ENUM:
        return EnumInt(value, field.enum_type)
    if field.message_type is not None and field.message_type.full_name == "google.protobuf.Timestamp":
        return Ts(value.seconds * _NANOS + value.nanos)
    return value


def _is_null(node: syntax.Node) -> bool:
    return isinstance(node, Literal) and node.value is None


def _micros(delta: Any) -> int:
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def _trunc_div(a: int, b: int) -> int:
    quotient = abs(a) // abs(b)
    return quotient if (a < 0) == (b < 0) else -quotient
