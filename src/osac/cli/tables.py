"""The columns ``osac get`` shows, per kind, as data.

Each kind gets the common identity columns, its own columns from ``KIND_COLUMNS``, then state
and age. A column is a header, a field path and the name of a formatter in ``render.FORMATTERS``
(``text`` when omitted). Columns whose path the message does not have (a kind without
``status.state``, a private-only field in the public API) are dropped, so one table serves both
APIs. Adding a kind's columns is adding an entry here.
"""

from __future__ import annotations

from dataclasses import dataclass

from google.protobuf.descriptor import Descriptor

from osac.cli.fields import lookup_field
from osac.model.kinds import Kind


@dataclass(frozen=True)
class Column:
    header: str
    path: str
    format: str = "text"


LEADING = (
    Column("NAME", "metadata.name"),
    Column("TENANT", "metadata.tenant"),
)

TRAILING = (
    Column("STATE", "status.state", "enum"),
    Column("AGE", "metadata.creation_timestamp", "age"),
    Column("ID", "id"),
)

KIND_COLUMNS: dict[str, tuple[Column, ...]] = {
    "tenant": (Column("DOMAINS", "spec.domains"),),
    "network_class": (
        Column("TITLE", "title"),
        Column("DEFAULT", "is_default", "yes"),
        Column("FABRIC", "fabric_manager"),
    ),
    "virtual_network": (
        Column("CIDR", "spec.ipv4_cidr"),
        Column("IPV6 CIDR", "spec.ipv6_cidr"),
        Column("NETWORK CLASS", "spec.network_class", "ref"),
    ),
    "subnet": (
        Column("VIRTUAL NETWORK", "spec.virtual_network", "ref"),
        Column("CIDR", "spec.ipv4_cidr"),
        Column("GATEWAY", "status.gateway"),
        Column("AVAILABLE", "status.available_addresses"),
    ),
    "security_group": (
        Column("VIRTUAL NETWORK", "spec.virtual_network", "ref"),
        Column("INGRESS", "spec.ingress", "count"),
        Column("EGRESS", "spec.egress", "count"),
    ),
    "external_ip_pool": (
        Column("CIDRS", "spec.cidrs"),
        Column("FAMILY", "spec.ip_family", "enum"),
        Column("AVAILABLE", "status.available"),
    ),
    "external_ip": (
        Column("POOL", "spec.pool", "ref"),
        Column("ADDRESS", "status.address"),
        Column("ATTACHED", "status.attached", "yes"),
    ),
    "external_ip_attachment": (
        Column("EXTERNAL IP", "spec.external_ip", "ref"),
        Column("TARGET", "spec.target", "oneof"),
        Column("ENDPOINT", "spec.target_endpoint", "enum"),
        Column("ADDRESS", "status.external_ip_address"),
    ),
    "nat_gateway": (
        Column("VIRTUAL NETWORK", "spec.virtual_network", "ref"),
        Column("EXTERNAL IP", "spec.external_ip", "ref"),
    ),
    "host_type": (
        Column("TITLE", "title"),
        Column("INTERFACES", "interfaces", "count"),
    ),
    "cluster_template": (
        Column("TITLE", "title"),
        Column("NODE SETS", "node_sets", "count"),
    ),
    "cluster": (
        Column("TEMPLATE", "spec.template", "ref"),
        Column("STAGE", "status.stage"),
        Column("API URL", "status.api_url"),
    ),
    "compute_instance_template": (Column("TITLE", "title"),),
    "instance_type": (
        Column("CORES", "spec.cores"),
        Column("MEMORY GIB", "spec.memory_gib"),
        Column("STATE", "spec.state", "enum"),
    ),
    "compute_instance": (
        Column("TEMPLATE", "spec.template", "ref"),
        Column("INSTANCE TYPE", "spec.instance_type", "ref"),
        Column("IP", "status.internal_ip_address"),
        Column("EXTERNAL IP", "status.external_ip_address"),
    ),
    "bare_metal_instance": (
        Column("HOST TYPE", "spec.host_type", "ref"),
        Column("RUN", "spec.run_strategy", "enum"),
    ),
    "hub": (Column("NAMESPACE", "spec.namespace"),),
}


def columns_for(kind: Kind, descriptor: Descriptor) -> list[Column]:
    """The columns of ``kind`` that exist in the message ``descriptor`` (public or private)."""
    wanted = [*LEADING, *KIND_COLUMNS.get(kind.name, ()), *TRAILING]
    return [column for column in wanted if lookup_field(descriptor, column.path) is not None]


def reference_targets(kind: Kind, columns: list[Column]) -> dict[str, str]:
    """For each ``ref`` column, the kind its path refers to (from the registry's references)."""
    targets = {reference.path: reference.target for reference in kind.references}
    return {c.path: targets[c.path] for c in columns if c.format == "ref" and c.path in targets}
