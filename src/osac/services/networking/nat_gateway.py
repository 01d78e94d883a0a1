"""NATGateway semantics (networking.md §3.1, §4, §9; api.md §11.3).

Create: the VirtualNetwork READY, the ExternalIP ALLOCATED (both live) and unconsumed, one gateway
per VN. The two "one" rules are claims (``consumers``): of any number of concurrent creates on one
ExternalIP, or on one VN, exactly one succeeds; the others get FAILED_PRECONDITION naming the
consumer, or ALREADY_EXISTS naming the VN's gateway. Both claims are released when the gateway is
archived.
"""

from __future__ import annotations

from osac.api.private.v1.nat_gateway_type_pb2 import NATGateway
from osac.model import registry
from osac.model.kinds import Kind
from osac.services.core.behaviour import Behaviour, WriteContext
from osac.services.core.errors import InvalidArgument
from osac.services.networking import consumers, gates, state_machines
from osac.store.objects import Tx


class NATGatewayBehaviour(Behaviour[NATGateway]):
    def __init__(self, kind: Kind) -> None:
        super().__init__(kind)
        self.transitions = state_machines.transitions(kind, state_machines.STANDARD)

    async def prepare(self, ctx: WriteContext, obj: NATGateway, stored: NATGateway | None) -> None:
        if stored is not None:
            return  # both references are immutable
        spec = obj.spec
        if not spec.virtual_network:
            raise InvalidArgument("spec.virtual_network: required; name the VirtualNetwork to give outbound access")
        if not spec.external_ip:
            raise InvalidArgument("spec.external_ip: required; name the ExternalIP to translate to")
        tx = ctx.tx
        vn = await gates.require_ready(tx, registry.get("virtual_network"), spec.virtual_network)
        eip = await gates.require_ready(tx, registry.get("external_ip"), spec.external_ip, ready="ALLOCATED")
        await consumers.claim_external_ip(tx, eip, self.kind.name, obj.id)
        await consumers.claim_nat_gateway(tx, vn, obj.id)
        gates.add_sibling(obj.id)

    async def after_archive(self, tx: Tx, obj: NATGateway) -> None:
        await consumers.release(tx, self.kind.name, obj.id)


