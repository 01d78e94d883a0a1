"""Setting conditions the way api.md §2.7 says: one entry per type, ``last_transition_time``
changes only when ``status`` flips."""

from __future__ import annotations

from datetime import datetime

from google.protobuf.message import Message

TRUE = 1
FALSE = 2


def set_condition(
    conditions: object, condition_type: int, status: int, reason: str, message: str, now: datetime
) -> None:
    """Upsert the condition of ``condition_type`` in a repeated conditions field."""
    entries = list(conditions)  # type: ignore[call-overload]
    for entry in entries:
        if entry.type == condition_type:
            if entry.status != status:
                entry.last_transition_time.FromDatetime(now)
            entry.status = status
            entry.reason = reason
            entry.message = message
            return
    entry = conditions.add()  # type: ignore[attr-defined]
    entry.type = condition_type
    entry.status = status
    entry.reason = reason
    entry.message = message
    entry.last_transition_time.FromDatetime(now)


def find_condition(conditions: object, condition_type: int) -> Message | None:
    for entry in conditions:  # type: ignore[attr-defined]
        if entry.type == condition_type:
            return entry  # type: ignore[no-any-return]
    return None
