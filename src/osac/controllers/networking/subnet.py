"""Subnet: a segment with gateway and DHCP on the fabric, plus the k8s overlay when the class
has a Kubernetes network manager (READY only after both succeed)."""

from __future__ import annotations

import ipaddress

from osac.api.private.v1.subnet_type_pb2 import Subnet
from osac.controllers.networking import topology
from osac.controllers.networking.metrics import SUBNET_ADDRESSES_AVAILABLE, SeriesByObject, remove_series
from osac.controllers.networking.provisioning import NetworkingContext, ProviderCall, ProvisioningReconciler
from osac.controllers.runtime.waiters import Awaited
from osac.providers.interfaces import SubnetSpec
from osac.services.core.catalog import Services
from osac.services.networking import addresses
from osac.store.objects import Tx


def subnet_spec(obj: Subnet) -> SubnetSpec:
    """The fabric request from the layout the service fixed at create (``status.gateway``,
    ``status.vip_range``): DHCP serves gateway + 1 up to the address before the VIP range."""
    status = obj.status
    vip_first, _, vip_last = status.vip_range.partition("-")
    gateway = ipaddress.ip_address(status.gateway)
    dhcp = (str(gateway + 1), str(ipaddress.ip_address(vip_first) - 1))
    return SubnetSpec(
        subnet_id=obj.id,
        vn_id=obj.spec.virtual_network,
        cidr=obj.spec.ipv4_cidr,
        gateway=status.gateway,
        dhcp_range=dhcp,
        vip_range=(vip_first, vip_last),
        ipv6_cidr=obj.spec.ipv6_cidr,
    )


class SubnetReconciler(ProvisioningReconciler[Subnet]):
    kind = "subnet"
    message_class = Subnet

    def __init__(self, services: Services, networking: NetworkingContext) -> None:
        super().__init__(services, networking)
        self._series = SeriesByObject(lambda labels: remove_series(SUBNET_ADDRESSES_AVAILABLE, *labels))

    def observed(self, object_id: str, obj: Subnet | None) -> None:
        """``osac_subnet_addresses_available`` from the stored counter: each reservation or
        release rewrites it (an UPDATED event, so a pass); an archived subnet's series goes."""
        labels = None if obj is None else (obj.metadata.tenant, obj.metadata.name or object_id)
        self._series.report(object_id, labels)
        if obj is not None and labels is not None:
            SUBNET_ADDRESSES_AVAILABLE.labels(*labels).set(obj.status.available_addresses)

    def awaited(self, obj: Subnet) -> tuple[Awaited, ...]:
        return (("virtual_network", obj.spec.virtual_network),)

    async def waiting_for(self, tx: Tx, obj: Subnet) -> str | None:
        vn_id = obj.spec.virtual_network
        return topology.waiting_message("virtual_network", await topology.get(tx, "virtual_network", vn_id), vn_id)

    async def apply(self, tx: Tx, obj: Subnet) -> ProviderCall:
        network_class = await topology.network_class_of(tx, obj.spec.virtual_network)
        fabric = topology.fabric_of(self.networking.managers, network_class)
        k8s = topology.k8s_of(self.networking.managers, network_class)

        async def create() -> None:
            await fabric.create_subnet(subnet_spec(obj))
            if k8s is not None:
                await k8s.create_subnet_overlay(obj.id, segment=obj.id)

        return create

    async def teardown(self, tx: Tx, obj: Subnet) -> ProviderCall:
        network_class = await topology.network_class_of(tx, obj.spec.virtual_network)
        fabric = topology.fabric_of(self.networking.managers, network_class)
        k8s = topology.k8s_of(self.networking.managers, network_class)

        async def delete() -> None:
            if k8s is not None:
                await k8s.delete_subnet_overlay(obj.id)
            await fabric.delete_subnet(obj.id)

        return delete

    async def released(self, tx: Tx, obj: Subnet) -> None:
        await addresses.drop_ranges(tx, addresses.SUBNET, obj.id)
