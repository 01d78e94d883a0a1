"""Subnet semantics (networking.md §3.1, §4, §5.2, §5.5; api.md §11.3).

Create: the VirtualNetwork READY; ``ipv4_cidr`` inside the VN's, at most /29 and shorter than the
class's VIP prefix; ``ipv6_cidr`` inside the VN's; no overlap with a live sibling (checked under
the ``subnets-of:<vn id>`` lock, so of concurrent overlapping creates exactly one succeeds). The
layout is fixed at creation: ``status.gateway``, ``status.vip_range``, ``status.available_addresses``
and the IPAM ranges (workload and VIP) are written in the Create transaction.
"""

from __future__ import annotations

from osac.api.private.v1.network_class_type_pb2 import NetworkClass
from osac.api.private.v1.subnet_type_pb2 import Subnet, SubnetSpec
from osac.api.private.v1.virtual_network_type_pb2 import VirtualNetwork
from osac.ipam import allocator
from osac.ipam.layout import LayoutError, SubnetLayout, subnet_layout
from osac.model import registry
from osac.model.kinds import Kind
from osac.model.shape import as_kind, id_of, metadata_of
from osac.services.core import references
from osac.services.core.behaviour import Behaviour, WriteContext
from osac.services.core.errors import FailedPrecondition, InvalidArgument
from osac.services.networking import gates, locks, state_machines, validation
from osac.store.objects import object_label
from osac.store.tables import LIVE


def overlap_lock(vn_id: str) -> str:
    return f"subnets-of:{vn_id}"


class SubnetBehaviour(Behaviour[Subnet]):
    def __init__(self, kind: Kind) -> None:
        super().__init__(kind)
        self.transitions = state_machines.transitions(kind, state_machines.STANDARD)

    async def prepare(self, ctx: WriteContext, obj: Subnet, stored: Subnet | None) -> None:
        if stored is not None:
            return  # every spec field is immutable; the layout is fixed
        tx = ctx.tx
        spec = obj.spec
        if not spec.virtual_network:
            raise InvalidArgument("spec.virtual_network: required; name the VirtualNetwork of the subnet")
        vn_kind = registry.get("virtual_network")
        vn = as_kind(await gates.require_ready(tx, vn_kind, spec.virtual_network), VirtualNetwork)
        class_kind = registry.get("network_class")
        classes = [as_kind(c, NetworkClass) for c in await tx.find(class_kind, LIVE[class_kind.name].c.id == vn.spec.network_class)]
        vip_length = classes[0].spec.vip_prefix_length if classes else 0
        layout = check_cidrs(spec, vn, vip_length, object_label(class_kind, classes[0]) if classes else "its NetworkClass")
        await locks.hold(tx, overlap_lock(id_of(vn)))
        await check_siblings(ctx, obj, vn)
        status = obj.status
        status.gateway = layout.gateway
        status.vip_range = layout.vip_range_text
        status.available_addresses = layout.workload_size
        await allocator.add_subnet_ranges(tx, obj.id, layout)
        gates.add_sibling(obj.id)


def check_cidrs(spec: SubnetSpec, vn: VirtualNetwork, vip_prefix_length: int, class_label: str) -> SubnetLayout:
    """§3.1 Subnet rules against the VN; returns the layout (§5.2)."""
    vn_label = object_label(registry.get("virtual_network"), vn)
    vn_spec = vn.spec
    subnet4 = validation.ipv4_network(spec.ipv4_cidr, "spec.ipv4_cidr")
    assert subnet4 is not None
    vn4 = validation.network(vn_spec.ipv4_cidr, "spec.virtual_network", 4)
    if not validation.inside(subnet4, vn4):
        raise InvalidArgument(f"spec.ipv4_cidr: {subnet4} is not inside {vn_label} ({vn4})")
    vip = validation.effective_vip_prefix(vip_prefix_length)
    validation.subnet_prefix(subnet4, vip, "spec.ipv4_cidr", class_label)
    if spec.ipv6_cidr:
        subnet6 = validation.ipv6_network(spec.ipv6_cidr, "spec.ipv6_cidr")
        if not vn_spec.ipv6_cidr:
            raise InvalidArgument(f"spec.ipv6_cidr: {vn_label} has no IPv6 CIDR")
        vn6 = validation.network(vn_spec.ipv6_cidr, "spec.virtual_network", 6)
        assert subnet6 is not None
        if not validation.inside(subnet6, vn6):
            raise InvalidArgument(f"spec.ipv6_cidr: {subnet6} is not inside {vn_label} ({vn6})")
    try:
        return subnet_layout(str(subnet4), vip)
    except LayoutError as error:
        raise InvalidArgument(f"spec.ipv4_cidr: {error}") from error


async def check_siblings(ctx: WriteContext, obj: Subnet, vn: VirtualNetwork) -> None:
    """No live subnet of the VN (being deleted included) overlaps ``obj`` (§3.1)."""
    kind = registry.get("subnet")
    spec = obj.spec
    mine4 = validation.network(spec.ipv4_cidr, "spec.ipv4_cidr", 4)
    mine6 = validation.network(spec.ipv6_cidr, "spec.ipv6_cidr", 6) if spec.ipv6_cidr else None
    condition = references.field_equals(ctx.tx, kind, "spec.virtual_network", id_of(vn))
    vn_label = object_label(registry.get("virtual_network"), vn)
    for sibling in await ctx.tx.find(kind, condition, tenants=frozenset({metadata_of(vn).tenant})):
        if id_of(sibling) == id_of(obj):
            continue
        other = as_kind(sibling, Subnet).spec
        pairs = [(mine4, other.ipv4_cidr, spec.ipv4_cidr)]
        if mine6 is not None and other.ipv6_cidr:
            pairs.append((mine6, other.ipv6_cidr, spec.ipv6_cidr))
        for mine, theirs_text, mine_text in pairs:
            theirs = validation.network(theirs_text, "spec.ipv4_cidr", mine.version)
            if validation.overlaps(mine, theirs):
                raise FailedPrecondition(
                    f"subnet CIDR {mine_text} overlaps {object_label(kind, sibling)} ({theirs_text}) in {vn_label}"
                )


