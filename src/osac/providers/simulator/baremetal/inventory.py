"""The simulated host inventory's naming and cabling (compute.md §4).

Host ``n`` of prefix ``bm-std`` is ``bm-std-00n`` (three digits at least, so names of one prefix
sort by number up to 999). Each host gets the interfaces of its HostType in order; an interface's
MAC is ``02`` followed by 5 bytes of a hash of (``simulator.seed``, host, interface), so the same
seed always cables the same MACs. Every port is cabled to a switch named after its role.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from osac.providers.baremetal import ROLE_LIFECYCLE, HostInterface
from osac.providers.simulator.runtime.step_timing import stable_mac

HOST_TYPE_LABEL = "osac.openshift.io/host-type"
MACS_ANNOTATION = "osac.openshift.io/interface-macs"

#: Host type interfaces as the server reads them from the HostType objects: ``[(name, role)]``.
InterfaceList = Sequence[tuple[str, str]]


class InventoryError(ValueError):
    """The inventory cannot be loaded or changed as asked; the message names the cause."""


def host_name(prefix: str, number: int) -> str:
    return f"{prefix}-{number:03d}"


def host_number(prefix: str, name: str) -> int | None:
    """The number of ``name`` when it is ``<prefix>-<digits>``."""
    match = re.fullmatch(re.escape(prefix) + r"-(\d+)", name)
    return int(match.group(1)) if match else None


def bmc_address(name: str) -> str:
    return f"redfish+sim://{name}"


def switch_of(role: str) -> str:
    return f"sim-{role}-switch"


def cable(seed: int, host: str, interfaces: InterfaceList) -> list[HostInterface]:
    """The host's ports, in HostType order."""
    return [
        HostInterface(name=name, role=role, mac=stable_mac(seed, "host", host, name), switch=switch_of(role),
                      port=f"{host}/{name}")
        for name, role in interfaces
    ]


def check_host_type(host_type: str, interfaces: InterfaceList | None) -> InterfaceList:
    """The interfaces of a bare-metal host type.

    :raises InventoryError: no HostType of that name, or one without a ``lifecycle`` interface
        (a virtual host type: its nodes are VMs, not inventory hosts)."""
    if interfaces is None:
        raise InventoryError(f"host type '{host_type}' does not exist; create the HostType first")
    if not any(role == ROLE_LIFECYCLE for _, role in interfaces):
        raise InventoryError(
            f"host type '{host_type}' has no '{ROLE_LIFECYCLE}' interface, so it is not a bare-metal host type")
    return interfaces
