"""BareMetalHost-shaped dicts and inventory records of a simulated host at one moment
(simulator.md §3.3, compute.md §4): pure functions of the host's row, its plan, the time, the
fabric's reservations for its ports and the ``host_broken`` fault.

A NIC shows an ``ip`` once the host's OS has its lease (15 s after boot) and only when its
switch port sits on the segment of a DHCP reservation for its MAC.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from osac.providers.baremetal import POWER_OFF, POWER_ON, ROLE_LIFECYCLE, HostRecord
from osac.providers.simulator.baremetal.inventory import HOST_TYPE_LABEL, MACS_ANNOTATION
from osac.providers.simulator.baremetal.plan import HostState, state_of
from osac.providers.simulator.baremetal.store import StoredHost
from osac.providers.simulator.clusters.agents import AgentHost
from osac.providers.simulator.runtime import plan_steps
from osac.providers.simulator.runtime.plan_steps import Step
from osac.providers.simulator.runtime.times import iso

NAMESPACE = "osac-simulated"
METAL3_API = "metal3.io/v1alpha1"
OPERATIONAL_OK = "OK"
OPERATIONAL_ERROR = "error"
BROKEN_ERROR_TYPE = "power management error"


def current_state(steps: Sequence[Step], now: datetime) -> HostState:
    return state_of(plan_steps.current(steps, now))


def record(host: StoredHost, steps: Sequence[Step], now: datetime, broken: bool,
           agent: AgentHost | None = None) -> HostRecord:
    """The inventory's record; ``agent`` is the state a cluster's machine on the host gives it
    (it wins over the host's own plan, which only a BareMetalInstance drives)."""
    state = current_state(steps, now)
    powered_on, provisioning = (state.powered_on, state.provisioning) if agent is None else (
        agent.powered_on, agent.provisioning)
    return HostRecord(
        name=host.name,
        host_type=host.host_type,
        interfaces=host.interfaces,
        bmc=host.bmc,
        power=POWER_ON if powered_on else POWER_OFF,
        provisioning_state=provisioning,
        operational_status=OPERATIONAL_ERROR if broken else OPERATIONAL_OK,
        owner=host.owner,
    )


def render(host: StoredHost, steps: Sequence[Step], now: datetime, addresses: Mapping[str, str],
           broken_message: str | None) -> dict[str, Any]:
    """The BareMetalHost; ``addresses`` maps interface -> reserved address of ports on their
    reservation's segment, ``broken_message`` is set while a ``host_broken`` fault holds."""
    state = current_state(steps, now)
    leased = state.lease_at is not None and state.lease_at <= now
    lifecycle = next((i for i in host.interfaces if i.role == ROLE_LIFECYCLE), None)
    spec: dict[str, Any] = {
        "online": state.online,
        "bmc": {"address": host.bmc, "credentialsName": f"{host.name}-bmc-secret"},
        "bootMACAddress": lifecycle.mac if lifecycle is not None else "",
    }
    if host.owner is not None:
        spec["consumerRef"] = {"kind": host.owner.kind, "name": host.owner.id}
    if host.image:
        spec["image"] = {"url": host.image}
    provisioning: dict[str, Any] = {"state": state.provisioning}
    if host.image and state.provisioning in ("provisioning", "provisioned"):
        provisioning["image"] = {"url": host.image}
    updated = plan_steps.current(steps, now)
    return {
        "apiVersion": METAL3_API,
        "kind": "BareMetalHost",
        "metadata": {
            "name": host.name,
            "namespace": NAMESPACE,
            "creationTimestamp": iso(host.created_at),
            "labels": {HOST_TYPE_LABEL: host.host_type},
            "annotations": {MACS_ANNOTATION: json.dumps({i.name: i.mac for i in host.interfaces},
                                                        separators=(",", ":"))},
        },
        "spec": spec,
        "status": {
            "provisioning": provisioning,
            "poweredOn": state.powered_on,
            "operationalStatus": OPERATIONAL_ERROR if broken_message else OPERATIONAL_OK,
            "errorType": BROKEN_ERROR_TYPE if broken_message else "",
            "errorMessage": broken_message or "",
            "lastUpdated": iso(updated.at if updated is not None else host.created_at),
            "hardware": {
                "nics": [
                    {"name": i.name, "mac": i.mac, "ip": addresses.get(i.name, "") if leased else "",
                     "pxe": i.role == ROLE_LIFECYCLE}
                    for i in host.interfaces
                ],
            },
        },
    }
