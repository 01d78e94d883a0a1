"""The cluster controller's settings from the configuration file."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from osac.controllers.runtime.spread import until_slot
from osac.providers.simulator.clusters.provider import SimulatedClusterProvider
from osac.server.controllers import cluster_resync


class _ReliableProvider:
    reliable_notices = True


def test_resync_interval_defaults_to_the_specified_30_seconds() -> None:
    assert cluster_resync({}) == timedelta(seconds=30)
    assert cluster_resync({}, object()) == timedelta(seconds=30)
    assert cluster_resync({"cluster_status": {"resync_interval": "10m"}}) == timedelta(minutes=10)


def test_with_reliable_notices_the_resync_is_a_ten_minute_safety_net_unless_configured() -> None:
    assert cluster_resync({}, _ReliableProvider()) == timedelta(minutes=10)
    assert cluster_resync({"cluster_status": {"resync_interval": "30s"}}, _ReliableProvider()) == timedelta(seconds=30)
    assert SimulatedClusterProvider.reliable_notices is True


def test_a_resync_slot_is_fixed_per_cluster_and_within_the_interval() -> None:
    period = timedelta(minutes=10)
    now = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
    wait = until_slot("0199-a", now, period)
    assert timedelta(0) < wait <= period
    # the slot does not move with the time of the pass: a pass a minute later waits a minute less
    later = until_slot("0199-a", now + timedelta(minutes=1), period)
    assert later == (wait - timedelta(minutes=1) if wait > timedelta(minutes=1) else wait + timedelta(minutes=9))
    # a pass at its slot waits a whole period for the next one
    assert until_slot("0199-a", now + wait, period) == period
    # and the slots of many clusters cover the interval evenly
    waits = [until_slot(f"cluster-{n}", now, period) for n in range(1000)]
    per_minute = [sum(1 for w in waits if timedelta(minutes=m) < w <= timedelta(minutes=m + 1)) for m in range(10)]
    assert min(per_minute) >= 70 and max(per_minute) <= 130, per_minute


@pytest.mark.parametrize("value", ["0", "-5s", "soon"])
def test_a_bad_resync_interval_names_the_key(value: str) -> None:
    with pytest.raises(ValueError, match="cluster_status.resync_interval"):
        cluster_resync({"cluster_status": {"resync_interval": value}})
