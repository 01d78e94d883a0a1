"""ExternalIPAttachment: inbound 1:1 DNAT from its ExternalIP to the target's address
(networking.md §8). It waits (PENDING, ``WaitingForIPAddress``) until the ExternalIP is ALLOCATED
and the target address is known, re-programs when the target address changes, and is detached
(``TargetDeleted``) when its target is deleted: DNAT removed, ExternalIP kept."""

from __future__ import annotations

from datetime import timedelta
from functools import partial

from google.protobuf.message import Message

from osac.controllers.networking import topology
from osac.controllers.networking.consumers import set_attached
from osac.controllers.networking.metrics import AUTO_EXTERNAL_IP_SECONDS
from osac.controllers.networking.provisioning import NetworkingContext, ProviderCall, ProvisioningReconciler
from osac.controllers.runtime.manager import ObjectKey, Result
from osac.controllers.runtime.objects import copy, is_deleting
from osac.controllers.runtime.waiters import Awaited
from osac.model import registry
from osac.model.labels import AUTO_LABEL
from osac.services.core.catalog import Services
from osac.store import lifecycle
from osac.store.objects import Tx, object_label

WAITING = "WaitingForIPAddress"
TARGET_DELETED = "TargetDeleted"
READY = "Ready"
API, INGRESS = 1, 2
#: READY attachments look at their target again this often; a change of the target itself
#: (address, deletion) queues its attachments at once (``dependents``): this is the safety net.
RECHECK = timedelta(minutes=5)

TARGETS = (("compute_instance", "compute_instance"), ("cluster", "cluster"),
           ("baremetal_instance", "bare_metal_instance"))


def target_of(obj: Message) -> tuple[str, str]:
    """(kind name, id) of the attachment's target."""
    spec = obj.spec  # type: ignore[attr-defined]
    for field, kind_name in TARGETS:
        if getattr(spec, field):
            return kind_name, getattr(spec, field)
    return "", ""


def _primary(statuses: object) -> str:
    entries = list(statuses)  # type: ignore[call-overload]
    for entry in entries:
        if entry.primary:
            return str(entry.ip_address)
    return str(entries[0].ip_address) if entries else ""


def target_address(kind_name: str, target: Message, endpoint: int) -> str:
    """The internal DNAT target: the primary interface address of a VM or server, the API or
    ingress endpoint of a cluster; empty while unknown."""
    status = target.status  # type: ignore[attr-defined]
    if kind_name == "compute_instance":
        return _primary(status.compute_network_attachment_statuses) or str(status.internal_ip_address)
    if kind_name == "bare_metal_instance":
        return _primary(status.network_attachment_statuses)
    if kind_name == "cluster":
        return str(status.api_endpoint if endpoint == API else status.ingress_endpoint)
    return ""


async def target_network(tx: Tx, kind_name: str, target: Message) -> str:
    """The VN of the target (through its primary attachment's subnet)."""
    spec = target.spec  # type: ignore[attr-defined]
    subnet_id = ""
    if kind_name == "compute_instance":
        attachments = list(spec.compute_network_attachments)
        chosen = next((a for a in attachments if a.primary), attachments[0] if attachments else None)
        subnet_id = chosen.subnet if chosen is not None else ""
    elif kind_name == "bare_metal_instance":
        attachments = list(spec.network_attachments)
        chosen = next((a for a in attachments if a.primary), attachments[0] if attachments else None)
        subnet_id = chosen.subnet if chosen is not None else ""
    elif kind_name == "cluster":
        subnet_id = spec.network_attachment.subnet
    subnet = await topology.get(tx, "subnet", subnet_id)
    return str(subnet.spec.virtual_network) if subnet is not None else ""  # type: ignore[attr-defined]


