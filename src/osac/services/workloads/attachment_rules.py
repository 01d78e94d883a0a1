"""Network attachment rules shared by ComputeInstance and BareMetalInstance (networking.md §6.4,
§7.1, §7.2, §7.4), on top of the helpers every workload uses (``attachments``).

An instance's attachments are a list whose *position* identifies each one: the VM NIC ``nic-<i>``
and the address reserved for ordinal i. So on Update the list cannot grow or shrink, and each
entry keeps its subnet, primary flag and (bare metal) interface; only its security groups change,
and are re-applied to the port without touching the instance's state. An entry that leaves an
immutable field empty keeps the stored value, as an omitted immutable field does (api.md §2.5);
an Update that leaves the whole list empty keeps the stored list.

The create-time reservations and the automatic external access (``reserve_on_create``,
``hold_auto_cleanup``, ``provision_auto_access``) are shared with Cluster as well.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from google.protobuf.internal.containers import RepeatedCompositeFieldContainer

from osac.api.private.v1.bare_metal_instance_type_pb2 import BareMetalInstance, BareMetalNetworkAttachment
from osac.api.private.v1.cluster_type_pb2 import Cluster
from osac.api.private.v1.compute_instance_type_pb2 import ComputeInstance, ComputeNetworkAttachment
from osac.api.private.v1.external_ip_attachment_type_pb2 import ExternalIPAttachmentEndpoint
from osac.api.private.v1.security_group_type_pb2 import SecurityGroup
from osac.api.private.v1.subnet_type_pb2 import Subnet
from osac.model import registry
from osac.model.kinds import Kind
from osac.model.shape import as_kind
from osac.services.core.behaviour import WriteContext
from osac.services.core.errors import InvalidArgument
from osac.services.networking import external_ip_attachment, gates
from osac.services.workloads import addresses, network_attachments
from osac.services.workloads.network_attachments import Attachment
from osac.store.objects import Tx, object_label

#: The instances whose attachments are a list (ComputeInstance, BareMetalInstance).
Instance = ComputeInstance | BareMetalInstance
#: Every workload with network attachments (the automatic external access serves all three).
Workload = ComputeInstance | BareMetalInstance | Cluster
#: An entry of an instance's attachment list.
InstanceAttachment = TypeVar("InstanceAttachment", ComputeNetworkAttachment, BareMetalNetworkAttachment)


def reserve_on_create(tx: Tx, kind: Kind, obj: Instance, items: Sequence[Attachment]) -> None:
    """The create-time reservations of a workload: one address per attachment on its subnet (at
    commit), and
    the auto-cleanup finalizer when it asks for automatic external access (its auto-provisioned
    children must be gone before it is archived)."""
    addresses.reserve_attachment_addresses(tx, kind.name, obj.id, [a.subnet for a in items])
    hold_auto_cleanup(obj)


def hold_auto_cleanup(obj: Workload) -> None:
    """Add the auto-cleanup finalizer to a new workload that asks for automatic external access."""
    metadata = obj.metadata
    if obj.spec.auto_external_ip_attachment and network_attachments.AUTO_CLEANUP_FINALIZER not in metadata.finalizers:
        metadata.finalizers.append(network_attachments.AUTO_CLEANUP_FINALIZER)


async def provision_auto_access(
    ctx: WriteContext,
    kind: Kind,
    obj: Workload,
    endpoints: Sequence[ExternalIPAttachmentEndpoint] = (external_ip_attachment.ENDPOINT_UNSPECIFIED,),
) -> None:
    """After create: the external IPs and attachments of a workload that asks for automatic
    external access (one unspecified endpoint unless the kind names its own)."""
    if obj.spec.auto_external_ip_attachment:
        await network_attachments.provision_auto_external_ips(ctx, kind, obj, endpoints)


async def fill_omitted(
    ctx: WriteContext, obj: Instance, items: RepeatedCompositeFieldContainer[InstanceAttachment], workload: str
) -> None:
    """Create-time defaults (§6.4): no attachment at all → one primary attachment on the
    tenant's default subnet with the default SG (``NetworkAttachmentsPopulated`` recorded);
    explicit attachments without SGs on the default VN → the default SG.

    :raises FailedPrecondition: the defaults are missing or not READY (§6.4 messages).
    """
    tenant = obj.metadata.tenant
    if items:
        await network_attachments.fill_default_security_groups(ctx.tx, tenant, items)
        return
    found = await network_attachments.tenant_defaults(ctx.tx, tenant)
    items.add(
        subnet=found.subnet.id,
        security_groups=[found.security_group.id],
        primary=True,
    )
    network_attachments.note_populated(ctx, workload, obj)


def require_one_primary(path: str, items: Sequence[InstanceAttachment]) -> None:
    """A lone attachment is primary (stored ``primary: true``); with more, exactly one is.

    :raises InvalidArgument: ``<path>: exactly one attachment must be primary (found k)``.
    """
    if len(items) == 1:
        items[0].primary = True
        return
    found = sum(1 for item in items if item.primary)
    if found != 1:
        raise InvalidArgument(f"{path}: exactly one attachment must be primary (found {found})")


def keep_positions(
    path: str,
    workload: str,
    stored: Sequence[InstanceAttachment],
    merged: RepeatedCompositeFieldContainer[InstanceAttachment],
    immutable: Sequence[str],
) -> None:
    """Update rules by position (§7.1): an empty list keeps the stored one; otherwise the same
    number of entries, each with its ``immutable`` fields unchanged (an empty value keeps the
    stored one).

    :raises InvalidArgument: ``<path>: network attachments cannot be added or removed; recreate
        the <workload>`` or ``<path>[i].subnet is immutable``.
    """
    if not merged:
        for item in stored:
            merged.add().CopyFrom(item)
        return
    if len(merged) != len(stored):
        raise InvalidArgument(
            f"{path}: network attachments cannot be added or removed; recreate the {workload}"
        )
    for index, (before, after) in enumerate(zip(stored, merged, strict=True)):
        for name in immutable:
            old, new = getattr(before, name), getattr(after, name)
            if new == old:
                continue
            if not new:
                setattr(after, name, old)
                continue
            raise InvalidArgument(f"{path}[{index}].{name} is immutable")


async def check_changed_security_groups(
    ctx: WriteContext, path: str, stored: Sequence[Attachment], merged: Sequence[Attachment]
) -> None:
    """The SGs of an updated attachment list (§7.1): each in the instance's VirtualNetwork
    (INVALID_ARGUMENT naming the entry) and, when newly added to an attachment, live and READY
    (FAILED_PRECONDITION, the create gate's message). SGs an attachment already had are not
    re-gated: changing one list must not depend on the state of the others."""
    if not merged:
        return
    tx = ctx.tx
    subnet_kind = registry.get("subnet")
    sg_kind = registry.get("security_group")
    vn_kind = registry.get("virtual_network")
    subnet = as_kind(await gates.load(tx, subnet_kind, merged[0].subnet), Subnet)
    vn_id = subnet.spec.virtual_network
    for index, (before, after) in enumerate(zip(stored, merged, strict=True)):
        known = set(before.security_groups)
        for position, sg_id in enumerate(after.security_groups):
            sg = as_kind(await gates.load(tx, sg_kind, sg_id), SecurityGroup)
            if sg.spec.virtual_network != vn_id:
                vn = await gates.load(tx, vn_kind, vn_id)
                raise InvalidArgument(
                    f"{path}[{index}].security_groups[{position}]: {object_label(sg_kind, sg)} is not in "
                    f"{object_label(vn_kind, vn)}"
                )
            if sg_id not in known:
                gates.check_ready(sg_kind, sg)
