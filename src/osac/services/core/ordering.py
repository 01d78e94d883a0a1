"""The ``order`` of a List request (api.md §6, extended; docs/filters.md "List order").

Grammar: comma-separated keys, each ``<field> [asc|desc]`` (direction case-insensitive, default
asc), at most ``limits.MAX_ORDER_KEYS`` keys, each field once. The fields are the kind's
``Kind.order_fields``. Blank or absent keeps creation order. Anything else is refused with
INVALID_ARGUMENT naming ``order`` and what it accepts; the SQL is built by
``osac.store.ordering``.
"""

from __future__ import annotations

from osac.model.kinds import STATE_ORDER_FIELD, Kind
from osac.services.core import limits
from osac.services.core.errors import InvalidArgument
from osac.store.ordering import SortKey

DIRECTIONS = {"asc": False, "desc": True}


def parse_order(kind: Kind, text: str | None) -> tuple[SortKey, ...]:
    """The sort keys of ``text`` for a List of ``kind``; () for a blank or absent order."""
    if text is None or not text.strip():
        return ()
    limits.check_text("order", text)  # the request bounds, for a caller that did not pass them
    parts = text.split(",")
    if len(parts) > limits.MAX_ORDER_KEYS:
        raise InvalidArgument(
            f"order: at most {limits.MAX_ORDER_KEYS} keys are accepted, got {len(parts)}; {accepted(kind)}"
        )
    keys: list[SortKey] = []
    for position, part in enumerate(parts, start=1):
        key = _parse_key(kind, part, position)
        if any(seen.field == key.field for seen in keys):
            raise InvalidArgument(f"order: {key.field} is given more than once; name each field once")
        keys.append(key)
    return tuple(keys)


def accepted(kind: Kind) -> str:
    """What ``order`` accepts for ``kind``, as the end of a refusal."""
    fields = kind.order_fields
    listed = f"{', '.join(fields[:-1])} or {fields[-1]}"
    return (
        f"use comma-separated keys '<field> [asc|desc]' with a field among {listed}, "
        f"each at most once (at most {limits.MAX_ORDER_KEYS} keys)"
    )


def _parse_key(kind: Kind, part: str, position: int) -> SortKey:
    words = part.split()
    if not words:
        raise InvalidArgument(f"order: key {position} is empty; {accepted(kind)}")
    field, *rest = words
    if field not in kind.order_fields:
        if field == STATE_ORDER_FIELD:
            raise InvalidArgument(f"order: {kind.message} has no status.state; {accepted(kind)}")
        raise InvalidArgument(f"order: unknown field '{_shown(field)}'; {accepted(kind)}")
    if len(rest) > 1:
        raise InvalidArgument(
            f"order: '{_shown(part.strip())}' has more than a field and a direction; {accepted(kind)}"
        )
    if not rest:
        return SortKey(field)
    direction = rest[0].lower()
    if direction not in DIRECTIONS:
        raise InvalidArgument(
            f"order: '{_shown(rest[0])}' is not a direction of {field}; use asc or desc (default asc)"
        )
    return SortKey(field, descending=DIRECTIONS[direction])


def _shown(word: str) -> str:
    """A word of the request as quoted in a message: at most 40 characters, escaped."""
    return word[:40].encode("unicode_escape").decode("ascii")
