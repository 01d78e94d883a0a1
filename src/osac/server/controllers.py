"""Wiring the controllers of one process from its configuration: the change feed, leases, the
networking, cluster, compute and bare-metal contexts and every reconciler."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from google.protobuf.message import Message

from osac.controllers.baremetal.bare_metal_instance import (
    BareMetalControllerContext,
    BareMetalInstanceReconciler,
    follow_host_notices,
)
from osac.controllers.baremetal.settings import BareMetalSettings
from osac.controllers.clusters import metrics as cluster_metrics
from osac.controllers.clusters.cluster import (
    RELIABLE_RESYNC,
    RESYNC,
    ClusterControllerContext,
    ClusterReconciler,
)
from osac.controllers.compute.compute_instance import ComputeControllerContext, ComputeInstanceReconciler
from osac.controllers.kinds import RECONCILERS, Contexts, build_reconcilers
from osac.controllers.networking import metrics as networking_metrics
from osac.controllers.networking import orphan_sweep
from osac.controllers.networking.provisioning import NetworkingContext
from osac.controllers.runtime.manager import ControllerManager, Reconciler
from osac.controllers.workloads import metrics as workload_metrics
from osac.controllers.workloads.passes import enqueue_notices, follow_provider
from osac.model import registry
from osac.status.clusters.derivation import StallThresholds
from osac.status.clusters.thresholds import parse_threshold
from osac.store.leases import DatabaseLeaseStore
from osac.store.outbox import References, StoreChangeFeed

if TYPE_CHECKING:
    from osac.server.app import Application

log = logging.getLogger(__name__)


def change_references(found: Iterable[Reconciler]) -> References:
    """Per kind, the spec fields naming the objects its changes concern (a reconciler's
    ``references``): the change feed reads them, so those objects are queued wherever their
    own reconciler runs."""
    return {reconciler.kind: references for reconciler in found if (references := getattr(reconciler, "references", ()))}


def cluster_resync(config: Mapping[str, Any], provider: object = None) -> timedelta:
    """``cluster_status.resync_interval``: the longest a cluster goes without a pass, which bounds
    the staleness a lost change notice causes. Unset: 30 s (cluster-status.md §17), or 10 minutes
    with a provider whose notices are reliable (``reliable_notices``, as the simulator's are),
    for which the resync is only a safety net.

    :raises ValueError: not a positive duration."""
    default = RELIABLE_RESYNC if getattr(provider, "reliable_notices", False) is True else RESYNC
    value = (config.get("cluster_status") or {}).get("resync_interval", default.total_seconds())
    return parse_threshold(value, "cluster_status.resync_interval")


async def start_controllers(application: Application) -> ControllerManager:
    """Start every controller of the process ``application``."""
    store = application.store
    assert application.engines is not None

    async def list_keys(kind: str) -> Iterable[str]:
        async with store.read() as tx:
            return await tx.ids(registry.get(kind))

    limits = application.settings.config.get("networking", {})
    networking = NetworkingContext(
        application.managers,
        retry_limit=int(limits.get("provider_retry_limit", 10)),
        cleanup_retry_limit=int(limits.get("cleanup_retry_limit", 10)),
        backoff_base_seconds=float(limits.get("retry_backoff_seconds", 1.0)),
        safety_nets=application.settings.controller_safety_nets,
    )
    cluster_context = None
    if application.managers.cluster_provider is not None:
        cluster_context = ClusterControllerContext(
            provider=application.managers.cluster_provider,
            networking=networking,
            thresholds=StallThresholds.from_config(application.settings.config),
            inventory=application.managers.baremetal_provider,
            resync=cluster_resync(application.settings.config, application.managers.cluster_provider),
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
    found = build_reconcilers(RECONCILERS, Contexts(application.services, networking, cluster_context, compute_context,
                                                    bare_metal_context))
    manager = ControllerManager(
        found,
        feed=StoreChangeFeed(store, application.wakeup, references=change_references(found)),
        leases=DatabaseLeaseStore(application.engines.writer, application.clock),
        list_keys=list_keys,
        clock=application.clock,
        holder=application.settings.process_name,
        shards=application.settings.controller_shards,
        lease_ttl=application.settings.controller_lease_ttl,
    )
    await manager.start()
    bare_metal_reconciler = next((r for r in found if isinstance(r, BareMetalInstanceReconciler)), None)
    if bare_metal_reconciler is not None:
        follow_host_notices(application, manager, bare_metal_reconciler)
    _follow(application, manager, found, ClusterReconciler,
            lambda clusters: cluster_metrics.refresh_cluster_gauges(clusters, application.clock.now()))
    _follow(application, manager, found, ComputeInstanceReconciler, workload_metrics.refresh_compute_gauges)
    application.spawn(networking_metrics.follow_networking_objects(store, lambda: manager.lead_kinds))
    application.spawn(orphan_sweep.follow_orphans(application.services, lambda: manager.lead_kinds,
                                                  orphan_sweep.sweep_interval(application.settings.config)))
    return manager


def _follow(application: Application, manager: ControllerManager, found: list[Reconciler], reconciler_type: type[Any],
            refresh_gauges: Callable[[list[Message]], None]) -> None:
    """Provider notices wake the reconciler of ``reconciler_type``; its gauges follow the lease."""
    reconciler = next((r for r in found if isinstance(r, reconciler_type)), None)
    if reconciler is None:
        return

    async def refresh(objects: list[Message]) -> None:
        refresh_gauges(objects)

    on_notice = enqueue_notices(manager, reconciler.kind, reconciler.changes)
    follow_provider(application, manager, reconciler.provider, on_notice, reconciler.kind, refresh,
                    cluster_metrics.GAUGE_INTERVAL)
