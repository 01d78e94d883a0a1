"""Generic access to message fields by dotted path (``spec.virtual_network``) and readable enums.

Every kind is handled by the same code: what a column, a ``--set`` or a ``describe`` shows is
found through the message descriptor, never through per-kind attributes.
"""

from __future__ import annotations

from typing import Any

from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor, OneofDescriptor
from google.protobuf.message import Message

from osac.model.protos import descriptor_of, map_entry_of, message_type_of
from osac.model.protos import enum_type_of as enum_type_of  # the CLI modules take it from here

#: Marks "no value here" (a message along the path is unset), as opposed to a zero value.
ABSENT = object()


def map_fields(field: FieldDescriptor) -> tuple[FieldDescriptor, FieldDescriptor]:
    """The key and value fields of a map field's entry."""
    entry = message_type_of(field)
    return entry.fields_by_name["key"], entry.fields_by_name["value"]


def is_map(field: FieldDescriptor) -> bool:
    return map_entry_of(field) is not None


def is_message(field: FieldDescriptor) -> bool:
    return field.type == FieldDescriptor.TYPE_MESSAGE


def lookup_field(descriptor: Descriptor, path: str) -> FieldDescriptor | OneofDescriptor | None:
    """The field (or oneof group) at ``path`` below ``descriptor``, or None if there is none."""
    names = path.split(".")
    for index, name in enumerate(names):
        field = descriptor.fields_by_name.get(name)
        is_last = index == len(names) - 1
        if field is None:
            return descriptor.oneofs_by_name.get(name) if is_last else None
        if is_last:
            return field
        if not is_message(field) or field.is_repeated:
            return None
        descriptor = message_type_of(field)
    return None


def value_at(message: Message, path: str) -> Any:
    """The value at ``path``: a scalar, a repeated container, a message, or ``ABSENT`` when a
    message on the way (or the last one) is not set. A oneof group gives ``(field, value)``."""
    current: Any = message
    names = path.split(".")
    for index, name in enumerate(names):
        descriptor = current.DESCRIPTOR
        field = descriptor.fields_by_name.get(name)
        if field is None:
            if index == len(names) - 1 and name in descriptor.oneofs_by_name:
                chosen = current.WhichOneof(name)
                return ABSENT if chosen is None else (chosen, getattr(current, chosen))
            return ABSENT
        if is_message(field) and not field.is_repeated and not current.HasField(name):
            return ABSENT
        current = getattr(current, name)
    return current


def values_along(message: Message, path: str) -> list[Any]:
    """Every value at a registry-style ``path``, where ``[]`` walks a list and ``{}`` a map's
    values: ``spec.compute_network_attachments[].security_groups[]`` gives each group id of each
    attachment. Unset messages on the way give nothing."""
    current: list[Any] = [message]
    for segment in path.split("."):
        name = segment.removesuffix("[]").removesuffix("{}")
        found: list[Any] = []
        for item in current:
            field = descriptor_of(item).fields_by_name.get(name) if isinstance(item, Message) else None
            if field is None or (is_message(field) and not field.is_repeated and not item.HasField(name)):
                continue
            value = getattr(item, name)
            if segment.endswith("[]"):
                found.extend(value)
            elif segment.endswith("{}"):
                found.extend(value.values())
            else:
                found.append(value)
        current = found
    return current


def enum_prefix(enum_type: EnumDescriptor) -> str:
    """``SUBNET_STATE_`` for ``SubnetState``: the prefix every value carries (api.md §2.7)."""
    zero = enum_type.values_by_number.get(0)
    if zero is not None and zero.name.endswith("_UNSPECIFIED"):
        return zero.name[: -len("UNSPECIFIED")]
    return ""


def enum_label(enum_type: EnumDescriptor, number: int) -> str:
    """``READY`` for ``SUBNET_STATE_READY``; an unknown number is shown raw."""
    value = enum_type.values_by_number.get(number)
    if value is None:
        return str(number)
    prefix = enum_prefix(enum_type)
    return value.name[len(prefix):] if prefix and value.name.startswith(prefix) else value.name


def enum_number(enum_type: EnumDescriptor, text: str) -> int | None:
    """The number a person means: ``SUBNET_STATE_READY``, ``ready`` or ``2``; None if none."""
    word = text.strip()
    if word.lstrip("-").isdigit():
        return int(word)
    upper = word.upper().replace("-", "_")
    for candidate in (upper, enum_prefix(enum_type) + upper):
        value = enum_type.values_by_name.get(candidate)
        if value is not None:
            return int(value.number)
    return None


def enum_choices(enum_type: EnumDescriptor) -> str:
    return ", ".join(enum_label(enum_type, value.number) for value in enum_type.values if value.number != 0)
