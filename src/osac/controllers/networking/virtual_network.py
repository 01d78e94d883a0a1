"""VirtualNetwork: an isolated routing domain on the class's fabric manager."""

from __future__ import annotations

from functools import partial

from osac.api.private.v1.virtual_network_type_pb2 import VirtualNetwork
from osac.controllers.networking import topology
from osac.controllers.networking.provisioning import ProviderCall, ProvisioningReconciler
from osac.controllers.runtime.waiters import Awaited
from osac.store.objects import Tx


class VirtualNetworkReconciler(ProvisioningReconciler[VirtualNetwork]):
    kind = "virtual_network"
    message_class = VirtualNetwork

    def awaited(self, obj: VirtualNetwork) -> tuple[Awaited, ...]:
        return (("network_class", obj.spec.network_class),)

    async def waiting_for(self, tx: Tx, obj: VirtualNetwork) -> str | None:
        network_class = await topology.get(tx, "network_class", obj.spec.network_class)
        return topology.waiting_message("network_class", network_class, obj.spec.network_class)

    async def apply(self, tx: Tx, obj: VirtualNetwork) -> ProviderCall:
        fabric = await topology.fabric_for_vn(tx, self.networking.managers, obj.id)
        cidrs = [c for c in (obj.spec.ipv4_cidr, obj.spec.ipv6_cidr) if c]
        return partial(fabric.create_virtual_network, obj.id, cidrs)

    async def teardown(self, tx: Tx, obj: VirtualNetwork) -> ProviderCall:
        fabric = await topology.fabric_for_vn(tx, self.networking.managers, obj.id)
        return partial(fabric.delete_virtual_network, obj.id)
