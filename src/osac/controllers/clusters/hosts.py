"""Bare-metal hosts for a cluster's node sets (networking.md §7.3 "Host selection", compute.md §4).

A node set whose host type has a ``lifecycle`` interface runs on hosts of the inventory. Before
the pool is applied or grown, every bare-metal node set of the cluster asks for its hosts in one
``assign_free_host`` call, all or nothing (the inventory takes the lowest free names and gives an
owner the hosts it already holds again). The owner of a node set's hosts is
``("cluster", "<cluster id>/<key>")``.

Ordinal ``i`` keeps the host its running node is on; the other ordinals take the remaining hosts
in name order. Hosts the node set holds beyond its size (a scale-down), and the hosts of a removed
node set, are released once no reported node runs on them; all of the cluster's hosts are released
once the hosted cluster and its nodes are gone.

What a settled cluster holds is remembered (per process), so a pass over it asks the inventory
nothing.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass

from osac.providers.baremetal import OWNER_CLUSTER as OWNER_KIND
from osac.providers.baremetal import BareMetalProvider, HostRecord, HostRequest
from osac.providers.baremetal import cluster_owner_id as owner_id


@dataclass(frozen=True)
class NodeSetHosts:
    """What a bare-metal node set asks for: ``size`` hosts of ``host_type`` (a HostType name)."""

    host_type: str
    size: int


@dataclass(frozen=True)
class Selection:
    """The host of each ordinal per node set, or why there are none (``shortage``, the message of
    the ``AgentSelectionFailed`` Warning); ``selected`` counts the hosts claimed by this call
    per host type (the ``AgentsSelected`` event), empty when nothing new was claimed."""

    hosts: Mapping[str, tuple[str, ...]]
    shortage: str | None = None
    selected: Mapping[str, int] | None = None

    @property
    def selected_message(self) -> str | None:
        if not self.selected:
            return None
        parts = [f"{count} {host_type}" for host_type, count in sorted(self.selected.items())]
        noun = "host" if sum(self.selected.values()) == 1 else "hosts"
        return f"{' and '.join(parts)} {noun} selected"


class ClusterHosts:
    """Claims and releases the hosts of clusters' bare-metal node sets."""

    def __init__(self, inventory: BareMetalProvider) -> None:
        self.inventory = inventory
        #: Per cluster: what the node sets asked for and the hosts per ordinal they got.
        self._held: dict[str, tuple[Mapping[str, NodeSetHosts], Mapping[str, tuple[str, ...]]]] = {}
        #: Clusters whose requests changed: hosts they no longer need may still be held.
        self._unsettled: set[str] = set()

    async def select(
        self, cluster_id: str, wanted: Mapping[str, NodeSetHosts],
        running: Callable[[], Awaitable[Mapping[tuple[str, int], str]]],
    ) -> Selection:
        """The hosts per ordinal of every node set in ``wanted`` (claimed now if needed).
        ``running`` gives ``(key, ordinal) -> host`` of the nodes the provider reports (asked
        only when the inventory is)."""
        known = self._held.get(cluster_id)
        if known is not None and known[0] == wanted:
            return Selection(known[1])
        self._unsettled.add(cluster_id)  # what it held before may be more than it needs now
        if known is not None and _only_shrinks(known[0], wanted):
            # fewer hosts: the low ordinals keep theirs, nothing is asked of the inventory
            kept = {key: known[1][key][: wanted[key].size] for key in wanted}
            self._held[cluster_id] = (dict(wanted), kept)
            return Selection(kept)
        if not wanted:
            self._held[cluster_id] = ({}, {})
            return Selection({})
        nodes = await running()
        keys = sorted(wanted)
        before = await self._held_hosts(cluster_id, {wanted[key].host_type for key in keys})
        claimed = await self.inventory.assign_free_host([
            HostRequest(wanted[key].host_type, wanted[key].size, OWNER_KIND, owner_id(cluster_id, key)) for key in keys
        ])
        if claimed is None:
            self._held.pop(cluster_id, None)
            return Selection({}, shortage=await self._shortage(cluster_id, wanted, before))
        hosts: dict[str, tuple[str, ...]] = {}
        selected: dict[str, int] = {}
        for key, records in zip(keys, claimed, strict=True):
            names = [record.name for record in records]
            hosts[key] = _by_ordinal(key, names, nodes)
            fresh = [name for name in names if name not in before.get(owner_id(cluster_id, key), ())]
            if fresh:
                selected[wanted[key].host_type] = selected.get(wanted[key].host_type, 0) + len(fresh)
        self._held[cluster_id] = (dict(wanted), hosts)
        return Selection(hosts, selected=selected)

    async def release_unused(self, cluster_id: str, in_use: set[str]) -> list[str]:
        """After the node sets' requests changed: release the cluster's hosts that no ordinal maps
        to and no reported node (``in_use``) runs on (a scaled-down or removed node set). Until
        none is left, every pass looks again; then nothing is asked. Returns the names released."""
        if cluster_id not in self._unsettled or cluster_id not in self._held:
            return []
        mapped = {name for names in self._held[cluster_id][1].values() for name in names}
        unused = [record for record in await self._cluster_hosts(cluster_id) if record.name not in mapped]
        released = await self._release([record for record in unused if record.name not in in_use])
        if len(released) == len(unused):  # none still runs a node: nothing more to look for
            self._unsettled.discard(cluster_id)
        return released

    async def release_all(self, cluster_id: str) -> list[str]:
        """Release every host of the cluster (its hosted cluster and nodes are gone)."""
        self.forget(cluster_id)
        return await self._release(await self._cluster_hosts(cluster_id))

    async def _release(self, records: Sequence[HostRecord]) -> list[str]:
        for record in records:
            assert record.owner is not None
            await self.inventory.release_host(record.name, record.owner.id)
        return [record.name for record in records]

    def forget(self, cluster_id: str) -> None:
        self._held.pop(cluster_id, None)
        self._unsettled.discard(cluster_id)

    async def _cluster_hosts(self, cluster_id: str) -> list[HostRecord]:
        prefix = owner_id(cluster_id, "")
        return [
            record for record in await self.inventory.list_hosts()
            if record.owner is not None and record.owner.kind == OWNER_KIND and record.owner.id.startswith(prefix)
        ]

    async def _held_hosts(self, cluster_id: str, host_types: set[str]) -> dict[str, tuple[str, ...]]:
        """The names each of the cluster's node sets (by owner id) holds now."""
        held: dict[str, list[str]] = {}
        for record in await self._cluster_hosts(cluster_id):
            if record.host_type in host_types and record.owner is not None:
                held.setdefault(record.owner.id, []).append(record.name)
        return {owner: tuple(sorted(names)) for owner, names in held.items()}

    async def _shortage(
        self, cluster_id: str, wanted: Mapping[str, NodeSetHosts], held: Mapping[str, tuple[str, ...]]
    ) -> str:
        """The first node set (by key) the free hosts cannot serve, as the Warning's message."""
        free: dict[str, int] = {}
        for host_type in sorted({ask.host_type for ask in wanted.values()}):
            free[host_type] = sum(1 for record in await self.inventory.list_hosts(host_type) if record.owner is None)
        for key in sorted(wanted):
            ask = wanted[key]
            own = len(held.get(owner_id(cluster_id, key), ()))
            available = free[ask.host_type] + own
            if ask.size > available:
                if own:  # what it holds is not free: say what it has and how many more exist
                    return (f"node set '{key}' needs {ask.size} hosts of type '{ask.host_type}': it holds {own}, "
                            f"{free[ask.host_type]} more free")
                return f"node set '{key}' needs {ask.size} hosts of type '{ask.host_type}', {available} free"
            free[ask.host_type] -= ask.size - min(own, ask.size)
        return "the inventory could not serve every node set at once"  # a concurrent claim won the race


def _only_shrinks(before: Mapping[str, NodeSetHosts], after: Mapping[str, NodeSetHosts]) -> bool:
    """Whether every node set of ``after`` had at least its size of the same host type before."""
    return all(
        key in before and before[key].host_type == ask.host_type and before[key].size >= ask.size
        for key, ask in after.items()
    )


def _by_ordinal(key: str, names: Sequence[str], running: Mapping[tuple[str, int], str]) -> tuple[str, ...]:
    """Ordinal ``i`` keeps the host its running node is on; the others take the rest in order."""
    size = len(names)
    chosen: dict[int, str] = {
        ordinal: host for (node_set, ordinal), host in running.items()
        if node_set == key and ordinal < size and host in names
    }
    rest = iter(name for name in sorted(names) if name not in chosen.values())
    return tuple(chosen[i] if i in chosen else next(rest) for i in range(size))
