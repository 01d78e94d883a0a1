"""HostType semantics (api.md §11.4).

Interfaces are named and the names unique within the host type: instances and node sets store
an interface *name* (a bare-metal attachment's ``interface``, a node set's ``fabric_interface``),
so a name must pick exactly one interface. Roles are free text; ``fabric``, ``management``,
``storage`` and ``lifecycle`` are the conventional ones the service acts on. Editing interfaces
never changes instances or node sets already resolved.
"""

from __future__ import annotations

from typing import Any

from osac.api.private.v1.host_type_type_pb2 import HostType
from osac.services.core.behaviour import Behaviour, WriteContext
from osac.services.core.errors import FailedPrecondition, InvalidArgument

#: Hosts named in a refused delete; the rest are counted.
NAMED_HOSTS = 5


class HostTypeBehaviour(Behaviour[HostType]):
    async def prepare(self, ctx: WriteContext, obj: HostType, stored: HostType | None) -> None:
        check_interfaces(obj)

    async def check_delete(self, ctx: WriteContext, obj: HostType) -> None:
        """Refused while the provider's inventory holds hosts of the type, or its configuration
        names it (the provider could not start again without it)."""
        inventory = ctx.services.host_inventory
        if inventory is None:
            return
        name = obj.metadata.name
        configured = inventory.configured_by(name)
        if configured:
            raise FailedPrecondition(
                f"host type '{name}' is named by the provider's configuration ({', '.join(configured)}); "
                "change the configuration first"
            )
        hosts = await inventory.host_names(name)
        if hosts:
            shown = ", ".join(hosts[:NAMED_HOSTS]) + (f" and {len(hosts) - NAMED_HOSTS} more" if len(hosts) > NAMED_HOSTS else "")
            raise FailedPrecondition(
                f"host type '{name}' is used by {len(hosts)} host{'s' if len(hosts) != 1 else ''} of the "
                f"bare-metal inventory ({shown}); remove them from the inventory first"
            )


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


