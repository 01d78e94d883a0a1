"""ExternalIPPool semantics (networking.md §3.1, §5.4, §5.5; api.md §4, §11.3).

Create (provider admins, private API): ``spec.ip_family`` set; at least one CIDR, each a valid
network of that family, none overlapping another of the pool or of any live pool (checked under
the global ``external-ip-pools`` lock). IPv4 pools get their IPAM ranges in the Create
transaction and ``status.total / allocated / available`` from them; IPv6 pools are stored and
never allocated from (counters 0).

Public view: List and Get show only READY pools with ``available > 0`` (``public_visibility``);
the public message carries ``status.available`` only. Reference resolution still finds every
pool, so an ExternalIP naming an exhausted pool gets RESOURCE_EXHAUSTED, not "not found".
"""

from __future__ import annotations

from sqlalchemy import BigInteger, ColumnElement, Integer, Table, cast

from osac.api.private.v1.external_ip_pool_type_pb2 import ExternalIPPool
from osac.ipam import allocator
from osac.model.kinds import Kind
from osac.model.shape import as_kind, id_of
from osac.services.core.behaviour import Behaviour, WriteContext
from osac.services.core.errors import FailedPrecondition, InvalidArgument
from osac.services.networking import locks, state_machines, validation
from osac.store.objects import object_label

IP_FAMILY_IPV4 = 1
IP_FAMILY_IPV6 = 2
#: Pool overlap is global: one lock for every pool create.
POOLS_LOCK = "external-ip-pools"


class ExternalIPPoolBehaviour(Behaviour[ExternalIPPool]):
    def __init__(self, kind: Kind) -> None:
        super().__init__(kind)
        self.transitions = state_machines.transitions(kind, state_machines.STANDARD)

    async def prepare(self, ctx: WriteContext, obj: ExternalIPPool, stored: ExternalIPPool | None) -> None:
        if stored is not None:
            return  # cidrs and ip_family are immutable
        spec = obj.spec
        spec.ClearField("implementation_strategy")  # output-only
        family = spec.ip_family
        if family not in (IP_FAMILY_IPV4, IP_FAMILY_IPV6):
            raise InvalidArgument("spec.ip_family: required; use IP_FAMILY_IPV4 or IP_FAMILY_IPV6")
        version = 4 if family == IP_FAMILY_IPV4 else 6
        if not spec.cidrs:
            raise InvalidArgument("spec.cidrs: at least one CIDR is required")
        mine = [validation.network(text, f"spec.cidrs[{i}]", version) for i, text in enumerate(spec.cidrs)]
        for i, a in enumerate(mine):
            for j in range(i):
                if validation.overlaps(a, mine[j]):
                    raise InvalidArgument(f"spec.cidrs[{i}]: {spec.cidrs[i]} overlaps spec.cidrs[{j}] {spec.cidrs[j]}")
        await locks.hold(ctx.tx, POOLS_LOCK)
        for other in await ctx.tx.find(self.kind):
            if id_of(other) == id_of(obj):
                continue
            for theirs_text in as_kind(other, ExternalIPPool).spec.cidrs:
                try:
                    theirs = validation.network(theirs_text, "spec.cidrs", version)
                except InvalidArgument:
                    continue  # the other family
                for text, net in zip(spec.cidrs, mine, strict=True):
                    if validation.overlaps(net, theirs):
                        raise FailedPrecondition(
                            f"spec.cidrs: {text} overlaps {object_label(self.kind, other)} ({theirs_text})"
                        )
        status = obj.status
        if family == IP_FAMILY_IPV4:
            counts = await allocator.add_pool_ranges(ctx.tx, obj.id, list(spec.cidrs))
            status.total, status.allocated, status.available = counts.total, counts.allocated, counts.available
        else:
            status.total = status.allocated = status.available = 0

    def public_visibility(self, table: Table) -> list[ColumnElement[bool]]:
        """Tenants see READY pools with free addresses only (api.md §4)."""
        state = cast(table.c.data[("status", "state")].as_string(), Integer)
        available = cast(table.c.data[("status", "available")].as_string(), BigInteger)
        ready = self.kind.state_value("READY")
        return [state == ready, available > 0]


