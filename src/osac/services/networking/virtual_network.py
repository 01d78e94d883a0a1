"""VirtualNetwork semantics (networking.md §3.1, §4; api.md §11.3).

Create: ``spec.region`` from configuration (``networking.region``, default ``local``) when not
given; ``spec.network_class`` the default class when omitted; the class READY; ``ipv4_cidr`` a
network of at most /28; ``ipv6_cidr`` only if the class supports IPv6; ``capabilities`` within the
class's. Every spec field is immutable, so updates revalidate nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from osac.api.private.v1.network_class_type_pb2 import NetworkClass
from osac.api.private.v1.virtual_network_type_pb2 import VirtualNetwork, VirtualNetworkSpec
from osac.model import registry
from osac.model.kinds import Kind
from osac.model.shape import as_kind, id_of
from osac.services.core.behaviour import Behaviour, WriteContext
from osac.services.core.errors import FailedPrecondition, InvalidArgument
from osac.services.networking import gates, network_class, state_machines, validation
from osac.store.objects import object_label

DEFAULT_REGION = "local"


def configured_region(config: Mapping[str, Any]) -> str:
    networking = config.get("networking") or {}
    return str(networking.get("region") or DEFAULT_REGION)


class VirtualNetworkBehaviour(Behaviour[VirtualNetwork]):
    def __init__(self, kind: Kind) -> None:
        super().__init__(kind)
        self.transitions = state_machines.transitions(kind, state_machines.STANDARD)

    async def prepare(self, ctx: WriteContext, obj: VirtualNetwork, stored: VirtualNetwork | None) -> None:
        if stored is not None:
            return  # every spec field is immutable (checked by the generic service)
        spec = obj.spec
        if not spec.region:
            spec.region = configured_region(ctx.services.config)
        spec.ClearField("implementation_strategy")  # output-only
        class_kind = registry.get("network_class")
        if spec.network_class:
            cls = as_kind(await gates.require_ready(ctx.tx, class_kind, spec.network_class), NetworkClass)
        else:
            default = await network_class.default_class(ctx.tx)
            if default is None:
                raise FailedPrecondition(
                    "spec.network_class: no default NetworkClass is configured; name a network class"
                )
            gates.check_ready(class_kind, default)
            cls = default
            spec.network_class = id_of(default)
        validate(spec, cls)
        gates.add_sibling(obj.id)


def validate(spec: VirtualNetworkSpec, cls: NetworkClass) -> None:
    """The static rules of §3.1 against the VN's class."""
    validation.ipv4_network(spec.ipv4_cidr, "spec.ipv4_cidr", max_prefix=validation.VN_MAX_PREFIX)
    supported = cls.capabilities
    class_label = object_label(registry.get("network_class"), cls)
    if spec.ipv6_cidr:
        validation.ipv6_network(spec.ipv6_cidr, "spec.ipv6_cidr")
        if not supported.supports_ipv6:
            raise InvalidArgument(f"spec.ipv6_cidr: {class_label} does not support IPv6")
    wanted = spec.capabilities
    for field, capability, what in (
        ("enable_ipv4", "supports_ipv4", "IPv4"),
        ("enable_ipv6", "supports_ipv6", "IPv6"),
        ("enable_dual_stack", "supports_dual_stack", "dual stack"),
    ):
        if getattr(wanted, field) and not getattr(supported, capability):
            raise InvalidArgument(f"spec.capabilities.{field}: {class_label} does not support {what}")


