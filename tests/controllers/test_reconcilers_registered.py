"""Every reconciled kind has a reconciler registered explicitly; the controllers refuse to start
without one, naming the kind."""

from __future__ import annotations

from typing import cast

import pytest

from osac.controllers.kinds import RECONCILERS, Contexts, build_reconcilers, check_registered
from osac.controllers.networking.nat_gateway import NATGatewayReconciler
from osac.controllers.networking.provisioning import NetworkingContext
from osac.controllers.tenancy.tenant import TenantReconciler
from osac.model import registry
from osac.providers.registry import ManagerRegistry
from osac.services.core.catalog import Services
from osac.services.kinds import BEHAVIOURS
from osac.store.objects import Store


def _contexts() -> Contexts:
    return Contexts(Services(cast(Store, None), BEHAVIOURS), NetworkingContext(ManagerRegistry([], {})))


def test_every_reconciled_kind_has_one_registered_reconciler() -> None:
    assert list(RECONCILERS) == [kind.name for kind in registry.KINDS if kind.reconciled]
    check_registered(RECONCILERS)


def test_a_reconciled_kind_without_a_reconciler_is_refused_naming_it() -> None:
    partial = {name: factory for name, factory in RECONCILERS.items() if name != "nat_gateway"}
    with pytest.raises(LookupError, match=r"no reconciler for \['nat_gateway'\], reconcilers for kinds that are "
                                          r"not reconciled \[\]"):
        build_reconcilers(partial, _contexts())


def test_a_reconciler_for_a_kind_that_is_not_reconciled_is_refused_naming_it() -> None:
    extra = {**RECONCILERS, "host_type": RECONCILERS["tenant"], "widget": RECONCILERS["tenant"]}
    with pytest.raises(LookupError, match=r"no reconciler for \[\], reconcilers for kinds that are not reconciled "
                                          r"\['host_type', 'widget'\]"):
        check_registered(extra)


def test_a_reconciler_registered_under_another_kind_is_refused() -> None:
    swapped = {**RECONCILERS, "subnet": RECONCILERS["tenant"]}
    with pytest.raises(LookupError, match="the reconciler registered for subnet reconciles tenant"):
        build_reconcilers(swapped, _contexts())


def test_without_workload_providers_the_networking_and_tenant_reconcilers_run_in_registry_order() -> None:
    found = build_reconcilers(RECONCILERS, _contexts())
    assert [reconciler.kind for reconciler in found] == [
        "tenant", "network_class", "virtual_network", "subnet", "security_group", "external_ip_pool",
        "external_ip", "external_ip_attachment", "nat_gateway",
    ]
    assert isinstance(found[0], TenantReconciler)
    assert isinstance(found[-1], NATGatewayReconciler)
