"""What one pass of the bare-metal reconciler reads from the store besides the instance: its
tenant (``owning_tenant``), the name of its host type, and each attachment as a host port with
the address reserved for it at Create (networking.md §5.3, §7.4)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from osac.api.private.v1.bare_metal_instance_type_pb2 import BareMetalInstance
from osac.api.private.v1.host_type_type_pb2 import HostType
from osac.api.private.v1.subnet_type_pb2 import Subnet
from osac.controllers.baremetal.memory import PortBinding
from osac.controllers.networking import topology
from osac.controllers.workloads.owning_tenant import OwningTenant, read_owning_tenant
from osac.model.shape import as_kind
from osac.services.workloads import addresses as workload_addresses
from osac.status.baremetal.derivation import BareMetalAttachment, TenantReadiness
from osac.store.objects import Tx

KIND = "bare_metal_instance"


@dataclass(frozen=True)
class Port:
    """Attachment ``index`` as the host port ``interface`` bound per ``binding``."""

    index: int
    interface: str
    binding: PortBinding
    primary: bool

    def label(self, host_name: str) -> str:
        """``bm-std-007/ens1f0``: how the fabric names the port."""
        return f"{host_name}/{self.interface}"


@dataclass(frozen=True)
class InstanceInputs:
    instance: BareMetalInstance
    owning_tenant: OwningTenant
    #: The HostType's name: the inventory's key (the spec stores the HostType's id).
    host_type: str
    ports: tuple[Port, ...]
    #: The VirtualNetwork of the attachments, whose class picks the fabric manager.
    virtual_network: str

    @property
    def id(self) -> str:
        return str(self.instance.id)

    @property
    def tenant(self) -> TenantReadiness:
        return self.owning_tenant.readiness

    @property
    def attachments(self) -> tuple[BareMetalAttachment, ...]:
        return tuple(
            BareMetalAttachment(p.interface, p.binding.subnet, p.primary, p.binding.address) for p in self.ports
        )

    @property
    def spec_hash(self) -> str:
        return mutable_spec_hash(self.instance)


async def read_inputs(tx: Tx, instance: BareMetalInstance) -> InstanceInputs:
    spec = instance.spec
    addresses = await workload_addresses.attachment_addresses(tx, KIND, instance.id)
    attachments = list(spec.network_attachments)
    ports = tuple(
        Port(
            index=index,
            interface=attachment.interface,
            binding=PortBinding(attachment.subnet, addresses.get(index, ""), tuple(attachment.security_groups)),
            primary=attachment.primary or len(attachments) == 1,
        )
        for index, attachment in enumerate(attachments)
    )
    host_type = await topology.get(tx, "host_type", spec.host_type)
    subnet = await topology.get(tx, "subnet", attachments[0].subnet) if attachments else None
    return InstanceInputs(
        instance=instance,
        owning_tenant=await read_owning_tenant(tx, instance.metadata.tenant),
        host_type=as_kind(host_type, HostType).metadata.name if host_type is not None else spec.host_type,
        ports=ports,
        virtual_network=as_kind(subnet, Subnet).spec.virtual_network if subnet is not None else "",
    )


def mutable_spec_hash(instance: BareMetalInstance) -> str:
    """A digest of what an Update may change and the reconciler applies: the security groups of
    each attachment and the run strategy (``restart_trigger`` has its own bookkeeping)."""
    spec = instance.spec
    document = [int(spec.run_strategy), [list(a.security_groups) for a in spec.network_attachments]]
    return hashlib.sha256(json.dumps(document).encode()).hexdigest()[:16]
