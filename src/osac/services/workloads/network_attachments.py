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

from google.protobuf.message import Message

from osac.model import registry
from osac.model.kinds import Kind
from osac.model.labels import AUTO_FOR_LABEL, AUTO_LABEL
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

NO_DEFAULTS = "No default networking resources available. Please contact your administrator."
POPULATED_REASON = "NetworkAttachmentsPopulated"
AUTO_CREATED_REASON = "AutoExternalIPCreated"
#: Held by a workload from its Create transaction when it owns auto-provisioned objects (api.md
#: §2.6): the auto cleanup of networking.md §10.1 step 3 removes it once they are all archived, so
#: a workload deleted before any reconciler ran still cannot leave them behind.
AUTO_CLEANUP_FINALIZER = "osac.openshift.io/auto-provisioned-cleanup"
#: Endpoint suffixes of auto-provisioned names (cluster: one EIP per endpoint).
ENDPOINT_SUFFIXES = {
    external_ip_attachment.ENDPOINT_UNSPECIFIED: "",
    external_ip_attachment.ENDPOINT_API: "-api",
    external_ip_attachment.ENDPOINT_INGRESS: "-ingress",
}


@dataclass(frozen=True)
class TenantDefaults:
    """A tenant's default networking objects (labelled ``osac.openshift.io/default=true``)."""

    virtual_network: Message
    subnet: Message
    security_group: Message


# -- omitted attachments (§6.4) -------------------------------------------------------------------


async def _default_object(tx: Tx, kind_name: str, tenant: str, vn_id: str | None = None) -> Message | None:
    """The tenant's default-labelled object of a kind (the one named ``default`` first)."""
    kind = registry.get(kind_name)
    conditions = [references.has_label(tx, kind, DEFAULT_LABEL, "true")]
    if vn_id is not None:
        conditions.append(references.field_equals(tx, kind, "spec.virtual_network", vn_id))
    found = await tx.find(kind, *conditions, tenants=frozenset({tenant}), lock="share")
    found.sort(key=lambda o: (o.metadata.name != DEFAULT_NAME, o.id))  # type: ignore[attr-defined]
    return found[0] if found else None


async def default_virtual_network(tx: Tx, tenant: str) -> Message | None:
    return await _default_object(tx, "virtual_network", tenant)


async def tenant_defaults(tx: Tx, tenant: str) -> TenantDefaults:
    """The default subnet and SG to fill omitted networking with, checked READY.

    :raises FailedPrecondition: a default is missing (``NO_DEFAULTS``), or present but not READY
        (``Default networking is not ready: Subnet 'default' is PENDING``).
    """
    vn = await default_virtual_network(tx, tenant)
    subnet = await _default_object(tx, "subnet", tenant, vn.id) if vn is not None else None  # type: ignore[attr-defined]
    sg = await _default_object(tx, "security_group", tenant, vn.id) if vn is not None else None  # type: ignore[attr-defined]
    if vn is None or subnet is None or sg is None:
        raise FailedPrecondition(NO_DEFAULTS)
    for kind_name, obj in (("subnet", subnet), ("security_group", sg)):
        if gates.is_sibling(obj.id):  # type: ignore[attr-defined]
            continue
        kind = registry.get(kind_name)
        state = obj.status.state  # type: ignore[attr-defined]
        if gates.is_being_deleted(kind, obj):
            shown = "DELETING" if state != kind.state_value("DELETE_FAILED") else "DELETE_FAILED"
        elif state != kind.state_value("READY"):
            shown = state_machines.short_state(kind, state)
        else:
            continue
        raise FailedPrecondition(f"Default networking is not ready: {object_label(kind, obj)} is {shown}")
    return TenantDefaults(vn, subnet, sg)


