"""``SimulatedFabric``: the built-in ``FabricManager`` (networking.md §11.2, simulator.md §3.4).

Real semantics over real state: every call changes the ``sim_fabric_*`` tables through
``FabricStore`` (one short transaction each), so the state survives restarts and a second
instance on the same database sees it. Each call, in order:

1. refuses an operation / target kind the manager does not declare (``UnsupportedOperation``,
   terminal; no fault is consumed);
2. takes its time: 2 s (``create_network_attachment`` 10 s, ``query_dhcp_lease`` 0 s) divided by
   the speed, plus any ``fabric_latency`` (see ``runtime.py`` for the fake clock);
3. fails if a ``fabric_fail`` fault matches (transient, or terminal with ``terminal: true``);
4. does the work, idempotently: a repeat changes nothing, deleting the unknown succeeds, and a
   changed immutable input is a ``TerminalProviderError`` (``fabric_store.py``).

Settings (the ``settings`` of the ``network_managers`` entry):

``supported``     ``{operation: [target kinds]}`` merged over ``DEFAULT_SUPPORTED`` per operation;
                  an empty list withdraws the operation. E.g. a manager without bare metal:
                  ``{network_attachment.create: [compute_instance, cluster]}``.
``capabilities``  ``{ipv4, ipv6, dual_stack, dpu}`` booleans over ``DEFAULT_CAPABILITIES``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import fields, replace
from typing import Any

from osac.providers.interfaces import (
    CONTRACT_VERSION,
    Lease,
    ManagerCapabilities,
    ManagerDescription,
    NetworkAttachmentSpec,
    SecurityRuleSpec,
    SubnetSpec,
    UnsupportedOperation,
)
from osac.providers.simulator.fabric import reachability
from osac.providers.simulator.runtime.context import SimulatorRuntime

ANY_TARGET = "*"
WORKLOAD_KINDS = ("compute_instance", "cluster", "baremetal_instance")

#: Operation name (as declared in ``describe().supported``) of each fabric method.
OPERATION_OF_METHOD: Mapping[str, str] = {
    "create_virtual_network": "virtual_network.create",
    "delete_virtual_network": "virtual_network.delete",
    "create_subnet": "subnet.create",
    "delete_subnet": "subnet.delete",
    "apply_security_group": "security_group.apply",
    "delete_security_group": "security_group.delete",
    "allocate_external_ip": "external_ip.allocate",
    "release_external_ip": "external_ip.release",
    "create_external_ip_attachment": "external_ip_attachment.create",
    "delete_external_ip_attachment": "external_ip_attachment.delete",
    "create_nat_gateway": "nat_gateway.create",
    "delete_nat_gateway": "nat_gateway.delete",
    "create_network_attachment": "network_attachment.create",
    "delete_network_attachment": "network_attachment.delete",
}

DEFAULT_SUPPORTED: Mapping[str, frozenset[str]] = {
    operation: frozenset(WORKLOAD_KINDS) if operation.startswith("network_attachment.") else frozenset({ANY_TARGET})
    for operation in OPERATION_OF_METHOD.values()
}
DEFAULT_CAPABILITIES = ManagerCapabilities(ipv4=True, ipv6=True, dual_stack=True, dpu=False)

#: Table durations at speed 1 (simulator.md §3.4).
OPERATION_SECONDS = 2.0
ATTACHMENT_SECONDS = 10.0
SETTINGS = ("supported", "capabilities")


class SimulatedFabric:
    """The simulated fabric manager ``name``; all simulated managers share ``runtime``."""

    def __init__(self, name: str, settings: Mapping[str, Any], runtime: SimulatorRuntime) -> None:
        unknown = sorted(set(settings) - set(SETTINGS))
        if unknown:
            raise ValueError(f"unknown setting(s) {', '.join(unknown)}; expected {', '.join(SETTINGS)}")
        self.name = name
        self.runtime = runtime
        self._store = runtime.fabric_store
        self._description = ManagerDescription(
            name=name,
            contract_version=CONTRACT_VERSION,
            capabilities=capabilities_setting(settings.get("capabilities"), DEFAULT_CAPABILITIES),
            supported=supported_setting(settings.get("supported"), DEFAULT_SUPPORTED),
        )

    async def describe(self) -> ManagerDescription:
        return self._description

    # -- the contract --------------------------------------------------------------------------------

    async def create_virtual_network(self, vn_id: str, cidrs: Sequence[str]) -> str:
        await self._begin("create_virtual_network", (vn_id,))
        return await self._store.create_network(vn_id, cidrs)

    async def delete_virtual_network(self, vn_id: str) -> None:
        await self._begin("delete_virtual_network", (vn_id,))
        await self._store.delete_network(vn_id)

    async def create_subnet(self, spec: SubnetSpec) -> None:
        await self._begin("create_subnet", (spec.subnet_id, spec.vn_id))
        await self._store.create_segment(spec)

    async def delete_subnet(self, subnet_id: str) -> None:
        await self._begin("delete_subnet", (subnet_id,))
        await self._store.delete_segment(subnet_id)

    async def apply_security_group(
        self, sg_id: str, vn_id: str, ingress: Sequence[SecurityRuleSpec], egress: Sequence[SecurityRuleSpec]
    ) -> None:
        await self._begin("apply_security_group", (sg_id, vn_id))
        await self._store.apply_security_group(sg_id, vn_id, ingress, egress)

    async def delete_security_group(self, sg_id: str) -> None:
        await self._begin("delete_security_group", (sg_id,))
        await self._store.delete_security_group(sg_id)

    async def allocate_external_ip(self, eip_id: str, pool_id: str, address: str) -> None:
        await self._begin("allocate_external_ip", (eip_id, pool_id))
        await self._store.allocate_external_ip(eip_id, pool_id, address)

    async def release_external_ip(self, eip_id: str) -> None:
        await self._begin("release_external_ip", (eip_id,))
        await self._store.release_external_ip(eip_id)

    async def create_external_ip_attachment(
        self, attachment_id: str, external_address: str, vn_id: str, target_address: str
    ) -> None:
        await self._begin("create_external_ip_attachment", (attachment_id, vn_id))
        await self._store.create_dnat(attachment_id, external_address, vn_id, target_address)

    async def delete_external_ip_attachment(self, attachment_id: str) -> None:
        await self._begin("delete_external_ip_attachment", (attachment_id,))
        await self._store.delete_dnat(attachment_id)

    async def create_nat_gateway(self, natgw_id: str, vn_id: str, external_address: str) -> None:
        await self._begin("create_nat_gateway", (natgw_id, vn_id))
        await self._store.create_snat(natgw_id, vn_id, external_address)

    async def delete_nat_gateway(self, natgw_id: str) -> None:
        await self._begin("delete_nat_gateway", (natgw_id,))
        await self._store.delete_snat(natgw_id)

    async def create_network_attachment(self, spec: NetworkAttachmentSpec) -> None:
        port = f"{spec.host_name}/{spec.interface}"
        await self._begin(
            "create_network_attachment", (port, spec.host_name, spec.subnet_id), spec.target_kind, ATTACHMENT_SECONDS
        )
        await self._store.attach_port(spec)

    async def delete_network_attachment(self, host_name: str, interface: str) -> None:
        # the port records the workload kind it was attached for; nothing to check for an
        # unknown or parked port (deleting it is a no-op)
        target = await self._store.port_target_kind(host_name, interface)
        await self._begin("delete_network_attachment", (f"{host_name}/{interface}", host_name), target)
        await self._store.detach_port(host_name, interface)

    async def query_dhcp_lease(self, subnet_id: str, mac: str) -> Lease | None:
        """The lease of a reserved port on the segment, granted at the first query; None while
        there is none (no reservation, port elsewhere, or a ``dhcp_fail`` fault)."""
        await self._begin("query_dhcp_lease", (subnet_id, mac), seconds=0.0)
        port = await self._store.reserved_port(subnet_id, mac)
        if await self.runtime.faults.is_dhcp_blocked(subnet_id, port):
            return None
        # a port of a simulated bare-metal host gets a lease only once the host's OS asks (15 s
        # after boot); a lease it got earlier stays, as on a real DHCP server
        gate = await self.runtime.host_store.lease_gate(port.rpartition("/")[0]) if port else None
        if gate is not None and gate.inventory:
            asking = gate.ready_at is not None and gate.ready_at <= self.runtime.clock.now()
            return await self._store.lease(subnet_id, mac, not_before=gate.ready_at, grant=asking)
        return await self._store.lease(subnet_id, mac)

    # -- beyond the contract: the simulator's own surface ---------------------------------------------

    async def register_host_ports(self, host_name: str, ports: Sequence[tuple[str, str, str]]) -> None:
        """Cable a simulated bare-metal host: ``(interface, role, mac)`` per port (``lifecycle``
        ports on the provisioning segment, the others on parking)."""
        await self._store.register_host_ports(host_name, ports)

    async def check_reachability(
        self, src: str, dst: str, protocol: str, port: int = 0, *, reply: bool = False
    ) -> reachability.Reachability:
        """Whether a packet ``src -> dst`` is delivered (``reachability.check``)."""
        return reachability.check(await self._store.snapshot(), src, dst, protocol, port, reply=reply)

    async def fabric_observation(self, vn_id: str) -> dict[str, Any]:
        """The VN's fabric tables, as ``Simulator.GetObservation(kind="fabric")`` returns them."""
        return await self._store.observation(vn_id)

    # -- every call ------------------------------------------------------------------------------------

    async def _begin(
        self,
        method: str,
        object_ids: Sequence[str],
        target: str | None = ANY_TARGET,
        seconds: float = OPERATION_SECONDS,
    ) -> None:
        """Support check (skipped when ``target`` is None), time, then injected failures."""
        operation = OPERATION_OF_METHOD.get(method)
        if operation is not None and target is not None and not self._description.supports(operation, target):
            raise UnsupportedOperation(self.name, operation, target)
        await self.runtime.fabric_call(self.name, method, object_ids, seconds)


