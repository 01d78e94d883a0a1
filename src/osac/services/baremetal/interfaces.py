"""Bare-metal attachments against the host type's interfaces (networking.md §7.4, api.md §11.4).

A BareMetalInstance's host type lists its interfaces in order, each with a role. A host type
with a ``lifecycle`` interface (PXE/BMC) is bare metal; that interface provisions the host and is
never attached to a tenant subnet. Every other interface may carry one attachment. A lone
attachment may leave its interface out: it gets the host type's first ``fabric`` interface, and
that choice is stored so later edits of the host type never move the port.

Every refusal is INVALID_ARGUMENT naming the attachment index, in the order of §7.4: the count
first (too many attachments for the attachable interfaces), then per attachment a missing,
unknown, lifecycle or repeated interface.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from osac.services.core.errors import InvalidArgument

LIFECYCLE = "lifecycle"
FABRIC = "fabric"


def host_type_label(host_type: Any) -> str:
    return f"host type '{host_type.metadata.name or host_type.id}'"


def is_bare_metal(host_type: Any) -> bool:
    """Whether hosts of the type are bare metal (it has a ``lifecycle`` interface, api.md §11.4)."""
    return any(interface.role == LIFECYCLE for interface in host_type.interfaces)


def require_bare_metal(path: str, host_type: Any) -> None:
    """:raises InvalidArgument: the host type lists no interfaces, or none with role
    ``lifecycle`` (a virtual host type, whose nodes are VMs)."""
    label = host_type_label(host_type)
    if not host_type.interfaces:
        raise InvalidArgument(f"{path}: {label} has no interfaces; a bare-metal host type lists its interfaces")
    if not is_bare_metal(host_type):
        raise InvalidArgument(
            f"{path}: {label} is not a bare-metal host type (it has no interface with role '{LIFECYCLE}')"
        )


def resolve_interfaces(path: str, attachments: Sequence[Any], host_type: Any) -> None:
    """Check every attachment's interface against ``host_type`` (rules 1–5 of §7.4) and store
    the first ``fabric`` interface on a lone attachment that names none."""
    label = host_type_label(host_type)
    interfaces = {interface.name: interface for interface in host_type.interfaces}
    attachable = [interface.name for interface in host_type.interfaces if interface.role != LIFECYCLE]
    if len(attachments) > len(attachable):
        raise InvalidArgument(
            f"{path}[{len(attachable)}]: {label} has {len(attachable)} attachable (non-{LIFECYCLE}) "
            f"interface(s), so at most {len(attachable)} attachment(s): {', '.join(attachable) or 'none'}"
        )
    seen: dict[str, int] = {}
    for index, attachment in enumerate(attachments):
        where = f"{path}[{index}].interface"
        name = attachment.interface
        if not name:
            if len(attachments) > 1:
                raise InvalidArgument(
                    f"{where}: required when there is more than one attachment; name one of {', '.join(attachable)}"
                )
            attachment.interface = first_fabric_interface(where, host_type)
            continue
        interface = interfaces.get(name)
        if interface is None:
            raise InvalidArgument(
                f"{where}: interface '{name}' does not exist on {label}; its attachable interfaces are "
                f"{', '.join(attachable) or 'none'}"
            )
        if interface.role == LIFECYCLE:
            raise InvalidArgument(
                f"{where}: interface '{name}' of {label} has role '{LIFECYCLE}' (PXE/BMC) and cannot be attached"
            )
        if name in seen:
            raise InvalidArgument(f"{where}: interface '{name}' is already attached by {path}[{seen[name]}]")
        seen[name] = index


def first_fabric_interface(where: str, host_type: Any) -> str:
    """:raises InvalidArgument: ``host type '<name>' has no interface with role 'fabric'; name an interface``."""
    for interface in host_type.interfaces:
        if interface.role == FABRIC:
            return str(interface.name)
    raise InvalidArgument(f"{where}: {host_type_label(host_type)} has no interface with role '{FABRIC}'; name an interface")