async def fill_default_security_groups(tx: Tx, tenant: str, attachments: Sequence[Message]) -> bool:
    """Explicit attachments without SGs on a subnet of the default VN get ``[<default SG>]``;
    others stay empty (deny-all, §6.4). Returns whether anything was filled."""
    pending = [a for a in attachments if a.subnet and not a.security_groups]  # type: ignore[attr-defined]
    if not pending:
        return False
    vn = await default_virtual_network(tx, tenant)
    if vn is None:
        return False
    sg = await _default_object(tx, "security_group", tenant, vn.id)  # type: ignore[attr-defined]
    if sg is None:
        return False
    subnet_kind = registry.get("subnet")
    filled = False
    for attachment in pending:
        found = await tx.find(subnet_kind, LIVE[subnet_kind.name].c.id == attachment.subnet)  # type: ignore[attr-defined]
        if found and found[0].spec.virtual_network == vn.id:  # type: ignore[attr-defined]
            attachment.security_groups.append(sg.id)  # type: ignore[attr-defined]
            filled = True
    return filled


def note_populated(ctx: WriteContext, workload: str, obj: Message, detail: str = "") -> None:
    """Record ``NetworkAttachmentsPopulated`` on the workload being written (and log
    ``PopulatedNetworkAttachmentsDefaults``)."""
    message = f"omitted network attachments were filled with the tenant's default networking{detail}"
    ctx.notes.append((lifecycle.NORMAL, POPULATED_REASON, message))
    log.info(message, extra={"event": "PopulatedNetworkAttachmentsDefaults", "kind": workload,
                             "tenant": obj.metadata.tenant, "id": obj.id})  # type: ignore[attr-defined]


# -- explicit attachments (§7.1) ------------------------------------------------------------------


async def validate(
    tx: Tx, path: str, attachments: Sequence[Message], *, workload: str = "workload", indexed: bool = True
) -> Message:
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
    subnets: list[Message] = []
    for index, attachment in enumerate(attachments):
        subnet_id = attachment.subnet  # type: ignore[attr-defined]
        if not subnet_id:
            raise InvalidArgument(f"{at(index)}.subnet: required; name a Subnet")
        if subnet_id in seen:
            raise InvalidArgument(
                f"{at(index)}.subnet: the subnet is already attached by {at(seen[subnet_id])}; "
                "a subnet may appear at most once"
            )
        seen[subnet_id] = index
        subnets.append(await gates.load(tx, subnet_kind, subnet_id))
    vn_id = subnets[0].spec.virtual_network  # type: ignore[attr-defined]
    vn = await gates.load(tx, vn_kind, vn_id)
    vn_label = object_label(vn_kind, vn)
    for index, subnet in enumerate(subnets):
        if subnet.spec.virtual_network != vn_id:  # type: ignore[attr-defined]
            other = await gates.load(tx, vn_kind, subnet.spec.virtual_network)  # type: ignore[attr-defined]
            raise InvalidArgument(
                f"{at(index)}.subnet: {object_label(subnet_kind, subnet)} is in {object_label(vn_kind, other)}, "
                f"not {vn_label} like {at(0)}; a {workload} attaches to one VirtualNetwork"
            )
    groups: list[tuple[int, int, Message]] = []
    for index, attachment in enumerate(attachments):
        for position, sg_id in enumerate(attachment.security_groups):  # type: ignore[attr-defined]
            sg = await gates.load(tx, sg_kind, sg_id)
            if sg.spec.virtual_network != vn_id:  # type: ignore[attr-defined]
                raise InvalidArgument(
                    f"{at(index)}.security_groups[{position}]: {object_label(sg_kind, sg)} is not in {vn_label}"
                )
            groups.append((index, position, sg))
    for subnet in subnets:
        gates.check_ready(subnet_kind, subnet)
    for _, _, sg in groups:
        gates.check_ready(sg_kind, sg)
    return vn


