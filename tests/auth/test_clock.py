"""The fake clock moves only when told, and its monotonic reading never goes backwards."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from osac.clock import Clock, FakeClock, SystemClock

from .idp import T0


def test_advance_moves_wall_and_monotonic_time() -> None:
    clock = FakeClock(T0)
    clock.advance(timedelta(minutes=1))
    clock.advance(1.5)
    assert clock.now() == T0 + timedelta(seconds=61.5)
    assert clock.monotonic() == 61.5


def test_set_backwards_leaves_monotonic_time_alone() -> None:
    clock = FakeClock(T0)
    clock.set(T0 + timedelta(seconds=10))
    clock.set(T0 - timedelta(hours=1))
    assert clock.now() == T0 - timedelta(hours=1)
    assert clock.monotonic() == 10


def test_times_are_utc() -> None:
    clock = FakeClock(datetime(2030, 1, 2, 5, 4, 5, tzinfo=timezone(timedelta(hours=2))))
    assert clock.now() == T0
    assert clock.now().tzinfo is UTC


@pytest.mark.parametrize(
    "move",
    [
        pytest.param(lambda clock: FakeClock(datetime(2030, 1, 1)), id="naive-start"),
        pytest.param(lambda clock: clock.set(datetime(2030, 1, 1)), id="naive-set"),
        pytest.param(lambda clock: clock.advance(-1), id="negative-advance"),
    ],
)
def test_misuse_is_refused(move: object) -> None:
    with pytest.raises(ValueError):
        move(FakeClock(T0))  # type: ignore[operator]


def test_system_clock_is_a_clock() -> None:
    clock: Clock = SystemClock()
    assert clock.now().tzinfo is UTC
    assert clock.monotonic() <= clock.monotonic()
