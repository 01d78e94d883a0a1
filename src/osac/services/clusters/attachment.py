"""A cluster's one network attachment (networking.md §6.4, §7.1, §7.3): ``spec.network_attachment``
``{subnet, security_groups}`` serves every node set, and the VIPs live in its subnet.

Create: absent (or without a subnet) → the tenant's default subnet, with the caller's security
groups or else the default one, stored in the spec (``NetworkAttachmentsPopulated``). An explicit
subnet without security groups gets the default group when it is in the default VN, else none
(deny-all). Then the common rules (subnet and groups in one VN, READY), the network class must
have a Kubernetes network manager (hosted control planes), and the cluster CIDRs must not
overlap the subnet.

Update: the subnet is immutable; a changed security-group list is checked again (in the
subnet's VN; groups not held before must be READY) and follows the same default rule.
"""

from __future__ import annotations

from osac.api.private.v1.cluster_type_pb2 import Cluster, ClusterSpec
from osac.api.private.v1.security_group_type_pb2 import SecurityGroup
from osac.api.private.v1.subnet_type_pb2 import Subnet
from osac.model import registry
from osac.model.shape import as_kind, id_of
from osac.services.clusters import spec_rules
from osac.services.core.behaviour import WriteContext
from osac.services.core.errors import InvalidArgument
from osac.services.networking import gates, validation
from osac.services.workloads import network_attachments
from osac.store.objects import object_label

PATH = "spec.network_attachment"
WORKLOADS = "Clusters"


async def resolve_on_create(ctx: WriteContext, obj: Cluster) -> Subnet:
    """Fill and check the attachment of a new cluster; returns its subnet.

    :raises FailedPrecondition: no default networking, defaults or references not READY, or a
        network class without a Kubernetes network manager (networking.md §2).
    :raises InvalidArgument: groups outside the subnet's VN.
    """
    tx = ctx.tx
    tenant = obj.metadata.tenant
    attachment = obj.spec.network_attachment
    if not attachment.subnet:
        found = await network_attachments.tenant_defaults(tx, tenant)
        attachment.subnet = found.subnet.id
        if not attachment.security_groups:
            attachment.security_groups.append(found.security_group.id)
        network_attachments.note_populated(ctx, registry.get("cluster").message, obj)
    else:
        await network_attachments.fill_default_security_groups(tx, tenant, [attachment])
    vn = await network_attachments.validate(tx, PATH, [attachment], workload="cluster", indexed=False)
    await network_attachments.require_k8s_manager(tx, vn, WORKLOADS)
    return as_kind(await gates.load(tx, registry.get("subnet"), attachment.subnet), Subnet)


async def check_security_groups(ctx: WriteContext, obj: Cluster, stored: Cluster) -> None:
    """An Update's security groups: in the subnet's VN, newly listed ones READY; an emptied list
    on a default-VN subnet gets the default group again (§6.4)."""
    attachment = obj.spec.network_attachment
    before = list(stored.spec.network_attachment.security_groups)
    if list(attachment.security_groups) == before:
        return
    tx = ctx.tx
    await network_attachments.fill_default_security_groups(tx, obj.metadata.tenant, [attachment])
    subnet = as_kind(await gates.load(tx, registry.get("subnet"), attachment.subnet), Subnet)
    vn_kind = registry.get("virtual_network")
    vn = await gates.load(tx, vn_kind, subnet.spec.virtual_network)
    sg_kind = registry.get("security_group")
    seen: set[str] = set()
    for position, sg_id in enumerate(attachment.security_groups):
        here = f"{PATH}.security_groups[{position}]"
        if sg_id in seen:
            raise InvalidArgument(f"{here}: listed twice; name each security group once")
        seen.add(sg_id)
        sg = as_kind(await gates.load(tx, sg_kind, sg_id), SecurityGroup)
        if sg.spec.virtual_network != id_of(vn):
            raise InvalidArgument(f"{here}: {object_label(sg_kind, sg)} is not in {object_label(vn_kind, vn)}")
        if sg_id not in before:
            gates.check_ready(sg_kind, sg)


def check_cidrs(spec: ClusterSpec, subnet: Subnet) -> None:
    """Pod and service CIDRs disjoint from each other and from the attachment subnet (§7.3)."""
    network = spec.network
    pods, services = spec_rules.cluster_network(network.pod_cidr, network.service_cidr, "spec.network")
    subnet_cidr = validation.network(subnet.spec.ipv4_cidr, f"{PATH}.subnet", 4)
    label = object_label(registry.get("subnet"), subnet)
    for field, cidr in (("pod_cidr", pods), ("service_cidr", services)):
        if validation.overlaps(cidr, subnet_cidr):
            raise InvalidArgument(
                f"spec.network.{field}: {cidr} overlaps {label} ({subnet_cidr}) of {PATH}; "
                "choose a range outside the node network"
            )
