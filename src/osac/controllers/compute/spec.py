"""What a ComputeInstance asks of the infrastructure (networking.md §7.2, compute.md §2): the
virtual machine, the fabric port of each NIC, and the hash that tells which spec the provider
applied last.

Everything is computed from the stored instance, its InstanceType and the addresses IPAM reserved
at Create. Nothing is chosen at random, so every reconcile computes the same values and the
provider calls stay idempotent:

- attachment *i* is NIC ``nic-<i>``; its port is ``("ci/<id>", "nic-<i>")`` and its MAC is
  ``02`` (locally administered, unicast) followed by five bytes of SHA-256 over (id, i), so the
  fabric's DHCP reservation and the VM's NIC agree without the MAC being stored anywhere;
- the spec hash covers every input of the VM and of its ports (security groups included) except
  the run strategy, which has its own call and is checked against the VM's ``spec.runStrategy``.
  It travels to the provider as the VM label ``osac.openshift.io/spec-hash``, so the observation
  itself says which spec was applied last: the record survives restarts of the service, needs no
  storage of its own, and is lost exactly when the VM is.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

from osac.api.private.v1.compute_instance_type_pb2 import ComputeInstance
from osac.api.private.v1.instance_type_type_pb2 import InstanceType
from osac.api.private.v1.subnet_type_pb2 import Subnet
from osac.controllers.networking import topology
from osac.model.shape import as_kind
from osac.providers.compute import RUN_ALWAYS, RUN_HALTED, VirtualMachineInterface, VirtualMachineSpec
from osac.providers.interfaces import NetworkAttachmentSpec
from osac.services.workloads import addresses as workload_addresses
from osac.status.compute.derivation import ComputeAttachment, interface_name
from osac.store.objects import Tx

KIND = "compute_instance"
#: The VM label carrying the hash of the spec it was applied with.
SPEC_HASH_LABEL = "osac.openshift.io/spec-hash"
INSTANCE_LABEL = "osac.openshift.io/compute-instance"
TENANT_LABEL = "osac.openshift.io/tenant"
#: ``spec.boot_disk.size_gib`` 0 means "the image's own size", but a DataVolume needs a size: the
#: catalogue's container-disk images fit in this one.
DEFAULT_BOOT_DISK_GIB = 10


@dataclass(frozen=True)
class DesiredMachine:
    """The VM and ports one instance should have.

    ``problem`` is set when the stored data cannot describe a VM (its InstanceType is gone, an
    attachment has no reserved address): retrying cannot help, so the reconciler reports it as a
    terminal failure instead of calling the provider."""

    spec: VirtualMachineSpec
    ports: tuple[NetworkAttachmentSpec, ...]
    attachments: tuple[ComputeAttachment, ...]
    spec_hash: str
    virtual_network: str
    problem: str = ""

    @property
    def run_strategy(self) -> str:
        return self.spec.run_strategy

    def with_run_strategy(self, run_strategy: str) -> VirtualMachineSpec:
        return replace(self.spec, run_strategy=run_strategy)


def port_host_name(instance_id: str) -> str:
    """The fabric's host name of every port of the instance (networking.md §11.1)."""
    return f"ci/{instance_id}"


def port_mac(instance_id: str, index: int) -> str:
    """``02:xx:xx:xx:xx:xx``: stable per (instance, attachment), unique in practice."""
    digest = hashlib.sha256(f"{instance_id}/{index}".encode()).digest()
    return ":".join(f"{byte:02x}" for byte in (0x02, *digest[:5]))


def requested_run_strategy(instance: ComputeInstance) -> str:
    """``spec.run_strategy`` as the provider spells it; empty means Always."""
    value = str(instance.spec.run_strategy)
    return RUN_HALTED if value.lower() == RUN_HALTED.lower() else RUN_ALWAYS


def boot_disk_gib(instance: ComputeInstance) -> int:
    size = int(instance.spec.boot_disk.size_gib)
    return size if size > 0 else DEFAULT_BOOT_DISK_GIB


def additional_disk_count(instance: ComputeInstance) -> int:
    return len(instance.spec.additional_disks)


