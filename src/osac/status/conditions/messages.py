"""Moving condition views and timestamps in and out of generated status messages.

Every kind's condition message has the same five fields (``type``, ``status``,
``last_transition_time``, ``reason``, ``message``), so one pair of functions serves them all. Writes
reuse the stored entry of the same type (or position) before setting fields, so fields and enum
numbers a newer writer added survive a read-modify-write (cluster-status.md §19).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any, TypeVar

from google.protobuf.message import Message

from osac.status.conditions.views import ConditionView

_View = TypeVar("_View")


def read_time(message: Message, field: str) -> datetime | None:
    """An optional Timestamp field as an aware UTC datetime; None when unset."""
    if not message.HasField(field):
        return None
    value: datetime = getattr(message, field).ToDatetime(tzinfo=UTC)
    return value


def write_time(message: Message, field: str, value: datetime | None) -> None:
    """Set or clear a Timestamp field. An unchanged value keeps its stored nanoseconds (a
    ``datetime`` holds microseconds), so rewriting a status read from storage changes nothing."""
    if value is None:
        message.ClearField(field)
    elif read_time(message, field) != value:
        getattr(message, field).FromDatetime(value)


def read_conditions(entries: Sequence[Any]) -> tuple[ConditionView, ...]:
    return tuple(
        ConditionView(
            type=int(entry.type),
            status=int(entry.status),
            reason=entry.reason,
            message=entry.message,
            last_transition_time=read_time(entry, "last_transition_time"),
        )
        for entry in entries
    )


def write_conditions(entries: Any, views: Sequence[ConditionView]) -> None:
    """Replace a repeated condition field by ``views``, reusing each stored entry of the same type."""
    stored: dict[int, Message] = {}
    for entry in entries:
        stored.setdefault(int(entry.type), _copy(entry))
    del entries[:]
    for view in views:
        entry = entries.add()
        kept = stored.get(view.type)
        if kept is not None:
            entry.CopyFrom(kept)
        entry.type = view.type
        entry.status = view.status
        entry.reason = view.reason
        entry.message = view.message
        write_time(entry, "last_transition_time", view.last_transition_time)


def write_repeated(entries: Any, views: Sequence[_View], fill: Callable[[Any, _View], None]) -> None:
    """Replace a repeated message field by ``views``; entry i starts as a copy of stored entry i."""
    stored = [_copy(entry) for entry in entries]
    del entries[:]
    for index, view in enumerate(views):
        entry = entries.add()
        if index < len(stored):
            entry.CopyFrom(stored[index])
        fill(entry, view)


def _copy(entry: Message) -> Message:
    clone = type(entry)()
    clone.CopyFrom(entry)
    return clone
