"""Every kind is served through a behaviour installed explicitly; nothing falls back silently."""

from __future__ import annotations

from typing import cast

import pytest

from osac.model import registry
from osac.services.core.behaviour import Behaviour
from osac.services.core.catalog import Services
from osac.services.kinds import BEHAVIOURS
from osac.services.networking.subnet import SubnetBehaviour
from osac.store.objects import Store


def test_every_registered_kind_has_exactly_one_installed_behaviour() -> None:
    assert set(BEHAVIOURS) == {kind.name for kind in registry.KINDS}
    assert BEHAVIOURS["subnet"] is SubnetBehaviour
    assert BEHAVIOURS["hub"] is Behaviour


def test_services_refuse_a_kind_without_a_behaviour() -> None:
    partial = {name: cls for name, cls in BEHAVIOURS.items() if name != "subnet"}
    with pytest.raises(LookupError, match=r"no behaviour for \['subnet'\], unknown kinds \[\]"):
        Services(cast(Store, None), partial)


def test_services_refuse_a_behaviour_for_an_unknown_kind() -> None:
    extra = {**BEHAVIOURS, "widget": Behaviour}
    with pytest.raises(LookupError, match=r"no behaviour for \[\], unknown kinds \['widget'\]"):
        Services(cast(Store, None), extra)


def test_services_use_the_installed_behaviour_of_each_kind() -> None:
    services = Services(cast(Store, None), BEHAVIOURS)
    assert type(services["subnet"].behaviour) is SubnetBehaviour
    assert type(services["hub"].behaviour) is Behaviour
