"""Managers loaded by import path in the registry tests, as a third-party manager would be."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from osac.providers.interfaces import (
    CONTRACT_VERSION,
    Lease,
    ManagerCapabilities,
    ManagerDescription,
    NetworkAttachmentSpec,
    SecurityRuleSpec,
    SubnetSpec,
)


class MinimalFabric:
    """A fabric that remembers virtual networks only and declares just that."""

    def __init__(self, name: str, settings: Mapping[str, Any]) -> None:
        self.name = name
        self.settings = dict(settings)
        self.version = str(settings.get("version", CONTRACT_VERSION))
        self.networks: dict[str, list[str]] = {}

    async def describe(self) -> ManagerDescription:
        if self.settings.get("broken"):
            raise ConnectionError("controller unreachable")
        return ManagerDescription(
            self.name, self.version, ManagerCapabilities(ipv4=True, ipv6=False),
            {"virtual_network.create": frozenset({"*"})},
        )

    async def create_virtual_network(self, vn_id: str, cidrs: Sequence[str]) -> str:
        self.networks[vn_id] = list(cidrs)
        return f"minimal/{vn_id}"

    async def delete_virtual_network(self, vn_id: str) -> None:
        self.networks.pop(vn_id, None)

    async def create_subnet(self, spec: SubnetSpec) -> None: ...
    async def delete_subnet(self, subnet_id: str) -> None: ...
    async def apply_security_group(self, sg_id: str, vn_id: str, ingress: Sequence[SecurityRuleSpec],
                                   egress: Sequence[SecurityRuleSpec]) -> None: ...
    async def delete_security_group(self, sg_id: str) -> None: ...
    async def allocate_external_ip(self, eip_id: str, pool_id: str, address: str) -> None: ...
    async def release_external_ip(self, eip_id: str) -> None: ...
    async def create_external_ip_attachment(self, attachment_id: str, external_address: str, vn_id: str,
                                            target_address: str) -> None: ...
    async def delete_external_ip_attachment(self, attachment_id: str) -> None: ...
    async def create_nat_gateway(self, natgw_id: str, vn_id: str, external_address: str) -> None: ...
    async def delete_nat_gateway(self, natgw_id: str) -> None: ...
    async def create_network_attachment(self, spec: NetworkAttachmentSpec) -> None: ...
    async def delete_network_attachment(self, host_name: str, interface: str) -> None: ...
    async def query_dhcp_lease(self, subnet_id: str, mac: str) -> Lease | None:
        return None


class HalfFabric:
    """Not a fabric manager: most of the contract is missing."""

    def __init__(self, name: str, settings: Mapping[str, Any]) -> None:
        self.name = name

    async def describe(self) -> ManagerDescription:
        return ManagerDescription(self.name, CONTRACT_VERSION, ManagerCapabilities())
