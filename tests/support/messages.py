"""Hypothesis strategies for protobuf messages of any type, drawn from their descriptors: every
field kind (scalars, enums with unknown numbers, repeated fields, maps, oneofs, well-known types,
set-but-empty messages), nested to a bounded depth."""

from __future__ import annotations

from typing import Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass
from hypothesis import strategies as st

F = FieldDescriptor
INT32 = st.integers(-(2**31), 2**31 - 1)
INT64 = st.integers(-(2**63), 2**63 - 1)
UINT32 = st.integers(0, 2**32 - 1)
UINT64 = st.integers(0, 2**64 - 1)
SCALARS: dict[int, st.SearchStrategy[Any]] = {
    F.TYPE_STRING: st.text(max_size=8),
    F.TYPE_BYTES: st.binary(max_size=8),
    F.TYPE_BOOL: st.booleans(),
    F.TYPE_INT32: INT32, F.TYPE_SINT32: INT32, F.TYPE_SFIXED32: INT32,
    F.TYPE_INT64: INT64, F.TYPE_SINT64: INT64, F.TYPE_SFIXED64: INT64,
    F.TYPE_UINT32: UINT32, F.TYPE_FIXED32: UINT32,
    F.TYPE_UINT64: UINT64, F.TYPE_FIXED64: UINT64,
    F.TYPE_DOUBLE: st.floats(allow_nan=False, width=64),
    F.TYPE_FLOAT: st.floats(allow_nan=False, width=32),
}
TIMESTAMP = "google.protobuf.Timestamp"
DURATION = "google.protobuf.Duration"


def messages(cls: type[Message], depth: int = 4) -> st.SearchStrategy[Message]:
    """Messages of ``cls`` with a random subset of their fields set."""
    return st.composite(lambda draw: _fill(draw, cls(), depth))()


def _fill(draw: st.DrawFn, message: Message, depth: int) -> Message:
    descriptor = message.DESCRIPTOR
    if descriptor.full_name == TIMESTAMP:
        message.seconds = draw(st.integers(-62135596800, 253402300799))  # years 1 to 9999
        message.nanos = draw(st.integers(0, 999_999_999))
        return message
    if descriptor.full_name == DURATION:
        message.seconds = draw(st.integers(0, 315576000000))
        message.nanos = draw(st.integers(0, 999_999_999))
        return message
    if descriptor.full_name.startswith("google.protobuf."):
        return message  # Any, Struct, ...: left empty (their own runtime handles them)
    fields = [field for field in descriptor.fields if depth > 0 or field.type != F.TYPE_MESSAGE]
    for field in draw(st.lists(st.sampled_from(fields), max_size=6, unique=True)) if fields else []:
        _set(draw, message, field, depth)
    return message


def _set(draw: st.DrawFn, message: Message, field: FieldDescriptor, depth: int) -> None:
    target = getattr(message, field.name)
    if _is_map(field):
        key_field = field.message_type.fields_by_name["key"]
        value_field = field.message_type.fields_by_name["value"]
        for key in draw(st.lists(SCALARS[key_field.type], max_size=3, unique=True)):
            if value_field.type == F.TYPE_MESSAGE:
                _fill(draw, target[key], depth - 1)
            else:
                target[key] = draw(_scalar(value_field))
        return
    if field.type == F.TYPE_MESSAGE:
        if field.is_repeated:
            for _ in range(draw(st.integers(0, 2))):
                _fill(draw, target.add(), depth - 1)
        else:
            target.SetInParent()
            _fill(draw, target, depth - 1)
        return
    if field.is_repeated:
        target.extend(draw(st.lists(_scalar(field), max_size=3)))
    else:
        setattr(message, field.name, draw(_scalar(field)))


def _scalar(field: FieldDescriptor) -> st.SearchStrategy[Any]:
    if field.type == F.TYPE_ENUM:
        known = [value.number for value in field.enum_type.values]
        return st.one_of(st.sampled_from(known), st.integers(0, 2**31 - 1))
    return SCALARS[field.type]


def _is_map(field: FieldDescriptor) -> bool:
    return field.type == F.TYPE_MESSAGE and field.message_type.GetOptions().map_entry


def message_class(descriptor: Descriptor) -> type[Message]:
    return GetMessageClass(descriptor)