class ExternalIPAttachmentReconciler(ProvisioningReconciler):
    """See the module docstring. Follows what it depends on for as long as it exists: a change
    of its external IP or its target (an address, ALLOCATED, a deletion) queues it
    (``dependents``)."""
    kind = "external_ip_attachment"
    #: An attachment's change queues its target (the change feed reads these spec fields): a VM's
    #: status shows its external address, whichever process reconciles the VM.
    references = TARGETS

    def __init__(self, services: Services, networking: NetworkingContext) -> None:
        super().__init__(services, networking)
        #: Attachments this process saw READY (loaded READY, or made READY): a later READY is a
        #: re-programming, not the activation ``osac_auto_external_ip_provisioning_seconds`` times.
        self._activated: set[str] = set()

    def awaited(self, obj: Message) -> tuple[Awaited, ...]:
        return (target_of(obj), ("external_ip", obj.spec.external_ip))  # type: ignore[attr-defined]

    def is_following(self, obj: Message) -> bool:
        """Not only while provisioning: a READY attachment re-programs when the target's address
        changes, and any attachment is detached when its target goes."""
        return not is_deleting(obj)

    async def reconcile(self, key: ObjectKey) -> Result:
        async with self.store.read() as tx:
            obj = await self.load(tx, key.id)
            self.follow(key.id, obj)
            if obj is None:
                self._activated.discard(key.id)
            elif obj.status.state == self.state("READY"):  # type: ignore[attr-defined]
                self._activated.add(key.id)
            if obj is None or is_deleting(obj):
                return await super().reconcile(key)
            kind_name, target_id = target_of(obj)
            target = await topology.get(tx, kind_name, target_id)
        if target is None or is_deleting(target):
            return await self._detach(obj, kind_name, target)
        if obj.status.state == self.state("READY"):  # type: ignore[attr-defined]
            current = target_address(kind_name, target, obj.spec.target_endpoint)  # type: ignore[attr-defined]
            if current == obj.status.target_address:  # type: ignore[attr-defined]
                return Result(requeue_after=RECHECK)
            await self._back_to_pending(obj, f"target address changed to {current or 'nothing'}; re-programming")
        return await super().reconcile(key)

    async def waiting_for(self, tx: Tx, obj: Message) -> str | None:
        eip_id = obj.spec.external_ip  # type: ignore[attr-defined]
        waiting = topology.waiting_message("external_ip", await topology.get(tx, "external_ip", eip_id), eip_id, "ALLOCATED")
        if waiting:
            return waiting
        kind_name, target_id = target_of(obj)
        target = await topology.get(tx, kind_name, target_id)
        if target is None:
            return f"waiting for the target '{target_id}'"
        if not target_address(kind_name, target, obj.spec.target_endpoint):  # type: ignore[attr-defined]
            state = topology.state_name(kind_name, target)
            return f"waiting for the address of {object_label(registry.get(kind_name), target)} ({state})"
        return None

    async def apply(self, tx: Tx, obj: Message) -> ProviderCall:
        kind_name, target_id = target_of(obj)
        target = await topology.get(tx, kind_name, target_id)
        eip = await topology.get(tx, "external_ip", obj.spec.external_ip)  # type: ignore[attr-defined]
        assert target is not None and eip is not None
        vn_id = await target_network(tx, kind_name, target)
        fabric = await topology.fabric_for_vn(tx, self.networking.managers, vn_id)
        return partial(
            fabric.create_external_ip_attachment,
            obj.id, eip.status.address, vn_id, target_address(kind_name, target, obj.spec.target_endpoint),  # type: ignore[attr-defined]
        )

    async def provisioned(self, tx: Tx, desired: Message) -> None:
        kind_name, target_id = target_of(desired)
        target = await topology.get(tx, kind_name, target_id)
        status = desired.status  # type: ignore[attr-defined]
        status.reason = READY
        if target is not None:
            status.target_address = target_address(kind_name, target, desired.spec.target_endpoint)  # type: ignore[attr-defined]
        await set_attached(self.services, tx, desired.spec.external_ip, True)  # type: ignore[attr-defined]

    def became_ready(self, obj: Message, seconds: float) -> None:
        """The first READY of an auto-provisioned attachment is its parent's external access
        becoming live: ``seconds`` since the Create that committed it (networking.md §13)."""
        super().became_ready(obj, seconds)
        object_id: str = obj.id  # type: ignore[attr-defined]
        if object_id in self._activated:
            return
        self._activated.add(object_id)
        if obj.metadata.labels.get(AUTO_LABEL) == "true":  # type: ignore[attr-defined]
            target = next((field for field, _ in TARGETS if getattr(obj.spec, field)), "")  # type: ignore[attr-defined]
            AUTO_EXTERNAL_IP_SECONDS.labels(target).observe(seconds)

    async def teardown(self, tx: Tx, obj: Message) -> ProviderCall:
        fabric = await topology.external_fabric(tx, self.networking.managers)
        return partial(fabric.delete_external_ip_attachment, obj.id)  # type: ignore[attr-defined]

    async def released(self, tx: Tx, obj: Message) -> None:
        await set_attached(self.services, tx, obj.spec.external_ip, False)  # type: ignore[attr-defined]

    async def _back_to_pending(self, obj: Message, message: str, reason: str = WAITING) -> Message | None:
        async with self.store.write() as tx:
            stored = await self.load(tx, obj.id)  # type: ignore[attr-defined]
            if stored is None:
                return None
            desired = copy(stored)
            desired.status.state = self.state("PENDING")  # type: ignore[attr-defined]
            desired.status.reason = reason  # type: ignore[attr-defined]
            desired.status.message = message  # type: ignore[attr-defined]
            desired.status.target_address = ""  # type: ignore[attr-defined]
            await set_attached(self.services, tx, stored.spec.external_ip, False)  # type: ignore[attr-defined]
            return await self.write(tx, desired, stored)

    async def _detach(self, obj: Message, kind_name: str, target: Message | None) -> Result:
        """The target is gone or going: remove DNAT, keep the ExternalIP, stay inert."""
        if obj.status.reason == TARGET_DELETED:  # type: ignore[attr-defined]
            return Result()
        async with self.store.read(snapshot=False) as tx:
            fabric = await topology.external_fabric(tx, self.networking.managers)
        await fabric.delete_external_ip_attachment(obj.id)  # type: ignore[attr-defined]
        kind = registry.get(kind_name) if kind_name else None
        label = object_label(kind, target) if kind is not None and target is not None else f"'{target_of(obj)[1]}'"
        message = f"target {label} was deleted; attachment detached"
        detached = await self._back_to_pending(obj, message, TARGET_DELETED)
        if detached is not None:
            async with self.store.write() as tx:
                await lifecycle.record(tx, self.descriptor, detached, lifecycle.NORMAL, "ExternalIPAttachmentDetached", message)
        return Result()
