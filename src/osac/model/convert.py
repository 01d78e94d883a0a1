"""Conversion between public and private messages, by field name (api.md §2.1).

The twins share field names, not field numbers (a private message inserts its own fields, such
as ``status.hub``, among the public ones), so the wire form cannot be reused. Each pair of
message types gets a copy plan once: for every field of the source, the field of the target with
the same name and how to copy it. A conversion then walks only the fields that are set, with
the runtime's attribute access, instead of building and parsing a JSON dict of the whole
message (which cost most of a public Watch event's delivery, docs/benchmarks.md).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any, TypeVar

from google.protobuf import json_format
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message

from osac.model import protos
from osac.model.field_setters import (
    items_setter,
    message_map_setter,
    message_setter,
    scalar_setter,
    scalars_setter,
)

M = TypeVar("M", bound=Message)

#: ``copy(source_value, target_message)``: writes one set field of the source into the target.
Copy = Callable[[Any, Message], None]


def convert(message: Message, cls: type[M]) -> M:
    """``message`` as ``cls``: fields with the same name are copied (recursively); fields the
    target does not have are dropped. Enum numbers are shared by both packages, so they are kept
    as numbers (unknown ones included)."""
    target = cls()
    if type(message) is cls:
        target.CopyFrom(message)
    else:
        copy_fields(message, target)
    return target


def copy_fields(source: Message, target: Message) -> None:
    """Copy every set field of ``source`` into the field of the same name of ``target``."""
    plan = _plan(source.DESCRIPTOR, target.DESCRIPTOR)
    if plan is None:
        data = json_format.MessageToDict(source, preserving_proto_field_name=True, use_integers_for_enums=True)
        json_format.ParseDict(data, target, ignore_unknown_fields=True)
        return
    for field, value in source.ListFields():
        copy = plan.get(field.name)
        if copy is not None:
            copy(value, target)


@cache
def _plan(source: Descriptor, target: Descriptor) -> dict[str, Copy] | None:
    """The copy of each source field that the target has, by name; ``None`` when a field of
    the same name has another shape in the target (then the pair converts through JSON, which
    reports or coerces what it can, as before)."""
    plan: dict[str, Copy] = {}
    for field in source.fields:
        other = target.fields_by_name.get(field.name)
        if other is None:
            continue
        copy = _field_copy(field, other)
        if copy is None:
            return None
        plan[field.name] = copy
    return plan


def _compatible(field: FieldDescriptor, other: FieldDescriptor) -> bool:
    if field.type != other.type or field.is_repeated != other.is_repeated:
        return False
    if field.type == FieldDescriptor.TYPE_MESSAGE:
        return (protos.map_entry_of(field) is None) == (protos.map_entry_of(other) is None)
    return True


def _field_copy(field: FieldDescriptor, other: FieldDescriptor) -> Copy | None:
    if not _compatible(field, other):
        return None
    name = other.name
    source_entry, target_entry = protos.map_entry_of(field), protos.map_entry_of(other)
    if source_entry is not None and target_entry is not None:
        source_value, target_value = source_entry.fields_by_name["value"], target_entry.fields_by_name["value"]
        if source_value.type != target_value.type:
            return None
        if source_value.type != FieldDescriptor.TYPE_MESSAGE:
            return lambda value, target: getattr(target, name).update(value)
        return message_map_setter(
            name, _message_copy(protos.message_type_of(source_value), protos.message_type_of(target_value))
        )
    if field.type != FieldDescriptor.TYPE_MESSAGE:
        return scalars_setter(name) if field.is_repeated else scalar_setter(name)
    element = _message_copy(protos.message_type_of(field), protos.message_type_of(other))
    return items_setter(name, element) if field.is_repeated else message_setter(name, element)


def _message_copy(source: Descriptor, target: Descriptor) -> Callable[[Message, Message], None]:
    """Copy a message value into the target's (already present) message of type ``target``."""
    if source is target:
        return lambda value, sub: sub.MergeFrom(value)
    return copy_fields

