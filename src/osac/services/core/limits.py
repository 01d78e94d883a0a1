"""The bounds of every request (docs/limits.md): sizes, counts and characters.

``check_request`` walks a request message by its descriptor, so every string, repeated field and
map of every kind — and of every field added later — is bounded without a list of paths. It runs
before any work, on the request as received, identically for gRPC and REST (both call it on the
decoded request message). Paths in messages are relative to the request's ``object`` (the object
of a Create or Update), as in every other validation message.
"""

from __future__ import annotations

from typing import Any

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from osac.model import protos
from osac.services.core.errors import InvalidArgument

#: Request body (REST) and received message (gRPC) size, in bytes; ``--max-request-bytes``.
DEFAULT_MAX_REQUEST_BYTES = 1024 * 1024
#: Seconds a Watch client may read nothing while the server has events for it before the stream is
#: ended (``api.watch_stall_seconds``): what it holds meanwhile is bounded in bytes by the
#: transport's buffer and one replay batch (docs/watch.md "Memory").
DEFAULT_WATCH_STALL_SECONDS = 30.0


def watch_stalled(seconds: float) -> str:
    """Why a Watch stream whose client stopped reading was ended (RESOURCE_EXHAUSTED)."""
    return (f"watch: the client read nothing of the stream for {seconds:g}s while events waited; "
            "the stream was ended to free its buffer; resume with after_revision set to the last "
            "revision it read")
#: Nesting of JSON arrays and objects in a REST body.
MAX_JSON_DEPTH = 64

#: List ``offset`` and ``limit`` (int32 in the API; ``limit`` 0 or absent: 100).
OFFSET_RANGE = (0, 2**31 - 1)
LIMIT_RANGE = (0, 2**31 - 1)
#: The most items one List page holds: a larger ``limit`` is clamped to it (api.md §6).
MAX_PAGE_SIZE = 1000
#: Keys of a List ``order`` (there are at most four orderable fields, each named once).
MAX_ORDER_KEYS = 4

#: Watch ``after_revision`` (an int64 in the API).
REVISION_RANGE = (0, 2**63 - 1)

#: Labels per object, as Kubernetes allows for a selector-friendly object.
MAX_LABELS = 64
#: A label or annotation key: an optional DNS-subdomain prefix (253), '/', a name (63).
MAX_KEY_LENGTH = 317
#: A label value (Kubernetes).
MAX_LABEL_VALUE_LENGTH = 63
#: The UTF-8 size of all annotation keys and values together (Kubernetes: 256 KiB).
MAX_ANNOTATIONS_BYTES = 256 * 1024
#: ``metadata.name`` (a DNS label; checked with its syntax in ``generic.py``).
MAX_NAME_LENGTH = 63

#: Characters of a string field whose name is not below.
DEFAULT_MAX_STRING_LENGTH = 1024
#: Characters of string fields by field name, wherever they occur.
MAX_STRING_LENGTH: dict[str, int] = {
    "project": 253,
    "title": 256,
    "description": 4096,
    "message": 4096,
    "filter": 16_384,  # the filter language's own bound (osac.filters.syntax.MAX_LENGTH)
    "order": 256,  # a List order: at most four keys of a field and a direction
    "ssh_public_key": 16_384,
    "user_data": 65_536,
    "pull_secret": 65_536,
}
#: String fields that are free text: tab, newline and carriage return are accepted in them.
FREE_TEXT = frozenset({"description", "message", "filter", "ssh_public_key", "user_data", "pull_secret"})

#: Bytes of a ``bytes`` field (an ``Any`` value: a template parameter's default).
MAX_BYTES_LENGTH = 65_536

#: Elements of a repeated field or entries of a map whose name is not below.
DEFAULT_MAX_ITEMS = 256
#: Elements or entries by field name.
MAX_ITEMS: dict[str, int] = {
    "labels": MAX_LABELS,
    "annotations": 1024,
    "ingress": 200,
    "egress": 200,
    "ingress_rules": 200,
    "egress_rules": 200,
    "node_sets": 32,
    "network_attachments": 16,
    "compute_network_attachments": 16,
    "security_groups": 16,
    "parameters": 128,
    "template_parameters": 128,
    "additional_disks": 16,
    "paths": 256,  # an update mask
}

_ALLOWED_IN_FREE_TEXT = frozenset("\t\n\r")


def max_string_length(name: str) -> int:
    return MAX_STRING_LENGTH.get(name, DEFAULT_MAX_STRING_LENGTH)


def max_items(name: str) -> int:
    return MAX_ITEMS.get(name, DEFAULT_MAX_ITEMS)


