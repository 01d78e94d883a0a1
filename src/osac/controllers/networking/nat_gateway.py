"""NATGateway: SNAT for the whole VN through its ExternalIP, once both are ready."""

from __future__ import annotations

from functools import partial

from google.protobuf.message import Message

from osac.controllers.networking import topology
from osac.controllers.networking.consumers import set_attached
from osac.controllers.networking.provisioning import ProviderCall, ProvisioningReconciler
from osac.controllers.runtime.waiters import Awaited
from osac.store.objects import Tx


class NATGatewayReconciler(ProvisioningReconciler):
    kind = "nat_gateway"

    def awaited(self, obj: Message) -> tuple[Awaited, ...]:
        spec = obj.spec  # type: ignore[attr-defined]
        return (("virtual_network", spec.virtual_network), ("external_ip", spec.external_ip))

    async def waiting_for(self, tx: Tx, obj: Message) -> str | None:
        spec = obj.spec  # type: ignore[attr-defined]
        vn = await topology.get(tx, "virtual_network", spec.virtual_network)
        eip = await topology.get(tx, "external_ip", spec.external_ip)
        return (topology.waiting_message("virtual_network", vn, spec.virtual_network)
                or topology.waiting_message("external_ip", eip, spec.external_ip, "ALLOCATED"))

    async def apply(self, tx: Tx, obj: Message) -> ProviderCall:
        spec = obj.spec  # type: ignore[attr-defined]
        eip = await topology.get(tx, "external_ip", spec.external_ip)
        assert eip is not None
        fabric = await topology.fabric_for_vn(tx, self.networking.managers, spec.virtual_network)
        return partial(fabric.create_nat_gateway, obj.id, spec.virtual_network, eip.status.address)  # type: ignore[attr-defined]

    async def provisioned(self, tx: Tx, desired: Message) -> None:
        await set_attached(self.services, tx, desired.spec.external_ip, True)  # type: ignore[attr-defined]

    async def teardown(self, tx: Tx, obj: Message) -> ProviderCall:
        fabric = await topology.fabric_for_vn(tx, self.networking.managers, obj.spec.virtual_network)  # type: ignore[attr-defined]
        return partial(fabric.delete_nat_gateway, obj.id)  # type: ignore[attr-defined]

    async def released(self, tx: Tx, obj: Message) -> None:
        await set_attached(self.services, tx, obj.spec.external_ip, False)  # type: ignore[attr-defined]
