"""Conversion between public and private messages, by field name (api.md §2.1)."""

from __future__ import annotations

from typing import TypeVar

from google.protobuf import json_format
from google.protobuf.message import Message

M = TypeVar("M", bound=Message)


def convert(message: Message, cls: type[M]) -> M:
    """``message`` as ``cls``: fields with the same name are copied (recursively); fields the
    target does not have are dropped. Enum numbers are shared by both packages, so they are kept
    as numbers (unknown ones included)."""
    if type(message) is cls:
        copy = cls()
        copy.CopyFrom(message)
        return copy
    data = json_format.MessageToDict(message, preserving_proto_field_name=True, use_integers_for_enums=True)
    target = cls()
    json_format.ParseDict(data, target, ignore_unknown_fields=True)
    return target
