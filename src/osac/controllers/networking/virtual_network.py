"""VirtualNetwork: an isolated routing domain on the class's fabric manager."""

from __future__ import annotations

from functools import partial

from google.protobuf.message import Message

from osac.controllers.networking import topology
from osac.controllers.networking.provisioning import ProviderCall, ProvisioningReconciler
from osac.controllers.runtime.waiters import Awaited
from osac.store.objects import Tx


class VirtualNetworkReconciler(ProvisioningReconciler):
    kind = "virtual_network"

    def awaited(self, obj: Message) -> tuple[Awaited, ...]:
        return (("network_class", obj.spec.network_class),)  # type: ignore[attr-defined]

    async def waiting_for(self, tx: Tx, obj: Message) -> str | None:
        network_class = await topology.get(tx, "network_class", obj.spec.network_class)  # type: ignore[attr-defined]
        return topology.waiting_message("network_class", network_class, obj.spec.network_class)  # type: ignore[attr-defined]

    async def apply(self, tx: Tx, obj: Message) -> ProviderCall:
        fabric = await topology.fabric_for_vn(tx, self.networking.managers, obj.id)  # type: ignore[attr-defined]
        cidrs = [c for c in (obj.spec.ipv4_cidr, obj.spec.ipv6_cidr) if c]  # type: ignore[attr-defined]
        return partial(fabric.create_virtual_network, obj.id, cidrs)  # type: ignore[attr-defined]

    async def teardown(self, tx: Tx, obj: Message) -> ProviderCall:
        fabric = await topology.fabric_for_vn(tx, self.networking.managers, obj.id)  # type: ignore[attr-defined]
        return partial(fabric.delete_virtual_network, obj.id)  # type: ignore[attr-defined]
