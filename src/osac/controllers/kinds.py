"""Every kind's reconciler, registered in one place (one line per kind).

A kind whose descriptor says ``reconciled`` is driven by the reconciler registered here against
its name; the controllers refuse to start when one is missing, or when one is registered for a
kind the registry does not reconcile (``check_registered``), never running without it silently.
A workload's reconciler needs its provider: without one configured (no ``cluster`` provider, say)
its factory gives None and the kind is not reconciled in this process.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from osac.controllers.baremetal.bare_metal_instance import (
    BareMetalControllerContext,
    BareMetalInstanceReconciler,
)
from osac.controllers.clusters.cluster import ClusterControllerContext, ClusterReconciler
from osac.controllers.compute.compute_instance import ComputeControllerContext, ComputeInstanceReconciler
from osac.controllers.networking.external_ip import ExternalIPReconciler
from osac.controllers.networking.external_ip_attachment import ExternalIPAttachmentReconciler
from osac.controllers.networking.external_ip_pool import ExternalIPPoolReconciler
from osac.controllers.networking.nat_gateway import NATGatewayReconciler
from osac.controllers.networking.network_class import NetworkClassReconciler
from osac.controllers.networking.provisioning import NetworkingContext
from osac.controllers.networking.security_group import SecurityGroupReconciler
from osac.controllers.networking.subnet import SubnetReconciler
from osac.controllers.networking.virtual_network import VirtualNetworkReconciler
from osac.controllers.runtime.manager import Reconciler
from osac.controllers.tenancy.tenant import TenantReconciler
from osac.model import registry
from osac.services.core.catalog import Services


@dataclass(frozen=True)
class Contexts:
    """What the reconcilers of one process are built from; a workload context is None when its
    provider is not configured."""

    services: Services
    networking: NetworkingContext
    clusters: ClusterControllerContext | None = None
    compute: ComputeControllerContext | None = None
    bare_metal: BareMetalControllerContext | None = None


#: Builds a kind's reconciler, or None when the process has no provider for it.
Factory = Callable[[Contexts], Reconciler | None]

RECONCILERS: Mapping[str, Factory] = {
    "tenant": lambda c: TenantReconciler(c.services, c.networking.safety_nets.tenant_recheck),
    "network_class": lambda c: NetworkClassReconciler(c.services, c.networking),
    "virtual_network": lambda c: VirtualNetworkReconciler(c.services, c.networking),
    "subnet": lambda c: SubnetReconciler(c.services, c.networking),
    "security_group": lambda c: SecurityGroupReconciler(c.services, c.networking),
    "external_ip_pool": lambda c: ExternalIPPoolReconciler(c.services, c.networking),
    "external_ip": lambda c: ExternalIPReconciler(c.services, c.networking),
    "external_ip_attachment": lambda c: ExternalIPAttachmentReconciler(c.services, c.networking),
    "nat_gateway": lambda c: NATGatewayReconciler(c.services, c.networking),
    "cluster": lambda c: None if c.clusters is None else ClusterReconciler(c.services, c.clusters),
    "compute_instance": lambda c: None if c.compute is None else ComputeInstanceReconciler(c.services, c.compute),
    "bare_metal_instance": lambda c: (
        None if c.bare_metal is None else BareMetalInstanceReconciler(c.services, c.bare_metal)
    ),
}


def check_registered(factories: Mapping[str, Factory]) -> None:
    """:raises LookupError: a reconciled kind without a reconciler, or a reconciler for a name
    that is not a reconciled kind, naming them."""
    wanted = [kind.name for kind in registry.KINDS if kind.reconciled]
    missing = [name for name in wanted if name not in factories]
    unknown = [name for name in factories if name not in wanted]
    if missing or unknown:
        raise LookupError(
            f"reconcilers do not match the kind registry: no reconciler for {missing}, "
            f"reconcilers for kinds that are not reconciled {unknown}"
        )


def build_reconcilers(factories: Mapping[str, Factory], contexts: Contexts) -> list[Reconciler]:
    """One reconciler per reconciled kind the process has a provider for, in registry order.

    :raises LookupError: the factories do not match the registry (``check_registered``), or one
        builds a reconciler of another kind."""
    check_registered(factories)
    found = []
    for kind in registry.KINDS:
        reconciler = factories[kind.name](contexts) if kind.reconciled else None
        if reconciler is None:
            continue
        if reconciler.kind != kind.name:
            raise LookupError(f"the reconciler registered for {kind.name} reconciles {reconciler.kind}")
        found.append(reconciler)
    return found
