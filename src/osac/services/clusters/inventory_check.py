"""Warnings for bare-metal node sets the inventory can never fill (api.md §11.6).

A node set asking for more hosts than exist is a valid desired state: it is stored, and the
cluster waits (``AgentSelectionFailed``, then Stalled) until the provider adds hosts. The
Create or Update that asks for it is answered with a warning, so the user learns at once and not
from a stall minutes later. Only the whole inventory of a host type counts here, not the free
hosts: what other clusters hold may come back, what does not exist cannot.

The inventory is the provider's; the service layer asks it through ``Services.host_inventory``,
which the server installs (``None`` in a process without a bare-metal provider: no warnings).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from osac.api.private.v1.cluster_type_pb2 import Cluster
from osac.api.private.v1.host_type_type_pb2 import HostType
from osac.model import registry
from osac.model.shape import as_kind
from osac.services.baremetal.interfaces import is_bare_metal
from osac.store.tables import LIVE

if TYPE_CHECKING:
    from osac.services.core.catalog import Services


async def inventory_warnings(obj: Cluster, services: Services) -> list[str]:
    """One warning per bare-metal host type whose node sets together ask for more hosts than
    the whole inventory of that type holds."""
    inventory = services.host_inventory
    if inventory is None:
        return []
    asked: dict[str, list[tuple[str, int]]] = {}
    for key, entry in sorted(obj.spec.node_sets.items()):
        if entry.host_type and entry.size > 0:
            asked.setdefault(entry.host_type, []).append((key, entry.size))
    if not asked:
        return []
    kind = registry.get("host_type")
    async with services.store.read(snapshot=False) as tx:
        found = await tx.find(kind, LIVE[kind.name].c.id.in_(sorted(asked)))
    host_types = [as_kind(h, HostType) for h in found]
    warnings: list[str] = []
    for host_type in sorted(host_types, key=lambda h: h.metadata.name):
        if not is_bare_metal(host_type):
            continue
        name = host_type.metadata.name
        sets = asked[host_type.id]
        wanted = sum(size for _, size in sets)
        total = len(await inventory.host_names(name))
        if wanted <= total:
            continue
        keys = ", ".join(f"'{key}'" for key, _ in sets)
        who = f"node set {keys} asks" if len(sets) == 1 else f"node sets {keys} ask together"
        warnings.append(
            f"{who} for {wanted} hosts of type '{name}', but the inventory has {total} in all; "
            f"the cluster waits for hosts until a provider admin adds {wanted - total} more"
        )
    return warnings
