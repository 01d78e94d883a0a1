"""SecurityGroup: the full rule set, re-applied on every change (READY -> PENDING -> READY)."""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial

from google.protobuf.message import Message

from osac.controllers.networking import topology
from osac.controllers.networking.provisioning import ProviderCall, ProvisioningReconciler
from osac.controllers.runtime.waiters import Awaited
from osac.providers.interfaces import SecurityRuleSpec
from osac.store.objects import Tx

PROTOCOLS = {1: "tcp", 2: "udp", 3: "icmp", 4: "all"}


def rule_specs(rules: Iterable[Message]) -> list[SecurityRuleSpec]:
    return [
        SecurityRuleSpec(
            protocol=PROTOCOLS.get(rule.protocol, "all"),  # type: ignore[attr-defined]
            port_from=rule.port_from,  # type: ignore[attr-defined]
            port_to=rule.port_to,  # type: ignore[attr-defined]
            ipv4_cidr=rule.ipv4_cidr,  # type: ignore[attr-defined]
            ipv6_cidr=rule.ipv6_cidr,  # type: ignore[attr-defined]
        )
        for rule in rules
    ]


class SecurityGroupReconciler(ProvisioningReconciler):
    kind = "security_group"

    def awaited(self, obj: Message) -> tuple[Awaited, ...]:
        return (("virtual_network", obj.spec.virtual_network),)  # type: ignore[attr-defined]

    async def waiting_for(self, tx: Tx, obj: Message) -> str | None:
        vn_id = obj.spec.virtual_network  # type: ignore[attr-defined]
        return topology.waiting_message("virtual_network", await topology.get(tx, "virtual_network", vn_id), vn_id)

    async def apply(self, tx: Tx, obj: Message) -> ProviderCall:
        spec = obj.spec  # type: ignore[attr-defined]
        fabric = await topology.fabric_for_vn(tx, self.networking.managers, spec.virtual_network)
        return partial(fabric.apply_security_group, obj.id, spec.virtual_network,  # type: ignore[attr-defined]
                       rule_specs(spec.ingress), rule_specs(spec.egress))

    async def teardown(self, tx: Tx, obj: Message) -> ProviderCall:
        fabric = await topology.fabric_for_vn(tx, self.networking.managers, obj.spec.virtual_network)  # type: ignore[attr-defined]
        return partial(fabric.delete_security_group, obj.id)  # type: ignore[attr-defined]
