"""REST request bodies: the JSON decoder and the JSON value checks done before protobuf parsing.

The decoder bounds the nesting depth and refuses duplicate keys; ``check_values`` walks the
decoded body by the message descriptor and refuses every scalar of the wrong JSON type or out of
its integer range with a message naming the field and what is accepted, so no message of the
protobuf library's JSON parser (``invalid literal for int()``) reaches a client (limits.md).
"""

from __future__ import annotations

import json
import re
from typing import Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor

from osac.model import protos
from osac.services.core.errors import InvalidArgument
from osac.services.core.limits import MAX_JSON_DEPTH

_INT_RANGES: dict[int, tuple[int, int, str]] = {
    FieldDescriptor.TYPE_INT32: (-(2**31), 2**31 - 1, "a 32-bit integer"),
    FieldDescriptor.TYPE_SINT32: (-(2**31), 2**31 - 1, "a 32-bit integer"),
    FieldDescriptor.TYPE_SFIXED32: (-(2**31), 2**31 - 1, "a 32-bit integer"),
    FieldDescriptor.TYPE_UINT32: (0, 2**32 - 1, "an unsigned 32-bit integer"),
    FieldDescriptor.TYPE_FIXED32: (0, 2**32 - 1, "an unsigned 32-bit integer"),
    FieldDescriptor.TYPE_INT64: (-(2**63), 2**63 - 1, "a 64-bit integer (a number or a string of digits)"),
    FieldDescriptor.TYPE_SINT64: (-(2**63), 2**63 - 1, "a 64-bit integer (a number or a string of digits)"),
    FieldDescriptor.TYPE_SFIXED64: (-(2**63), 2**63 - 1, "a 64-bit integer (a number or a string of digits)"),
    FieldDescriptor.TYPE_UINT64: (0, 2**64 - 1, "an unsigned 64-bit integer (a number or a string of digits)"),
    FieldDescriptor.TYPE_FIXED64: (0, 2**64 - 1, "an unsigned 64-bit integer (a number or a string of digits)"),
}
_INTEGER_TEXT = re.compile(r"^-?[0-9]+$")
#: Well-known types whose JSON form is a string.
_STRING_FORMS = {
    "google.protobuf.Timestamp": "an RFC 3339 timestamp string",
    "google.protobuf.Duration": "a duration string such as \"1.5s\"",
    "google.protobuf.FieldMask": "a comma-separated string of field paths",
}
_FREE_FORM = {"google.protobuf.Struct", "google.protobuf.Value", "google.protobuf.ListValue"}


def decode(body: bytes) -> Any:
    """The JSON value of ``body``: duplicate keys and nesting deeper than MAX_JSON_DEPTH refused."""
    _check_depth(body)
    try:
        return json.loads(body, object_pairs_hook=_no_duplicates)
    except _Duplicate as duplicate:
        raise InvalidArgument(
            f"request body: key '{duplicate.key}' appears more than once in one object; give each key once"
        ) from None
    except (ValueError, RecursionError) as error:
        raise InvalidArgument(f"request body is not valid JSON: {error}") from None


class _Duplicate(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise _Duplicate(key[:80])
        result[key] = value
    return result


def _check_depth(body: bytes) -> None:
    """Count bracket nesting outside strings, in one pass, before the recursive decoder runs."""
    depth = 0
    in_string = False
    escaped = False
    for byte in body:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):  # [ {
            depth += 1
            if depth > MAX_JSON_DEPTH:
                raise InvalidArgument(
                    f"request body: JSON nests more than {MAX_JSON_DEPTH} arrays and objects deep; "
                    f"at most {MAX_JSON_DEPTH} levels are accepted"
                )
        elif byte in (0x5D, 0x7D):
            depth -= 1


