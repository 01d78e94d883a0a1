"""The cluster provider contract (simulator.md §2.1): HyperShift-like hosted clusters.

The service drives one HostedCluster per OSAC Cluster and one NodePool per node set, and reads
them back as dicts of exactly the shapes ``cluster-status.md`` §6.1 describes; the status
derivation cannot tell a simulated cluster from a real one.

Identity: everything is keyed by the OSAC cluster id and the node-set key, so a repeated call
finds what the previous one created. The provider stamps the labels below on what it creates;
the service selects NodePools by ``CLUSTER_UUID_LABEL`` and attributes them to node sets only by
``NODE_SET_LABEL`` (``cluster-status.md`` §8.2).

Errors (every method): ``TransientProviderError`` (retry with backoff) and
``TerminalProviderError`` (recorded: FAILED while provisioning, DELETE_FAILED while deleting),
from ``interfaces.py``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from osac.model.labels import CLUSTER_UUID_LABEL as CLUSTER_UUID_LABEL
from osac.model.labels import NODE_SET_LABEL as NODE_SET_LABEL
from osac.providers.interfaces import ChangeNotice

#: Port of the Kubernetes API server behind the API VIP.
API_PORT = 6443


@dataclass(frozen=True)
class HostedClusterSpec:
    """What the service asks of one hosted cluster.

    ``api_vip`` / ``ingress_vip`` come from the subnet's VIP range (reserved by the service's
    IPAM); ``subnet_segment`` is the fabric segment of the cluster's subnet, where node ports must
    be attached before nodes can join. ``name`` is the HostedCluster name (``console_url`` uses it).
    """

    name: str
    release_image: str
    pull_secret: str
    ssh_public_key: str
    base_domain: str
    pod_cidr: str
    service_cidr: str
    api_vip: str
    ingress_vip: str
    subnet_segment: str
    labels: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class NodePoolSpec:
    """One node set as a NodePool.

    ``node_addresses[i]`` is the subnet address the service reserved for ordinal ``i``.
    ``hosts[i]`` is the bare-metal host the service claimed for ordinal ``i``
    (``networking.md`` §7.3); a machine whose ordinal has no host runs as a virtual machine.
    A node's port is ``(host, fabric_interface)`` for bare metal and
    ``("node/<cluster id>/<key>/<ordinal>", fabric_interface)`` for a virtual node."""

    host_type: str
    replicas: int
    fabric_interface: str
    node_addresses: tuple[str, ...] = ()
    hosts: tuple[str, ...] = ()


@dataclass(frozen=True)
class NodeAssignment:
    """Where one node runs: what the service needs to attach its port
    (``create_network_attachment(host_name, fabric_interface, mac, subnet, address of ordinal)``).
    ``host_name`` is None while a provider has not placed the machine yet."""

    node_set_key: str
    ordinal: int
    host_name: str | None
    mac: str


@dataclass(frozen=True)
class ClusterObservation:
    """One read of a cluster.

    ``readable=False`` means the provider could not read (``error`` says why); the objects are
    then empty and mean nothing. A readable observation with ``hosted_cluster=None`` means the
    HostedCluster does not exist. ``next_change_at`` is when the observation will next change by
    itself (None: only an outside action changes it), so a reconciler can requeue exactly then.
    """

    readable: bool
    error: str
    observed_at: datetime
    hosted_cluster: dict[str, Any] | None
    node_pools: list[dict[str, Any]]
    nodes: list[NodeAssignment]
    next_change_at: datetime | None = None


class ClusterProvider(Protocol):
    """HostedClusters and NodePools of one hub. Mutating calls are idempotent: repeating one with
    the same arguments changes nothing, and deleting what does not exist succeeds."""

    async def apply_hosted_cluster(self, cluster_id: str, spec: HostedClusterSpec) -> None:
        """Create the HostedCluster, or update its mutable fields (labels, release image, pull
        secret, SSH key).

        :raises TerminalProviderError: ``ImmutableFieldChanged`` (name, base domain, CIDRs, VIPs,
            subnet segment), ``InvalidSpec``, or a permanent provisioning failure.
        :raises TransientProviderError: a provisioning failure worth retrying.
        """
        ...

    async def apply_node_pool(self, cluster_id: str, node_set_key: str, spec: NodePoolSpec) -> None:
        """Create the NodePool or resize it to ``spec.replicas``.

        :raises TransientProviderError: ``HostedClusterNotFound`` (apply the cluster first),
            ``NodePoolDeleting`` (the previous pool of this key is still being removed).
        :raises TerminalProviderError: ``ImmutableFieldChanged`` (host type, fabric interface),
            ``InvalidSpec`` (e.g. fewer hosts than bare-metal replicas).
        """
        ...

    async def delete_node_pool(self, cluster_id: str, node_set_key: str) -> None:
        """Start removing the NodePool; it disappears once its machines are gone."""
        ...

    async def delete_hosted_cluster(self, cluster_id: str) -> None:
        """Start the teardown of the cluster and its NodePools.

        :raises TerminalProviderError / TransientProviderError: the teardown is halted by a
            failure (every call raises it until the failure is cleared).
        """
        ...

    async def observe_cluster(self, cluster_id: str) -> ClusterObservation: ...

    async def get_kubeconfig(self, cluster_id: str) -> bytes:
        """The admin kubeconfig (server ``https://<api vip>:6443``).

        :raises TransientProviderError: the API server is not available (yet, or any more).
        """
        ...

    async def get_admin_password(self, cluster_id: str) -> str:
        """The ``kubeadmin`` password.

        :raises TransientProviderError: the API server is not available (yet, or any more).
        """
        ...

    def subscribe(self) -> AsyncIterator[ChangeNotice]:
        """One ``ChangeNotice(kind="cluster", key=<cluster id>, changed_at)`` per observable
        change, in order, for as long as the caller iterates.

        A provider whose notices cannot be lost while the subscription runs (it derives them
        from what it stores, not from a watch that may drop events) says so with a class
        attribute ``reliable_notices = True``; the controller then needs its periodic resync
        only as a rare safety net (``osac.server.controllers.cluster_resync``)."""
        ...
