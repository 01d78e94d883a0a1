"""The network manager registry as the services see it (networking.md §2): configuration
``network_managers``, a list of ``{name, kind: fabric|k8s, implementation, contract_version,
settings}``.

The services only need names, kinds and declared capabilities: a NetworkClass may name only
registered managers of the right kind, and its ``capabilities`` are the intersection of its
managers' capabilities minus ``spec.disable_capabilities`` (``class_capabilities``: the one place
that computes them; the NetworkClass reconciler passes the capabilities ``describe()`` reported,
the service those of the configuration).

Capabilities in configuration: ``settings.capabilities: {ipv4, ipv6, dual_stack, dpu}`` (booleans);
omitted ones take the simulator's defaults: IPv4 only.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from osac.api.private.v1.network_class_type_pb2 import NetworkClassCapabilities

FABRIC = "fabric"
K8S = "k8s"


@dataclass(frozen=True)
class Capabilities:
    ipv4: bool = True
    ipv6: bool = False
    dual_stack: bool = False
    dpu: bool = False

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any] | None) -> Capabilities:
        declared = dict((settings or {}).get("capabilities") or {})
        defaults = cls()
        return cls(
            ipv4=bool(declared.get("ipv4", defaults.ipv4)),
            ipv6=bool(declared.get("ipv6", defaults.ipv6)),
            dual_stack=bool(declared.get("dual_stack", defaults.dual_stack)),
            dpu=bool(declared.get("dpu", defaults.dpu)),
        )

    @classmethod
    def from_message(cls, message: NetworkClassCapabilities) -> Capabilities:
        """From a ``NetworkClassCapabilities`` message (``supports_ipv4`` …)."""
        return cls(
            ipv4=message.supports_ipv4,
            ipv6=message.supports_ipv6,
            dual_stack=message.supports_dual_stack,
            dpu=message.dpu_support,
        )

    def to_message(self, message: NetworkClassCapabilities) -> None:
        message.supports_ipv4 = self.ipv4
        message.supports_ipv6 = self.ipv6
        message.supports_dual_stack = self.dual_stack
        message.dpu_support = self.dpu


@dataclass(frozen=True)
class Manager:
    name: str
    kind: str
    capabilities: Capabilities


def registered(config: Mapping[str, Any]) -> dict[str, Manager]:
    """The configured managers by name."""
    found: dict[str, Manager] = {}
    for entry in config.get("network_managers") or []:
        if not isinstance(entry, Mapping) or not entry.get("name"):
            continue
        found[str(entry["name"])] = Manager(
            name=str(entry["name"]),
            kind=str(entry.get("kind", "")),
            capabilities=Capabilities.from_settings(entry.get("settings")),
        )
    return found


def find(config: Mapping[str, Any], name: str, kind: str) -> Manager | None:
    """The registered manager ``name`` if it is of ``kind``."""
    manager = registered(config).get(name)
    return manager if manager is not None and manager.kind == kind else None


def class_capabilities(managers: Iterable[Capabilities], disabled: Capabilities | None = None) -> Capabilities:
    """A class's capabilities: what every one of its managers supports, minus what is disabled."""
    result = Capabilities(ipv4=True, ipv6=True, dual_stack=True, dpu=True)
    for caps in managers:
        result = Capabilities(
            ipv4=result.ipv4 and caps.ipv4,
            ipv6=result.ipv6 and caps.ipv6,
            dual_stack=result.dual_stack and caps.dual_stack,
            dpu=result.dpu and caps.dpu,
        )
    if disabled is not None:
        result = Capabilities(
            ipv4=result.ipv4 and not disabled.ipv4,
            ipv6=result.ipv6 and not disabled.ipv6,
            dual_stack=result.dual_stack and not disabled.dual_stack,
            dpu=result.dpu and not disabled.dpu,
        )
    return result
