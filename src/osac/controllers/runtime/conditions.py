"""Setting conditions the way api.md §2.7 says: one entry per type, ``last_transition_time``
changes only when ``status`` flips."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import datetime
from typing import Protocol, TypeVar

from google.protobuf.timestamp_pb2 import Timestamp

from osac.api.private.v1.condition_status_type_pb2 import (
    CONDITION_STATUS_FALSE,
    CONDITION_STATUS_TRUE,
    ConditionStatus,
)

TRUE = CONDITION_STATUS_TRUE
FALSE = CONDITION_STATUS_FALSE

#: A kind's condition-type enum (``TenantConditionType``, ...).
T = TypeVar("T", bound=int)


class Condition(Protocol[T]):
    """An entry of a kind's repeated conditions field (every kind's has these fields)."""

    type: T
    status: ConditionStatus
    reason: str
    message: str
    last_transition_time: Timestamp


class Conditions(Protocol[T]):
    """A kind's repeated conditions field."""

    def __iter__(self) -> Iterator[Condition[T]]: ...

    def add(self) -> Condition[T]: ...


def set_condition(
    conditions: Conditions[T], condition_type: T, status: ConditionStatus, reason: str, message: str, now: datetime
) -> None:
    """Upsert the condition of ``condition_type`` in a repeated conditions field."""
    entries = list(conditions)
    for entry in entries:
        if entry.type == condition_type:
            if entry.status != status:
                entry.last_transition_time.FromDatetime(now)
            entry.status = status
            entry.reason = reason
            entry.message = message
            return
    entry = conditions.add()
    entry.type = condition_type
    entry.status = status
    entry.reason = reason
    entry.message = message
    entry.last_transition_time.FromDatetime(now)


def find_condition(conditions: Iterable[Condition[T]], condition_type: T) -> Condition[T] | None:
    for entry in conditions:
        if entry.type == condition_type:
            return entry
    return None
