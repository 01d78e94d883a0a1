"""Objects from what the user gives: files (``-f``), ``--set path=value``, labels ``k=v`` / ``k-``.

Files hold objects in the API's JSON shape, as YAML or JSON, one or several documents; a
document may also be a List (``{items: [...]}``, what ``get -o yaml`` prints) or an entry of
the bootstrap format (``{kind: Subnet, object: {...}}``).

``--set`` is generic: the path is walked through the message descriptor. Scalars are converted
to the field's type, enums are taken by name (``READY``, ``SUBNET_STATE_READY``) or number,
repeated fields take a comma-separated list, maps take ``k=v,k2=v2`` (or a key as the next path
segment: ``metadata.labels.env=prod``), and Timestamps take RFC 3339 or ``now``.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml
from google.protobuf import json_format
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.duration_pb2 import Duration
from google.protobuf.message import Message
from google.protobuf.timestamp_pb2 import Timestamp

from osac.cli.errors import CliError
from osac.cli.output.fields import (
    descriptor_of,
    enum_choices,
    enum_number,
    enum_type_of,
    is_map,
    is_message,
    map_fields,
)

STDIN = "-"


class _PlainLoader(yaml.SafeLoader):
    """YAML without implicit timestamps: ``2025-01-01T00:00:00Z`` stays the string the API expects."""


_PlainLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


@dataclass(frozen=True)
class Document:
    """One object read from a file: its data, the kind it names (if any) and where it came from."""

    data: dict[str, Any]
    kind_word: str | None
    source: str


def read_text(path: str) -> str:
    if path == STDIN:
        return sys.stdin.read()
    try:
        return Path(path).read_text()
    except OSError as error:
        raise CliError(f"cannot read {path}: {error.strerror or error}") from error


def parse_documents(text: str, source: str) -> list[Document]:
    """The objects in ``text`` (YAML or JSON, one or more documents).

    :raises CliError: the text is not YAML/JSON or a document is not an object.
    """
    try:
        loaded = list(yaml.load_all(text, Loader=_PlainLoader))
    except yaml.YAMLError as error:
        raise CliError(f"{source}: not valid YAML or JSON: {error}") from error
    documents: list[Document] = []
    for number, data in enumerate((d for d in loaded if d is not None), start=1):
        where = f"{source} document {number}" if len(loaded) > 1 else source
        documents.extend(_objects_in(data, where))
    if not documents:
        raise CliError(f"{source}: no objects found")
    return documents


def _objects_in(data: Any, where: str) -> list[Document]:
    if not isinstance(data, dict):
        raise CliError(f"{where}: expected an object (a mapping), got {type(data).__name__}")
    if isinstance(data.get("items"), list):
        return [
            document
            for index, item in enumerate(data["items"])
            for document in _objects_in(item, f"{where} items[{index}]")
        ]
    if isinstance(data.get("kind"), str) and isinstance(data.get("object"), dict):
        return [Document(data["object"], data["kind"], where)]
    return [Document(data, None, where)]


def parse_object(data: dict[str, Any], message_class: type[Message], source: str) -> Message:
    """``data`` (API JSON shape) as a message.

    :raises CliError: an unknown field or a value of the wrong type, named with ``source``.
    """
    message = message_class()
    try:
        json_format.ParseDict(data, message)
    except json_format.ParseError as error:
        raise CliError(f"{source}: {error}") from error
    return message


def parse_yaml_object(text: str, message_class: type[Message], source: str) -> Message:
    try:
        data = yaml.load(text, Loader=_PlainLoader)
    except yaml.YAMLError as error:
        raise CliError(f"{source}: not valid YAML: {error}") from error
    if not isinstance(data, dict):
        raise CliError(f"{source}: expected an object (a mapping)")
    return parse_object(data, message_class, source)


# -- --set path=value ----------------------------------------------------------------------------


def split_assignment(text: str) -> tuple[str, str]:
    """``("spec.ipv4_cidr", "10.0.1.0/24")`` from ``spec.ipv4_cidr=10.0.1.0/24``."""
    path, equals, value = text.partition("=")
    if not equals or not path.strip():
        raise CliError(f"--set '{text}': expected PATH=VALUE (e.g. spec.ipv4_cidr=10.0.1.0/24)")
    return path.strip(), value


def apply_assignment(message: Message, path: str, text: str) -> str:
    """Set the field at ``path`` of ``message`` from ``text``; return the update-mask path it
    touched (a map or repeated field is replaced whole, so its own path).

    :raises CliError: unknown field, a path through a non-message, or a value of the wrong type.
    """
    names = path.split(".")
    target = message
    walked: list[str] = []
    index = 0
    while index < len(names):
        name = names[index]
        field = _field(target, name, walked)
        walked.append(name)
        is_last = index == len(names) - 1
        if is_map(field):
            return _assign_in_map(getattr(target, name), field, names[index + 1:], text, path, walked)
        if is_last:
            _set_field(target, field, text, path)
            return ".".join(walked)
        if field.is_repeated:
            raise CliError(
                f"{path}: {'.'.join(walked)} is a list of messages; give it in a file with -f"
            )
        if not is_message(field):
            raise CliError(f"{path}: {'.'.join(walked)} is not a message")
        target = getattr(target, name)
        index += 1
    raise CliError(f"{path}: empty path")


def _assign_in_map(
    container: Any, field: FieldDescriptor, rest: list[str], text: str, path: str, walked: list[str]
) -> str:
    """Set a whole map (``labels=a=1,b=2``) or one entry (``labels.a=1``, ``node_sets.w.size=3``)."""
    mask = ".".join(walked)
    if not rest:
        _set_map(container, field, text, mask)
        return mask
    key, below = rest[0], rest[1:]
    _, value_field = map_fields(field)
    if is_message(value_field):
        entry = container[key]
        if below:
            apply_assignment(entry, ".".join(below), text)
        else:
            _set_message_value(entry, text, path)
    elif below:
        raise CliError(f"{path}: {mask}.{key} is not a message")
    else:
        container[key] = convert_scalar(value_field, text, path)
    return mask


def _field(message: Message, name: str, walked: list[str]) -> FieldDescriptor:
    descriptor = descriptor_of(message)
    field = descriptor.fields_by_name.get(name)
    if field is None:
        where = ".".join(walked) or descriptor.name
        known = ", ".join(f.name for f in descriptor.fields)
        raise CliError(f"{where} has no field '{name}'; fields: {known}")
    return field


def _set_field(target: Message, field: FieldDescriptor, text: str, path: str) -> None:
    if field.is_repeated:
        container = getattr(target, field.name)
        if is_message(field):
            raise CliError(f"{path}: a list of messages; give it in a file with -f")
        del container[:]
        container.extend(convert_scalar(field, item.strip(), path) for item in _split_list(text))
        return
    if is_message(field):
        _set_message_value(getattr(target, field.name), text, path)
        return
    setattr(target, field.name, convert_scalar(field, text, path))


def _set_message_value(message: Message, text: str, path: str) -> None:
    if isinstance(message, Timestamp):
        if text.strip().lower() == "now":
            message.FromDatetime(datetime.now(UTC))
            return
        try:
            message.FromJsonString(text.strip())
        except ValueError as error:
            raise CliError(f"{path}: '{text}' is not an RFC 3339 time (or 'now')") from error
        return
    if isinstance(message, Duration):
        try:
            message.FromJsonString(text.strip())
        except ValueError as error:
            raise CliError(f"{path}: '{text}' is not a duration like '30s'") from error
        return
    if text.strip().startswith("{"):
        try:
            json_format.Parse(text, message)
        except json_format.ParseError as error:
            raise CliError(f"{path}: {error}") from error
        return
    raise CliError(f"{path}: a message; set its fields (e.g. {path}.FIELD=VALUE) or give JSON")


def _set_map(container: Any, field: FieldDescriptor, text: str, path: str) -> None:
    key_field, value_field = map_fields(field)
    if is_message(value_field):
        raise CliError(f"{path}: a map of messages; set one entry as {path}.KEY.FIELD=VALUE")
    container.clear()
    for item in _split_list(text):
        key, equals, value = item.partition("=")
        if not equals:
            raise CliError(f"{path}: '{item}' is not KEY=VALUE")
        container[convert_scalar(key_field, key.strip(), path)] = convert_scalar(value_field, value, path)


def _split_list(text: str) -> list[str]:
    return [item for item in text.split(",") if item.strip()] if text.strip() else []


_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0", ""}
_INTEGERS = {
    FieldDescriptor.TYPE_INT32, FieldDescriptor.TYPE_INT64, FieldDescriptor.TYPE_UINT32,
    FieldDescriptor.TYPE_UINT64, FieldDescriptor.TYPE_SINT32, FieldDescriptor.TYPE_SINT64,
    FieldDescriptor.TYPE_FIXED32, FieldDescriptor.TYPE_FIXED64, FieldDescriptor.TYPE_SFIXED32,
    FieldDescriptor.TYPE_SFIXED64,
}


def convert_scalar(field: FieldDescriptor, text: str, path: str) -> Any:
    """``text`` as a value of the scalar (or enum) ``field``.

    :raises CliError: the text does not fit the field's type.
    """
    kind = field.type
    if kind == FieldDescriptor.TYPE_STRING:
        return text
    if kind == FieldDescriptor.TYPE_BYTES:
        return text.encode()
    if kind == FieldDescriptor.TYPE_BOOL:
        word = text.strip().lower()
        if word in _TRUE | _FALSE:
            return word in _TRUE
        raise CliError(f"{path}: '{text}' is not a boolean (true or false)")
    if kind == FieldDescriptor.TYPE_ENUM:
        number = enum_number(enum_type_of(field), text)
        if number is None:
            raise CliError(f"{path}: '{text}' is not one of {enum_choices(enum_type_of(field))}")
        return number
    try:
        if kind in _INTEGERS:
            return int(text.strip())
        if kind in (FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT):
            return float(text.strip())
    except ValueError as error:
        raise CliError(f"{path}: '{text}' is not a number") from error
    raise CliError(f"{path}: fields of this type cannot be set from the command line")


# -- labels --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LabelChanges:
    """``k=v`` sets, ``k-`` removes (kubectl style)."""

    set: dict[str, str]
    remove: list[str]

    def apply(self, labels: Any) -> None:
        for key in self.remove:
            labels.pop(key, None)
        labels.update(self.set)


def parse_label_changes(words: list[str]) -> LabelChanges:
    changes: dict[str, str] = {}
    removals: list[str] = []
    for word in words:
        if "=" in word:
            key, _, value = word.partition("=")
            if not key:
                raise CliError(f"label '{word}': expected KEY=VALUE or KEY-")
            changes[key] = value
        elif word.endswith("-") and len(word) > 1:
            removals.append(word[:-1])
        else:
            raise CliError(f"label '{word}': expected KEY=VALUE to set or KEY- to remove")
    return LabelChanges(changes, removals)


def parse_labels(words: list[str]) -> dict[str, str]:
    """``--label k=v`` options of create (no removals there)."""
    changes = parse_label_changes(words)
    if changes.remove:
        raise CliError(f"--label {changes.remove[0]}-: removing a label makes no sense on create")
    return changes.set
