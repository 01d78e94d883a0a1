"""ExternalIPAttachment: inbound 1:1 DNAT from its ExternalIP to the target's address
(networking.md §8). It waits (PENDING, ``WaitingForIPAddress``) until the ExternalIP is ALLOCATED
and the target address is known, re-programs when the target address changes, and is detached
(``TargetDeleted``) when its target is deleted: DNAT removed, ExternalIP kept."""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial

from google.protobuf.message import Message

from osac.api.private.v1.bare_metal_instance_type_pb2 import (
    BareMetalInstance,
    BareMetalNetworkAttachmentStatus,
)
from osac.api.private.v1.cluster_type_pb2 import Cluster
from osac.api.private.v1.compute_instance_type_pb2 import ComputeInstance, ComputeNetworkAttachmentStatus
from osac.api.private.v1.external_ip_attachment_type_pb2 import (
    EXTERNAL_IP_ATTACHMENT_STATE_PENDING,
    ExternalIPAttachment,
)
from osac.api.private.v1.external_ip_type_pb2 import ExternalIP
from osac.api.private.v1.subnet_type_pb2 import Subnet
from osac.controllers.networking import topology
from osac.controllers.networking.consumers import set_attached
from osac.controllers.networking.metrics import AUTO_EXTERNAL_IP_SECONDS
from osac.controllers.networking.provisioning import NetworkingContext, ProviderCall, ProvisioningReconciler
from osac.controllers.runtime.manager import ObjectKey, Result
from osac.controllers.runtime.objects import copy, is_deleting
from osac.controllers.runtime.waiters import Awaited
from osac.model import registry
from osac.model.labels import AUTO_LABEL
from osac.model.shape import as_kind
from osac.services.core.catalog import Services
from osac.store import lifecycle
from osac.store.objects import Tx, object_label

WAITING = "WaitingForIPAddress"
TARGET_DELETED = "TargetDeleted"
READY = "Ready"
API, INGRESS = 1, 2

TARGETS = (("compute_instance", "compute_instance"), ("cluster", "cluster"),
           ("baremetal_instance", "bare_metal_instance"))


def target_of(obj: ExternalIPAttachment) -> tuple[str, str]:
    """(kind name, id) of the attachment's target."""
    spec = obj.spec
    for field, kind_name in TARGETS:
        if getattr(spec, field):
            return kind_name, getattr(spec, field)
    return "", ""


def _primary(statuses: Iterable[ComputeNetworkAttachmentStatus | BareMetalNetworkAttachmentStatus]) -> str:
    entries = list(statuses)
    for entry in entries:
        if entry.primary:
            return str(entry.ip_address)
    return str(entries[0].ip_address) if entries else ""


def target_address(kind_name: str, target: Message, endpoint: int) -> str:
    """The internal DNAT target: the primary interface address of a VM or server, the API or
    ingress endpoint of a cluster; empty while unknown."""
    if kind_name == "compute_instance":
        status = as_kind(target, ComputeInstance).status
        return _primary(status.compute_network_attachment_statuses) or str(status.internal_ip_address)
    if kind_name == "bare_metal_instance":
        return _primary(as_kind(target, BareMetalInstance).status.network_attachment_statuses)
    if kind_name == "cluster":
        endpoints = as_kind(target, Cluster).status
        return str(endpoints.api_endpoint if endpoint == API else endpoints.ingress_endpoint)
    return ""


async def target_network(tx: Tx, kind_name: str, target: Message) -> str:
    """The VN of the target (through its primary attachment's subnet)."""
    subnet_id = ""
    if kind_name == "compute_instance":
        attachments = list(as_kind(target, ComputeInstance).spec.compute_network_attachments)
        chosen = next((a for a in attachments if a.primary), attachments[0] if attachments else None)
        subnet_id = chosen.subnet if chosen is not None else ""
    elif kind_name == "bare_metal_instance":
        nics = list(as_kind(target, BareMetalInstance).spec.network_attachments)
        nic = next((a for a in nics if a.primary), nics[0] if nics else None)
        subnet_id = nic.subnet if nic is not None else ""
    elif kind_name == "cluster":
        subnet_id = as_kind(target, Cluster).spec.network_attachment.subnet
    subnet = await topology.get(tx, "subnet", subnet_id)
    return str(as_kind(subnet, Subnet).spec.virtual_network) if subnet is not None else ""


