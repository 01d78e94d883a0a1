"""The cluster controller's settings from the configuration file."""

from __future__ import annotations

from datetime import timedelta

import pytest

from osac.server.controllers import cluster_resync


def test_resync_interval_defaults_to_the_specified_30_seconds() -> None:
    assert cluster_resync({}) == timedelta(seconds=30)
    assert cluster_resync({"cluster_status": {"resync_interval": "10m"}}) == timedelta(minutes=10)


@pytest.mark.parametrize("value", ["0", "-5s", "soon"])
def test_a_bad_resync_interval_names_the_key(value: str) -> None:
    with pytest.raises(ValueError, match="cluster_status.resync_interval"):
        cluster_resync({"cluster_status": {"resync_interval": value}})