def check_request(request: Message) -> None:
    """Refuse (INVALID_ARGUMENT naming the field) a request with a value out of bounds."""
    for field, value in request.ListFields():
        if field.name == "object" and field.type == FieldDescriptor.TYPE_MESSAGE and not field.is_repeated:
            _check_message(value, "")
        else:
            _check_field(field, value, field.name)


def check_object(obj: Message) -> None:
    """The same bounds for an object alone (paths from the object's root)."""
    _check_message(obj, "")


def check_text(path: str, value: str, name: str | None = None) -> None:
    """One string value: its length and characters (``name`` selects the field's bounds)."""
    _check_string(value, path, name or path.rsplit(".", 1)[-1])


def _check_message(message: Message, prefix: str) -> None:
    for field, value in message.ListFields():
        _check_field(field, value, f"{prefix}{field.name}")


def _check_field(field: FieldDescriptor, value: Any, path: str) -> None:
    # ``value`` is what ``ListFields`` gives for ``field``: its type is the field's (reflection).
    if protos.map_entry_of(field) is not None:
        _check_map(field, value, path)
        return
    if field.is_repeated:
        items = list(value)
        bound = max_items(field.name)
        if len(items) > bound:
            raise InvalidArgument(f"{path}: at most {bound} elements are accepted, got {len(items)}")
        for index, item in enumerate(items):
            _check_single(field, item, f"{path}[{index}]")
        return
    _check_single(field, value, path)


def _check_single(field: FieldDescriptor, value: Any, path: str) -> None:
    if field.type == FieldDescriptor.TYPE_MESSAGE:
        _check_message(value, f"{path}.")
    elif field.type == FieldDescriptor.TYPE_STRING:
        _check_string(value, path, field.name)
    elif field.type == FieldDescriptor.TYPE_ENUM and value not in protos.enum_type_of(field).values_by_number:
        names = [v.name for v in protos.enum_type_of(field).values if v.number]
        accepted = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"
        raise InvalidArgument(f"{path}: {value} is not a {field.name.replace('_', ' ')}; use {accepted}")
    elif field.type == FieldDescriptor.TYPE_BYTES and len(value) > MAX_BYTES_LENGTH:
        raise InvalidArgument(f"{path}: at most {MAX_BYTES_LENGTH} bytes are accepted, got {len(value)}")


def _check_map(field: FieldDescriptor, entries: dict[str, object], path: str) -> None:
    bound = max_items(field.name)
    if len(entries) > bound:
        raise InvalidArgument(f"{path}: at most {bound} entries are accepted, got {len(entries)}")
    value_field = protos.message_type_of(field).fields_by_name["value"]
    total = 0
    for key, value in entries.items():
        key_text = str(key)
        entry = f"{path}['{_shown(key_text)}']"
        if len(key_text) > MAX_KEY_LENGTH:
            raise InvalidArgument(
                f"{path}: key '{_shown(key_text)}...' is {len(key_text)} characters; at most {MAX_KEY_LENGTH} "
                "are accepted"
            )
        _check_characters(key_text, f"{path}: key '{_shown(key_text)}'", free_text=False)
        if field.name == "annotations":
            _check_characters(str(value), entry, free_text=True)
            total += len(key_text.encode()) + len(str(value).encode())
        elif field.name == "labels":
            _check_string(str(value), entry, "labels", bound=MAX_LABEL_VALUE_LENGTH)
        else:
            _check_single(value_field, value, entry)
    if total > MAX_ANNOTATIONS_BYTES:
        raise InvalidArgument(
            f"{path}: keys and values total {total} bytes; at most {MAX_ANNOTATIONS_BYTES} bytes (256 KiB) "
            "are accepted"
        )


def _check_string(value: str, path: str, name: str, bound: int | None = None) -> None:
    limit = max_string_length(name) if bound is None else bound
    if len(value) > limit:
        raise InvalidArgument(f"{path}: at most {limit} characters are accepted, got {len(value)}")
    _check_characters(value, path, free_text=name in FREE_TEXT)


def _check_characters(value: str, path: str, free_text: bool) -> None:
    if value.isprintable():  # the common case, in C: no control character at all
        return
    for position, character in enumerate(value):
        code = ord(character)
        control = code < 0x20 or code == 0x7F
        surrogate = 0xD800 <= code <= 0xDFFF
        if surrogate or (control and not (free_text and character in _ALLOWED_IN_FREE_TEXT)):
            accepted = (
                "control characters other than tab, newline and carriage return are not accepted"
                if free_text else "control characters are not accepted"
            )
            what = "an unpaired surrogate" if surrogate else "control character"
            raise InvalidArgument(f"{path}: {what} U+{code:04X} at position {position}; {accepted}")


def _shown(text: str) -> str:
    """A key as shown in a message: at most 40 characters, control characters escaped."""
    return text[:40].encode("unicode_escape").decode("ascii")
