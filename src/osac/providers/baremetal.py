"""The bare-metal provider (simulator.md §2.3, compute.md §4): a host inventory with owners,
provisioning and power, Metal3-style.

Hosts are identified by name. The inventory hands out whole hosts: ``assign_free_host`` gives
an owner (a BareMetalInstance, or a cluster node set) the free hosts of a type with the lowest
names, atomically; concurrent callers never share a host, and an owner asking again gets the
same hosts back, so a retried reconcile never claims twice.

Observations are BareMetalHost-shaped dicts: ``metadata{name, labels{osac.openshift.io/host-type},
annotations{osac.openshift.io/interface-macs}}``, ``spec{online, consumerRef}``,
``status{provisioning.state, poweredOn, operationalStatus, errorType, errorMessage,
hardware.nics[{name, mac, ip}]}``, with ``next_change_at`` for the next change by itself.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol, overload

from osac.providers.interfaces import ChangeNotice

#: Owner kinds of a host.
OWNER_BARE_METAL_INSTANCE = "BareMetalInstance"
OWNER_NODE_POOL = "NodePool"
#: A cluster's bare-metal node set; its owner id is ``<cluster id>/<node set key>``.
OWNER_CLUSTER = "cluster"


def cluster_owner_id(cluster_id: str, node_set_key: str) -> str:
    return f"{cluster_id}/{node_set_key}"


def cluster_of_owner(owner: HostOwner) -> str | None:
    """The cluster id of a host held by a cluster's node set (None for any other owner)."""
    return owner.id.partition("/")[0] if owner.kind == OWNER_CLUSTER else None

#: Interface roles of a host type (compute.md §1).
ROLE_FABRIC = "fabric"
ROLE_LIFECYCLE = "lifecycle"

POWER_ON = "on"
POWER_OFF = "off"


@dataclass(frozen=True)
class HostInterface:
    """A cabled port: ``name`` and ``role`` from the HostType, the MAC, and where it is cabled."""

    name: str
    role: str
    mac: str
    switch: str
    port: str


@dataclass(frozen=True)
class HostOwner:
    kind: str
    id: str


@dataclass(frozen=True)
class HostRecord:
    """A host of the inventory (compute.md §4). ``power`` is ``on`` or ``off``;
    ``provisioning_state`` and ``operational_status`` use Metal3's words (``available``,
    ``provisioning``, ``provisioned``, ``deprovisioning``; ``OK``, ``error``)."""

    name: str
    host_type: str
    interfaces: tuple[HostInterface, ...]
    bmc: str
    power: str
    provisioning_state: str
    operational_status: str
    owner: HostOwner | None = None

    def interface(self, name: str) -> HostInterface | None:
        return next((i for i in self.interfaces if i.name == name), None)


@dataclass(frozen=True)
class HostRequest:
    """``count`` hosts of ``host_type`` for one owner. The count is what the owner should hold
    after the call: hosts it already holds count towards it (and come back again), only the
    shortfall is taken from the free hosts."""

    host_type: str
    count: int
    owner_kind: str
    owner_id: str


@dataclass(frozen=True)
class HostObservation:
    """One look at a host: ``host`` is None when no host has that name; ``readable=False``
    means it could not be read (``error`` says why)."""

    readable: bool
    error: str
    observed_at: datetime
    host: dict[str, Any] | None = None
    #: When the observation changes next by itself; None when nothing is in progress.
    next_change_at: datetime | None = None


class BareMetalProvider(Protocol):
    """Host inventory and power."""

    async def list_hosts(self, host_type: str | None = None) -> list[HostRecord]:
        """Every host (of ``host_type``), by name."""
        ...

    def configured_by(self, host_type: str) -> list[str]:
        """The entries of the provider's configuration that name ``host_type`` (so that the
        provider cannot start without that HostType), e.g. ``simulator.inventory.hosts[0]``."""
        ...

    @overload
    async def assign_free_host(self, request: str, owner_kind: str, owner_id: str) -> HostRecord | None: ...

    @overload
    async def assign_free_host(self, request: Sequence[HostRequest]) -> list[list[HostRecord]] | None: ...

    async def assign_free_host(
        self, request: str | Sequence[HostRequest], owner_kind: str = "", owner_id: str = ""
    ) -> HostRecord | list[list[HostRecord]] | None:
        """Give an owner hosts, in one atomic step.

        Single form ``(host_type, owner_kind, owner_id)``: the owner's host of that type (the
        lowest-named one it holds), else the free host with the lowest name; None when none is
        free. List form ``[HostRequest, ...]``: the hosts per request (lowest names first), or
        None (and nothing assigned) when any request cannot be met.
        """
        ...

    async def release_host(self, host_name: str, owner_id: str) -> None:
        """Free the host; a host that is free or held by another owner is left as it is."""
        ...

    async def provision_host(self, host_name: str, image: str, user_data: str, ssh_public_key: str) -> None:
        """Deploy the OS over the ``lifecycle`` interface, then boot it.

        :raises TerminalProviderError: ``HostNotFound``; ``HostProvisioned`` (another image is
            deployed: deprovision first).
        :raises TransientProviderError: ``HostBusy`` (deprovisioning).
        """
        ...

    async def deprovision_host(self, host_name: str) -> None:
        """Wipe the disks and power off; the host ends ``available``."""
        ...

    async def set_power(self, host_name: str, on: bool) -> None:
        """:raises TransientProviderError: ``HostBusy`` (provisioning or deprovisioning),
        ``PowerManagementError``."""
        ...

    async def reboot_host(self, host_name: str) -> None:
        """Power-cycle the host (a powered-off host is powered on)."""
        ...

    async def observe_host(self, host_name: str) -> HostObservation: ...

    def subscribe(self, since: datetime | None = None) -> AsyncIterator[ChangeNotice]:
        """A notice (kind ``host``, key = host name) for every change that happens by itself,
        as its time passes, in time order; ``since`` as in ``ComputeProvider.subscribe``."""
        ...
