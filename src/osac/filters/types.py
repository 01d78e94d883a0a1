"""The filter's view of proto types: what a field compares as, and how it is stored.

Two fields of the same CEL type can be stored differently (an int32 is a JSON number, an int64 a
JSON string), so a type carries both its ``Kind`` (for type checking) and its ``Encoding`` (for
extraction from the storage JSON, see ``osac.store.codec``).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor

from osac.model.protos import map_entry_of

TIMESTAMP_MESSAGE = "google.protobuf.Timestamp"


class Kind(enum.Enum):
    BOOL = "bool"
    INT = "int"
    DOUBLE = "double"
    STRING = "string"
    TIMESTAMP = "timestamp"
    DURATION = "duration"
    NULL = "null"
    LIST = "list"
    MAP = "map"
    MESSAGE = "message"
    #: Stored but not comparable here (bytes, Any, Struct, wrappers, Duration fields): has() only.
    OPAQUE = "opaque"


class Encoding(enum.Enum):
    """How a scalar sits in the storage JSON."""

    TEXT = "text"  # JSON string: string fields, Timestamps (fixed-width text)
    NUMBER = "number"  # JSON number: 32-bit integers, enums
    TEXT_INT = "text_int"  # JSON string holding a signed 64-bit integer
    TEXT_UINT = "text_uint"  # JSON string holding an unsigned 64-bit integer
    FLOAT = "float"  # JSON number: float, double
    BOOL = "bool"  # JSON true / false
    JSON = "json"  # object or array: messages, repeated and map fields
    NONE = "none"  # not stored (constants, computed values)


@dataclass(frozen=True)
class FilterType:
    kind: Kind
    encoding: Encoding = Encoding.NONE
    enum: EnumDescriptor | None = None
    message: Descriptor | None = None
    #: Element type of a list, value type of a map.
    element: FilterType | None = None
    #: Key type of a map.
    key: FilterType | None = None
    #: Proto type name of an opaque field, for messages.
    opaque_name: str = ""

    @property
    def is_numeric(self) -> bool:
        return self.kind in (Kind.INT, Kind.DOUBLE)

    @property
    def is_scalar(self) -> bool:
        return self.kind in (Kind.BOOL, Kind.INT, Kind.DOUBLE, Kind.STRING, Kind.TIMESTAMP, Kind.DURATION)

    def describe(self) -> str:
        """A readable type name for error messages: ``enum SubnetState``, ``list(string)``."""
        if self.enum is not None:
            return f"enum {self.enum.name}"
        if self.kind is Kind.MESSAGE and self.message is not None:
            return f"message {self.message.name}"
        if self.kind is Kind.LIST and self.element is not None:
            return f"list({self.element.describe()})"
        if self.kind is Kind.MAP and self.key is not None and self.element is not None:
            return f"map({self.key.describe()}, {self.element.describe()})"
        if self.kind is Kind.OPAQUE:
            return self.opaque_name
        return self.kind.value


BOOL = FilterType(Kind.BOOL)
INT = FilterType(Kind.INT)
DOUBLE = FilterType(Kind.DOUBLE)
STRING = FilterType(Kind.STRING)
TIMESTAMP = FilterType(Kind.TIMESTAMP)
DURATION = FilterType(Kind.DURATION)
NULL = FilterType(Kind.NULL)

_SCALARS: dict[int, FilterType] = {
    FieldDescriptor.TYPE_STRING: FilterType(Kind.STRING, Encoding.TEXT),
    FieldDescriptor.TYPE_BOOL: FilterType(Kind.BOOL, Encoding.BOOL),
    FieldDescriptor.TYPE_DOUBLE: FilterType(Kind.DOUBLE, Encoding.FLOAT),
    FieldDescriptor.TYPE_FLOAT: FilterType(Kind.DOUBLE, Encoding.FLOAT),
    FieldDescriptor.TYPE_INT32: FilterType(Kind.INT, Encoding.NUMBER),
    FieldDescriptor.TYPE_SINT32: FilterType(Kind.INT, Encoding.NUMBER),
    FieldDescriptor.TYPE_SFIXED32: FilterType(Kind.INT, Encoding.NUMBER),
    FieldDescriptor.TYPE_UINT32: FilterType(Kind.INT, Encoding.NUMBER),
    FieldDescriptor.TYPE_FIXED32: FilterType(Kind.INT, Encoding.NUMBER),
    FieldDescriptor.TYPE_INT64: FilterType(Kind.INT, Encoding.TEXT_INT),
    FieldDescriptor.TYPE_SINT64: FilterType(Kind.INT, Encoding.TEXT_INT),
    FieldDescriptor.TYPE_SFIXED64: FilterType(Kind.INT, Encoding.TEXT_INT),
    FieldDescriptor.TYPE_UINT64: FilterType(Kind.INT, Encoding.TEXT_UINT),
    FieldDescriptor.TYPE_FIXED64: FilterType(Kind.INT, Encoding.TEXT_UINT),
    FieldDescriptor.TYPE_BYTES: FilterType(Kind.OPAQUE, Encoding.TEXT, opaque_name="bytes"),
}


def field_type(field: FieldDescriptor) -> FilterType:
    """The filter type of a proto field (maps and repeated fields included)."""
    entry = map_entry_of(field)
    if entry is not None:
        return FilterType(
            Kind.MAP,
            Encoding.JSON,
            key=_single_type(entry.fields_by_name["key"]),
            element=_single_type(entry.fields_by_name["value"]),
        )
    single = _single_type(field)
    if field.is_repeated:
        return FilterType(Kind.LIST, Encoding.JSON, element=single)
    return single


def message_type(descriptor: Descriptor) -> FilterType:
    return FilterType(Kind.MESSAGE, Encoding.JSON, message=descriptor)


def _single_type(field: FieldDescriptor) -> FilterType:
    if field.type == FieldDescriptor.TYPE_ENUM:
        return FilterType(Kind.INT, Encoding.NUMBER, enum=field.enum_type)
    message = field.message_type
    if message is not None:
        if message.full_name == TIMESTAMP_MESSAGE:
            return FilterType(Kind.TIMESTAMP, Encoding.TEXT)
        if message.full_name.startswith("google.protobuf."):
            return FilterType(Kind.OPAQUE, Encoding.JSON, opaque_name=message.full_name)
        return message_type(message)
    return _SCALARS[field.type]


def enums_reachable(descriptor: Descriptor) -> list[EnumDescriptor]:
    """Every enum type used by a field below ``descriptor``, in a stable order."""
    found: dict[str, EnumDescriptor] = {}
    seen: set[str] = set()
    pending = [descriptor]
    while pending:
        current = pending.pop()
        if current.full_name in seen:
            continue
        seen.add(current.full_name)
        for field in current.fields:
            if field.enum_type is not None:
                found.setdefault(field.enum_type.full_name, field.enum_type)
            if field.message_type is not None:
                pending.append(field.message_type)
    return [found[name] for name in sorted(found)]
