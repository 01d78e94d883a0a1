"""The shared window of recent events is bounded in bytes as well as in events (issue #16)."""

from __future__ import annotations

from typing import Any

from osac.store.outbox import StoredEvent
from osac.store.recent import RecentEvents


def _event(revision: int, size: int) -> StoredEvent:
    return StoredEvent(revision, 1, "virtual_network", f"id-{revision}", "acme", {"a": "x" * size})


def test_large_events_are_trimmed_by_bytes() -> None:
    store: Any = None
    recent = RecentEvents(store, store, window=1000, window_bytes=10_000_000)
    recent.floor = recent.cursor = 0
    for revision in range(1, 101):  # 100 events of ~1 MB: ten times the byte bound
        recent._append(_event(revision, 1_000_000))
        assert recent.bytes <= 10_000_000
    assert recent.cursor == 100 and recent.covers(recent.floor) and not recent.covers(recent.floor - 1)
    assert [event.revision for event in recent.after(recent.floor)] == list(range(recent.floor + 1, 101))
    assert len(recent.after(recent.floor)) <= 10


def test_small_events_are_trimmed_by_count() -> None:
    store: Any = None
    recent = RecentEvents(store, store, window=10, window_bytes=10_000_000)
    recent.floor = recent.cursor = 0
    for revision in range(1, 22):
        recent._append(_event(revision, 10))
    assert recent.floor == 11 and len(recent.after(recent.floor)) == 10


def test_forms_are_shared_only_for_events_in_the_window() -> None:
    store: Any = None
    recent = RecentEvents(store, store, window=10, window_bytes=10_000_000)
    recent.floor = recent.cursor = 100
    for revision in range(101, 106):
        recent._append(_event(revision, 10))
    built: list[int] = []

    def form(event: StoredEvent) -> object:
        return recent.decoded(event, "public", lambda stored: built.append(stored.revision) or object())

    inside, replayed = _event(103, 10), _event(42, 10)  # 42: a replay from before the window
    assert form(inside) is form(inside)
    assert form(replayed) is not form(replayed)
    assert built == [103, 42, 42]
    assert sorted(recent._decoded) == [103]  # nothing kept for the replayed event
