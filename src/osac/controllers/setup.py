"""Starting the controllers of one process: the change feed, leases and every reconciler."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Iterable
from typing import Any

from sqlalchemy import select

from osac.controllers import cluster_metrics, workload_metrics
from osac.controllers.bare_metal_instance import (
    BareMetalControllerContext,
    BareMetalInstanceReconciler,
    follow_host_notices,
)
from osac.controllers.baremetal_settings import BareMetalSettings
from osac.controllers.cluster import ClusterControllerContext, ClusterReconciler
from osac.controllers.compute_instance import ComputeControllerContext, ComputeInstanceReconciler
from osac.controllers.external_ip import ExternalIPReconciler
from osac.controllers.external_ip_attachment import ExternalIPAttachmentReconciler
from osac.controllers.external_ip_pool import ExternalIPPoolReconciler
from osac.controllers.nat_gateway import NATGatewayReconciler
from osac.controllers.network_class import NetworkClassReconciler
from osac.controllers.notices import follow_notices
from osac.controllers.provisioning import NetworkingContext
from osac.controllers.runtime import ControllerManager, ObjectKey, Reconciler
from osac.controllers.security_group import SecurityGroupReconciler
from osac.controllers.subnet import SubnetReconciler
from osac.controllers.tenant import TenantReconciler
from osac.controllers.virtual_network import VirtualNetworkReconciler
from osac.model import registry
from osac.providers.interfaces import ChangeNotice
from osac.services.catalog import Services
from osac.status.clusters import StallThresholds
from osac.store.leases import DatabaseLeaseStore
from osac.store.outbox import StoreChangeFeed
from osac.store.tables import LIVE

log = logging.getLogger(__name__)


def reconcilers(
    services: Services, networking: NetworkingContext, clusters: ClusterControllerContext | None = None,
    compute: ComputeControllerContext | None = None,
    bare_metal: BareMetalControllerContext | None = None,
) -> list[Reconciler]:
    """One reconciler per kind that has infrastructure or derived status behind it."""
    found: list[Reconciler] = [
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
    if clusters is not None:
        found.append(ClusterReconciler(services, clusters))
    if compute is not None:
        found.append(ComputeInstanceReconciler(services, compute))
    if bare_metal is not None:
        found.append(BareMetalInstanceReconciler(services, bare_metal))
    return found


async def start_controllers(application: Any) -> ControllerManager:
    """Start every controller of the process ``application`` (``osac.server.app.Application``;
    typed loosely because controllers sit below the server layer)."""
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
    cluster_context = None
    if application.managers.cluster_provider is not None:
        cluster_context = ClusterControllerContext(
            provider=application.managers.cluster_provider,
            networking=networking,
            thresholds=StallThresholds.from_config(application.settings.config),
        )
    compute_context = None
    if application.managers.compute_provider is not None:
        compute_context = ComputeControllerContext(provider=application.managers.compute_provider, networking=networking)
    bare_metal_context = None
    if application.managers.baremetal_provider is not None:
        bare_metal_context = BareMetalControllerContext(
            provider=application.managers.baremetal_provider,
            networking=networking,
            settings=BareMetalSettings.from_config(application.settings.config),
        )
    found = reconcilers(application.services, networking, cluster_context, compute_context, bare_metal_context)
    manager = ControllerManager(
        found,
        feed=StoreChangeFeed(store, application.wakeup),
        leases=DatabaseLeaseStore(application.engines.writer, application.clock),
        list_keys=list_keys,
        clock=application.clock,
        holder=application.settings.process_name,
    )
    await manager.start()
    bare_metal_reconciler = next((r for r in found if isinstance(r, BareMetalInstanceReconciler)), None)
    if bare_metal_reconciler is not None:
        follow_host_notices(application, manager, bare_metal_reconciler)
    cluster_reconciler = next((r for r in found if isinstance(r, ClusterReconciler)), None)
    if cluster_reconciler is not None:
        reconciler = cluster_reconciler

        def on_cluster_notice(notice: ChangeNotice) -> None:
            reconciler.notice(notice.key, notice.changed_at)
            manager.enqueue(ObjectKey("cluster", notice.key))

        application.spawn(follow_notices(cluster_reconciler.provider, on_cluster_notice))
        application.spawn(_refresh_cluster_gauges(application, manager))
    _follow_compute_instances(application, manager, found)
    return manager


async def _refresh_cluster_gauges(application: Any, manager: ControllerManager) -> None:
    """The §16 gauges, from the database, by the process that runs the cluster controller."""
    kind = registry.get("cluster")
    while True:
        if "cluster" in manager.held_kinds:
            with contextlib.suppress(Exception):
                async with application.store.read() as tx:
                    clusters = await tx.find(kind)
                cluster_metrics.refresh_cluster_gauges(clusters, application.clock.now())
        await asyncio.sleep(cluster_metrics.GAUGE_INTERVAL.total_seconds())


def _follow_compute_instances(application: Any, manager: ControllerManager, found: list[Reconciler]) -> None:
    """Provider notices wake the compute-instance reconciler; its gauges follow the lease."""
    reconciler = next((r for r in found if isinstance(r, ComputeInstanceReconciler)), None)
    if reconciler is None:
        return
    compute = reconciler

    def on_notice(notice: ChangeNotice) -> None:
        compute.notice(notice.key, notice.changed_at)
        manager.enqueue(ObjectKey(compute.kind, notice.key))

    application.spawn(follow_notices(compute.provider, on_notice))
    application.spawn(_refresh_compute_gauges(application, manager))


async def _refresh_compute_gauges(application: Any, manager: ControllerManager) -> None:
    """``osac_compute_instances``, from the database, by the process that runs the controller."""
    kind = registry.get("compute_instance")
    while True:
        if kind.name in manager.held_kinds:
            with contextlib.suppress(Exception):
                async with application.store.read() as tx:
                    instances = await tx.find(kind)
                workload_metrics.refresh_compute_gauges(instances)
        await asyncio.sleep(cluster_metrics.GAUGE_INTERVAL.total_seconds())
