"""SecurityGroup semantics (networking.md §3.1, §3.2, §4; api.md §11.3).

Create: the VirtualNetwork READY; every rule valid (IPv6 peers only in a VN with an IPv6 CIDR).
Update: the rule lists are mutable and replaced whole; a change is validated the same way and
sends a READY or FAILED group back to PENDING, the signal that the new rule set is being applied
(§3.2 READY → PENDING, FAILED → PENDING on a spec change).
"""

from __future__ import annotations

from osac.api.private.v1.security_group_type_pb2 import SECURITY_GROUP_STATE_PENDING, SecurityGroup
from osac.api.private.v1.virtual_network_type_pb2 import VirtualNetwork
from osac.model import registry
from osac.model.kinds import Kind
from osac.model.shape import as_kind
from osac.services.core.behaviour import Behaviour, WriteContext
from osac.services.core.errors import InvalidArgument
from osac.services.networking import gates, state_machines, validation
from osac.store.tables import LIVE


class SecurityGroupBehaviour(Behaviour[SecurityGroup]):
    def __init__(self, kind: Kind) -> None:
        super().__init__(kind)
        self.transitions = state_machines.transitions(kind, state_machines.STANDARD)

    async def prepare(self, ctx: WriteContext, obj: SecurityGroup, stored: SecurityGroup | None) -> None:
        spec = obj.spec
        vn_kind = registry.get("virtual_network")
        if stored is None:
            if not spec.virtual_network:
                raise InvalidArgument("spec.virtual_network: required; name the VirtualNetwork of the group")
            spec.ClearField("implementation_strategy")  # output-only
            vn = as_kind(await gates.require_ready(ctx.tx, vn_kind, spec.virtual_network), VirtualNetwork)
        else:
            old = stored.spec
            if list(spec.ingress) == list(old.ingress) and list(spec.egress) == list(old.egress):
                return
            found = await ctx.tx.find(vn_kind, LIVE[vn_kind.name].c.id == spec.virtual_network)
            if not found:
                raise InvalidArgument(f"spec.virtual_network: VirtualNetwork '{spec.virtual_network}' not found")
            vn = as_kind(found[0], VirtualNetwork)
        ipv6 = bool(vn.spec.ipv6_cidr)
        validation.security_rules(spec.ingress, "spec.ingress", ipv6_allowed=ipv6)
        validation.security_rules(spec.egress, "spec.egress", ipv6_allowed=ipv6)
        if stored is None:
            gates.add_sibling(obj.id)
            return
        status = obj.status
        if status.state == stored.status.state and status.state in (
            self.kind.state_value("READY"),
            self.kind.state_value("FAILED"),
        ):
            status.state = SECURITY_GROUP_STATE_PENDING
            status.message = "applying the changed rules"


