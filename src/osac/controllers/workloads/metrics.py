"""Prometheus metrics of the instance reconcilers (compute.md §2 for VMs, §5 for bare metal).

Counters and histograms are observed by a reconciler after the status write that records what
they measure has committed, so a write that lost its version lock and was retried is counted
once. Gauges describe the current population and are recomputed from the database and the host
inventory (never from in-memory guesses) by the process holding the kind's controller lease.
Labels never carry free text: states are their short names, gates their tokens.
"""

from __future__ import annotations

from collections import Counter as Tally
from collections.abc import Iterable, Sequence

from google.protobuf.message import Message
from prometheus_client import Counter, Gauge, Histogram

from osac.api.private.v1.bare_metal_instance_type_pb2 import BareMetalInstance
from osac.api.private.v1.compute_instance_type_pb2 import ComputeInstance
from osac.model import registry
from osac.model.shape import as_kind
from osac.providers.baremetal import HostRecord

# -- BareMetalInstance (compute.md §5) ------------------------------------------------------------

#: The provisioning target is 5 minutes (p95); buckets resolve around it.
_PROVISIONING_BUCKETS = (30, 60, 90, 120, 150, 180, 210, 240, 270, 300, 360, 420, 600, 900, 1800, 3600)
#: Every interface should be active within 2 minutes.
_ATTACH_BUCKETS = (0.5, 1, 2, 5, 10, 15, 20, 30, 45, 60, 90, 120, 180, 300)
_GATE_BUCKETS = (0.1, 1, 5, 10, 30, 60, 120, 180, 300, 600, 1800, 3600, 10800)

BAREMETAL_PROVISIONING_DURATION = Histogram(
    "osac_baremetal_provisioning_duration_seconds",
    "From the host assignment (gate 1 done) to the first RUNNING with the primary address known; "
    "the wait for a free host is excluded.",
    buckets=_PROVISIONING_BUCKETS,
)
BAREMETAL_INTERFACE_ATTACH_DURATION = Histogram(
    "osac_baremetal_interface_attach_duration_seconds",
    "From the first create_network_attachment call of an interface to its port being active.",
    ["host_type"],
    buckets=_ATTACH_BUCKETS,
)
BAREMETAL_NETWORK_CONFIGURATION = Counter(
    "osac_baremetal_network_configuration_total",
    "Outcomes of the networking gate (gate 2): success, or failure after its retry budget.",
    ["result"],
)
BAREMETAL_GATE_DURATION = Histogram(
    "osac_baremetal_gate_duration_seconds",
    "Time from a provisioning gate's start to its completion.",
    ["gate"],
    buckets=_GATE_BUCKETS,
)
BAREMETAL_FREE_HOSTS = Gauge(
    "osac_baremetal_free_hosts", "Hosts of the inventory without an owner, per host type.", ["host_type"]
)
BAREMETAL_INSTANCES = Gauge(
    "osac_baremetal_instances", "BareMetalInstances per state and tenant.", ["state", "tenant"]
)

NETWORK_CONFIGURATION_SUCCESS = "success"
NETWORK_CONFIGURATION_FAILURE = "failure"


def baremetal_state_name(number: int) -> str:
    """``RUNNING`` for 2; the raw number for a state this build does not know."""
    full = registry.get("bare_metal_instance").state_name(number)
    return full.removeprefix("BARE_METAL_INSTANCE_STATE_") if full and not full.isdigit() else str(number)


def refresh_baremetal_gauges(instances: Iterable[Message], hosts: Sequence[HostRecord]) -> None:
    """Recompute the population gauges: instances by state and tenant, free hosts by type.

    Every host type of the inventory is reported, with 0 when all its hosts are taken, so an
    exhausted type shows as 0 rather than disappearing."""
    by_state: Tally[tuple[str, str]] = Tally()
    for instance in (as_kind(i, BareMetalInstance) for i in instances):
        by_state[(baremetal_state_name(instance.status.state), instance.metadata.tenant)] += 1
    free: Tally[str] = Tally({host.host_type: 0 for host in hosts})
    for host in hosts:
        if host.owner is None:
            free[host.host_type] += 1
    BAREMETAL_INSTANCES.clear()
    for (state, tenant), count in by_state.items():
        BAREMETAL_INSTANCES.labels(state, tenant).set(count)
    BAREMETAL_FREE_HOSTS.clear()
    for host_type, count in free.items():
        BAREMETAL_FREE_HOSTS.labels(host_type).set(count)


# -- ComputeInstance (compute.md §2) --------------------------------------------------------------

#: A 20 GiB VM at speed 1 runs with its address after about a minute and a half (import, boot).
_COMPUTE_PROVISIONING_BUCKETS = (10, 20, 30, 45, 60, 90, 120, 180, 240, 300, 600, 900, 1800, 3600)

COMPUTE_PROVISIONING_DURATION = Histogram(
    "osac_compute_provisioning_duration_seconds",
    "From a ComputeInstance's creation to its first RUNNING.",
    buckets=_COMPUTE_PROVISIONING_BUCKETS,
)
COMPUTE_INSTANCES = Gauge("osac_compute_instances", "ComputeInstances per state and tenant.", ["state", "tenant"])


def compute_state_name(number: int) -> str:
    """``RUNNING`` for 2; the raw number for a state this build does not know."""
    full = registry.get("compute_instance").state_name(number)
    return full.removeprefix("COMPUTE_INSTANCE_STATE_") if full and not full.isdigit() else str(number)


def refresh_compute_gauges(instances: Iterable[Message]) -> None:
    """Recompute ``osac_compute_instances`` from the stored instances (all tenants)."""
    by_state: Tally[tuple[str, str]] = Tally()
    for instance in (as_kind(i, ComputeInstance) for i in instances):
        by_state[(compute_state_name(instance.status.state), instance.metadata.tenant)] += 1
    COMPUTE_INSTANCES.clear()
    for (state, tenant), count in by_state.items():
        COMPUTE_INSTANCES.labels(state, tenant).set(count)
