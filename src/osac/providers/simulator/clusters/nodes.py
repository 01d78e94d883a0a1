"""Where the simulated nodes plug into the fabric: port names, MACs and link state.

A node's port is ``(host, fabric_interface)``: the claimed host for a bare-metal machine, and for
a virtual machine the virtual host ``node/<cluster id>/<node-set key>/<ordinal>`` (the fabric
removes such a port on detach instead of parking it). A bare-metal node reports the MAC the
fabric has cabled for that port (``register_host_ports``); a virtual node, or a host whose port is
unknown to the fabric, gets a locally administered MAC (``02`` + 5 bytes of a hash of the seed and
the port), stable across restarts.

A node can join once its port is active: on the cluster's subnet segment with the node's MAC, as
``create_network_attachment`` leaves it. The port's ``updated_at`` is when that happened, so the
join time does not depend on when the simulator noticed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

VIRTUAL_NODE_PREFIX = "node/"


@dataclass(frozen=True)
class PortState:
    """One row of the fabric's port map, as far as a node can see it."""

    segment_id: str
    mac: str | None
    updated_at: datetime


Ports = Mapping[tuple[str, str], PortState]


def virtual_host_name(cluster_id: str, node_set_key: str, ordinal: int) -> str:
    return f"{VIRTUAL_NODE_PREFIX}{cluster_id}/{node_set_key}/{ordinal}"


def node_host_name(cluster_id: str, node_set_key: str, ordinal: int, host: str | None) -> str:
    return host if host else virtual_host_name(cluster_id, node_set_key, ordinal)


def generated_mac(seed: int, host_name: str, interface: str) -> str:
    digest = hashlib.sha256(f"{seed}/node/{host_name}/{interface}".encode()).digest()
    return "02:" + ":".join(f"{byte:02x}" for byte in digest[:5])


def node_mac(seed: int, host_name: str, interface: str, is_bare_metal: bool, ports: Ports) -> str:
    if is_bare_metal:
        port = ports.get((host_name, interface))
        if port is not None and port.mac:
            return port.mac
    return generated_mac(seed, host_name, interface)


def port_active_since(port: PortState | None, segment_id: str, mac: str) -> datetime | None:
    """When the port became active on ``segment_id`` with ``mac``; None while it is not."""
    if port is None or port.segment_id != segment_id or (port.mac or "").lower() != mac.lower():
        return None
    return port.updated_at
