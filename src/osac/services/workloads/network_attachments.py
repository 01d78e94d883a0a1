"""Workload network attachments (networking.md §6.4, §7.1, §8): the shared helpers the
ComputeInstance, Cluster and BareMetalInstance behaviours call from their hooks.

An *attachment* here is any message with ``subnet`` (an id, references already resolved) and
``security_groups`` (ids): ``ComputeNetworkAttachment``, ``ClusterNetworkAttachment``,
``BareMetalNetworkAttachment``. Kind-specific fields (``primary``, ``interface``) stay with the
kinds.

Typical use in a workload's ``prepare`` (create)::

    if not spec.compute_network_attachments:                      # omitted networking
        found = await attachments.tenant_defaults(tx, tenant)     # raises the §6.4 errors
        spec.compute_network_attachments.add(subnet=found.subnet.id,
                                             security_groups=[found.security_group.id], primary=True)
        attachments.note_populated(ctx, "ComputeInstance", obj)
    else:
        await attachments.fill_default_security_groups(tx, tenant, spec.compute_network_attachments)
    vn = await attachments.validate(tx, "spec.compute_network_attachments", spec.compute_network_attachments)
    await attachments.require_k8s_manager(tx, vn, "ComputeInstances")

and in its ``after_create``, for ``auto_external_ip_attachment``::

    await attachments.provision_auto_external_ips(ctx, kind, obj, [ENDPOINT_UNSPECIFIED])
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

from google.protobuf.message import Message

from osac.api.private.v1.bare_metal_instance_type_pb2 import BareMetalNetworkAttachment
from osac.api.private.v1.cluster_type_pb2 import ClusterNetworkAttachment
from osac.api.private.v1.compute_instance_type_pb2 import ComputeNetworkAttachment
from osac.api.private.v1.external_ip_attachment_type_pb2 import (
    ExternalIPAttachment,
    ExternalIPAttachmentEndpoint,
)
from osac.api.private.v1.external_ip_type_pb2 import ExternalIP
from osac.api.private.v1.network_class_type_pb2 import NetworkClass
from osac.api.private.v1.security_group_type_pb2 import SecurityGroup
from osac.api.private.v1.subnet_type_pb2 import Subnet
from osac.api.private.v1.virtual_network_type_pb2 import VirtualNetwork
from osac.model import registry
from osac.model.kinds import Kind
from osac.model.labels import AUTO_FOR_LABEL, AUTO_LABEL
from osac.model.shape import as_kind, id_of, metadata_of, status_of
from osac.services.core import references
from osac.services.core.behaviour import WriteContext
from osac.services.core.context import Caller
from osac.services.core.errors import FailedPrecondition, InvalidArgument
from osac.services.networking import consumers, external_ip_attachment, gates, pool_selection, state_machines
from osac.services.networking.allocation_metrics import AUTO, allocation_path
from osac.services.tenancy.default_networking import DEFAULT_LABEL, DEFAULT_NAME
from osac.store import lifecycle
from osac.store.objects import Tx, object_label
from osac.store.tables import LIVE

log = logging.getLogger(__name__)

M = TypeVar("M", bound=Message)
#: The attachment messages these helpers take (each has ``subnet`` and ``security_groups``).
Attachment = ComputeNetworkAttachment | ClusterNetworkAttachment | BareMetalNetworkAttachment

NO_DEFAULTS = "No default networking resources available. Please contact your administrator."
POPULATED_REASON = "NetworkAttachmentsPopulated"
AUTO_CREATED_REASON = "AutoExternalIPCreated"
#: Held by a workload from its Create transaction when it owns auto-provisioned objects (api.md
#: §2.6): the auto cleanup of networking.md §10.1 step 3 removes it once they are all archived, so
#: a workload deleted before any reconciler ran still cannot leave them behind.
AUTO_CLEANUP_FINALIZER = "osac.openshift.io/auto-provisioned-cleanup"
#: Endpoint suffixes of auto-provisioned names (cluster: one EIP per endpoint).
ENDPOINT_SUFFIXES: dict[int, str] = {
    external_ip_attachment.ENDPOINT_UNSPECIFIED: "",
    external_ip_attachment.ENDPOINT_API: "-api",
    external_ip_attachment.ENDPOINT_INGRESS: "-ingress",
}


@dataclass(frozen=True)
class TenantDefaults:
    """A tenant's default networking objects (labelled ``osac.openshift.io/default=true``)."""

    virtual_network: VirtualNetwork
    subnet: Subnet
    security_group: SecurityGroup


