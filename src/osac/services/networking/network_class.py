"""NetworkClass semantics (networking.md §2, api.md §11.2).

- ``fabric_manager`` names a registered fabric manager, ``k8s_manager`` (optional) a registered
  k8s manager.
- ``spec.vip_prefix_length`` 0 (= 28) or 1–30; ``spec.disable_capabilities.supports_ipv4`` false.
- ``spec.defaults`` (optional) is validated as the objects it will create at tenant onboarding.
- ``capabilities`` (output) = the managers' intersection minus ``disable_capabilities``.
- Exactly one class is the default: setting ``is_default`` clears it on the previous default in
  the same transaction (under the ``network-class-default`` lock); the first class created while
  none is the default becomes it; the flag cannot be cleared except by moving it.
"""

from __future__ import annotations

from google.protobuf.message import Message

from osac.api.private.v1.network_class_type_pb2 import NetworkClass, NetworkDefaults
from osac.model import registry
from osac.model.kinds import Kind
from osac.model.shape import as_kind, metadata_of
from osac.services.core.behaviour import Behaviour, WriteContext
from osac.services.core.errors import InvalidArgument
from osac.services.networking import locks, network_managers, state_machines, validation
from osac.store.objects import Tx, object_label
from osac.store.tables import LIVE

DEFAULT_LOCK = "network-class-default"


class NetworkClassBehaviour(Behaviour[NetworkClass]):
    def __init__(self, kind: Kind) -> None:
        super().__init__(kind)
        self.transitions = state_machines.transitions(kind, state_machines.STANDARD)

    async def prepare(self, ctx: WriteContext, obj: NetworkClass, stored: NetworkClass | None) -> None:
        config = ctx.services.config
        fabric = obj.fabric_manager
        k8s = obj.k8s_manager
        if not fabric:
            raise InvalidArgument("fabric_manager: required; name a registered fabric manager")
        fabric_manager = network_managers.find(config, fabric, network_managers.FABRIC)
        if fabric_manager is None:
            raise InvalidArgument(f"fabric manager '{fabric}' is not registered")
        managers = [fabric_manager.capabilities]
        if k8s:
            k8s_manager = network_managers.find(config, k8s, network_managers.K8S)
            if k8s_manager is None:
                raise InvalidArgument(f"k8s manager '{k8s}' is not registered")
            managers.append(k8s_manager.capabilities)
        spec = obj.spec
        vip = validation.vip_prefix(spec.vip_prefix_length, "spec.vip_prefix_length")
        if spec.disable_capabilities.supports_ipv4:
            raise InvalidArgument("spec.disable_capabilities.supports_ipv4: IPv4 cannot be disabled; it must be false")
        capabilities = network_managers.class_capabilities(
            managers, network_managers.Capabilities.from_message(spec.disable_capabilities)
        )
        capabilities.to_message(obj.capabilities)
        if spec.HasField("defaults"):
            validate_defaults(spec.defaults, vip, capabilities)
        await self._default_flag(ctx.tx, obj, stored)

    async def _default_flag(self, tx: Tx, obj: NetworkClass, stored: NetworkClass | None) -> None:
        """Keep exactly one default class: move the flag atomically, never just clear it."""
        is_default = obj.is_default
        was_default = stored is not None and stored.is_default
        if is_default == was_default:
            return
        await locks.hold(tx, DEFAULT_LOCK)
        found = await tx.find(self.kind, LIVE[self.kind.name].c.id != obj.id)
        others = [c for c in (as_kind(c, NetworkClass) for c in found) if c.is_default]
        if not is_default:
            if stored is None:
                if not others:
                    obj.is_default = True  # the first class is the default
                return
            raise InvalidArgument(
                "is_default: exactly one NetworkClass is the default; set is_default on another class to move it"
            )
        for other in others:
            cleared = type(other)()
            cleared.CopyFrom(other)
            cleared.is_default = False
            await tx.replace(self.kind, cleared, metadata_of(other).version)


def validate_defaults(defaults: NetworkDefaults, vip: int, capabilities: network_managers.Capabilities) -> None:
    """``spec.defaults`` must describe objects that can be created (§2): CIDRs present and valid,
    the subnet inside the VN and shorter than the VIP prefix, IPv6 only with an IPv6 VN CIDR,
    valid rules."""
    path = "spec.defaults"
    vn4 = validation.ipv4_network(
        defaults.virtual_network_ipv4_cidr,
        f"{path}.virtual_network_ipv4_cidr",
        max_prefix=validation.VN_MAX_PREFIX,
    )
    sub4 = validation.ipv4_network(defaults.subnet_ipv4_cidr, f"{path}.subnet_ipv4_cidr")
    assert vn4 is not None and sub4 is not None
    if not validation.inside(sub4, vn4):
        raise InvalidArgument(f"{path}.subnet_ipv4_cidr: {sub4} is not inside virtual_network_ipv4_cidr {vn4}")
    validation.subnet_prefix(sub4, vip, f"{path}.subnet_ipv4_cidr", "this NetworkClass")
    vn6 = validation.ipv6_network(defaults.virtual_network_ipv6_cidr, f"{path}.virtual_network_ipv6_cidr")
    sub6 = validation.ipv6_network(defaults.subnet_ipv6_cidr, f"{path}.subnet_ipv6_cidr")
    if vn6 is not None and not capabilities.ipv6:
        raise InvalidArgument(f"{path}.virtual_network_ipv6_cidr: this NetworkClass does not support IPv6")
    if sub6 is not None:
        if vn6 is None:
            raise InvalidArgument(f"{path}.subnet_ipv6_cidr: needs virtual_network_ipv6_cidr")
        if not validation.inside(sub6, vn6):
            raise InvalidArgument(f"{path}.subnet_ipv6_cidr: {sub6} is not inside virtual_network_ipv6_cidr {vn6}")
    validation.security_rules(defaults.ingress_rules, f"{path}.ingress_rules", ipv6_allowed=vn6 is not None)
    validation.security_rules(defaults.egress_rules, f"{path}.egress_rules", ipv6_allowed=vn6 is not None)


async def default_class(tx: Tx) -> NetworkClass | None:
    """The live default NetworkClass (being deleted or not), if any."""
    kind = registry.get("network_class")
    for candidate in await tx.find(kind, lock="share"):
        if as_kind(candidate, NetworkClass).is_default:
            return as_kind(candidate, NetworkClass)
    return None


def label(obj: Message) -> str:
    return object_label(registry.get("network_class"), obj)