def check_values(data: dict[str, Any], descriptor: Descriptor, prefix: str = "") -> None:
    """Every field of ``data`` is a field of the message and has a JSON value of its type."""
    by_json = {field.json_name: field for field in descriptor.fields}
    for key, value in data.items():
        field = descriptor.fields_by_name.get(key) or by_json.get(key)
        if field is None:
            if key.startswith("@") or descriptor.full_name.startswith("google.protobuf."):
                continue  # left to the parser (an Any's payload, a well-known type)
            names = ", ".join(f.name for f in descriptor.fields)
            raise InvalidArgument(f"{prefix}{str(key)[:80]}: unknown field; the accepted fields are {names}")
        if value is None:
            continue
        path = f"{prefix}{field.name}"
        if (entry_type := protos.map_entry_of(field)) is not None:
            if not isinstance(value, dict):
                raise InvalidArgument(f"{path}: expected a JSON object (a map), got {_json_type(value)}")
            key_field = entry_type.fields_by_name["key"]
            value_field = entry_type.fields_by_name["value"]
            for entry_key, entry in value.items():
                if key_field.type != FieldDescriptor.TYPE_STRING:
                    _check_scalar(key_field, entry_key, f"{path} key '{entry_key[:40]}'")
                _check_single(value_field, entry, f"{path}['{entry_key[:40]}']")
        elif field.is_repeated:
            if not isinstance(value, list):
                raise InvalidArgument(f"{path}: expected a JSON array, got {_json_type(value)}")
            for index, item in enumerate(value):
                _check_single(field, item, f"{path}[{index}]")
        else:
            _check_single(field, value, path)


def _check_single(field: FieldDescriptor, value: Any, path: str) -> None:
    if field.type == FieldDescriptor.TYPE_MESSAGE:
        _check_message_value(protos.message_type_of(field), value, path)
    else:
        _check_scalar(field, value, path)


def _check_message_value(descriptor: Descriptor, value: Any, path: str) -> None:
    name = descriptor.full_name
    if name in _FREE_FORM:
        return
    if name in _STRING_FORMS:
        if not isinstance(value, str):
            raise InvalidArgument(f"{path}: expected {_STRING_FORMS[name]}, got {_json_type(value)}")
        return
    if not isinstance(value, dict):
        raise InvalidArgument(f"{path}: expected a JSON object, got {_json_type(value)}")
    if name == "google.protobuf.Any":
        type_url = value.get("@type")
        if not isinstance(type_url, str) or not type_url:
            raise InvalidArgument(
                f"{path}: '@type' must be a type URL string such as "
                "\"type.googleapis.com/google.protobuf.StringValue\""
            )
        return
    if name.startswith("google.protobuf.") and name.endswith("Value"):
        return  # wrapper types: the parser's messages already name the value
    check_values(value, descriptor, f"{path}.")


def _check_scalar(field: FieldDescriptor, value: Any, path: str) -> None:
    kind = field.type
    if kind in _INT_RANGES:
        low, high, accepted = _INT_RANGES[kind]
        number = _integer(value)
        if number is None or not low <= number <= high:
            raise InvalidArgument(f"{path}: expected {accepted} from {low} to {high}, got {_shown(value)}")
    elif kind == FieldDescriptor.TYPE_BOOL:
        if not isinstance(value, bool):
            raise InvalidArgument(f"{path}: expected true or false, got {_shown(value)}")
    elif kind in (FieldDescriptor.TYPE_STRING, FieldDescriptor.TYPE_BYTES):
        if not isinstance(value, str):
            what = "a base64 string" if kind == FieldDescriptor.TYPE_BYTES else "a string"
            raise InvalidArgument(f"{path}: expected {what}, got {_json_type(value)}")
    elif kind == FieldDescriptor.TYPE_ENUM:
        names = [v.name for v in protos.enum_type_of(field).values]
        if isinstance(value, str):
            if value not in names:
                raise InvalidArgument(f"{path}: '{value[:80]}' is not one of {', '.join(names)}")
        elif _integer(value) is None or not -(2**31) <= value <= 2**31 - 1:
            raise InvalidArgument(f"{path}: expected one of {', '.join(names)} (or its number), got {_shown(value)}")
    elif kind in (FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT) and (
        isinstance(value, bool) or not isinstance(value, (int, float, str))
    ):
        raise InvalidArgument(f"{path}: expected a number, got {_json_type(value)}")


def _integer(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and _INTEGER_TEXT.match(value) and len(value) <= 40:
        return int(value)
    return None


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return "null"


def _shown(value: Any) -> str:
    if isinstance(value, str):
        return f"'{value[:40]}'" if value else "an empty string"
    if isinstance(value, (list, dict)):
        return _json_type(value)
    return json.dumps(value)[:40]