async def desired_machine(tx: Tx, instance: ComputeInstance) -> DesiredMachine:
    """Read what the VM and its ports should be (``tx`` may be a read or the status write)."""
    spec = instance.spec
    instance_id = instance.id
    problems: list[str] = []
    instance_type = await topology.get(tx, "instance_type", spec.instance_type)
    if instance_type is None:
        problems.append(f"InstanceType '{spec.instance_type}' does not exist")
    addresses = await workload_addresses.attachment_addresses(tx, KIND, instance_id)
    attachments: list[ComputeAttachment] = []
    interfaces: list[VirtualMachineInterface] = []
    ports: list[NetworkAttachmentSpec] = []
    items = list(spec.compute_network_attachments)
    for index, item in enumerate(items):
        address = addresses.get(index, "")
        if not address:
            problems.append(f"spec.compute_network_attachments[{index}] has no reserved address")
        mac = port_mac(instance_id, index)
        attachments.append(ComputeAttachment(subnet=item.subnet, primary=item.primary or len(items) == 1,
                                             address=address))
        interfaces.append(VirtualMachineInterface(name=interface_name(index), segment=item.subnet, mac=mac,
                                                  address=address))
        ports.append(NetworkAttachmentSpec(
            host_name=port_host_name(instance_id),
            interface=interface_name(index),
            mac=mac,
            subnet_id=item.subnet,
            address=address,
            security_group_ids=tuple(item.security_groups),
            target_kind=KIND,
        ))
    type_spec = as_kind(instance_type, InstanceType).spec if instance_type is not None else None
    machine = VirtualMachineSpec(
        cores=int(type_spec.cores) if type_spec is not None else 0,
        memory_gib=int(type_spec.memory_gib) if type_spec is not None else 0,
        gpus=int(type_spec.gpu.count) if type_spec is not None else 0,
        image=spec.image.source_ref,
        boot_disk_gib=boot_disk_gib(instance),
        additional_disks=tuple(int(disk.size_gib) for disk in spec.additional_disks),
        run_strategy=requested_run_strategy(instance),
        user_data=spec.user_data,
        ssh_public_key=spec.ssh_public_key,
        interfaces=tuple(interfaces),
    )
    digest = spec_hash(machine, ports)
    machine = replace(machine, labels={
        INSTANCE_LABEL: instance_id,
        TENANT_LABEL: instance.metadata.tenant,
        SPEC_HASH_LABEL: digest,
    })
    subnet = await topology.get(tx, "subnet", items[0].subnet) if items else None
    return DesiredMachine(
        spec=machine,
        ports=tuple(ports),
        attachments=tuple(attachments),
        spec_hash=digest,
        virtual_network=str(as_kind(subnet, Subnet).spec.virtual_network) if subnet is not None else "",
        problem="; ".join(problems),
    )


def spec_hash(machine: VirtualMachineSpec, ports: Sequence[NetworkAttachmentSpec]) -> str:
    """16 hex digits over everything the provider and the fabric are asked for, except the run
    strategy and the labels (which carry the hash)."""
    document = {name: value for name, value in asdict(machine).items() if name not in ("run_strategy", "labels")}
    document["ports"] = [asdict(port) for port in ports]
    encoded = json.dumps(document, sort_keys=True, default=list).encode()
    return hashlib.sha256(encoded).hexdigest()[:16]


def applied_spec_hash(virtual_machine: Mapping[str, Any] | None) -> str:
    """The hash label of an observed VM; empty when there is no VM or no label."""
    metadata = (virtual_machine or {}).get("metadata")
    labels = metadata.get("labels") if isinstance(metadata, Mapping) else None
    value = labels.get(SPEC_HASH_LABEL) if isinstance(labels, Mapping) else None
    return value if isinstance(value, str) else ""


def observed_run_strategy(virtual_machine: Mapping[str, Any] | None) -> str:
    """``spec.runStrategy`` of an observed VM; empty when unknown."""
    spec = (virtual_machine or {}).get("spec")
    value = spec.get("runStrategy") if isinstance(spec, Mapping) else None
    return value if isinstance(value, str) else ""
