"""Field paths over protobuf messages: validation, copying (update masks), comparison and the
reference walker. Paths use proto field names joined by dots; reference paths may use ``[]``
(every element of a repeated field) and ``{}`` (every value of a map)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message

from osac.model import protos


class PathError(ValueError):
    """``path`` does not name a field of the message."""


def field_of(descriptor: Descriptor, path: str) -> FieldDescriptor:
    """The descriptor of the field at ``path``; raises PathError naming the first bad segment."""
    current = descriptor
    field: FieldDescriptor | None = None
    parts = path.split(".")
    for index, part in enumerate(parts):
        if current is None:
            raise PathError(path)
        field = current.fields_by_name.get(part)
        if field is None:
            raise PathError(path)
        is_last = index == len(parts) - 1
        if not is_last:
            if field.type != FieldDescriptor.TYPE_MESSAGE or field.is_repeated:
                raise PathError(path)
            current = protos.message_type_of(field)
    assert field is not None
    return field


def _parent(message: Message, path: str, create: bool) -> tuple[Message | None, str]:
    parts = path.split(".")
    current: Message | None = message
    for part in parts[:-1]:
        assert current is not None
        if not create and not current.HasField(part):
            return None, parts[-1]
        current = getattr(current, part)
    return current, parts[-1]


def has_value(message: Message, path: str) -> bool:
    """Whether the field at ``path`` is set (non-zero for scalars, non-empty for collections)."""
    parent, name = _parent(message, path, create=False)
    if parent is None:
        return False
    field = parent.DESCRIPTOR.fields_by_name[name]
    if field.is_repeated:
        return len(getattr(parent, name)) > 0
    if field.type == FieldDescriptor.TYPE_MESSAGE or field.has_presence:
        return parent.HasField(name)
    return bool(getattr(parent, name))


def value_at(message: Message, path: str) -> Any:
    """A comparable copy of the value at ``path`` (messages serialised deterministically)."""
    parent, name = _parent(message, path, create=False)
    if parent is None:
        return None
    field = parent.DESCRIPTOR.fields_by_name[name]
    value = getattr(parent, name)
    if field.is_repeated:
        if protos.map_entry_of(field) is not None:
            return {k: _comparable(v) for k, v in value.items()}
        return [_comparable(v) for v in value]
    if field.type == FieldDescriptor.TYPE_MESSAGE:
        return _comparable(value) if parent.HasField(name) else None
    return value


def _comparable(value: Any) -> Any:
    if isinstance(value, Message):
        return value.SerializeToString(deterministic=True)
    return value


def copy_path(source: Message, target: Message, path: str) -> None:
    """Make the field at ``path`` in ``target`` equal to the one in ``source`` (clearing it when
    the source does not have it). Repeated and map fields are replaced whole."""
    source_parent, name = _parent(source, path, create=False)
    target_parent, _ = _parent(target, path, create=True)
    assert target_parent is not None
    field = target_parent.DESCRIPTOR.fields_by_name[name]
    if source_parent is None:
        target_parent.ClearField(name)
        return
    value = getattr(source_parent, name)
    if field.is_repeated:
        target_parent.ClearField(name)
        container = getattr(target_parent, name)
        if (entry := protos.map_entry_of(field)) is not None:
            value_field = entry.fields_by_name["value"]
            for key, item in value.items():
                if value_field.type == FieldDescriptor.TYPE_MESSAGE:
                    container[key].CopyFrom(item)
                else:
                    container[key] = item
        elif field.type == FieldDescriptor.TYPE_MESSAGE:
            for item in value:
                container.add().CopyFrom(item)
        else:
            container.extend(value)
    elif field.type == FieldDescriptor.TYPE_MESSAGE:
        if source_parent.HasField(name):
            getattr(target_parent, name).CopyFrom(value)
        else:
            target_parent.ClearField(name)
    elif field.has_presence and not source_parent.HasField(name):
        target_parent.ClearField(name)
    else:
        setattr(target_parent, name, value)


@dataclass
class Slot:
    """One place a reference string lives: ``get()``/``set()`` it; ``path`` for messages."""

    path: str
    get: Callable[[], str]
    set: Callable[[str], None]


def reference_slots(message: Message, path: str) -> Iterator[Slot]:
    """Every string value at a reference path such as ``spec.a[].b[]`` or ``spec.m{}.x``."""
    yield from _slots(message, path.split("."), "")


def _slots(message: Message, parts: list[str], prefix: str) -> Iterator[Slot]:
    head, rest = parts[0], parts[1:]
    mode = ""
    if head.endswith("[]") or head.endswith("{}"):
        head, mode = head[:-2], head[-2:]
    label = f"{prefix}{head}"
    if head not in message.DESCRIPTOR.fields_by_name:
        return
    field = message.DESCRIPTOR.fields_by_name[head]
    if not field.is_repeated and field.type == FieldDescriptor.TYPE_MESSAGE and not message.HasField(head):
        return
    value = getattr(message, head)
    if mode == "{}":
        for key in sorted(value.keys()):
            yield from _slots(value[key], rest, f"{label}['{key}'].")
        return
    if mode == "[]":
        if rest:
            for index, item in enumerate(value):
                yield from _slots(item, rest, f"{label}[{index}].")
        else:
            for index in range(len(value)):
                yield _element_slot(f"{label}[{index}]", value, index)
        return
    if rest:
        yield from _slots(value, rest, f"{label}.")
        return
    yield _field_slot(label, message, head)


def _element_slot(path: str, container: Any, index: int) -> Slot:
    def get() -> str:
        return str(container[index])

    def put(new: str) -> None:
        container[index] = new

    return Slot(path, get, put)


def _field_slot(path: str, message: Message, name: str) -> Slot:
    def get() -> str:
        return str(getattr(message, name))

    def put(new: str) -> None:
        setattr(message, name, new)

    return Slot(path, get, put)


def leaf_paths(data: dict[str, Any], descriptor: Descriptor, prefix: str = "") -> list[str]:
    """Leaf field paths present in a JSON body (REST PATCH without ``update_mask``): maps and
    repeated fields are leaves; nested messages are descended into."""
    paths: list[str] = []
    for key, value in data.items():
        field = descriptor.fields_by_name.get(key)
        if field is None:
            for candidate in descriptor.fields:
                if candidate.json_name == key:
                    field = candidate
                    break
        if field is None:
            continue
        path = f"{prefix}{field.name}"
        is_plain_message = (
            field.type == FieldDescriptor.TYPE_MESSAGE
            and not field.is_repeated
            and not protos.message_type_of(field).full_name.startswith("google.protobuf.")
        )
        if is_plain_message and isinstance(value, dict) and value:
            paths.extend(leaf_paths(value, protos.message_type_of(field), f"{path}."))
        else:
            paths.append(path)
    return paths
