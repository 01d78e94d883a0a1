"""Primitives shared by the pure status derivations (clusters, compute instances, bare metal).

Every derivation works on frozen views with the proto JSON field names, so a view converts to
and from the stored status without a mapping table, and unknown enum numbers pass through as
plain integers (cluster-status.md §19). Nothing here does I/O or reads a clock.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

#: ``ConditionStatus`` numbers (the API has no UNKNOWN: an unknown input yields FALSE).
TRUE = 1
FALSE = 2

#: ``LifecycleEventType`` numbers.
NORMAL = 1
WARNING = 2


@dataclass(frozen=True)
class ConditionView:
    """One condition of a status; ``type`` and ``status`` are enum numbers (open enums)."""

    type: int
    status: int
    reason: str = ""
    message: str = ""
    last_transition_time: datetime | None = None

    @property
    def is_true(self) -> bool:
        return self.status == TRUE


@dataclass(frozen=True)
class LifecycleEventView:
    """A lifecycle event a derivation asks the reconciler to record with the status write."""

    type: int
    reason: str
    message: str = ""


def stamp_conditions(
    previous: Sequence[ConditionView], new: Iterable[ConditionView], now: datetime
) -> tuple[ConditionView, ...]:
    """Give each new condition its ``last_transition_time``: the previous one's when the status
    is unchanged (reason and message may change alone), ``now`` otherwise.

    Conditions come back in the order of ``new``; previous entries whose type ``new`` does not
    produce (types a newer writer added) are appended unchanged, so they survive."""
    before = {c.type: c for c in previous}
    stamped: list[ConditionView] = []
    for condition in new:
        old = before.get(condition.type)
        if old is not None and old.status == condition.status and old.last_transition_time is not None:
            stamped.append(replace(condition, last_transition_time=old.last_transition_time))
        else:
            stamped.append(replace(condition, last_transition_time=now))
    produced = {c.type for c in stamped}
    stamped.extend(c for c in previous if c.type not in produced)
    return tuple(stamped)


def condition(conditions: Iterable[ConditionView], condition_type: int) -> ConditionView | None:
    """The condition of one type, or None."""
    return next((c for c in conditions if c.type == condition_type), None)


def parse_time(value: Any) -> datetime | None:
    """An RFC 3339 text (``Z`` or offset) as an aware datetime; None when absent or malformed."""
    if isinstance(value, datetime):
        return value if value.tzinfo is not None else None
    if not isinstance(value, str) or not value:
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else None


def conditions_by_type(items: Any) -> Mapping[str, Mapping[str, Any]] | None:
    """Kubernetes-style ``status.conditions`` as ``{type: condition}``.

    A duplicated type maps to ``{"status": "Unknown"}`` (cluster-status.md §5.1). None when the
    list is malformed, which callers treat as an unreadable observation."""
    if items is None:
        return {}
    if not isinstance(items, list):
        return None
    seen: dict[str, Mapping[str, Any]] = {}
    duplicated: set[str] = set()
    for item in items:
        if not isinstance(item, Mapping) or not isinstance(item.get("type"), str):
            return None
        kind = item["type"]
        if kind in seen:
            duplicated.add(kind)
        seen[kind] = item
    for kind in duplicated:
        seen[kind] = {"type": kind, "status": "Unknown", "reason": "Duplicated", "message": "condition reported twice"}
    return seen
