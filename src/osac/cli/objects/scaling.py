"""``osac scale cluster NAME --node-set KEY --size N``: change one node set's requested size.

An Update of ``spec.node_sets`` with the version lock, built from a fresh read so the other
node sets are sent back unchanged (a map is replaced whole); when another writer got in between
(ABORTED) the read and the Update are repeated a few times. The server checks the size and
reserves node addresses for growth (RESOURCE_EXHAUSTED leaves the size as it was).
"""

from __future__ import annotations

from dataclasses import dataclass

from google.protobuf.message import Message

from osac.api.public.v1.cluster_type_pb2 import Cluster
from osac.cli.connection.client import KindClient
from osac.cli.connection.shape import as_kind
from osac.cli.errors import ApiError, CliError
from osac.cli.objects.kinds import describe_object
from osac.model import registry

#: Read-modify-write attempts when another writer changes the cluster in between.
SCALE_ATTEMPTS = 3
SCALABLE = ("cluster",)
NODE_SETS = "spec.node_sets"


@dataclass(frozen=True)
class Scaled:
    cluster: Message
    key: str
    before: int
    after: int
    warnings: tuple[str, ...] = ()

    def summary(self) -> str:
        label = describe_object_text(self.cluster)
        if self.before == self.after:
            return f"{label} node set '{self.key}' already has desired size {self.after}; nothing sent"
        return f"{label} node set '{self.key}' scaled: desired size {self.after} (was {self.before})"


def describe_object_text(cluster: Message) -> str:
    return describe_object(registry.get("cluster"), cluster)


def scale_node_set(client: KindClient, word: str, key: str, size: int) -> Scaled:
    """Set ``spec.node_sets[key].size`` of the cluster ``word`` names.

    :raises CliError: the cluster has no such node set (adding one is ``osac edit … --node-set``).
    :raises ApiError: the server refused the size (INVALID_ARGUMENT, RESOURCE_EXHAUSTED, …).
    """
    if size < 0:
        raise CliError(f"--size must be 0 or more, got {size}")
    for attempt in range(1, SCALE_ATTEMPTS + 1):
        cluster = as_kind(client.find(word), Cluster)
        node_sets = cluster.spec.node_sets
        if key not in node_sets:
            known = ", ".join(sorted(node_sets)) or "none"
            raise CliError(
                f"{describe_object_text(cluster)} has no node set '{key}' (it has: {known}); add one with "
                f"osac edit cluster {word} --node-set {key}=SIZE"
            )
        before = node_sets[key].size
        if before == size:
            return Scaled(cluster, key, before, size)
        node_sets[key].size = size
        try:
            updated = as_kind(client.update(cluster, [NODE_SETS], lock=True), Cluster)
        except ApiError as error:
            if error.code != "ABORTED" or attempt == SCALE_ATTEMPTS:
                raise
            continue
        return Scaled(updated, key, before, updated.spec.node_sets[key].size,
                      tuple(client.warnings))
    raise AssertionError("unreachable: the last attempt returns or raises")
