"""A cluster's addresses on its subnet (networking.md §5.3, §7.3): two VIPs and one workload
address per requested node, all reserved by the API transaction that asks for them.

Owner keys (``ip_allocations``), which providers and reconcilers read back:

==================  =====================================  ==========================================
what                key                                    reserved / released
==================  =====================================  ==========================================
API, ingress VIPs   ``("cluster", id, "vip", 0 | 1)``      Create / when the cluster is archived
node ``i`` of set k ``("cluster", id, "node:<k>", i)``     Create, Update growing k / by the reconciler
                                                           once the node is gone (scale-down), and
                                                           whatever is left when the cluster is archived
==================  =====================================  ==========================================

Reservations are idempotent per key, so an Update growing a node set whose shrink has not been
confirmed yet reuses the addresses still held. Exhaustion fails the whole request with
RESOURCE_EXHAUSTED (``Subnet '<name>' has no free VIP addresses in <range>``, ``… has no free
addresses (needed N, available M)``) and nothing is stored.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

from google.protobuf.message import Message

from osac.api.private.v1.cluster_type_pb2 import Cluster
from osac.api.private.v1.subnet_type_pb2 import Subnet
from osac.ipam import allocator
from osac.model import registry
from osac.model.shape import as_kind, id_of
from osac.services.networking import addresses
from osac.store.objects import Tx

OWNER = "cluster"
VIP_PURPOSE = addresses.VIP_PURPOSE
API_VIP_ORDINAL = 0
INGRESS_VIP_ORDINAL = 1


def node_purpose(key: str) -> str:
    """The purpose of node set ``key``'s node addresses (ordinal = node index)."""
    return f"node:{key}"


async def reserve_vips(tx: Tx, subnet: Subnet, cluster_id: str) -> tuple[str, str]:
    """The (API, ingress) VIPs of a new cluster, from the subnet's VIP range."""
    api, ingress = await addresses.reserve_vips(tx, subnet, owner_type=OWNER, owner_id=cluster_id)
    return api, ingress


async def reserve_nodes(tx: Tx, subnet: Subnet, cluster_id: str, sizes: Mapping[str, int]) -> None:
    """Node addresses for ordinals ``0 … size-1`` of each node set in ``sizes`` (already held
    ordinals keep theirs), in key order so that concurrent requests lock alike."""
    for key in sorted(sizes):
        await addresses.reserve_workload(
            tx, subnet, owner_type=OWNER, owner_id=cluster_id, purpose=node_purpose(key),
            ordinals=range(sizes[key]),
        )


@dataclass(frozen=True)
class HeldAddresses:
    """Every address one cluster holds, read at once (one query for a pass's questions)."""

    allocations: tuple[allocator.Allocation, ...]

    @property
    def vips(self) -> tuple[str, str] | None:
        """The (API, ingress) VIPs reserved at create; None once they are released."""
        held = {a.ordinal: a.address for a in self.allocations if a.purpose == VIP_PURPOSE}
        if API_VIP_ORDINAL not in held or INGRESS_VIP_ORDINAL not in held:
            return None
        return held[API_VIP_ORDINAL], held[INGRESS_VIP_ORDINAL]

    def nodes(self, key: str) -> dict[int, str]:
        """The addresses node set ``key`` holds, by ordinal (node ``i`` uses ordinal ``i``)."""
        purpose = node_purpose(key)
        return {a.ordinal: a.address for a in self.allocations if a.purpose == purpose}


async def held_by(tx: Tx, cluster_id: str) -> HeldAddresses:
    return HeldAddresses(tuple(await allocator.allocations_of(tx, OWNER, cluster_id)))


async def release_all(tx: Tx, cluster_id: str) -> list[str]:
    """Release every address the cluster still holds (it is archived: nothing uses them)."""
    return await addresses.release(tx, owner_type=OWNER, owner_id=cluster_id)


def surplus_node_sets(cluster: Message, running: Collection[tuple[str, int]], held: HeldAddresses) -> tuple[str, ...]:
    """The node sets whose addresses of ordinals at or above their size in ``cluster`` (0 for a
    removed node set) can be released: no node of those ordinals is running any more
    (``running`` holds the ``(key, ordinal)`` the provider reports). Sorted by key."""
    node_sets = as_kind(cluster, Cluster).spec.node_sets
    sizes = {key: node_set.size for key, node_set in node_sets.items()}
    keys = {a.purpose.removeprefix("node:") for a in held.allocations if a.purpose.startswith("node:")}
    surplus = []
    for key in sorted(keys):
        size = sizes.get(key, 0)
        if any(a.purpose == node_purpose(key) and a.ordinal >= size for a in held.allocations) and \
                not any(k == key and ordinal >= size for k, ordinal in running):
            surplus.append(key)
    return tuple(surplus)


async def release_surplus_nodes(
    tx: Tx, cluster: Message, running: Collection[tuple[str, int]], known: HeldAddresses | None = None
) -> list[str]:
    """After a scale-down or a node-set removal: release the node addresses of the
    ``surplus_node_sets``. Before releasing anything the cluster's row is held as of
    ``cluster``'s version, so a growth committed meanwhile (whose new ordinals would look surplus)
    makes this a Conflict. ``known``: what the cluster holds, when the caller read it."""
    node_sets = as_kind(cluster, Cluster).spec.node_sets
    cluster_id = id_of(cluster)
    keys = surplus_node_sets(cluster, running, known or await held_by(tx, cluster_id))
    if keys:
        await tx.hold(registry.get(OWNER), cluster)
    released: list[str] = []
    for key in keys:
        size = node_sets[key].size if key in node_sets else 0
        released += await addresses.release(tx, owner_type=OWNER, owner_id=cluster_id,
                                            purpose=node_purpose(key), min_ordinal=size)
    return released
