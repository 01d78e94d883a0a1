"""``ChangeLag``: each provider change is measured once, from its change time to the commit of
the first status write whose observation included it (``osac_status_propagation_seconds``)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

from prometheus_client import REGISTRY

from osac.controllers.workloads.passes import ChangeLag

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def measured(label: str) -> tuple[float, float]:
    """(count, sum) of the histogram for ``label``."""
    def value(suffix: str) -> float:
        return REGISTRY.get_sample_value(f"osac_status_propagation_seconds_{suffix}", {"object_type": label}) or 0.0
    return value("count"), value("sum")


def new_lag() -> tuple[ChangeLag, str]:
    label = f"test-{uuid.uuid4().hex[:8]}"
    return ChangeLag(label), label


def test_a_change_is_measured_at_the_commit_of_the_write_that_reflects_it() -> None:
    lag, label = new_lag()
    lag.notice("a", at(0))
    lag.notice("a", at(0.2))  # coalesced: the earliest counts
    lag.committed("a", observed_at=at(0.3), at=at(0.5))
    assert measured(label) == (1, 0.5)
    lag.committed("a", observed_at=at(1), at=at(1.1))  # nothing pending: nothing measured
    assert measured(label) == (1, 0.5)


def test_a_notice_arriving_after_its_write_committed_is_measured_against_that_write() -> None:
    lag, label = new_lag()
    lag.committed("a", observed_at=at(1.0), at=at(1.25))
    lag.notice("a", at(0.75))  # the pass saw this change before its notice was delivered
    assert measured(label) == (1, 0.5)
    lag.notice("a", at(2))  # a later change waits for its own write
    lag.committed("a", observed_at=at(3), at=at(3.5))
    assert measured(label) == (2, 2.0)


def test_a_change_after_the_observation_stays_pending() -> None:
    lag, label = new_lag()
    lag.notice("a", at(5))
    lag.committed("a", observed_at=at(4), at=at(5.5))
    lag.unchanged("a", observed_at=at(4.5))
    assert measured(label) == (0, 0)
    lag.committed("a", observed_at=at(6), at=at(6.5))
    assert measured(label) == (1, 1.5)


def test_a_change_that_left_the_status_as_it_was_is_dropped_unmeasured() -> None:
    lag, label = new_lag()
    lag.notice("a", at(1))
    lag.unchanged("a", observed_at=at(2))
    lag.committed("a", observed_at=at(3), at=at(4))
    assert measured(label) == (0, 0)
    lag.notice("b", at(1))
    lag.forget("b")
    lag.committed("b", observed_at=at(3), at=at(4))
    assert measured(label) == (0, 0)
