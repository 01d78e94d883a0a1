"""ExternalIP semantics (networking.md §3.1, §3.2, §4, §5.3; api.md §11.3).

Create: the pool an IPv4 pool (IPv6 pools are never allocated from: FAILED_PRECONDITION), READY
and live; one address reserved from it in the Create transaction, as its last work
(``reservations``; ``status.address`` is filled in then), the pool's counters updated in the same
transaction; none free → RESOURCE_EXHAUSTED ``ExternalIPPool '<name>' has no available addresses``. The address is
released by the reconciler once the fabric confirms the release (``addresses.release``).

State machine: ALLOCATED instead of READY (``state_machines.EXTERNAL_IP``).
"""

from __future__ import annotations

from google.protobuf.message import Message

from osac.api.private.v1.external_ip_pool_type_pb2 import ExternalIPPool
from osac.api.private.v1.external_ip_type_pb2 import ExternalIP
from osac.model import registry
from osac.model.kinds import Kind
from osac.model.shape import as_kind, id_of
from osac.services.core.behaviour import Behaviour, WriteContext
from osac.services.core.errors import FailedPrecondition, InvalidArgument
from osac.services.networking import external_ip_pool, gates, reservations, state_machines
from osac.store.objects import object_label


class ExternalIPBehaviour(Behaviour[ExternalIP]):
    def __init__(self, kind: Kind) -> None:
        super().__init__(kind)
        self.transitions = state_machines.transitions(kind, state_machines.EXTERNAL_IP)

    async def prepare(self, ctx: WriteContext, obj: ExternalIP, stored: ExternalIP | None) -> None:
        if stored is not None:
            return  # spec.pool is immutable; the address is fixed
        spec = obj.spec
        if not spec.pool:
            raise InvalidArgument("spec.pool: required; name an ExternalIPPool")
        pool_kind = registry.get("external_ip_pool")
        pool = as_kind(await gates.load(ctx.tx, pool_kind, spec.pool), ExternalIPPool)
        if pool.spec.ip_family != external_ip_pool.IP_FAMILY_IPV4:
            raise FailedPrecondition(
                f"{object_label(pool_kind, pool)} is not an IPv4 pool; ExternalIPs are allocated from IPv4 pools only"
            )
        gates.check_ready(pool_kind, pool)
        status = obj.status
        status.pool = id_of(pool)
        status.attached = False
        gates.add_sibling(obj.id)
        reservations.external_at_commit(ctx.tx, id_of(pool), owner_type=self.kind.name, owner_id=obj.id,
                                        then=reservations.amending(ctx.tx, self.kind, obj, _fill_address))


def _fill_address(stored: Message, address: str, pool_id: str) -> None:
    eip = as_kind(stored, ExternalIP)
    eip.status.address = address
    eip.spec.pool = eip.status.pool = pool_id