# -- omitted attachments (§6.4) -------------------------------------------------------------------


async def _default_object(tx: Tx, kind_name: str, cls: type[M], tenant: str, vn_id: str | None = None) -> M | None:
    """The tenant's default-labelled object of a kind (the one named ``default`` first)."""
    kind = registry.get(kind_name)
    conditions = [references.has_label(tx, kind, DEFAULT_LABEL, "true")]
    if vn_id is not None:
        conditions.append(references.field_equals(tx, kind, "spec.virtual_network", vn_id))
    found = await tx.find(kind, *conditions, tenants=frozenset({tenant}), lock="share")
    found.sort(key=lambda o: (metadata_of(o).name != DEFAULT_NAME, id_of(o)))
    return as_kind(found[0], cls) if found else None


async def default_virtual_network(tx: Tx, tenant: str) -> VirtualNetwork | None:
    return await _default_object(tx, "virtual_network", VirtualNetwork, tenant)


async def tenant_defaults(tx: Tx, tenant: str) -> TenantDefaults:
    """The default subnet and SG to fill omitted networking with, checked READY.

    :raises FailedPrecondition: a default is missing (``NO_DEFAULTS``), or present but not READY
        (``Default networking is not ready: Subnet 'default' is PENDING``).
    """
    vn = await default_virtual_network(tx, tenant)
    subnet = await _default_object(tx, "subnet", Subnet, tenant, vn.id) if vn is not None else None
    sg = await _default_object(tx, "security_group", SecurityGroup, tenant, vn.id) if vn is not None else None
    if vn is None or subnet is None or sg is None:
        raise FailedPrecondition(NO_DEFAULTS)
    objects: tuple[tuple[str, Message], ...] = (("subnet", subnet), ("security_group", sg))
    for kind_name, obj in objects:
        if gates.is_sibling(id_of(obj)):
            continue
        kind = registry.get(kind_name)
        state = status_of(obj).state
        if gates.is_being_deleted(kind, obj):
            shown = "DELETING" if state != kind.state_value("DELETE_FAILED") else "DELETE_FAILED"
        elif state != kind.state_value("READY"):
            shown = state_machines.short_state(kind, state)
        else:
            continue
        raise FailedPrecondition(f"Default networking is not ready: {object_label(kind, obj)} is {shown}")
    return TenantDefaults(vn, subnet, sg)


async def fill_default_security_groups(tx: Tx, tenant: str, attachments: Sequence[Attachment]) -> bool:
    """Explicit attachments without SGs on a subnet of the default VN get ``[<default SG>]``;
    others stay empty (deny-all, §6.4). Returns whether anything was filled."""
    pending = [a for a in attachments if a.subnet and not a.security_groups]
    if not pending:
        return False
    vn = await default_virtual_network(tx, tenant)
    if vn is None:
        return False
    sg = await _default_object(tx, "security_group", SecurityGroup, tenant, vn.id)
    if sg is None:
        return False
    subnet_kind = registry.get("subnet")
    filled = False
    for attachment in pending:
        found = await tx.find(subnet_kind, LIVE[subnet_kind.name].c.id == attachment.subnet)
        if found and as_kind(found[0], Subnet).spec.virtual_network == vn.id:
            attachment.security_groups.append(sg.id)
            filled = True
    return filled


def note_populated(ctx: WriteContext, workload: str, obj: Message, detail: str = "") -> None:
    """Record ``NetworkAttachmentsPopulated`` on the workload being written (and log
    ``PopulatedNetworkAttachmentsDefaults``)."""
    message = f"omitted network attachments were filled with the tenant's default networking{detail}"
    ctx.notes.append((lifecycle.NORMAL, POPULATED_REASON, message))
    log.info(message, extra={"event": "PopulatedNetworkAttachmentsDefaults", "kind": workload,
                             "tenant": metadata_of(obj).tenant, "id": id_of(obj)})


