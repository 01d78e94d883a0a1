"""``osac get kubeconfig CLUSTER`` and ``osac get password CLUSTER``: a cluster's credentials,
read with ``Clusters.GetKubeconfig`` / ``GetPassword`` over the CLI's usual transport (the same
values REST serves at ``/clusters/{id}/kubeconfig`` and ``/password``)."""

from __future__ import annotations

from collections.abc import Sequence

from osac.cli.connection.channel import Connection
from osac.cli.connection.client import KindClient
from osac.cli.connection.shape import id_of
from osac.cli.errors import CliError
from osac.model import registry

#: The word after ``get``: the method reading it and the response field holding it.
CREDENTIALS: dict[str, tuple[str, str]] = {
    "kubeconfig": ("GetKubeconfig", "kubeconfig"),
    "password": ("GetPassword", "password"),
}


def is_credential(word: str) -> bool:
    return word.lower() in CREDENTIALS


def check_request(word: str, clusters: Sequence[str], *, private: bool, listing_options: bool) -> str:
    """The one cluster ``osac get kubeconfig|password`` names.

    :raises CliError: not exactly one cluster, ``--private``, or an option of object lists.
    """
    name = word.lower()
    if len(clusters) != 1:
        raise CliError(f"get {name} takes exactly one cluster (id or name): osac get {name} CLUSTER")
    if private:
        raise CliError(f"the {name} is served by the public API only; drop --private")
    if listing_options:
        raise CliError(f"get {name} prints the {name} as it is; -o, --filter, --sort-by and --watch do not apply")
    return clusters[0]


def credential(connection: Connection, word: str, cluster_word: str) -> str:
    """The credential ``word`` of the cluster ``cluster_word`` (id or name), ending in a newline.

    :raises ApiError: no such cluster, or its control plane has not been available yet.
    """
    method, field = CREDENTIALS[word.lower()]
    kind = registry.get("cluster")
    cluster = KindClient(connection, kind).find(cluster_word)
    request = connection.request(kind.service, method, id=id_of(cluster))
    text = str(getattr(connection.call(kind.service, method, request), field))
    return text if text.endswith("\n") else text + "\n"
