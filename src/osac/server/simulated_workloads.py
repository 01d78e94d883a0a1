"""The server's side of the simulated compute and bare-metal providers: their raw observations
for ``Simulator.GetObservation``, and the HostType catalogue handed to the inventory
(compute.md §4).

The inventory's hosts take their interfaces from the HostType API objects, the single source of
truth; the provider never reads the service's tables, so the server reads the HostTypes and
passes ``{host type: [(interface, role), ...]}`` in. At start-up this runs once the bootstrap
catalogue is seeded, and an inventory entry naming a host type that does not exist (or is not
bare metal) stops the start with a message naming the entry.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

from osac.api.private.v1.host_type_type_pb2 import HostType
from osac.model import registry
from osac.model.shape import as_kind
from osac.providers.simulator.baremetal.inventory import InventoryError
from osac.providers.simulator.baremetal.provider import SimulatedBareMetal
from osac.providers.simulator.compute.provider import SimulatedKubeVirt

if TYPE_CHECKING:
    from osac.server.app import Application
    from osac.store.objects import Store

log = logging.getLogger(__name__)


class InventoryStartupError(RuntimeError):
    """The configured inventory cannot be loaded; the server does not start."""


async def host_type_interfaces(store: Store) -> dict[str, list[tuple[str, str]]]:
    """Every HostType's interfaces ``[(name, role)]``, in order, by host type name."""
    async with store.read() as tx:
        host_types = await tx.find(registry.get("host_type"))
    return {
        host_type.metadata.name: [(i.name, i.role) for i in host_type.interfaces]
        for host_type in (as_kind(item, HostType) for item in host_types)
    }


def workload_observers(application: Application) -> dict[str, Callable[[str], Awaitable[Mapping[str, Any]]]]:
    """``GetObservation`` sources of the simulated VMs (``compute_instance``) and hosts (``host``)."""
    observers: dict[str, Callable[[str], Awaitable[Mapping[str, Any]]]] = {}
    compute = application.managers.compute_provider
    if isinstance(compute, SimulatedKubeVirt):
        observers["compute_instance"] = compute.observation_document
    hosts = simulated_hosts(application)
    if hosts is not None:
        observers["host"] = hosts.observation_document
    return observers


def simulated_hosts(application: Application) -> SimulatedBareMetal | None:
    """The simulated bare-metal provider, when ``providers.baremetal`` is ``simulator``."""
    provider = application.managers.baremetal_provider
    return provider if isinstance(provider, SimulatedBareMetal) else None


async def load_simulated_inventory(application: Application) -> None:
    """Create the configured hosts that do not exist yet (every start; existing hosts keep
    their owners and state).

    :raises InventoryStartupError: an entry names an unknown or virtual host type, or a MAC
        collides.
    """
    hosts = simulated_hosts(application)
    if hosts is None or not hosts.settings.inventory:
        return
    try:
        added = await hosts.load_inventory(await host_type_interfaces(application.store))
    except InventoryError as error:
        raise InventoryStartupError(f"cannot load the simulated bare-metal inventory: {error}") from None
    if added:
        log.info("added %d simulated bare-metal hosts", len(added))
