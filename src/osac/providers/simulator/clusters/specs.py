"""What the simulated HyperShift accepts in a spec, and how it keeps one (simulator.md §2.1).

A changed immutable field or an impossible spec is a ``TerminalProviderError``: retrying the same
call cannot help, the service has to change the spec. The pull secret is stored only as its
digest: enough to notice a change, useless to anyone reading the simulator's tables.
"""

from __future__ import annotations

import hashlib
import ipaddress
from dataclasses import replace
from typing import Any

from osac.providers.clusters import HostedClusterSpec, NodePoolSpec
from osac.providers.interfaces import TerminalProviderError

#: HostedCluster fields that cannot change after creation.
IMMUTABLE_CLUSTER_FIELDS = (
    "name", "base_domain", "pod_cidr", "service_cidr", "api_vip", "ingress_vip", "subnet_segment",
)
IMMUTABLE_POOL_FIELDS = ("host_type", "fabric_interface")
SECRET_DIGEST_PREFIX = "sha256:"


def stored_spec(spec: HostedClusterSpec) -> HostedClusterSpec:
    """The spec as stored: the pull secret only as its digest, labels as a plain dict."""
    digest = SECRET_DIGEST_PREFIX + hashlib.sha256(spec.pull_secret.encode()).hexdigest()
    return replace(spec, pull_secret=digest, labels=dict(spec.labels))


def check_cluster_spec(cluster_id: str, spec: HostedClusterSpec) -> None:
    where = f"hosted cluster {cluster_id}"
    if not cluster_id:
        raise TerminalProviderError("InvalidSpec", "a hosted cluster needs the OSAC cluster id")
    if not spec.name:
        raise TerminalProviderError("InvalidSpec", f"{where}: name is required")
    if not spec.subnet_segment:
        raise TerminalProviderError("InvalidSpec", f"{where}: subnet_segment is required")
    for name in ("api_vip", "ingress_vip"):
        value = getattr(spec, name)
        try:
            ipaddress.ip_address(value)
        except ValueError:
            raise TerminalProviderError("InvalidSpec", f"{where}: {name} '{value}' is not an IP address") from None
    for name in ("pod_cidr", "service_cidr"):
        value = getattr(spec, name)
        if value:
            try:
                ipaddress.ip_network(value)
            except ValueError:
                raise TerminalProviderError("InvalidSpec", f"{where}: {name} '{value}' is not a CIDR") from None


def check_pool_spec(cluster_id: str, key: str, spec: NodePoolSpec) -> None:
    where = f"node pool '{key}' of cluster {cluster_id}"
    if not key:
        raise TerminalProviderError("InvalidSpec", f"a node pool of cluster {cluster_id} needs a node-set key")
    if isinstance(spec.replicas, bool) or not isinstance(spec.replicas, int) or spec.replicas < 0:
        raise TerminalProviderError("InvalidSpec", f"{where}: replicas must be a whole number ≥ 0, got {spec.replicas!r}")
    if not spec.fabric_interface:
        raise TerminalProviderError("InvalidSpec", f"{where}: fabric_interface is required")
    if spec.hosts and len(spec.hosts) < spec.replicas:
        raise TerminalProviderError(
            "InvalidSpec", f"{where}: {spec.replicas} bare-metal replicas need as many hosts, {len(spec.hosts)} given")
    if len(set(spec.hosts)) != len(spec.hosts) or any(not host for host in spec.hosts):
        raise TerminalProviderError("InvalidSpec", f"{where}: hosts must be distinct, non-empty host names")


def check_unchanged(what: str, name: str, stored: Any, given: Any) -> None:
    if stored != given:
        raise TerminalProviderError(
            "ImmutableFieldChanged", f"{what}: {name} cannot change from '{stored}' to '{given}'")