async def require_k8s_manager(tx: Tx, vn: Message, workloads: str) -> None:
    """VMs and hosted control planes need a k8s manager (§2, bare-metal-only deployments):
    FAILED_PRECONDITION ``ComputeInstances are not supported in this deployment: NetworkClass
    '<name>' has no Kubernetes network manager`` (``workloads`` = ``ComputeInstances`` /
    ``Clusters``)."""
    kind = registry.get("network_class")
    found = await tx.find(kind, LIVE[kind.name].c.id == vn.spec.network_class)  # type: ignore[attr-defined]
    if found and not found[0].k8s_manager:  # type: ignore[attr-defined]
        name = found[0].metadata.name or found[0].id  # type: ignore[attr-defined]
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
    ctx: WriteContext, parent_kind: Kind, parent: Message, endpoints: Sequence[int]
) -> list[tuple[Message, Message]]:
    """Allocation failures in here count under ``path="auto"``; see ``_provision_auto_external_ips``."""
    with allocation_path(AUTO):
        return await _provision_auto_external_ips(ctx, parent_kind, parent, endpoints)


async def _provision_auto_external_ips(
    ctx: WriteContext, parent_kind: Kind, parent: Message, endpoints: Sequence[int]
) -> list[tuple[Message, Message]]:
    """§8 steps 2–3 in the parent's Create transaction (call from its ``after_create``): per
    endpoint, an ExternalIP from the best pool and an ExternalIPAttachment of it to the parent,
    labelled auto-provisioned for the parent, in its tenant, created together (the attachment
    passes the gate of its PENDING ExternalIP). Notes ``AutoExternalIPCreated`` on the parent.

    ``endpoints``: ``[ENDPOINT_UNSPECIFIED]`` for a ComputeInstance or BareMetalInstance,
    ``[ENDPOINT_API, ENDPOINT_INGRESS]`` for a Cluster.

    :raises ResourceExhausted: ``ExternalIPPool exhaustion: no available capacity in any READY
        pool for IPv4`` (the whole Create fails, nothing persists).
    """
    tx = ctx.tx
    parent_id = parent.id  # type: ignore[attr-defined]
    tenant = parent.metadata.tenant  # type: ignore[attr-defined]
    labels = auto_labels(parent_id)
    field = external_ip_attachment.target_field(parent_kind.name)
    attachment_kind = registry.get("external_ip_attachment")
    made: list[tuple[Message, Message]] = []
    async with gates.together(tx):
        for endpoint in endpoints:
            name = auto_name(parent_id, endpoint)
            eip = await pool_selection.create_external_ip(tx, ctx.services, tenant=tenant, name=name, labels=labels)
            gates.add_sibling(eip.id)  # type: ignore[attr-defined]
            attachment = attachment_kind.private_class()()
            attachment.metadata.name = name  # type: ignore[attr-defined]
            attachment.metadata.tenant = tenant  # type: ignore[attr-defined]
            attachment.metadata.labels.update(labels)  # type: ignore[attr-defined]
            attachment.spec.external_ip = eip.id  # type: ignore[attr-defined]
            setattr(attachment.spec, field, parent_id)  # type: ignore[attr-defined]
            attachment.spec.target_endpoint = endpoint  # type: ignore[attr-defined]
            attachment.status.reason = external_ip_attachment.WAITING_FOR_IP_ADDRESS  # type: ignore[attr-defined]
            stored = await ctx.services[attachment_kind.name].create_in(tx, Caller.system(), attachment)
            gates.add_sibling(stored.id)  # type: ignore[attr-defined]
            made.append((eip, stored))
    addresses_text = ", ".join(f"ExternalIP '{e.metadata.name}' ({e.status.address})" for e, _ in made)  # type: ignore[attr-defined]
    ctx.notes.append((lifecycle.NORMAL, AUTO_CREATED_REASON, f"automatic external access: {addresses_text}"))
    log.info("auto-provisioned external IPs", extra={"event": "AutoProvisionedExternalIP", "tenant": tenant,
                                                      "kind": parent_kind.name, "id": parent_id,
                                                      "addresses": [e.status.address for e, _ in made]})  # type: ignore[attr-defined]
    return made


async def external_ip_consumer(tx: Tx, eip_id: str) -> Message | None:
    """The live consumer of an ExternalIP (for reconcilers and messages)."""
    return await consumers.consumer_of(tx, eip_id)
