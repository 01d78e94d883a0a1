"""Starting the controllers of one process: the change feed, leases and every reconciler."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from sqlalchemy import select

from osac.controllers.external_ip import ExternalIPReconciler
from osac.controllers.external_ip_attachment import ExternalIPAttachmentReconciler
from osac.controllers.external_ip_pool import ExternalIPPoolReconciler
from osac.controllers.nat_gateway import NATGatewayReconciler
from osac.controllers.network_class import NetworkClassReconciler
from osac.controllers.provisioning import NetworkingContext
from osac.controllers.runtime import ControllerManager, Reconciler
from osac.controllers.security_group import SecurityGroupReconciler
from osac.controllers.subnet import SubnetReconciler
from osac.controllers.tenant import TenantReconciler
from osac.controllers.virtual_network import VirtualNetworkReconciler
from osac.services.catalog import Services
from osac.store.leases import DatabaseLeaseStore
from osac.store.outbox import StoreChangeFeed
from osac.store.tables import LIVE

if TYPE_CHECKING:
    from osac.server.app import Application


def reconcilers(services: Services, networking: NetworkingContext) -> list[Reconciler]:
    """One reconciler per kind that has infrastructure or derived status behind it."""
    return [
        TenantReconciler(services),
        NetworkClassReconciler(services, networking),
        VirtualNetworkReconciler(services, networking),
        SubnetReconciler(services, networking),
        SecurityGroupReconciler(services, networking),
        ExternalIPPoolReconciler(services, networking),
        ExternalIPReconciler(services, networking),
        ExternalIPAttachmentReconciler(services, networking),
        NATGatewayReconciler(services, networking),
    ]


async def start_controllers(application: Application) -> ControllerManager:
    store = application.store
    assert application.engines is not None

    async def list_keys(kind: str) -> Iterable[str]:
        table = LIVE[kind]
        async with store.read() as tx:
            return [row[0] for row in await tx.conn.execute(select(table.c.id).order_by(table.c.id))]

    limits = application.settings.config.get("networking", {})
    networking = NetworkingContext(
        application.managers,
        retry_limit=int(limits.get("provider_retry_limit", 10)),
        cleanup_retry_limit=int(limits.get("cleanup_retry_limit", 10)),
        backoff_base_seconds=float(limits.get("retry_backoff_seconds", 1.0)),
    )
    manager = ControllerManager(
        reconcilers(application.services, networking),
        feed=StoreChangeFeed(store, application.wakeup),
        leases=DatabaseLeaseStore(application.engines.writer, application.clock),
        list_keys=list_keys,
        clock=application.clock,
        holder=application.settings.process_name,
    )
    await manager.start()
    return manager
