"""The columns ``osac get`` shows, per kind, as data.

Each kind gets the common identity columns, its own columns from ``KIND_COLUMNS``, then state
(and the kind's ``after_state`` columns), age and id. A column is a header, a field path and the
name of a formatter in ``render.FORMATTERS`` (``text`` when omitted). A ``ref`` column shows the
referenced object's name, or with ``show`` another of its fields (a NAT gateway's EXTERNAL IP is
the address of its external IP). Columns whose path the message does not have (a kind without
``status.state``, a private-only field in the public API) are dropped, and ``api`` keeps a column
to one API, so one table serves both. Adding a kind's columns is adding an entry here.
"""

from __future__ import annotations

from dataclasses import dataclass

from google.protobuf.descriptor import Descriptor

from osac.cli.output.fields import lookup_field
from osac.model import protos
from osac.model.kinds import Kind

PUBLIC = "public"
PRIVATE = "private"


@dataclass(frozen=True)
class Column:
    header: str
    path: str
    format: str = "text"
    #: For ``ref`` columns: the field of the referenced object to show (default its name).
    show: str = "metadata.name"
    #: Only in the table of this API (``public`` or ``private``); both when None.
    api: str | None = None
    #: Placed right after STATE (a reason explaining the state, a cluster's stage and health).
    after_state: bool = False


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
        Column("DEFAULT", "is_default", "yes"),
        Column("FABRIC MANAGER", "fabric_manager"),
    ),
    "virtual_network": (
        Column("CIDR", "spec.ipv4_cidr"),
        Column("CLASS", "spec.network_class", "ref"),
    ),
    "subnet": (
        Column("VIRTUAL NETWORK", "spec.virtual_network", "ref"),
        Column("CIDR", "spec.ipv4_cidr"),
        Column("GATEWAY", "status.gateway"),
        Column("AVAILABLE", "status.available_addresses"),
    ),
    "security_group": (
        Column("VIRTUAL NETWORK", "spec.virtual_network", "ref"),
        Column("INGRESS", "spec.ingress", "rules"),
        Column("EGRESS", "spec.egress", "rules"),
    ),
    "external_ip_pool": (
        Column("CIDRS", "spec.cidrs"),
        Column("FAMILY", "spec.ip_family", "enum"),
        Column("AVAILABLE", "status.available", api=PUBLIC),
        Column("TOTAL", "status.total"),
        Column("ALLOCATED", "status.allocated"),
    ),
    "external_ip": (
        Column("POOL", "spec.pool", "ref"),
        Column("ADDRESS", "status.address"),
        Column("ATTACHED", "status.attached", "yes"),
    ),
    "external_ip_attachment": (
        Column("EXTERNAL IP", "spec.external_ip", "ref", show="status.address"),
        Column("TARGET", "spec.target", "oneof"),
        Column("ENDPOINT", "spec.target_endpoint", "enum"),
        Column("TARGET ADDRESS", "status.target_address"),
        Column("REASON", "status.reason", after_state=True),
    ),
    "nat_gateway": (
        Column("VIRTUAL NETWORK", "spec.virtual_network", "ref"),
        Column("EXTERNAL IP", "spec.external_ip", "ref", show="status.address"),
    ),
    "host_type": (
        Column("TITLE", "title"),
        Column("INTERFACES", "interfaces", "count"),
    ),
    "cluster_template": (
        Column("TITLE", "title"),
        Column("NODE SETS", "node_sets", "count"),
    ),
    # STAGE and HEALTH are the two cell rules of cluster-status.md §14 (``cluster_columns``).
    "cluster": (
        Column("TEMPLATE", "spec.template", "ref"),
        Column("STAGE", "status", "cluster_stage", after_state=True),
        Column("HEALTH", "status", "cluster_health", after_state=True),
        Column("API URL", "status.api_url", after_state=True),
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
    api = PRIVATE if descriptor.full_name.startswith(protos.PRIVATE + ".") else PUBLIC
    own = KIND_COLUMNS.get(kind.name, ())
    state, *rest = TRAILING
    wanted = [*LEADING, *(c for c in own if not c.after_state), state, *(c for c in own if c.after_state), *rest]
    return [
        column for column in wanted
        if lookup_field(descriptor, column.path) is not None and column.api in (None, api)
    ]


def reference_targets(kind: Kind, columns: list[Column]) -> dict[str, str]:
    """For each ``ref`` column, the kind its path refers to (from the registry's references), by
    path: ``spec.external_ip`` -> ``external_ip``. A ``oneof`` column adds the references beside
    the group, its members among them (``spec.compute_instance`` -> ``compute_instance``)."""
    targets = {reference.path: reference.target for reference in kind.references}
    found: dict[str, str] = {}
    for column in columns:
        if column.format == "ref" and column.path in targets:
            found[column.path] = targets[column.path]
        elif column.format == "oneof":
            parent = column.path.rpartition(".")[0]
            found.update({path: target for path, target in targets.items() if path.rpartition(".")[0] == parent})
    return found