def supported_setting(value: Any, defaults: Mapping[str, frozenset[str]]) -> dict[str, frozenset[str]]:
    """``defaults`` with the per-operation overrides of a ``supported`` setting."""
    supported = dict(defaults)
    if value is None:
        return supported
    if not isinstance(value, Mapping):
        raise ValueError("supported: must map operation names to lists of target kinds")
    for operation, kinds in value.items():
        if operation not in defaults:
            raise ValueError(f"supported: unknown operation '{operation}'; expected one of {', '.join(defaults)}")
        if isinstance(kinds, str) or not isinstance(kinds, Sequence | set | frozenset):
            raise ValueError(f"supported.{operation}: must be a list of target kinds")
        allowed = {*WORKLOAD_KINDS, ANY_TARGET}
        wrong = sorted(str(k) for k in kinds if k not in allowed)
        if wrong:
            raise ValueError(f"supported.{operation}: unknown target kind(s) {', '.join(wrong)}")
        if kinds:
            supported[operation] = frozenset(str(k) for k in kinds)
        else:
            supported.pop(operation)
    return supported


def capabilities_setting(value: Any, defaults: ManagerCapabilities) -> ManagerCapabilities:
    if value is None:
        return defaults
    names = [f.name for f in fields(ManagerCapabilities)]
    if not isinstance(value, Mapping) or any(k not in names for k in value):
        raise ValueError(f"capabilities: must map some of {', '.join(names)} to true or false")
    if any(not isinstance(v, bool) for v in value.values()):
        raise ValueError("capabilities: values must be true or false")
    return replace(defaults, **dict(value))
