"""Storage JSON for protobuf messages.

Objects are stored as the dict of their *private* message with proto field names, enums as
numbers, 64-bit integers as strings (as the proto3 JSON mapping does) and every Timestamp written
with exactly nine fractional digits (``2026-11-30T01:40:54.123000000Z``), so that timestamps
compare correctly as text inside SQL filters. Zero values are omitted, as in proto3 JSON; readers
of ``data`` (filters) must treat a missing key as the field's zero value.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, TypeVar

from google.protobuf import json_format
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message
from google.protobuf.timestamp_pb2 import Timestamp

from osac.model import protos
from osac.store.cost import count_decoded, count_encoded

M = TypeVar("M", bound=Message)

TIMESTAMP = "google.protobuf.Timestamp"


def format_timestamp(seconds: int, nanos: int) -> str:
    """The fixed-width RFC 3339 text of a timestamp (always 9 fractional digits, UTC)."""
    moment = datetime.fromtimestamp(seconds, tz=UTC)
    return f"{moment.year:04d}-{moment.strftime('%m-%dT%H:%M:%S')}.{nanos:09d}Z"


def format_datetime(value: datetime) -> str:
    """``format_timestamp`` for an aware datetime."""
    value = value.astimezone(UTC)
    seconds = int(value.replace(microsecond=0).timestamp())
    return format_timestamp(seconds, value.microsecond * 1000)


def to_storage(message: Message) -> dict[str, Any]:
    """The storage dict of ``message``."""
    count_encoded()
    data = json_format.MessageToDict(
        message, preserving_proto_field_name=True, use_integers_for_enums=True
    )
    _normalize(message, data)
    return data


def from_storage(data: dict[str, Any], cls: type[M]) -> M:
    """Parse a storage dict into ``cls``; unknown fields are kept out silently (newer writers)."""
    count_decoded()
    message = cls()
    json_format.ParseDict(data, message, ignore_unknown_fields=True)
    return message


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
        if sub.GetOptions().map_entry:
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