class ExternalIPAttachmentReconciler(ProvisioningReconciler[ExternalIPAttachment]):
    """See the module docstring. Follows what it depends on for as long as it exists: a change
    of its external IP or its target (an address, ALLOCATED, a deletion) queues it
    (``dependents``)."""
    kind = "external_ip_attachment"
    message_class = ExternalIPAttachment
    #: An attachment's change queues its target (the change feed reads these spec fields): a VM's
    #: status shows its external address, whichever process reconciles the VM.
    references = TARGETS

    def __init__(self, services: Services, networking: NetworkingContext) -> None:
        super().__init__(services, networking)
        #: Attachments this process saw READY (loaded READY, or made READY): a later READY is a
        #: re-programming, not the activation ``osac_auto_external_ip_provisioning_seconds`` times.
        self._activated: set[str] = set()

    def awaited(self, obj: ExternalIPAttachment) -> tuple[Awaited, ...]:
        """The target always (its address, its deletion); the ExternalIP until READY (it waits
        for it to be ALLOCATED; a READY attachment's own transaction sets its ``attached``)."""
        if obj.status.state == self.state("READY"):
            return (target_of(obj),)
        return (target_of(obj), ("external_ip", obj.spec.external_ip))

    def is_following(self, obj: ExternalIPAttachment) -> bool:
        """Not only while provisioning: a READY attachment re-programs when the target's address
        changes, and any attachment is detached when its target goes."""
        return not is_deleting(obj)

    async def reconcile(self, key: ObjectKey) -> Result:
        async with self.store.read() as tx:
            obj = await self.load(tx, key.id)
            self.follow(key.id, obj)
            if obj is None:
                self._activated.discard(key.id)
            elif obj.status.state == self.state("READY"):
                self._activated.add(key.id)
            if obj is not None and not is_deleting(obj):
                kind_name, target_id = target_of(obj)
                target = await topology.get(tx, kind_name, target_id)
        if obj is None or is_deleting(obj):
            return await self.settle(key.id, obj)
        if target is None or is_deleting(target):
            return await self._detach(obj, kind_name, target)
        if obj.status.state == self.state("READY"):
            current = target_address(kind_name, target, obj.spec.target_endpoint)
            if current == obj.status.target_address:
                return Result(requeue_after=self.networking.safety_nets.attachment_recheck)
            pending = await self._back_to_pending(obj, f"target address changed to {current or 'nothing'}; re-programming")
            return await self.settle(key.id, pending)
        return await self.settle(key.id, obj)

    async def waiting_for(self, tx: Tx, obj: ExternalIPAttachment) -> str | None:
        eip_id = obj.spec.external_ip
        waiting = topology.waiting_message("external_ip", await topology.get(tx, "external_ip", eip_id), eip_id, "ALLOCATED")
        if waiting:
            return waiting
        kind_name, target_id = target_of(obj)
        target = await topology.get(tx, kind_name, target_id)
        if target is None:
            return f"waiting for the target '{target_id}'"
        if not target_address(kind_name, target, obj.spec.target_endpoint):
            state = topology.state_name(kind_name, target)
            return f"waiting for the address of {object_label(registry.get(kind_name), target)} ({state})"
        return None

    async def apply(self, tx: Tx, obj: ExternalIPAttachment) -> ProviderCall:
        kind_name, target_id = target_of(obj)
        target = await topology.get(tx, kind_name, target_id)
        eip = await topology.get(tx, "external_ip", obj.spec.external_ip)
        assert target is not None and eip is not None
        vn_id = await target_network(tx, kind_name, target)
        fabric = await topology.fabric_for_vn(tx, self.networking.managers, vn_id)
        address = as_kind(eip, ExternalIP).status.address
        return partial(
            fabric.create_external_ip_attachment,
            obj.id, address, vn_id, target_address(kind_name, target, obj.spec.target_endpoint),
        )

    async def provisioned(self, tx: Tx, desired: ExternalIPAttachment) -> None:
        kind_name, target_id = target_of(desired)
        target = await topology.get(tx, kind_name, target_id)
        status = desired.status
        status.reason = READY
        if target is not None:
            status.target_address = target_address(kind_name, target, desired.spec.target_endpoint)
        await set_attached(self.services, tx, desired.spec.external_ip, True)

    def became_ready(self, obj: ExternalIPAttachment, seconds: float) -> None:
        """The first READY of an auto-provisioned attachment is its parent's external access
        becoming live: ``seconds`` since the Create that committed it (networking.md §13)."""
        super().became_ready(obj, seconds)
        object_id = obj.id
        if object_id in self._activated:
            return
        self._activated.add(object_id)
        if obj.metadata.labels.get(AUTO_LABEL) == "true":
            target = next((field for field, _ in TARGETS if getattr(obj.spec, field)), "")
            AUTO_EXTERNAL_IP_SECONDS.labels(target).observe(seconds)

    async def teardown(self, tx: Tx, obj: ExternalIPAttachment) -> ProviderCall:
        fabric = await topology.external_fabric(tx, self.networking.managers)
        return partial(fabric.delete_external_ip_attachment, obj.id)

    async def released(self, tx: Tx, obj: ExternalIPAttachment) -> None:
        await set_attached(self.services, tx, obj.spec.external_ip, False)

    async def _back_to_pending(
        self, obj: ExternalIPAttachment, message: str, reason: str = WAITING
    ) -> ExternalIPAttachment | None:
        async with self.store.write() as tx:
            stored = await self.load(tx, obj.id)
            if stored is None:
                return None
            desired = as_kind(copy(stored), ExternalIPAttachment)
            desired.status.state = EXTERNAL_IP_ATTACHMENT_STATE_PENDING
            desired.status.reason = reason
            desired.status.message = message
            desired.status.target_address = ""
            await set_attached(self.services, tx, stored.spec.external_ip, False)
            return await self.write(tx, desired, stored)

    async def _detach(self, obj: ExternalIPAttachment, kind_name: str, target: Message | None) -> Result:
        """The target is gone or going: remove DNAT, keep the ExternalIP, stay inert."""
        if obj.status.reason == TARGET_DELETED:
            return Result()
        async with self.store.read(snapshot=False) as tx:
            fabric = await topology.external_fabric(tx, self.networking.managers)
        await fabric.delete_external_ip_attachment(obj.id)
        kind = registry.get(kind_name) if kind_name else None
        label = object_label(kind, target) if kind is not None and target is not None else f"'{target_of(obj)[1]}'"
        message = f"target {label} was deleted; attachment detached"
        detached = await self._back_to_pending(obj, message, TARGET_DELETED)
        if detached is not None:
            async with self.store.write() as tx:
                await lifecycle.record(tx, self.descriptor, detached, lifecycle.NORMAL, "ExternalIPAttachmentDetached", message)
        return Result()
