"""Storage JSON for protobuf messages.

Objects are stored as the dict of their *private* message with proto field names, enums as
numbers, 64-bit integers as strings (as the proto3 JSON mapping does) and every Timestamp written
with exactly nine fractional digits (``2026-11-30T01:40:54.123000000Z``), so that timestamps
compare correctly as text inside SQL filters. Zero values are omitted, as in proto3 JSON; readers
of ``data`` (filters) must treat a missing key as the field's zero value.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime
from functools import cache
from typing import Any, TypeVar, cast

from google.protobuf import json_format
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message
from google.protobuf.timestamp_pb2 import Timestamp

from osac.model import protos
from osac.model.field_setters import (
    items_setter,
    message_map_setter,
    message_setter,
    scalar_setter,
    scalars_setter,
)
from osac.store.cost import count_decoded, count_encoded

M = TypeVar("M", bound=Message)

TIMESTAMP = "google.protobuf.Timestamp"


def format_timestamp(seconds: int, nanos: int) -> str:
    """The fixed-width RFC 3339 text of a timestamp (always 9 fractional digits, UTC)."""
    t = time.gmtime(seconds)
    return (
        f"{t.tm_year:04d}-{t.tm_mon:02d}-{t.tm_mday:02d}T{t.tm_hour:02d}:{t.tm_min:02d}:{t.tm_sec:02d}"
        f".{nanos:09d}Z"
    )


def format_datetime(value: datetime) -> str:
    """``format_timestamp`` for an aware datetime."""
    value = value.astimezone(UTC)
    seconds = int(value.replace(microsecond=0).timestamp())
    return format_timestamp(seconds, value.microsecond * 1000)


def to_storage(message: Message) -> dict[str, Any]:
    """The storage dict of ``message``: what ``storage_by_json_mapping`` gives, built from a plan
    per message type (the fields' names and how each value is written) instead of through
    ``json_format`` (which cost a sixth of a cluster pass, docs/benchmarks.md)."""
    count_encoded()
    return _encode(message)


def storage_by_json_mapping(message: Message) -> dict[str, Any]:
    """The storage dict through the proto3 JSON mapping, the reference ``to_storage`` equals."""
    data = json_format.MessageToDict(
        message, preserving_proto_field_name=True, use_integers_for_enums=True
    )
    _normalize(message, data)
    return data


#: ``write(value)``: the storage form of one set field's value.
Write = Callable[[Any], Any]

_INT64 = frozenset({
    FieldDescriptor.TYPE_INT64, FieldDescriptor.TYPE_UINT64, FieldDescriptor.TYPE_SINT64,
    FieldDescriptor.TYPE_FIXED64, FieldDescriptor.TYPE_SFIXED64,
})
_PLAIN = frozenset({
    FieldDescriptor.TYPE_STRING, FieldDescriptor.TYPE_BOOL, FieldDescriptor.TYPE_ENUM,
    FieldDescriptor.TYPE_INT32, FieldDescriptor.TYPE_UINT32, FieldDescriptor.TYPE_SINT32,
    FieldDescriptor.TYPE_FIXED32, FieldDescriptor.TYPE_SFIXED32,
})


def _encode(message: Message) -> dict[str, Any]:
    plan = _plan(message.DESCRIPTOR)
    if plan is None:
        return storage_by_json_mapping(message)
    data = {}
    for field, value in message.ListFields():
        name, write = plan[field]
        data[name] = write(value)
    return data


@cache
def _plan(descriptor: Descriptor) -> dict[FieldDescriptor, tuple[str, Write]] | None:
    """How each field of ``descriptor`` is written; ``None`` for a type the plan does not
    cover (a well-known type other than Timestamp, a floating-point or bytes field), which is
    then written through the JSON mapping."""
    if descriptor.full_name.startswith("google.protobuf."):
        return None
    plan: dict[FieldDescriptor, tuple[str, Write]] = {}
    for field in descriptor.fields:
        write = _field_write(field)
        if write is None:
            return None
        plan[field] = (field.name, write)
    return plan


def _field_write(field: FieldDescriptor) -> Write | None:
    entry = protos.map_entry_of(field)
    if entry is not None:
        key = entry.fields_by_name["key"]
        value = _value_write(entry.fields_by_name["value"])
        if value is None or key.type == FieldDescriptor.TYPE_BOOL:
            return None
        return lambda entries: {str(k): value(v) for k, v in entries.items()}
    write = _value_write(field)
    if write is None:
        return None
    if field.is_repeated:
        item = write
        return lambda values: [item(v) for v in values]
    return write


def _value_write(field: FieldDescriptor) -> Write | None:
    if field.type in _PLAIN:
        return _same
    if field.type in _INT64:
        return str
    if field.type != FieldDescriptor.TYPE_MESSAGE:
        return None
    full_name = protos.message_type_of(field).full_name
    if full_name == TIMESTAMP:
        return lambda value: format_timestamp(value.seconds, value.nanos)
    if full_name.startswith("google.protobuf."):
        return _well_known
    return _encode


def _same(value: Any) -> Any:
    return value


def _well_known(value: Message) -> Any:
    """Any, Struct, Value, Duration ...: their own JSON form (kept as it is, as before)."""
    return json_format.MessageToDict(value, preserving_proto_field_name=True, use_integers_for_enums=True)


def from_storage(data: dict[str, Any], cls: type[M]) -> M:
    """Parse a storage dict into ``cls``; unknown fields are kept out silently (newer writers).
    What ``parse_by_json_mapping`` gives, through a plan per message type; a value the plan does
    not expect (an enum by name, a timestamp in another form) is parsed by the JSON mapping."""
    count_decoded()
    message = cls()
    try:
        _decode(data, message)
    except (TypeError, ValueError, AttributeError, KeyError):
        return parse_by_json_mapping(data, cls)
    return message


def parse_by_json_mapping(data: dict[str, Any], cls: type[M]) -> M:
    """The message of a storage dict through the proto3 JSON mapping, the reference
    ``from_storage`` equals."""
    message = cls()
    json_format.ParseDict(data, message, ignore_unknown_fields=True)
    return message


#: ``read(value, message)``: sets one field of ``message`` from its storage form.
Read = Callable[[Any, Message], None]


def _decode(data: dict[str, Any], message: Message) -> None:
    plan = _read_plan(message.DESCRIPTOR)
    if plan is None:
        json_format.ParseDict(data, message, ignore_unknown_fields=True)
        return
    for name, value in data.items():
        read = plan.get(name)
        if read is not None and value is not None:
            read(value, message)


@cache
def _read_plan(descriptor: Descriptor) -> dict[str, Read] | None:
    """How each field of ``descriptor`` is read, by name; ``None`` for the types ``_plan``
    leaves to the JSON mapping."""
    if _plan(descriptor) is None:
        return None
    return {field.name: _field_read(field) for field in descriptor.fields}


def _field_read(field: FieldDescriptor) -> Read:
    name = field.name
    entry = protos.map_entry_of(field)
    if entry is not None:
        # String keys as they are, integer keys from their text (boolean keys never get a plan).
        key = str if entry.fields_by_name["key"].type == FieldDescriptor.TYPE_STRING else int
        value_field = entry.fields_by_name["value"]
        if value_field.type == FieldDescriptor.TYPE_MESSAGE:
            return message_map_setter(name, _message_fill(value_field), key)
        convert = _scalar_read(value_field)

        def read_map(value: Any, message: Message) -> None:
            entries = getattr(message, name)
            for k, v in value.items():
                entries[key(k)] = convert(v)

        return read_map
    if field.type == FieldDescriptor.TYPE_MESSAGE:
        fill = _message_fill(field)
        return items_setter(name, fill) if field.is_repeated else message_setter(name, fill)
    convert = _scalar_read(field)
    return scalars_setter(name, convert) if field.is_repeated else scalar_setter(name, convert)


def _scalar_read(field: FieldDescriptor) -> Callable[[Any], Any]:
    if field.type in _INT64:
        return int
    if field.type == FieldDescriptor.TYPE_BOOL:
        return _strict(bool)
    if field.type == FieldDescriptor.TYPE_STRING:
        return _strict(str)
    return _strict(int)  # an enum or 32-bit integer: a JSON number (a name or numeric text go to the JSON mapping)


def _strict(kind: type) -> Callable[[Any], Any]:
    def read(value: Any) -> Any:
        if type(value) is not kind:
            raise TypeError(f"expected {kind.__name__}")
        return value

    return read


def _message_fill(field: FieldDescriptor) -> Callable[[Any, Message], None]:
    full_name = protos.message_type_of(field).full_name
    if full_name == TIMESTAMP:
        return _read_timestamp
    if full_name.startswith("google.protobuf."):
        return _read_well_known
    return _decode


def _read_well_known(value: Any, sub: Message) -> None:
    json_format.ParseDict(value, sub, ignore_unknown_fields=True)


def _read_timestamp(value: Any, sub: Message) -> None:
    """The stored fixed-width form (``format_timestamp``); any other RFC 3339 text through the
    runtime's own parser."""
    stamp = cast(Timestamp, sub)  # the plan calls it for Timestamp fields only
    if type(value) is str and len(value) == 30 and value[19] == "." and value[29] == "Z":
        moment = datetime.fromisoformat(value[:19]).replace(tzinfo=UTC)
        stamp.seconds = int(moment.timestamp())
        stamp.nanos = int(value[20:29])
        return
    stamp.FromJsonString(value)


def _normalize(message: Message, data: dict[str, Any]) -> None:
    """Rewrite every Timestamp below ``message`` in fixed-width form, in place."""
    for field, value in message.ListFields():
        if field.type != FieldDescriptor.TYPE_MESSAGE or field.name not in data:
            continue
        sub = protos.message_type_of(field)
        if sub.full_name == TIMESTAMP:
            if field.is_repeated:
                data[field.name] = [format_timestamp(v.seconds, v.nanos) for v in value]
            else:
                data[field.name] = format_timestamp(value.seconds, value.nanos)
            continue
        if protos.map_entry_of(field) is not None:
            value_field = sub.fields_by_name["value"]
            if value_field.type == FieldDescriptor.TYPE_MESSAGE:
                for key, item in value.items():
                    _normalize_value(item, data[field.name], str(key))
            continue
        if _is_opaque(sub):
            continue
        if field.is_repeated:
            for index, item in enumerate(value):
                _normalize(item, data[field.name][index])
        else:
            _normalize(value, data[field.name])


def _normalize_value(item: Message, container: dict[str, Any], key: str) -> None:
    if isinstance(item, Timestamp):
        container[key] = format_timestamp(item.seconds, item.nanos)
    elif not _is_opaque(protos.descriptor_of(item)):
        _normalize(item, container[key])


def _is_opaque(descriptor: Descriptor) -> bool:
    """Well-known types with a special JSON form (Any, Struct, Value, ...) are left as they are."""
    return descriptor.full_name.startswith("google.protobuf.")
