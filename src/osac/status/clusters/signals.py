"""Reading a provider's HostedCluster and NodePool dicts into typed signals (§5.1, §6.1, §8.2).

This is the only module that touches the raw dicts. Anything that does not have the documented
shape (a list where a mapping belongs, a negative replica count, a condition without a type)
makes the whole observation unreadable: guessing at a half-understood object could report
progress or health that is not there, while "unreadable" is an honest StageUnknown.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from types import MappingProxyType
from typing import Any

from osac.model.labels import CLUSTER_UUID_LABEL as CLUSTER_UUID_LABEL
from osac.model.labels import NODE_SET_LABEL as NODE_SET_LABEL
from osac.status.conditions.views import conditions_by_type

# HostedCluster condition types read (§5.1); every other type is ignored.
INFRASTRUCTURE_READY = "InfrastructureReady"
KUBE_API_SERVER_AVAILABLE = "KubeAPIServerAvailable"
HC_AVAILABLE = "Available"
HC_DEGRADED = "Degraded"
CLUSTER_VERSION_SUCCEEDING = "ClusterVersionSucceeding"
CLOUD_RESOURCES_DESTROYED = "CloudResourcesDestroyed"
HOSTED_CLUSTER_DESTROYED = "HostedClusterDestroyed"
_HC_TYPES = frozenset({
    INFRASTRUCTURE_READY, KUBE_API_SERVER_AVAILABLE, HC_AVAILABLE, HC_DEGRADED,
    CLUSTER_VERSION_SUCCEEDING, CLOUD_RESOURCES_DESTROYED, HOSTED_CLUSTER_DESTROYED,
})

# NodePool condition types read.
POOL_READY = "Ready"
ALL_MACHINES_READY = "AllMachinesReady"
ALL_NODES_HEALTHY = "AllNodesHealthy"
_POOL_TYPES = frozenset({POOL_READY, ALL_MACHINES_READY, ALL_NODES_HEALTHY})
_EMPTY: Mapping[str, Any] = MappingProxyType({})


class Signal(Enum):
    """The value of one condition; UNKNOWN and ABSENT are the ``U`` of the spec's tables."""

    TRUE = "True"
    FALSE = "False"
    UNKNOWN = "Unknown"
    ABSENT = "absent"


@dataclass(frozen=True, slots=True)
class ConditionSignal:
    name: str
    value: Signal
    reason: str = ""
    message: str = ""

    @property
    def is_true(self) -> bool:
        return self.value is Signal.TRUE

    @property
    def is_false(self) -> bool:
        return self.value is Signal.FALSE

    @property
    def is_unknown(self) -> bool:
        return self.value in (Signal.UNKNOWN, Signal.ABSENT)

    def describe(self) -> str:
        """``Available False (WaitingForAvailable: etcd not ready)``, ``Available absent``."""
        text = f"{self.name} {self.value.value}"
        detail = ": ".join(part for part in (self.reason, self.message) if part)
        return f"{text} ({detail})" if detail else text


class MalformedObservation(ValueError):
    """A dict does not have the documented shape; the observation is unreadable."""


@dataclass(frozen=True, slots=True)
class HostedClusterSignals:
    name: str
    base_domain: str
    endpoint_host: str
    endpoint_port: int
    is_deleting: bool
    conditions: Mapping[str, ConditionSignal]

    def signal(self, name: str) -> ConditionSignal:
        return self.conditions.get(name) or ConditionSignal(name, Signal.ABSENT)


@dataclass(frozen=True, slots=True)
class NodePoolSignals:
    name: str
    node_set: str
    #: ``spec.replicas``; a missing value reads as 0 like ``status.replicas`` (see docs).
    desired_replicas: int
    #: ``status.replicas``: nodes joined and available.
    current_replicas: int
    is_deleting: bool
    conditions: Mapping[str, ConditionSignal]

    def signal(self, name: str) -> ConditionSignal:
        return self.conditions.get(name) or ConditionSignal(name, Signal.ABSENT)

    @property
    def ready(self) -> ConditionSignal:
        return self.signal(POOL_READY)

    @property
    def all_machines_ready(self) -> ConditionSignal:
        return self.signal(ALL_MACHINES_READY)

    @property
    def all_nodes_healthy(self) -> ConditionSignal:
        return self.signal(ALL_NODES_HEALTHY)

    @property
    def signals(self) -> tuple[ConditionSignal, ConditionSignal, ConditionSignal]:
        return (self.ready, self.all_machines_ready, self.all_nodes_healthy)


@dataclass(frozen=True)
class Observation:
    """One provider answer, attributed: NodePools grouped by their node-set label.

    A key with two or more NodePools is kept with all of them so the node set can be reported
    *unknown* (§8.2) instead of picking one arbitrarily."""

    is_readable: bool
    error: str
    hosted_cluster: HostedClusterSignals | None
    node_pools: Mapping[str, tuple[NodePoolSignals, ...]]
    #: NodePools without a node-set label: ignored for node sets, still the cluster's own.
    unattributed: int = 0

    @property
    def pool_count(self) -> int:
        """Every NodePool of the cluster, labelled or not: all must be gone before teardown ends."""
        return sum(len(pools) for pools in self.node_pools.values()) + self.unattributed


def unreadable(error: str) -> Observation:
    return Observation(False, error or "the provider could not be read", None, {}, 0)


