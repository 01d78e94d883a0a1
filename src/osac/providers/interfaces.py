"""Provider interfaces: the only way the service reaches infrastructure (simulator.md §2).

Every mutating call is idempotent on its OSAC object (provider names derive from our ids, so a
retry finds rather than duplicates) and receives the addresses the service's IPAM chose.

Errors (raised by every method):

ProviderError
 +-- TransientProviderError   the caller retries with backoff (1 s doubling to 60 s, up to the
 |                            retry limit); a call exceeding ``provider_call_timeout`` is one too
 +-- TerminalProviderError    recorded; the object becomes FAILED (DELETE_FAILED when deleting)
      +-- UnsupportedOperation the manager does not declare the operation for the target kind
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

CONTRACT_VERSION = "v1"


class ProviderError(Exception):
    """Base of provider errors: ``reason`` is a stable PascalCase token, ``message`` human text."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


class TransientProviderError(ProviderError):
    """Worth retrying: the same call may succeed later."""


class TerminalProviderError(ProviderError):
    """Retrying is useless until something changes (a fault cleared, a Signal, a spec change)."""


class UnsupportedOperation(TerminalProviderError):
    def __init__(self, manager: str, operation: str, target: str) -> None:
        super().__init__(
            "UnsupportedOperation",
            f"fabric manager '{manager}' does not support operation '{operation}' for target '{target}'",
        )


# -- change notices -------------------------------------------------------------------------------


@dataclass(frozen=True)
class ChangeNotice:
    """One observable change of a workload provider (simulator.md §2): ``subscribe()`` yields one
    per change, in order. It only wakes the caller, who observes again (level-triggered); the
    notice carries no state. ``key`` is the OSAC object id (a host name for hosts);
    ``changed_at`` is the exact time of the change, not the time the notice was sent."""

    kind: str
    key: str
    changed_at: datetime


# -- descriptions ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class ManagerCapabilities:
    ipv4: bool = True
    ipv6: bool = False
    dual_stack: bool = False
    dpu: bool = False


@dataclass(frozen=True)
class ManagerDescription:
    """What ``describe()`` returns: the contract version and what the manager supports.

    ``supported`` maps an operation name (``network_attachment.create``) to the target kinds it
    accepts (``compute_instance``, ``cluster``, ``baremetal_instance``; ``*`` for all)."""

    name: str
    contract_version: str
    capabilities: ManagerCapabilities
    supported: Mapping[str, frozenset[str]] = field(default_factory=dict)

    def supports(self, operation: str, target: str = "*") -> bool:
        kinds = self.supported.get(operation)
        return kinds is not None and ("*" in kinds or target in kinds)


# -- fabric requests ------------------------------------------------------------------------------


@dataclass(frozen=True)
class SecurityRuleSpec:
    """One allow rule. ``protocol``: ``tcp``, ``udp``, ``icmp`` or ``all``; ports 0 for icmp/all.
    ``cidr`` is the source for ingress, the destination for egress."""

    protocol: str
    port_from: int
    port_to: int
    ipv4_cidr: str = ""
    ipv6_cidr: str = ""


@dataclass(frozen=True)
class SubnetSpec:
    subnet_id: str
    vn_id: str
    cidr: str
    gateway: str
    #: First and last address DHCP may hand out (the workload range).
    dhcp_range: tuple[str, str]
    #: First and last address of the VIP range (never handed out by DHCP).
    vip_range: tuple[str, str]
    ipv6_cidr: str = ""


@dataclass(frozen=True)
class NetworkAttachmentSpec:
    """A port onto a subnet segment with its static DHCP reservation ``mac -> address``.

    Port identity: bare metal ``(host name, interface)``; VM ``("ci/<id>", "nic-<i>")``; cluster
    node ``(host name, fabric_interface)`` or ``("node/<cluster>/<key>/<ordinal>", iface)``.
    ``target_kind`` is the workload kind, checked against ``describe().supported``."""

    host_name: str
    interface: str
    mac: str
    subnet_id: str
    address: str
    security_group_ids: tuple[str, ...]
    target_kind: str


@dataclass(frozen=True)
class Lease:
    address: str
    mac: str
    interface: str
    subnet_id: str
    granted_at: datetime


class FabricManager(Protocol):
    """The network fabric (contract v1, networking.md §11.1)."""

    name: str

    async def describe(self) -> ManagerDescription: ...

    async def create_virtual_network(self, vn_id: str, cidrs: Sequence[str]) -> str:
        """Create the VN's isolated routing domain; returns the backend reference."""
        ...

    async def delete_virtual_network(self, vn_id: str) -> None: ...

    async def create_subnet(self, spec: SubnetSpec) -> None: ...

    async def delete_subnet(self, subnet_id: str) -> None: ...

    async def apply_security_group(
        self, sg_id: str, vn_id: str, ingress: Sequence[SecurityRuleSpec], egress: Sequence[SecurityRuleSpec]
    ) -> None:
        """Replace the SG's full rule set; enforced on every port bound to it."""
        ...

    async def delete_security_group(self, sg_id: str) -> None: ...

    async def allocate_external_ip(self, eip_id: str, pool_id: str, address: str) -> None: ...

    async def release_external_ip(self, eip_id: str) -> None: ...

    async def create_external_ip_attachment(
        self, attachment_id: str, external_address: str, vn_id: str, target_address: str
    ) -> None:
        """1:1 DNAT ``external_address -> (vn, target_address)``."""
        ...

    async def delete_external_ip_attachment(self, attachment_id: str) -> None: ...

    async def create_nat_gateway(self, natgw_id: str, vn_id: str, external_address: str) -> None: ...

    async def delete_nat_gateway(self, natgw_id: str) -> None: ...

    async def create_network_attachment(self, spec: NetworkAttachmentSpec) -> None: ...

    async def delete_network_attachment(self, host_name: str, interface: str) -> None: ...

    async def query_dhcp_lease(self, subnet_id: str, mac: str) -> Lease | None: ...


class K8sNetworkManager(Protocol):
    """Bridges subnets into the platform hosting VMs and hosted control planes (optional)."""

    name: str

    async def describe(self) -> ManagerDescription: ...

    async def create_subnet_overlay(self, subnet_id: str, segment: str) -> None: ...

    async def delete_subnet_overlay(self, subnet_id: str) -> None: ...


@dataclass(frozen=True)
class ManagerConfig:
    """One entry of the ``network_managers`` configuration (networking.md §2)."""

    name: str
    kind: str  # "fabric" | "k8s"
    implementation: str  # "simulator" or a Python import path "package.module:Class"
    contract_version: str = CONTRACT_VERSION
    settings: Mapping[str, Any] = field(default_factory=dict)
