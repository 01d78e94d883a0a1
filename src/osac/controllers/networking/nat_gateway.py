"""NATGateway: SNAT for the whole VN through its ExternalIP, once both are ready."""

from __future__ import annotations

from functools import partial

from osac.api.private.v1.external_ip_type_pb2 import ExternalIP
from osac.api.private.v1.nat_gateway_type_pb2 import NATGateway
from osac.controllers.networking import topology
from osac.controllers.networking.consumers import set_attached
from osac.controllers.networking.provisioning import ProviderCall, ProvisioningReconciler
from osac.controllers.runtime.waiters import Awaited
from osac.model.shape import as_kind
from osac.store.objects import Tx


class NATGatewayReconciler(ProvisioningReconciler[NATGateway]):
    kind = "nat_gateway"
    message_class = NATGateway

    def awaited(self, obj: NATGateway) -> tuple[Awaited, ...]:
        spec = obj.spec
        return (("virtual_network", spec.virtual_network), ("external_ip", spec.external_ip))

    async def waiting_for(self, tx: Tx, obj: NATGateway) -> str | None:
        spec = obj.spec
        vn = await topology.get(tx, "virtual_network", spec.virtual_network)
        eip = await topology.get(tx, "external_ip", spec.external_ip)
        return (topology.waiting_message("virtual_network", vn, spec.virtual_network)
                or topology.waiting_message("external_ip", eip, spec.external_ip, "ALLOCATED"))

    async def apply(self, tx: Tx, obj: NATGateway) -> ProviderCall:
        spec = obj.spec
        eip = await topology.get(tx, "external_ip", spec.external_ip)
        assert eip is not None
        address = as_kind(eip, ExternalIP).status.address
        fabric = await topology.fabric_for_vn(tx, self.networking.managers, spec.virtual_network)
        return partial(fabric.create_nat_gateway, obj.id, spec.virtual_network, address)

    async def provisioned(self, tx: Tx, desired: NATGateway) -> None:
        await set_attached(self.services, tx, desired.spec.external_ip, True)

    async def teardown(self, tx: Tx, obj: NATGateway) -> ProviderCall:
        fabric = await topology.fabric_for_vn(tx, self.networking.managers, obj.spec.virtual_network)
        return partial(fabric.delete_nat_gateway, obj.id)

    async def released(self, tx: Tx, obj: NATGateway) -> None:
        await set_attached(self.services, tx, obj.spec.external_ip, False)
