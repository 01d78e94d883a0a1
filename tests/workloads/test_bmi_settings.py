"""The ``baremetal`` configuration section: the spec's timings by default, overridable, and a bad
key or value refused with a message naming it (compute.md §3.2, §3.3)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from osac.controllers.baremetal.settings import DEFAULT_IMAGE, BareMetalSettings
from osac.controllers.runtime.retry import RetryPolicy


def test_without_a_section_the_spec_timings_apply() -> None:
    settings = BareMetalSettings.from_config({})
    assert settings.default_image == DEFAULT_IMAGE
    assert settings.host_wait == RetryPolicy(timedelta(seconds=30), timedelta(minutes=5))
    assert settings.networking_retry == RetryPolicy(timedelta(seconds=2), timedelta(seconds=30))
    assert settings.networking_budget_per_interface == timedelta(minutes=2)
    assert settings.provisioning_attempts == 3
    assert settings.lease_poll_interval == timedelta(seconds=5)
    assert settings.ip_discovery_timeout == timedelta(minutes=5)
    assert settings.restart_timeout == timedelta(minutes=15)


def test_a_section_overrides_what_it_names() -> None:
    settings = BareMetalSettings.from_config({"baremetal": {
        "default_image": "https://images.example/os.qcow2", "host_wait_backoff": "10s", "host_wait_backoff_max": "1m",
        "networking_budget_per_interface": 90, "provisioning_attempts": 5, "ip_discovery_timeout": "1m30s"}})
    assert settings.default_image == "https://images.example/os.qcow2"
    assert settings.host_wait == RetryPolicy(timedelta(seconds=10), timedelta(minutes=1))
    assert settings.networking_budget_per_interface == timedelta(seconds=90)
    assert settings.provisioning_attempts == 5
    assert settings.ip_discovery_timeout == timedelta(seconds=90)
    assert settings.lease_poll_interval == timedelta(seconds=5)


@pytest.mark.parametrize(("attempt", "wait"), [(1, 30), (2, 60), (3, 120), (4, 240), (5, 300), (40, 300)])
def test_the_host_wait_doubles_up_to_its_cap(attempt: int, wait: int) -> None:
    assert BareMetalSettings().host_wait.delay(attempt) == timedelta(seconds=wait)


@pytest.mark.parametrize(
    ("section", "message"),
    [
        pytest.param([], "baremetal must be a mapping", id="not-a-mapping"),
        pytest.param({"lease_poll": "5s"}, "baremetal: unknown key(s) lease_poll", id="unknown-key"),
        pytest.param({"restart_timeout": "soon"}, "baremetal.restart_timeout: 'soon' is not a positive duration",
                     id="bad-duration"),
        pytest.param({"provisioning_attempts": 0}, "baremetal.provisioning_attempts must be a whole number",
                     id="no-attempts"),
        pytest.param({"host_wait_backoff": "10m", "host_wait_backoff_max": "1m"},
                     "baremetal.host_wait_backoff and baremetal.host_wait_backoff_max: the first wait must be "
                     "above 0 and at most the longest (0:01:00)", id="cap-below-first-wait"),
        pytest.param({"default_image": " "}, "baremetal.default_image must be a non-empty image URL", id="no-image"),
    ],
)
def test_bad_settings_are_refused_naming_the_key(section: Any, message: str) -> None:
    with pytest.raises(ValueError) as refused:
        BareMetalSettings.from_config({"baremetal": section})
    assert str(refused.value).startswith(message)
