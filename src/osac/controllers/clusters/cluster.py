"""Cluster: drive the hosted cluster and its node pools, derive the granular status
(cluster-status.md §6, §10, §17; networking.md §7.3, §8, §10).

One pass, level-triggered:

1. Add the controller finalizer before the first provider call.
2. Not deleting, not failed: apply the HostedCluster (with the reserved VIPs), one NodePool per
   node set (with the node addresses reserved by the service), delete NodePools of removed node
   sets. Provider calls are idempotent; they are repeated when what they send changed, when the
   last observation lacks what they create, and at least every 5 minutes. A transient error is retried
   with backoff (the status still reflects the last observation); a terminal one becomes the
   derivation's ``terminal_failure``.
3. Deleting: remove the auto-provisioned external access first (attachments, then external IPs),
   then ask the provider to delete the HostedCluster; what is still open is ``cleanup_pending``.
4. Observe; attach every reported node's port to the cluster subnet (a node cannot join before its
   port is active) or, while deleting, return the ports of nodes that are gone.
5. Derive from what the pass read at its start (one read transaction: the cluster, its
   addresses, its host types) and, only when something changed, write status + lifecycle events
   in one transaction under the version lock (a conflict reads again and derives again:
   concurrent spec edits are never lost, events never duplicated). The final write of a
   torn-down cluster drops the finalizer, which archives it.
6. Requeue at the earliest of the derivation's ``requeue_after`` (stall timers), the provider's
   ``next_change_at`` and the cluster's next resync slot (``runtime/spread.py``: one fixed
   phase per cluster within the resync interval, so a fleet's resyncs come evenly). The change of the pass's own status write does not
   queue the cluster again (``own_writes``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from google.protobuf.message import Message

from osac.api.private.v1.cluster_type_pb2 import Cluster, ClusterSpec
from osac.api.private.v1.host_type_type_pb2 import HostType
from osac.api.private.v1.subnet_type_pb2 import Subnet
from osac.controllers.clusters import metrics
from osac.controllers.clusters.hosts import ClusterHosts, NodeSetHosts
from osac.controllers.networking import topology
from osac.controllers.networking.provisioning import NetworkingContext
from osac.controllers.runtime.manager import ObjectKey, OwnWrites, Result, TransientError
from osac.controllers.runtime.objects import (
    CONTROLLER_FINALIZER,
    ObjectReconciler,
    copy,
    is_deleting,
    remove_finalizer,
)
from osac.controllers.runtime.retry import RetryPolicy
from osac.controllers.runtime.spread import until_slot
from osac.controllers.runtime.waiters import Waiters
from osac.controllers.workloads.auto_cleanup import clean_auto_provisioned
from osac.controllers.workloads.passes import (
    ChangeLag,
    ProviderRetries,
    derive_then_write,
    earliest_requeue,
    ensure_controller_finalizer,
    record_status,
    until,
)
from osac.model.shape import as_kind
from osac.providers.baremetal import BareMetalProvider
from osac.providers.clusters import (
    ClusterObservation,
    ClusterProvider,
    HostedClusterSpec,
    NodeAssignment,
    NodePoolSpec,
)
from osac.providers.interfaces import (
    NetworkAttachmentSpec,
    ProviderError,
    TerminalProviderError,
    TransientProviderError,
)
from osac.services.baremetal.interfaces import is_bare_metal
from osac.services.clusters import addresses as cluster_addresses
from osac.services.clusters.failures import recorded_failure
from osac.services.core.catalog import Services
from osac.services.workloads.network_attachments import AUTO_CLEANUP_FINALIZER
from osac.status.clusters import derivation
from osac.status.conditions.views import LifecycleEventView
from osac.store import lifecycle
from osac.store.objects import Tx

#: A missed change notice costs at most this much staleness (cluster-status.md §17), with a
#: provider whose notices can be lost.
RESYNC = timedelta(seconds=30)
#: The safety-net resync with a provider whose notices are reliable (``reliable_notices``):
#: nothing is left for it to catch but what a bug loses, so it only bounds that (10 minutes,
#: the controller runtime's own default resync period). 1,000 clusters cost 1.7 passes/s
#: instead of 33 (docs/controllers.md "Resync").
RELIABLE_RESYNC = timedelta(minutes=10)
#: A settled cluster's HostedCluster and NodePools are applied again at least this often, so that
#: what someone changed on the hub is put back (what went missing is re-applied at once).
REAPPLY = timedelta(minutes=5)
#: Failed provider calls are retried after 1 s, doubling up to 60 s.
BACKOFF = RetryPolicy(base=timedelta(seconds=1), factor=2.0, cap=timedelta(seconds=60))
#: Too few free hosts: asked again after 30 s, doubling up to 5 minutes (networking.md §7.3).
HOST_BACKOFF = RetryPolicy(base=timedelta(seconds=30), factor=2.0, cap=timedelta(minutes=5))
DEFAULT_BASE_DOMAIN = "clusters.osac.example"


@dataclass
class ClusterControllerContext:
    """What the cluster reconciler needs besides the services."""

    provider: ClusterProvider
    networking: NetworkingContext
    thresholds: derivation.StallThresholds
    base_domain: str = DEFAULT_BASE_DOMAIN
    #: The bare-metal inventory the node sets of bare-metal host types draw from (None: none).
    inventory: BareMetalProvider | None = None
    #: The longest a cluster goes without a pass (``cluster_status.resync_interval``).
    resync: timedelta = RESYNC


@dataclass(frozen=True)
class _Applied:
    """The HostedCluster and NodePools applied to the provider, and when."""

    hosted: HostedClusterSpec
    pools: tuple[tuple[str, NodePoolSpec], ...]
    at: datetime


@dataclass(frozen=True)
class _Snapshot:
    """What one pass reads of the store, in one transaction: the cluster, the addresses it holds,
    the stall thresholds of its node sets' host types and what its bare-metal node sets ask of
    the inventory (none while it is deleted)."""

    cluster: Cluster
    held: cluster_addresses.HeldAddresses
    thresholds: derivation.StallThresholds
    bare_metal: dict[str, NodeSetHosts]


@dataclass(frozen=True)
class _Derived:
    """What a derivation decided: the cluster as it should be written over ``stored``, its
    lifecycle events, the requeue hint, and the running nodes after which surplus node addresses
    are released in the same write (None: nothing to release)."""

    stored: Cluster
    desired: Cluster
    events: tuple[LifecycleEventView, ...]
    requeue_after: timedelta | None
    releases_nodes: frozenset[tuple[str, int]] | None
    held: cluster_addresses.HeldAddresses
    now: datetime


def _unchanged(derived: _Derived | None) -> tuple[Message | None, timedelta | None, bool] | None:
    """The pass's result when the derivation writes nothing (no write transaction is opened)."""
    if derived is None:
        return None, None, False
    if derived.desired == derived.stored and not derived.events and derived.releases_nodes is None:
        return derived.stored, derived.requeue_after, False
    return None


