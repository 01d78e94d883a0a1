"""ExternalIPPool: ready as soon as its ranges exist (created with the pool); its ranges are
dropped when the pool is archived (its ExternalIPs block the delete until then)."""

from __future__ import annotations

from osac.api.private.v1.external_ip_pool_type_pb2 import ExternalIPPool
from osac.controllers.networking.metrics import (
    POOL_ADDRESSES,
    POOL_UTILIZATION,
    SeriesByObject,
    remove_series,
)
from osac.controllers.networking.provisioning import NetworkingContext, ProvisioningReconciler
from osac.services.core.catalog import Services
from osac.services.networking import addresses
from osac.store.objects import Tx

POOL_STATES = ("total", "allocated", "available")


def _remove_pool_series(labels: tuple[str, ...]) -> None:
    for state in POOL_STATES:
        remove_series(POOL_ADDRESSES, *labels, state)
    remove_series(POOL_UTILIZATION, *labels)


class ExternalIPPoolReconciler(ProvisioningReconciler[ExternalIPPool]):
    kind = "external_ip_pool"
    message_class = ExternalIPPool

    def __init__(self, services: Services, networking: NetworkingContext) -> None:
        super().__init__(services, networking)
        self._series = SeriesByObject(_remove_pool_series)

    def observed(self, object_id: str, obj: ExternalIPPool | None) -> None:
        """Every counter change of a pool is an UPDATED event, so the gauges follow it here; an
        archived pool's series are removed."""
        name = None if obj is None else obj.metadata.name or object_id
        self._series.report(object_id, None if name is None else (name,))
        if obj is None or name is None:
            return
        status = obj.status
        for state, value in zip(POOL_STATES, (status.total, status.allocated, status.available), strict=True):
            POOL_ADDRESSES.labels(name, state).set(value)
        POOL_UTILIZATION.labels(name).set(status.allocated / status.total if status.total else 0.0)

    async def released(self, tx: Tx, obj: ExternalIPPool) -> None:
        await addresses.drop_ranges(tx, addresses.POOL, obj.id)
