"""HostType semantics (api.md §11.4).

Interfaces are named and the names unique within the host type: instances and node sets store
an interface *name* (a bare-metal attachment's ``interface``, a node set's ``fabric_interface``),
so a name must pick exactly one interface. Roles are free text; ``fabric``, ``management``,
``storage`` and ``lifecycle`` are the conventional ones the service acts on. Editing interfaces
never changes instances or node sets already resolved.
"""

from __future__ import annotations

from typing import Any

from google.protobuf.message import Message

from osac.services.core.behaviour import Behaviour, WriteContext
from osac.services.core.errors import InvalidArgument


class HostTypeBehaviour(Behaviour):
    async def prepare(self, ctx: WriteContext, obj: Message, stored: Message | None) -> None:
        check_interfaces(obj)


def check_interfaces(host_type: Any) -> None:
    """:raises InvalidArgument: ``interfaces[i].name`` empty or already used by an earlier interface."""
    seen: dict[str, int] = {}
    for index, interface in enumerate(host_type.interfaces):
        if not interface.name:
            raise InvalidArgument(f"interfaces[{index}].name: required; name the interface (e.g. ens1f0)")
        if interface.name in seen:
            raise InvalidArgument(
                f"interfaces[{index}].name: interface '{interface.name}' is already defined by interfaces[{seen[interface.name]}]"
            )
        seen[interface.name] = index


