"""The API reads ``describe cluster`` needs besides the cluster: names of the host types, the
subnet and security groups it references, and its latest lifecycle events.

They are cosmetic: a lookup that fails (an object deleted meanwhile, a kind the caller may not
list) leaves the id in place instead of failing the whole view; ``KindClient.objects`` already
answers nothing rather than an error.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

from google.protobuf.message import Message

from osac.api.public.v1.cluster_type_pb2 import Cluster
from osac.api.public.v1.lifecycle_event_type_pb2 import LifecycleEvent
from osac.cli.clusters.describe import ClusterLookups
from osac.cli.clusters.events import DESCRIBE_LIMIT, newest_events, object_filter
from osac.cli.connection.channel import Connection
from osac.cli.connection.client import KindClient, field_text
from osac.cli.connection.shape import id_of
from osac.cli.errors import CliError
from osac.cli.objects.kinds import cel_string
from osac.cli.output.describe import external_addresses
from osac.cli.output.render import EMPTY, state_label
from osac.model import registry

NAME_PATH = "metadata.name"
#: The cluster endpoints an external IP attachment can target (``spec.target_endpoint``).
ENDPOINTS = ("API", "INGRESS")


def look_up(connection: Connection, cluster: Cluster, now: datetime) -> ClusterLookups:
    """Everything ``cluster_lines`` shows about objects other than ``cluster`` itself."""
    spec = cluster.spec
    status = cluster.status
    host_type_ids = {n.host_type for n in spec.node_sets.values()} | {n.host_type for n in status.node_sets.values()}
    attachment = spec.network_attachment
    subnet = _objects(connection, "subnet", [attachment.subnet])
    groups = _objects(connection, "security_group", list(attachment.security_groups))
    return ClusterLookups(
        now=now,
        host_types=_names(_objects(connection, "host_type", sorted(host_type_ids))),
        network=network_text(attachment.subnet, list(attachment.security_groups), subnet, groups),
        events=_events(connection, cluster.id),
        external_ips=external_ips(_attachments(connection, cluster.id)),
    )


def external_ips(attachments: Sequence[Message]) -> dict[str, str]:
    """The external addresses reaching the cluster by endpoint (``API``, ``INGRESS``): those of
    its READY external IP attachments (the auto-provisioned ones or any other); an endpoint whose
    attachments are not READY yet shows their states, ``(PENDING)``."""
    shown: dict[str, str] = {}
    for endpoint in ENDPOINTS:
        mine = [a for a in attachments if field_text(a, "spec.target_endpoint") == endpoint]
        addresses = external_addresses(mine)
        if addresses:
            shown[endpoint] = ", ".join(addresses)
        elif mine:
            shown[endpoint] = ", ".join(f"({state_label(a) or EMPTY})" for a in mine)
    return shown


def _attachments(connection: Connection, cluster_id: str) -> list[Message]:
    kind = registry.get("external_ip_attachment")
    try:
        return list(KindClient(connection, kind).list(f"this.spec.cluster == {cel_string(cluster_id)}").items)
    except CliError:  # cosmetic, like the other lookups
        return []


def network_text(
    subnet_id: str, group_ids: Sequence[str], subnets: Mapping[str, Message], groups: Mapping[str, Message]
) -> str:
    """``subnet default (10.0.2.0/24), security groups default, web``; ids stand in for objects
    that could not be read, ``-`` for no attachment."""
    if not subnet_id and not group_ids:
        return EMPTY
    parts = []
    if subnet_id:
        subnet = subnets.get(subnet_id)
        if subnet is None:
            parts.append(f"subnet {subnet_id}")
        else:
            cidr = field_text(subnet, "spec.ipv4_cidr")
            parts.append(f"subnet {field_text(subnet, NAME_PATH) or subnet_id}" + (f" ({cidr})" if cidr else ""))
    names = [field_text(groups[i], NAME_PATH) or i if i in groups else i for i in group_ids]
    parts.append(f"security groups {', '.join(names) or EMPTY}")
    return ", ".join(parts)


def _objects(connection: Connection, kind_name: str, ids: Sequence[str]) -> dict[str, Message]:
    return {id_of(obj): obj for obj in KindClient(connection, registry.get(kind_name)).objects(ids)}


def _names(objects: Mapping[str, Message]) -> dict[str, str]:
    return {object_id: name for object_id, obj in objects.items() if (name := field_text(obj, NAME_PATH))}


def _events(connection: Connection, cluster_id: str) -> list[LifecycleEvent]:
    try:
        return newest_events(connection, DESCRIBE_LIMIT, object_filter(cluster_id))
    except CliError:  # events are an extra: a failing lookup must not hide the cluster
        return []
