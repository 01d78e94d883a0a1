"""What the simulated HyperShift does to the bare-metal hosts its machines run on (simulator.md
§3.1, §3.3): a pure function of a cluster's world, read by the inventory so that a host held by a
cluster shows its agent's power and provisioning, as a host held by a BareMetalInstance shows
its own plan.

======================================  ===========================================================
machine started, not joined yet         powered on, ``provisioning`` (the agent installs the node)
machine joined                          powered on, ``provisioned``
node pool deleting or teardown started  powered on, ``deprovisioning`` (until the machine is gone)
no machine on the host                  the host's own plan (``available``, off, once claimed)
======================================  ===========================================================
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from osac.providers.simulator.baremetal.plan import DEPROVISIONING, PROVISIONED, PROVISIONING
from osac.providers.simulator.clusters.world import World


@dataclass(frozen=True)
class AgentHost:
    """The power and provisioning of a host a cluster's machine runs on."""

    powered_on: bool
    provisioning: str


def agent_hosts(world: World) -> Mapping[str, AgentHost]:
    """Host name -> its agent's state, for every bare-metal machine of the cluster."""
    found: dict[str, AgentHost] = {}
    for pool in world.pools.values():
        leaving = world.is_tearing_down or pool.deleting_at is not None
        for machine in pool.machines.values():
            if machine.host is None:
                continue
            if leaving:
                stage = DEPROVISIONING
            elif machine.joined_at is not None:
                stage = PROVISIONED
            else:
                stage = PROVISIONING
            found[machine.host] = AgentHost(powered_on=True, provisioning=stage)
    return found
