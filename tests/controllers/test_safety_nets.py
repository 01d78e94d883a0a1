"""The controllers' safety nets come from ``controllers.safety_nets`` (seconds), each bounded;
a bad value is refused naming the setting and what it accepts."""

from __future__ import annotations

from datetime import timedelta

import pytest

from osac.controllers.runtime.safety_nets import SafetyNets
from osac.server.settings import Settings


def nets(config: dict[str, object]) -> SafetyNets:
    return Settings(config=config).controller_safety_nets


def test_unset_safety_nets_are_the_documented_defaults() -> None:
    assert nets({}) == nets({"controllers": {"shards": 4}}) == SafetyNets(
        wait=timedelta(seconds=30), compute_resync=timedelta(seconds=30), tenant_recheck=timedelta(seconds=30),
        attachment_recheck=timedelta(minutes=5))


def test_each_safety_net_is_set_in_seconds() -> None:
    configured = nets({"controllers": {"safety_nets": {"wait": 5, "compute_resync": 0.5,
                                                       "attachment_recheck": 86400}}})
    assert configured == SafetyNets(wait=timedelta(seconds=5), compute_resync=timedelta(milliseconds=500),
                                    attachment_recheck=timedelta(days=1))


@pytest.mark.parametrize(("section", "message"), [
    ({"wait": 0}, "controllers.safety_nets.wait: 0 is not a number of seconds above 0 and at most 86400"),
    ({"wait": -1}, "controllers.safety_nets.wait: -1 is not a number of seconds above 0 and at most 86400"),
    ({"tenant_recheck": 86401}, "controllers.safety_nets.tenant_recheck: 86401 is not a number of seconds"),
    ({"compute_resync": True}, "controllers.safety_nets.compute_resync: True is not a number of seconds"),
    ({"wait": "30s"}, "controllers.safety_nets.wait: '30s' is not a number of seconds"),
    ({"resync": 30}, "controllers.safety_nets.resync: not a safety net; use one of wait, compute_resync, "
                     "tenant_recheck, attachment_recheck"),
])
def test_a_bad_safety_net_is_refused_naming_it(section: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError) as refused:
        nets({"controllers": {"safety_nets": section}})
    assert str(refused.value).startswith(message)


def test_safety_nets_must_be_a_mapping() -> None:
    with pytest.raises(ValueError, match=r"controllers.safety_nets: \[30\] is not a mapping"):
        nets({"controllers": {"safety_nets": [30]}})


def test_the_controllers_section_must_be_a_mapping() -> None:
    with pytest.raises(ValueError, match=r"controllers: \[30\] is not a mapping"):
        nets({"controllers": [30]})