def read_observation(hosted_cluster: Any, node_pools: Any, readable: bool, error: str) -> Observation:
    """The observation as signals; never raises, whatever the dicts hold."""
    if not readable:
        return unreadable(error)
    problems: set[str] = set()
    hc = None
    try:
        hc = None if hosted_cluster is None else _read_hosted_cluster(hosted_cluster)
    except MalformedObservation as error:
        problems.add(str(error))
    grouped: dict[str, list[NodePoolSignals]] = {}
    unattributed = 0
    if not isinstance(node_pools, Sequence) or isinstance(node_pools, str | bytes):
        problems.add("the NodePools are not a list")
        node_pools = ()
    for item in node_pools:
        try:
            pool = _read_node_pool(item)
        except MalformedObservation as error:
            problems.add(str(error))
            continue
        if pool.node_set:
            grouped.setdefault(pool.node_set, []).append(pool)
        else:
            unattributed += 1
    if problems:
        # Every problem, sorted: the message does not depend on the order NodePools came in.
        return unreadable(f"malformed observation: {'; '.join(sorted(problems))}")
    pools = {key: tuple(sorted(found, key=lambda p: p.name)) for key, found in sorted(grouped.items())}
    return Observation(True, "", hc, pools, unattributed)


def _read_hosted_cluster(raw: Any) -> HostedClusterSignals:
    where = "HostedCluster"
    if not _is_mapping(raw):
        raise MalformedObservation(f"{where} is not a mapping")
    metadata = _mapping(raw, "metadata", where)
    spec = _mapping(raw, "spec", where)
    status = _mapping(raw, "status", where)
    endpoint = _mapping(status, "controlPlaneEndpoint", f"{where} status")
    port = _count(endpoint, "port", f"{where} status.controlPlaneEndpoint") or 0
    if port > 65535:
        raise MalformedObservation(f"{where} status.controlPlaneEndpoint.port {port} is not a port")
    return HostedClusterSignals(
        name=_text(metadata, "name", f"{where} metadata"),
        base_domain=_text(_mapping(spec, "dns", f"{where} spec"), "baseDomain", f"{where} spec.dns"),
        endpoint_host=_text(endpoint, "host", f"{where} status.controlPlaneEndpoint"),
        endpoint_port=port,
        is_deleting=_is_set(metadata.get("deletionTimestamp")),
        conditions=_signals(status.get("conditions"), _HC_TYPES, where),
    )


def _read_node_pool(raw: Any) -> NodePoolSignals:
    where = "a NodePool"
    if not _is_mapping(raw):
        raise MalformedObservation(f"{where} is not a mapping")
    metadata = _mapping(raw, "metadata", where)
    name = _text(metadata, "name", f"{where} metadata")
    where = f"NodePool {name}" if name else where
    labels = _mapping(metadata, "labels", f"{where} metadata")
    node_set = _text(labels, NODE_SET_LABEL, f"{where} metadata.labels")
    spec = _mapping(raw, "spec", where)
    status = _mapping(raw, "status", where)
    return NodePoolSignals(
        name=name,
        node_set=node_set,
        desired_replicas=_count(spec, "replicas", f"{where} spec") or 0,
        current_replicas=_count(status, "replicas", f"{where} status") or 0,
        is_deleting=_is_set(metadata.get("deletionTimestamp")),
        conditions=_signals(status.get("conditions"), _POOL_TYPES, where),
    )


def _signals(items: Any, wanted: frozenset[str], where: str) -> Mapping[str, ConditionSignal]:
    by_type = conditions_by_type(items)
    if by_type is None:
        raise MalformedObservation(f"{where} status.conditions is not a list of typed conditions")
    signals: dict[str, ConditionSignal] = {}
    for name in wanted & by_type.keys():
        entry = by_type[name]
        status = entry.get("status")
        value = Signal.TRUE if status == "True" else Signal.FALSE if status == "False" else Signal.UNKNOWN
        signals[name] = ConditionSignal(name, value, _loose_text(entry.get("reason")), _loose_text(entry.get("message")))
    return signals


def _mapping(parent: Mapping[str, Any], key: str, where: str) -> Mapping[str, Any]:
    value = parent.get(key)
    if value is None:
        return _EMPTY
    if not _is_mapping(value):
        raise MalformedObservation(f"{where}.{key} is not a mapping")
    return value


def _is_mapping(value: Any) -> bool:
    """``isinstance(value, Mapping)``, without the ABC machinery for the usual plain dict."""
    return type(value) is dict or isinstance(value, Mapping)


def _text(parent: Mapping[str, Any], key: str, where: str) -> str:
    value = parent.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise MalformedObservation(f"{where}.{key} is not text")
    return value


def _count(parent: Mapping[str, Any], key: str, where: str) -> int | None:
    """A non-negative int32. JSON has only numbers, so an integral float (``5.0``, as a
    ``google.protobuf.Struct`` carries it) is accepted as the integer it is."""
    value = parent.get(key)
    if value is None:
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0 or value > 2**31 - 1:
        raise MalformedObservation(f"{where}.{key} is not a non-negative integer")
    return value


def _is_set(value: Any) -> bool:
    """A Kubernetes timestamp field is set when present and not empty (its value is informational)."""
    return value is not None and value != ""


def _loose_text(value: Any) -> str:
    """Reasons and messages are prose for people: a non-text value is dropped, not an error."""
    return value if isinstance(value, str) else ""
