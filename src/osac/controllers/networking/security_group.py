"""SecurityGroup: the full rule set, re-applied on every change (READY -> PENDING -> READY)."""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial

from osac.api.private.v1.security_group_type_pb2 import SecurityGroup
from osac.api.private.v1.security_rule_type_pb2 import SecurityRule
from osac.controllers.networking import topology
from osac.controllers.networking.provisioning import ProviderCall, ProvisioningReconciler
from osac.controllers.runtime.waiters import Awaited
from osac.providers.interfaces import SecurityRuleSpec
from osac.store.objects import Tx

PROTOCOLS = {1: "tcp", 2: "udp", 3: "icmp", 4: "all"}


def rule_specs(rules: Iterable[SecurityRule]) -> list[SecurityRuleSpec]:
    return [
        SecurityRuleSpec(
            protocol=PROTOCOLS.get(rule.protocol, "all"),
            port_from=rule.port_from,
            port_to=rule.port_to,
            ipv4_cidr=rule.ipv4_cidr,
            ipv6_cidr=rule.ipv6_cidr,
        )
        for rule in rules
    ]


class SecurityGroupReconciler(ProvisioningReconciler[SecurityGroup]):
    kind = "security_group"
    message_class = SecurityGroup

    def awaited(self, obj: SecurityGroup) -> tuple[Awaited, ...]:
        return (("virtual_network", obj.spec.virtual_network),)

    async def waiting_for(self, tx: Tx, obj: SecurityGroup) -> str | None:
        vn_id = obj.spec.virtual_network
        return topology.waiting_message("virtual_network", await topology.get(tx, "virtual_network", vn_id), vn_id)

    async def apply(self, tx: Tx, obj: SecurityGroup) -> ProviderCall:
        spec = obj.spec
        fabric = await topology.fabric_for_vn(tx, self.networking.managers, spec.virtual_network)
        return partial(fabric.apply_security_group, obj.id, spec.virtual_network,
                       rule_specs(spec.ingress), rule_specs(spec.egress))

    async def teardown(self, tx: Tx, obj: SecurityGroup) -> ProviderCall:
        fabric = await topology.fabric_for_vn(tx, self.networking.managers, obj.spec.virtual_network)
        return partial(fabric.delete_security_group, obj.id)
