"""ExternalIP: the address reserved at create is announced on the fabric (ALLOCATED); on delete
it is withdrawn and, only once the fabric confirmed, returned to its pool."""

from __future__ import annotations

from functools import partial

from osac.api.private.v1.external_ip_type_pb2 import ExternalIP
from osac.controllers.networking import topology
from osac.controllers.networking.provisioning import ProviderCall, ProvisioningReconciler
from osac.services.networking import addresses
from osac.store.objects import Tx


class ExternalIPReconciler(ProvisioningReconciler[ExternalIP]):
    kind = "external_ip"
    message_class = ExternalIP
    ready_state = "ALLOCATED"

    async def apply(self, tx: Tx, obj: ExternalIP) -> ProviderCall:
        fabric = await topology.external_fabric(tx, self.networking.managers)
        return partial(fabric.allocate_external_ip, obj.id, obj.spec.pool, obj.status.address)

    async def teardown(self, tx: Tx, obj: ExternalIP) -> ProviderCall:
        fabric = await topology.external_fabric(tx, self.networking.managers)
        return partial(fabric.release_external_ip, obj.id)

    async def released(self, tx: Tx, obj: ExternalIP) -> None:
        await addresses.release(tx, owner_type=self.kind, owner_id=obj.id)