class ClusterReconciler(ObjectReconciler):
    kind = "cluster"

    def __init__(self, services: Services, context: ClusterControllerContext) -> None:
        super().__init__(services)
        self.context = context
        #: Host type id -> name (a host type's name never changes).
        self._host_type_names: dict[str, str] = {}
        #: Host types by id, kept until their change comes through the change feed
        #: (``dependents``): every pass looks at its node sets' host types, which hardly ever change.
        self._host_types: dict[str, HostType] = {}
        #: Bumped by every host type change, so a read that raced with one is not kept.
        self._host_type_changes = 0
        #: What each cluster holds, by the cluster's version: its addresses are reserved and
        #: released only in transactions that write the cluster (the service's create and update,
        #: this reconciler's status write), except the release of surplus node addresses, which
        #: forgets the entry.
        self._held: dict[str, tuple[int, cluster_addresses.HeldAddresses]] = {}
        self.provider = context.provider
        self.retries = ProviderRetries("cluster", BACKOFF)
        self.hosts = ClusterHosts(context.inventory) if context.inventory is not None else None
        self.host_retries = ProviderRetries("cluster host selection", HOST_BACKOFF)
        #: What this process last applied per cluster (skipped while unchanged, see ``_apply``).
        self._applied: dict[str, _Applied] = {}
        #: Node ports attached by this process: cluster id -> {(host, interface): (address, SG ids)}.
        #: The SG list is part of it: a changed list is re-sent to every port (networking.md §7.1).
        self._attached: dict[str, dict[tuple[str, str], tuple[str, tuple[str, ...]]]] = {}
        #: Provider change notices not yet reflected in a committed status (the caller enqueues).
        self.changes = ChangeLag("cluster")
        #: Every pass sets its own next run: its own status write queues nothing.
        self.own_writes = OwnWrites()
        #: The auto-provisioned children a teardown waits for: their changes queue the cluster.
        self.children = Waiters()

    def dependents(self, kind: str, object_id: str) -> tuple[str, ...]:
        """The cluster whose teardown waits for the auto-provisioned child that changed (and a
        changed host type is read again by the next pass that needs it)."""
        if kind == "host_type":
            self._host_types.pop(object_id, None)
            self._host_type_changes += 1
            return ()
        return self.children.dependents(kind, object_id)

    async def _host_type(self, tx: Tx, host_type_id: str) -> HostType | None:
        """The stored host type (being deleted or not), from what the passes keep when it is there."""
        kept = self._host_types.get(host_type_id)
        if kept is not None:
            return kept
        changes = self._host_type_changes
        found = await topology.get(tx, "host_type", host_type_id)
        if found is None:
            return None
        host_type = as_kind(found, HostType)
        if changes == self._host_type_changes:
            self._host_types[host_type_id] = host_type
        return host_type

    # -- the pass -----------------------------------------------------------------------------

    async def reconcile(self, key: ObjectKey) -> Result:
        async with self.store.read() as tx:
            snapshot = await self._read(tx, key.id)
        if snapshot is None:
            self._forget(key.id)
            return Result()
        cluster = snapshot.cluster
        if CONTROLLER_FINALIZER not in cluster.metadata.finalizers and not is_deleting(cluster):
            written = await ensure_controller_finalizer(self, key.id)
            if written is None:
                return Result()
            cluster = as_kind(written, Cluster)
            snapshot = replace(snapshot, cluster=cluster)
        now = self.store.clock.now()
        failure = self._failure_of(cluster)
        cleanup_pending: tuple[str, ...] = ()
        auto_cleaned = False
        retry: TransientError | None = None
        try:
            if is_deleting(cluster):
                cleanup_pending, failure, auto_cleaned = await self._teardown(cluster, failure, now)
            elif failure is None and cluster.status.state != self._state("FAILED"):
                await self._apply(snapshot)
        except HostShortage as shortage:
            retry = self.host_retries.failed(cluster.id, shortage.message)
            await self._host_event(cluster, lifecycle.WARNING, "AgentSelectionFailed", shortage.message)
        except TransientProviderError as error:
            retry = self.retries.failed(cluster.id, error.message)
        except TerminalProviderError as error:
            phase: derivation.FailurePhase = "teardown" if is_deleting(cluster) else "provision"
            failure = derivation.TerminalFailure(phase=phase, reason=error.reason, message=error.message, at=now)
        observation = await self.provider.observe_cluster(cluster.id)
        if not observation.readable:
            metrics.OBSERVATION_ERRORS.labels("cluster", "cluster").inc()
        self._check_applied(cluster, observation)
        try:
            pending_ports = await self._converge_ports(snapshot, observation)
            await self._release_hosts(cluster, observation)
        except ProviderError as error:
            retry = retry or self.retries.failed(cluster.id, error.message)
            # while deleting, a failed port or host release holds the finalizer like any leftover
            pending_ports = (f"node ports and hosts: {error.message}",) if is_deleting(cluster) else ()
        if is_deleting(cluster):
            cleanup_pending = cleanup_pending + pending_ports
        written, requeue_after = await self._write(snapshot, observation, failure, cleanup_pending, auto_cleaned)
        next_change = until(observation.next_change_at, self.store.clock.now())
        if retry is not None:  # the retry comes no later than a stall timer or a provider change
            raise TransientError(str(retry), delay=earliest_requeue(retry.delay, requeue_after, next_change))
        self.retries.succeeded(cluster.id)
        self.host_retries.succeeded(cluster.id)
        if written is None:
            return Result()
        resync = until_slot(key.id, self.store.clock.now(), self.context.resync)
        return Result(requeue_after=earliest_requeue(resync, requeue_after, next_change))

    # -- provisioning ---------------------------------------------------------------------------

    async def _apply(self, snapshot: _Snapshot) -> None:
        """Apply the HostedCluster and one NodePool per node set, and delete the NodePools of
        removed node sets. The calls are repeated when what they would send changed, when the
        last observation missed something they create, and at least every ``REAPPLY``: a burst of
        changes to a settled cluster costs observations, not re-applies."""
        cluster = snapshot.cluster
        spec = cluster.spec
        cluster_id = cluster.id
        vips = snapshot.held.vips
        if vips is None:
            raise TerminalProviderError("VIPsMissing", "the cluster's API and ingress VIPs are not reserved")
        nodes = {key: snapshot.held.nodes(key) for key in spec.node_sets}
        hosts = await self._select_hosts(cluster, snapshot.bare_metal)
        hosted = HostedClusterSpec(
            name=hosted_cluster_name(cluster_id),
            release_image=spec.release_image,
            pull_secret=spec.pull_secret,
            ssh_public_key=spec.ssh_public_key,
            base_domain=self.context.base_domain,
            pod_cidr=spec.network.pod_cidr,
            service_cidr=spec.network.service_cidr,
            api_vip=vips[0],
            ingress_vip=vips[1],
            subnet_segment=spec.network_attachment.subnet,
            labels={"osac.openshift.io/cluster-uuid": cluster_id, "osac.openshift.io/tenant": cluster.metadata.tenant},
        )
        pools = tuple(
            (key, NodePoolSpec(
                host_type=spec.node_sets[key].host_type,
                replicas=spec.node_sets[key].size,
                fabric_interface=spec.node_sets[key].fabric_interface,
                node_addresses=tuple(nodes.get(key, {})[i] for i in range(spec.node_sets[key].size)
                                     if i in nodes.get(key, {})),
                hosts=hosts.get(key, ()),
            ))
            for key in sorted(spec.node_sets)
        )
        now = self.store.clock.now()
        applied = self._applied.get(cluster_id)
        if applied is not None and applied.hosted == hosted and applied.pools == pools and now - applied.at < REAPPLY:
            return
        self._applied.pop(cluster_id, None)
        await self.provider.apply_hosted_cluster(cluster_id, hosted)
        for key, pool in pools:
            await self.provider.apply_node_pool(cluster_id, key, pool)
        observation = await self.provider.observe_cluster(cluster_id)
        if observation.readable:
            for key in sorted(observed_keys(observation) - set(spec.node_sets)):
                await self.provider.delete_node_pool(cluster_id, key)
        self._applied[cluster_id] = _Applied(hosted, pools, now)

    async def _bare_metal_node_sets(self, tx: Tx, spec: ClusterSpec) -> dict[str, NodeSetHosts]:
        """The node sets whose host type is bare metal, with what they ask of the inventory."""
        wanted: dict[str, NodeSetHosts] = {}
        for key, node_set in spec.node_sets.items():
            host_type = await self._host_type(tx, node_set.host_type)
            if host_type is not None and is_bare_metal(host_type):
                wanted[key] = NodeSetHosts(host_type.metadata.name, node_set.size)
        return wanted

    async def _select_hosts(self, cluster: Cluster, wanted: dict[str, NodeSetHosts]) -> Mapping[str, tuple[str, ...]]:
        """The host of each ordinal of the bare-metal node sets, claimed all at once.

        :raises HostShortage: too few free hosts; nothing was claimed.
        :raises TerminalProviderError: bare-metal node sets in a deployment without an inventory.
        """
        cluster_id = cluster.id
        if self.hosts is None:
            if wanted:
                key = sorted(wanted)[0]
                raise TerminalProviderError(
                    "NoInventory", f"node set '{key}' uses the bare-metal host type '{wanted[key].host_type}', "
                                   "and this deployment has no bare-metal inventory")
            return {}

        async def running() -> dict[tuple[str, int], str]:
            observation = await self.provider.observe_cluster(cluster_id)
            return {(n.node_set_key, n.ordinal): n.host_name for n in observation.nodes if n.host_name}

        selection = await self.hosts.select(cluster_id, wanted, running)
        if selection.shortage is not None:
            raise HostShortage(selection.shortage)
        if selection.selected_message is not None:
            await self._host_event(cluster, lifecycle.NORMAL, "AgentsSelected", selection.selected_message)
        return selection.hosts

    async def _release_hosts(self, cluster: Cluster, observation: ClusterObservation) -> None:
        """Return hosts to the inventory: those no node set needs any more once no node runs on
        them, and all of them once a deleting cluster has no NodePool and no node left. That is
        before the teardown can complete (it needs no NodePool either): a HostedCluster that
        shows Destroyed while it still exists ends the teardown, and the finalizer goes in the
        same pass, after this release, so no archived cluster keeps a host (a crash in between
        repeats the release on the next pass)."""
        if self.hosts is None or not observation.readable:
            return
        cluster_id = cluster.id
        if is_deleting(cluster):
            if not observation.node_pools and not observation.nodes:
                await self.hosts.release_all(cluster_id)
            return
        await self.hosts.release_unused(cluster_id, {n.host_name for n in observation.nodes if n.host_name})

    async def _host_event(self, cluster: Cluster, event_type: int, reason: str, message: str) -> None:
        """Record a host-selection event; a Warning repeating the last one is not recorded again."""
        async with self.store.write() as tx:
            stored = await self.load(tx, cluster.id)
            if stored is None:
                return
            if event_type == lifecycle.WARNING and await _last_host_event(tx, cluster.id) == (reason, message):
                return
            await lifecycle.record(tx, self.descriptor, stored, event_type, reason, message)

    def _check_applied(self, cluster: Cluster, observation: ClusterObservation) -> None:
        """Forget the last apply when the observation lacks what it created or still shows a
        removed node set, so the next pass applies again."""
        cluster_id = cluster.id
        if cluster_id not in self._applied or not observation.readable:
            return
        if observation.hosted_cluster is None or observed_keys(observation) != set(cluster.spec.node_sets):
            del self._applied[cluster_id]

    # -- teardown -------------------------------------------------------------------------------

    async def _teardown(
        self, cluster: Cluster, failure: derivation.TerminalFailure | None, now: datetime
    ) -> tuple[tuple[str, ...], derivation.TerminalFailure | None, bool]:
        """Auto-provisioned children first, then the hosted cluster (networking.md §10.1).
        Returns what is still open, the failure to record, and whether the auto-provisioned
        children are all gone."""
        if cluster.status.state == self._state("DELETE_FAILED") and failure is not None:
            return (), failure, False  # waits for Delete again or Signal
        cleanup = await clean_auto_provisioned(self.services, cluster.id)
        self.children.wait(cluster.id, cleanup.children)
        if cleanup.failed:
            return cleanup.pending, derivation.TerminalFailure(
                phase="teardown", reason="CleanupFailed", message=cleanup.failure_message(), at=now), False
        if not cleanup.done:
            return cleanup.pending, failure, False
        await self.provider.delete_hosted_cluster(cluster.id)
        return (), failure, True

    # -- node ports -----------------------------------------------------------------------------

    async def _converge_ports(self, snapshot: _Snapshot, observation: ClusterObservation) -> tuple[str, ...]:
        """Attach the port of every reported node to the cluster subnet; while deleting, return
        the ports of nodes that are gone to parking. Returns the ports still to be returned."""
        if not observation.readable:
            return ()
        cluster = snapshot.cluster
        cluster_id = cluster.id
        spec = cluster.spec
        subnet_id = spec.network_attachment.subnet
        nodes: dict[tuple[str, str], NodeAssignment] = {}  # port (host, interface) -> node
        for node in observation.nodes:
            if node.node_set_key in spec.node_sets and node.host_name is not None:
                nodes[(node.host_name, spec.node_sets[node.node_set_key].fabric_interface)] = node
        present = nodes.keys()
        attached = self._attached.setdefault(cluster_id, {})
        groups = tuple(spec.network_attachment.security_groups)
        if not is_deleting(cluster) and present == attached.keys() and all(
                bound == groups for _, bound in attached.values()):
            return ()  # every node's port attached as specified by an earlier pass, none to return: no reads
        async with self.store.read() as tx:
            subnet = await topology.get(tx, "subnet", subnet_id)
            vn_id = as_kind(subnet, Subnet).spec.virtual_network if subnet is not None else ""
            fabric = await topology.fabric_for_vn(tx, self.context.networking.managers, vn_id)
            addresses = {key: snapshot.held.nodes(key) for key in spec.node_sets}
            for port, node in nodes.items():
                address = addresses.get(node.node_set_key, {}).get(node.ordinal)
                if address is None or is_deleting(cluster) or attached.get(port) == (address, groups):
                    continue
                await fabric.create_network_attachment(NetworkAttachmentSpec(
                    host_name=port[0],
                    interface=port[1],
                    mac=node.mac,
                    subnet_id=subnet_id,
                    address=address,
                    security_group_ids=groups,
                    target_kind="cluster",
                ))
                attached[port] = (address, groups)
        pending: list[str] = []
        for host, interface in [port for port in attached if port not in present]:
            await fabric.delete_network_attachment(host, interface)
            del attached[(host, interface)]
        if is_deleting(cluster):
            pending.extend(f"port {host}/{interface} still on subnet {subnet_id}" for host, interface in sorted(present))
        return tuple(pending)

    # -- status ---------------------------------------------------------------------------------

    async def _write(
        self,
        snapshot: _Snapshot,
        observation: ClusterObservation,
        failure: derivation.TerminalFailure | None,
        cleanup_pending: tuple[str, ...],
        auto_cleaned: bool,
    ) -> tuple[Message | None, timedelta | None]:
        """Derive from the pass's snapshot and write the result under the version lock; a
        cluster changed since (a scale, a Delete, a Signal) is read again and derived again. A
        derivation that changes nothing opens no write transaction.

        A failure this pass met is recorded only if the object did not change meanwhile: a
        Delete again or Signal that cleared an earlier failure must not be undone by a provider
        call that was made before it (the next pass looks again)."""
        cluster_id = snapshot.cluster.id
        started = snapshot.cluster.metadata.version

        def derive(current: _Snapshot | None) -> _Derived | None:
            if current is None:
                return None
            fresh = failure if current.cluster.metadata.version == started else None
            derived = self._derive(current, observation, fresh, cleanup_pending, auto_cleaned)
            return replace(derived, requeue_after=timedelta(0)) if fresh is not failure else derived

        async def derive_again(tx: Tx) -> _Derived | None:
            return derive(await self._read(tx, cluster_id))

        written, requeue_after, changed = await derive_then_write(
            self.store, derive_again, self._store, _unchanged, "cluster status write", first=derive(snapshot))
        if changed:
            self.changes.committed(cluster_id, observation.observed_at, self.store.clock.now())
        elif written is not None:
            self.changes.unchanged(cluster_id, observation.observed_at)
        return written, requeue_after

    def _derive(
        self,
        snapshot: _Snapshot,
        observation: ClusterObservation,
        failure: derivation.TerminalFailure | None,
        cleanup_pending: tuple[str, ...],
        auto_cleaned: bool,
    ) -> _Derived:
        """The status (and finalizers) the snapshot's cluster should have now, and what else the
        write must do."""
        stored = snapshot.cluster
        now = self.store.clock.now()
        context = derivation.ClusterContext(
            node_sets={
                key: derivation.NodeSetSpec(host_type=ns.host_type, size=ns.size, fabric_interface=ns.fabric_interface)
                for key, ns in stored.spec.node_sets.items()
            },
            observation_readable=observation.readable,
            observation_error=observation.error,
            deletion_requested=is_deleting(stored),
            terminal_failure=failure if failure is not None else self._failure_of(stored),
            cleanup_pending=cleanup_pending,
            reserved_vips=snapshot.held.vips,
        )
        result = derivation.derive_cluster_status(
            observation.hosted_cluster,
            observation.node_pools,
            derivation.view_from_status(stored.status),
            now,
            snapshot.thresholds,
            context,
        )
        if result.unattributed_node_pools:
            metrics.UNATTRIBUTED_NODE_POOLS.inc(result.unattributed_node_pools)
        running = frozenset((node.node_set_key, node.ordinal) for node in observation.nodes)
        releases_nodes = (observation.readable and not is_deleting(stored)
                          and bool(cluster_addresses.surplus_node_sets(stored, running, snapshot.held)))
        desired = as_kind(copy(stored), Cluster)
        derivation.apply_view_to_status(result.status, desired.status)
        if auto_cleaned:
            remove_finalizer(desired, AUTO_CLEANUP_FINALIZER)
        if result.teardown_complete and stored.status.state == self._state("DELETING"):
            remove_finalizer(desired)  # DELETING was published before: now DELETED (cluster-status.md §18)
        return _Derived(stored, desired, tuple(result.events), result.requeue_after,
                        running if releases_nodes else None, snapshot.held, now)

    async def _store(self, tx: Tx, derived: _Derived | None) -> tuple[Message | None, timedelta | None, bool]:
        """Write what ``_derive`` decided; ``Conflict`` when the cluster changed since its snapshot.
        The object as written, the derivation's requeue hint, and whether the write changed it."""
        assert derived is not None  # an archived cluster is ``_unchanged``
        stored = derived.stored
        if derived.releases_nodes is not None:
            self._held.pop(stored.id, None)
            await cluster_addresses.release_surplus_nodes(tx, stored, derived.releases_nodes, derived.held)
        written = as_kind(await record_status(self, tx, derived.desired, stored, derived.events), Cluster)
        if written is not stored:
            metrics.observe_transition(stored, written, derived.now)
            if derived.releases_nodes is None:  # the written version holds what the stored one held
                cluster_id = written.id
                version = written.metadata.version
                held = derived.held
                tx.after_commit(lambda: self._held.__setitem__(cluster_id, (version, held)))
        return written, derived.requeue_after, written is not stored

    # -- helpers --------------------------------------------------------------------------------

    async def _read(self, tx: Tx, cluster_id: str) -> _Snapshot | None:
        """What one pass reads of the store, in one transaction (None: the cluster is archived)."""
        loaded = await self.load(tx, cluster_id)
        if loaded is None:
            return None
        cluster = as_kind(loaded, Cluster)
        spec = cluster.spec
        host_types = [node_set.host_type for node_set in spec.node_sets.values()]
        version = cluster.metadata.version
        kept = self._held.get(cluster_id)
        if kept is not None and kept[0] == version:
            held = kept[1]
        else:
            held = await cluster_addresses.held_by(tx, cluster_id)
            self._held[cluster_id] = (version, held)
        return _Snapshot(
            cluster=cluster,
            held=held,
            thresholds=await self._thresholds(tx, host_types),
            bare_metal={} if is_deleting(cluster) else await self._bare_metal_node_sets(tx, spec),
        )

    async def _thresholds(self, tx: Tx, host_types: Iterable[str]) -> derivation.StallThresholds:
        """The configured thresholds, with the host-type overrides (configured by name) also
        under the ids the node sets store."""
        thresholds = self.context.thresholds
        if not thresholds.host_type_overrides:
            return thresholds
        names = {}
        for host_type_id in host_types:
            name = self._host_type_names.get(host_type_id)
            if name is None:
                host_type = await self._host_type(tx, host_type_id)
                if host_type is None:
                    continue
                name = self._host_type_names[host_type_id] = host_type.metadata.name
            names[host_type_id] = name
        return thresholds.with_host_type_ids(names)

    def _failure_of(self, cluster: Cluster) -> derivation.TerminalFailure | None:
        """The failure the stored status records, fed back as it was written (the message already
        carries the provider's reason), so re-deriving keeps it unchanged."""
        recorded = recorded_failure(cluster)
        if recorded is None:
            return None
        return derivation.TerminalFailure(phase=recorded.phase, reason="", message=recorded.message,
                                          at=recorded.at or self.store.clock.now())

    def _state(self, name: str) -> int:
        value = self.descriptor.state_value(name)
        assert value is not None
        return value

    def _forget(self, cluster_id: str) -> None:
        self.retries.succeeded(cluster_id)
        self.host_retries.succeeded(cluster_id)
        if self.hosts is not None:
            self.hosts.forget(cluster_id)
        self._applied.pop(cluster_id, None)
        self.changes.forget(cluster_id)
        self.children.forget(cluster_id)
        self._attached.pop(cluster_id, None)
        self._held.pop(cluster_id, None)


class HostShortage(Exception):
    """Too few free hosts for the cluster's bare-metal node sets; nothing was claimed."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


HOST_EVENTS = ("AgentsSelected", "AgentSelectionFailed")


async def _last_host_event(tx: Tx, cluster_id: str) -> tuple[str, str] | None:
    """(reason, message) of the cluster's latest host-selection event."""
    found = await lifecycle.reasons(tx, cluster_id, HOST_EVENTS)
    return found[-1] if found else None


def hosted_cluster_name(cluster_id: str) -> str:
    """The HostedCluster name: short, DNS-safe, stable (``console_url`` is built from it)."""
    return f"c-{cluster_id.replace('-', '')[-12:]}"


def observed_keys(observation: ClusterObservation) -> set[str]:
    """Node-set keys of the NodePools the provider reports."""
    keys: set[str] = set()
    for pool in observation.node_pools:
        labels = (pool.get("metadata") or {}).get("labels") or {}
        key = labels.get("osac.openshift.io/node-set")
        if isinstance(key, str) and key:
            keys.add(key)
    return keys