# -- explicit attachments (§7.1) ------------------------------------------------------------------


async def validate(
    tx: Tx, path: str, attachments: Sequence[Attachment], *, workload: str = "workload", indexed: bool = True
) -> VirtualNetwork:
    """§7.1 common rules: every attachment names a subnet, a subnet at most once, all subnets in
    one VN, every SG in that VN (INVALID_ARGUMENT naming the index); subnets and SGs READY and
    live (FAILED_PRECONDITION; objects created in the same transaction are exempt). Returns the VN.

    ``indexed=False`` is for a workload with one attachment field rather than a list (a
    cluster's ``spec.network_attachment``): messages then name ``path`` without an index.
    """

    def at(index: int) -> str:
        return f"{path}[{index}]" if indexed else path

    if not attachments:
        raise InvalidArgument(f"{path}: at least one network attachment is required")
    subnet_kind = registry.get("subnet")
    sg_kind = registry.get("security_group")
    vn_kind = registry.get("virtual_network")
    seen: dict[str, int] = {}
    subnets: list[Subnet] = []
    for index, attachment in enumerate(attachments):
        subnet_id = attachment.subnet
        if not subnet_id:
            raise InvalidArgument(f"{at(index)}.subnet: required; name a Subnet")
        if subnet_id in seen:
            raise InvalidArgument(
                f"{at(index)}.subnet: the subnet is already attached by {at(seen[subnet_id])}; "
                "a subnet may appear at most once"
            )
        seen[subnet_id] = index
        subnets.append(as_kind(await gates.load(tx, subnet_kind, subnet_id), Subnet))
    vn_id = subnets[0].spec.virtual_network
    vn = as_kind(await gates.load(tx, vn_kind, vn_id), VirtualNetwork)
    vn_label = object_label(vn_kind, vn)
    for index, subnet in enumerate(subnets):
        if subnet.spec.virtual_network != vn_id:
            other = await gates.load(tx, vn_kind, subnet.spec.virtual_network)
            raise InvalidArgument(
                f"{at(index)}.subnet: {object_label(subnet_kind, subnet)} is in {object_label(vn_kind, other)}, "
                f"not {vn_label} like {at(0)}; a {workload} attaches to one VirtualNetwork"
            )
    groups: list[tuple[int, int, SecurityGroup]] = []
    for index, attachment in enumerate(attachments):
        for position, sg_id in enumerate(attachment.security_groups):
            sg = as_kind(await gates.load(tx, sg_kind, sg_id), SecurityGroup)
            if sg.spec.virtual_network != vn_id:
                raise InvalidArgument(
                    f"{at(index)}.security_groups[{position}]: {object_label(sg_kind, sg)} is not in {vn_label}"
                )
            groups.append((index, position, sg))
    for subnet in subnets:
        gates.check_ready(subnet_kind, subnet)
    for _, _, sg in groups:
        gates.check_ready(sg_kind, sg)
    return vn


async def require_k8s_manager(tx: Tx, vn: VirtualNetwork, workloads: str) -> None:
    """VMs and hosted control planes need a k8s manager (§2, bare-metal-only deployments):
    FAILED_PRECONDITION ``ComputeInstances are not supported in this deployment: NetworkClass
    '<name>' has no Kubernetes network manager`` (``workloads`` = ``ComputeInstances`` /
    ``Clusters``)."""
    kind = registry.get("network_class")
    found = await tx.find(kind, LIVE[kind.name].c.id == vn.spec.network_class)
    network_class = as_kind(found[0], NetworkClass) if found else None
    if network_class is not None and not network_class.k8s_manager:
        name = network_class.metadata.name or network_class.id
        raise FailedPrecondition(
            f"{workloads} are not supported in this deployment: NetworkClass '{name}' has no Kubernetes network manager"
        )


# -- automatic external access (§8) ---------------------------------------------------------------


