"""What the provider admin's catalogue pages show: tenants, external IP pools, network classes,
host types, cluster templates, compute instance templates and instance types, each as rows of
cells that one template renders.

Only provider admins see them, who read through the private API: each kind's cells take the
generic ``Message`` and take it as its private class once, on entry."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from google.protobuf.message import Message

from osac.api.private.v1.cluster_template_type_pb2 import ClusterTemplate
from osac.api.private.v1.compute_instance_template_type_pb2 import ComputeInstanceTemplate
from osac.api.private.v1.external_ip_pool_type_pb2 import ExternalIPPool
from osac.api.private.v1.host_type_type_pb2 import HostType
from osac.api.private.v1.instance_type_type_pb2 import InstanceType
from osac.api.private.v1.network_class_type_pb2 import NetworkClass
from osac.api.private.v1.tenant_type_pb2 import Tenant
from osac.console.clusters import condition_type_name
from osac.console.labels import INSTANCE_TYPE_STATES, NETWORK_STATES, Label, state_label
from osac.console.networking import Names, referred_name
from osac.model.shape import as_kind, id_of, metadata_of, status_of
from osac.services.baremetal.interfaces import is_bare_metal
from osac.status.clusters import summary

Cell = str | Label


@dataclass(frozen=True)
class CatalogueRow:
    id: str
    name: str
    version: int
    cells: tuple[Cell, ...]


@dataclass(frozen=True)
class CatalogueView:
    kind: str
    path: str  # under /admin/
    title: str
    columns: tuple[str, ...]
    cells: Callable[[Message, Names], tuple[Cell, ...]]
    #: Whether each row opens its edit form (``console/edits/catalogue.py``).
    editable: bool = False
    #: Whether the list offers the create form and each row its delete (there too).
    creatable: bool = False
    #: The ids each object names, by kind: the page reads their names for ``cells``.
    refs: Mapping[str, Callable[[Message], Sequence[str]]] = field(default_factory=dict)

    def row(self, obj: Message, names: Names) -> CatalogueRow:
        meta = metadata_of(obj)
        return CatalogueRow(id_of(obj), meta.name, meta.version, self.cells(obj, names))


def _state(obj: Message) -> Label:
    return state_label(NETWORK_STATES, status_of(obj).state)


def tenant_cells(obj: Message, names: Names) -> tuple[Cell, ...]:
    """State, then the DefaultNetworkingReady condition (status, reason, message)."""
    tenant = as_kind(obj, Tenant)
    found = next((c for c in tenant.status.conditions if condition_type_name(c) == "DefaultNetworkingReady"), None)
    if found is None:
        return _state(tenant), "-", "-", tenant.status.message or "-"
    return _state(tenant), summary.status_text(found.status), found.reason or "-", found.message or "-"


def pool_cells(obj: Message, names: Names) -> tuple[Cell, ...]:
    pool = as_kind(obj, ExternalIPPool)
    status = pool.status
    family = {1: "IPv4", 2: "IPv6"}.get(pool.spec.ip_family, str(pool.spec.ip_family))
    return (", ".join(pool.spec.cidrs) or "-", family, f"{status.allocated} / {status.total}", str(status.available),
            _state(pool))


def network_class_cells(obj: Message, names: Names) -> tuple[Cell, ...]:
    cls = as_kind(obj, NetworkClass)
    supported = cls.capabilities
    capabilities = [text for flag, text in ((supported.supports_ipv4, "IPv4"), (supported.supports_ipv6, "IPv6"),
                                            (supported.supports_dual_stack, "dual stack"),
                                            (supported.dpu_support, "DPU")) if flag]
    return (cls.title or "-", "yes" if cls.is_default else "no", ", ".join(capabilities) or "-",
            cls.spec.defaults.virtual_network_ipv4_cidr or "-", _state(cls))


def host_type_cells(obj: Message, names: Names) -> tuple[Cell, ...]:
    host_type = as_kind(obj, HostType)
    interfaces = ", ".join(f"{i.name} ({i.role})" for i in host_type.interfaces)
    return (host_type.title or "-", "bare metal" if is_bare_metal(host_type) else "virtual", interfaces or "-")


def cluster_template_cells(obj: Message, names: Names) -> tuple[Cell, ...]:
    template = as_kind(obj, ClusterTemplate)
    node_sets = ", ".join(f"{key}: {ns.size} × {ns.host_type}" for key, ns in sorted(template.node_sets.items()))
    required = [p.name for p in template.parameters if p.required]
    return (template.title or "-", node_sets or "-", str(len(template.parameters)), ", ".join(required) or "-")


def compute_template_cells(obj: Message, names: Names) -> tuple[Cell, ...]:
    template = as_kind(obj, ComputeInstanceTemplate)
    defaults = template.spec_defaults
    required = [p.name for p in template.parameters if p.required]
    return (template.title or "-", referred_name(names, "instance_type", defaults.instance_type),
            defaults.image.source_ref or "-",
            str(len(template.parameters)), ", ".join(required) or "-")


def instance_type_cells(obj: Message, names: Names) -> tuple[Cell, ...]:
    spec = as_kind(obj, InstanceType).spec
    gpu = f"{spec.gpu.count} × {spec.gpu.resource_name}" if spec.gpu.count else "-"
    return (str(spec.cores), str(spec.memory_gib), gpu, state_label(INSTANCE_TYPE_STATES, spec.state),
            spec.description or "-")


VIEWS: dict[str, CatalogueView] = {view.path: view for view in (
    CatalogueView("tenant", "tenants", "Tenants",
                  ("State", "Default networking ready", "Reason", "Message"), tenant_cells, editable=True),
    CatalogueView("external_ip_pool", "external-ip-pools", "External IP pools",
                  ("CIDRs", "Family", "Allocated / total", "Available", "State"), pool_cells),
    CatalogueView("network_class", "network-classes", "Network classes",
                  ("Title", "Default", "Capabilities", "Default network CIDR", "State"), network_class_cells,
                  editable=True, creatable=True),
    CatalogueView("host_type", "host-types", "Host types", ("Title", "Hosts", "Interfaces"), host_type_cells,
                  editable=True, creatable=True),
    CatalogueView("cluster_template", "cluster-templates", "Cluster templates",
                  ("Title", "Node sets", "Parameters", "Required parameters"), cluster_template_cells,
                  editable=True),
    CatalogueView("compute_instance_template", "compute-instance-templates", "Compute instance templates",
                  ("Title", "Instance type", "Image", "Parameters", "Required parameters"), compute_template_cells,
                  refs={"instance_type": lambda o: [as_kind(o, ComputeInstanceTemplate).spec_defaults.instance_type]}),
    CatalogueView("instance_type", "instance-types", "Instance types",
                  ("Cores", "Memory (GiB)", "GPU", "State", "Description"), instance_type_cells),
)}
