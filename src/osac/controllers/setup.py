"""Starting the controllers of one process: the change feed, leases and every reconciler."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from sqlalchemy import select

from osac.controllers.runtime import ControllerManager, Reconciler
from osac.controllers.tenant import TenantReconciler
from osac.services.catalog import Services
from osac.store.leases import DatabaseLeaseStore
from osac.store.outbox import StoreChangeFeed
from osac.store.tables import LIVE

if TYPE_CHECKING:
    from osac.server.app import Application


def reconcilers(services: Services) -> list[Reconciler]:
    """One reconciler per kind that has infrastructure or derived status behind it."""
    return [TenantReconciler(services)]


async def start_controllers(application: Application) -> ControllerManager:
    store = application.store
    assert application.engines is not None

    async def list_keys(kind: str) -> Iterable[str]:
        table = LIVE[kind]
        async with store.read() as tx:
            return [row[0] for row in await tx.conn.execute(select(table.c.id).order_by(table.c.id))]

    manager = ControllerManager(
        reconcilers(application.services),
        feed=StoreChangeFeed(store, application.wakeup),
        leases=DatabaseLeaseStore(application.engines.writer, application.clock),
        list_keys=list_keys,
        clock=application.clock,
        holder=application.settings.process_name,
    )
    await manager.start()
    return manager