def auto_name(parent_id: str, endpoint: int) -> str:
    """``auto-<parent id>`` (VM, server), ``auto-<parent id>-api`` / ``-ingress`` (cluster)."""
    return f"auto-{parent_id}{ENDPOINT_SUFFIXES[endpoint]}"


def auto_labels(parent_id: str) -> dict[str, str]:
    return {AUTO_LABEL: "true", AUTO_FOR_LABEL: parent_id}


async def provision_auto_external_ips(
    ctx: WriteContext, parent_kind: Kind, parent: Message, endpoints: Sequence[ExternalIPAttachmentEndpoint]
) -> list[tuple[ExternalIP, ExternalIPAttachment]]:
    """Allocation failures in here count under ``path="auto"``; see ``_provision_auto_external_ips``."""
    with allocation_path(AUTO):
        return await _provision_auto_external_ips(ctx, parent_kind, parent, endpoints)


async def _provision_auto_external_ips(
    ctx: WriteContext, parent_kind: Kind, parent: Message, endpoints: Sequence[ExternalIPAttachmentEndpoint]
) -> list[tuple[ExternalIP, ExternalIPAttachment]]:
    """§8 steps 2–3 in the parent's Create transaction (call from its ``after_create``): per
    endpoint, an ExternalIP from the best pool and an ExternalIPAttachment of it to the parent,
    labelled auto-provisioned for the parent, in its tenant, created together (the attachment
    passes the gate of its PENDING ExternalIP). Records ``AutoExternalIPCreated`` on the parent
    at commit, once the addresses are reserved (``reservations``).

    ``endpoints``: ``[ENDPOINT_UNSPECIFIED]`` for a ComputeInstance or BareMetalInstance,
    ``[ENDPOINT_API, ENDPOINT_INGRESS]`` for a Cluster.

    :raises ResourceExhausted: ``ExternalIPPool exhaustion: no available capacity in any READY
        pool for IPv4`` (the whole Create fails, nothing persists).
    """
    tx = ctx.tx
    parent_id = id_of(parent)
    tenant = metadata_of(parent).tenant
    labels = auto_labels(parent_id)
    field = external_ip_attachment.target_field(parent_kind.name)
    attachment_kind = registry.get("external_ip_attachment")
    made: list[tuple[ExternalIP, ExternalIPAttachment]] = []
    async with gates.together(tx):
        for endpoint in endpoints:
            name = auto_name(parent_id, endpoint)
            eip = await pool_selection.create_external_ip(tx, ctx.services, tenant=tenant, name=name, labels=labels)
            gates.add_sibling(eip.id)
            attachment = as_kind(attachment_kind.private_class()(), ExternalIPAttachment)
            attachment.metadata.name = name
            attachment.metadata.tenant = tenant
            attachment.metadata.labels.update(labels)
            attachment.spec.external_ip = eip.id
            setattr(attachment.spec, field, parent_id)
            attachment.spec.target_endpoint = endpoint
            attachment.status.reason = external_ip_attachment.WAITING_FOR_IP_ADDRESS
            created = await ctx.services[attachment_kind.name].create_in(tx, Caller.system(), attachment)
            stored = as_kind(created, ExternalIPAttachment)
            gates.add_sibling(stored.id)
            made.append((eip, stored))

    async def note() -> None:  # once the addresses are reserved, at commit (``reservations``)
        addresses_text = ", ".join(f"ExternalIP '{e.metadata.name}' ({e.status.address})" for e, _ in made)
        await lifecycle.record(tx, parent_kind, parent, lifecycle.NORMAL, AUTO_CREATED_REASON,
                               f"automatic external access: {addresses_text}")
        log.info("auto-provisioned external IPs", extra={"event": "AutoProvisionedExternalIP", "tenant": tenant,
                                                          "kind": parent_kind.name, "id": parent_id,
                                                          "addresses": [e.status.address for e, _ in made]})

    tx.before_commit(note)
    return made


async def external_ip_consumer(tx: Tx, eip_id: str) -> Message | None:
    """The live consumer of an ExternalIP (for reconcilers and messages)."""
    return await consumers.consumer_of(tx, eip_id)
