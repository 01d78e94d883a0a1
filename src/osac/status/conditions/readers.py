"""Strict readers for provider dicts (KubeVirt, Metal3 shapes).

Providers return plain JSON-like dicts. A derivation must be total, so each field is read through
one of these functions, which raise ``Malformed`` on a value of the wrong type; the parser of a
whole object catches it once and reports the observation as unreadable. Absent or null values
read as empty, as Kubernetes omits empty fields.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from osac.status.conditions.views import parse_time


class Malformed(Exception):
    """A provider dict does not have the documented shape."""


def document(value: Any) -> Mapping[str, Any]:
    """A whole object or list entry: must be a mapping."""
    if not isinstance(value, Mapping):
        raise Malformed
    return value


def section(value: Any) -> Mapping[str, Any]:
    """A nested section (``metadata``, ``spec``, ``status``): absent or null reads as empty."""
    return {} if value is None else document(value)


def entries(value: Any) -> list[Any]:
    """A list field: absent or null reads as empty."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise Malformed
    return value


def text(value: Any) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise Malformed
    return value


def flag(value: Any) -> bool:
    if value is None:
        return False
    if not isinstance(value, bool):
        raise Malformed
    return value


def optional_time(value: Any) -> datetime | None:
    """An RFC 3339 timestamp; absent or empty reads as None, anything unparsable is malformed."""
    if value is None or value == "":
        return None
    parsed = parse_time(value)
    if parsed is None:
        raise Malformed
    return parsed
