"""The registry of API kinds: one descriptor per kind. Adding a kind touches only this list."""

from __future__ import annotations

from collections.abc import Iterator

from osac.model.kinds import READ_ONLY, Kind, Reference, Scope

KINDS: tuple[Kind, ...] = (
    Kind(
        "tenant", "Tenant", "Tenants", "tenants",
        scope=Scope.SELF, has_teardown=True,
    ),
    Kind(
        "network_class", "NetworkClass", "NetworkClasses", "network_classes",
        scope=Scope.SHARED, flat=True, public_methods=READ_ONLY,
        immutable=("fabric_manager", "k8s_manager"),
    ),
    Kind(
        "virtual_network", "VirtualNetwork", "VirtualNetworks", "virtual_networks",
        has_teardown=True, aliases=("vn", "vnet"),
        immutable=("spec.region", "spec.network_class", "spec.ipv4_cidr", "spec.ipv6_cidr",
                   "spec.capabilities"),
        references=(Reference("spec.network_class", "network_class"),),
    ),
    Kind(
        "subnet", "Subnet", "Subnets", "subnets", has_teardown=True,
        immutable=("spec.virtual_network", "spec.ipv4_cidr", "spec.ipv6_cidr"),
        references=(Reference("spec.virtual_network", "virtual_network"),),
    ),
    Kind(
        "security_group", "SecurityGroup", "SecurityGroups", "security_groups",
        has_teardown=True, aliases=("sg",),
        immutable=("spec.virtual_network",),
        references=(Reference("spec.virtual_network", "virtual_network"),),
    ),
    Kind(
        "external_ip_pool", "ExternalIPPool", "ExternalIPPools", "external_ip_pools",
        scope=Scope.SHARED, public_methods=READ_ONLY, has_teardown=True,
        immutable=("spec.cidrs", "spec.ip_family"),
    ),
    Kind(
        "external_ip", "ExternalIP", "ExternalIPs", "external_ips", has_teardown=True,
        aliases=("eip",),
        immutable=("spec.pool",),
        references=(Reference("spec.pool", "external_ip_pool"),),
    ),
    Kind(
        "external_ip_attachment", "ExternalIPAttachment", "ExternalIPAttachments",
        "external_ip_attachments", has_teardown=True, aliases=("eipa",),
        immutable=("spec.external_ip", "spec.compute_instance", "spec.cluster",
                   "spec.baremetal_instance", "spec.target_endpoint"),
        references=(
            Reference("spec.external_ip", "external_ip"),
            Reference("spec.compute_instance", "compute_instance", blocks_delete=False),
            Reference("spec.cluster", "cluster", blocks_delete=False),
            Reference("spec.baremetal_instance", "bare_metal_instance", blocks_delete=False),
        ),
    ),
    Kind(
        "nat_gateway", "NATGateway", "NATGateways", "nat_gateways", has_teardown=True,
        aliases=("natgw",),
        immutable=("spec.virtual_network", "spec.external_ip"),
        references=(
            Reference("spec.virtual_network", "virtual_network"),
            Reference("spec.external_ip", "external_ip"),
        ),
    ),
    Kind(
        "host_type", "HostType", "HostTypes", "host_types", scope=Scope.SHARED, flat=True,
    ),
    Kind(
        "cluster_template", "ClusterTemplate", "ClusterTemplates", "cluster_templates",
        scope=Scope.SHARED, flat=True,
        references=(Reference("node_sets{}.host_type", "host_type"),),
    ),
    Kind(
        "cluster", "Cluster", "Clusters", "clusters", has_teardown=True, write_only=("spec.pull_secret",),
        immutable=("spec.template", "spec.template_parameters", "spec.ssh_public_key",
                   "spec.release_image", "spec.network", "spec.catalog_item",
                   "spec.network_attachment.subnet", "spec.auto_external_ip_attachment"),
        references=(
            Reference("spec.template", "cluster_template"),
            Reference("spec.node_sets{}.host_type", "host_type"),
            Reference("spec.network_attachment.subnet", "subnet"),
            Reference("spec.network_attachment.security_groups[]", "security_group"),
        ),
    ),
    Kind(
        "compute_instance_template", "ComputeInstanceTemplate", "ComputeInstanceTemplates",
        "compute_instance_templates", scope=Scope.SHARED, flat=True,
        references=(Reference("spec_defaults.instance_type", "instance_type"),),
    ),
    Kind(
        "instance_type", "InstanceType", "InstanceTypes", "instance_types", scope=Scope.SHARED,
    ),
    Kind(
        "compute_instance", "ComputeInstance", "ComputeInstances", "compute_instances",
        has_teardown=True, aliases=("vm", "vms", "ci"),
        immutable=("spec.template", "spec.template_parameters", "spec.image",
                   "spec.ssh_public_key", "spec.boot_disk", "spec.additional_disks",
                   "spec.user_data", "spec.catalog_item", "spec.is_windows", "spec.instance_type",
                   "spec.auto_external_ip_attachment"),
        references=(
            Reference("spec.template", "compute_instance_template"),
            Reference("spec.instance_type", "instance_type"),
            Reference("spec.compute_network_attachments[].subnet", "subnet"),
            Reference("spec.compute_network_attachments[].security_groups[]", "security_group"),
            # The deprecated input-only field 14: resolved like field 18, converted, never stored.
            Reference("spec.network_attachments[].subnet", "subnet", blocks_delete=False),
            Reference("spec.network_attachments[].security_groups[]", "security_group", blocks_delete=False),
        ),
    ),
    Kind(
        "bare_metal_instance", "BareMetalInstance", "BareMetalInstances", "baremetal_instances",
        has_teardown=True, aliases=("baremetal_instance", "baremetalinstance", "bmi"),
        immutable=("spec.catalog_item", "spec.ssh_public_key", "spec.user_data",
                   "spec.template_parameters", "spec.image", "spec.host_type",
                   "spec.auto_external_ip_attachment"),
        references=(
            Reference("spec.host_type", "host_type"),
            Reference("spec.network_attachments[].subnet", "subnet"),
            Reference("spec.network_attachments[].security_groups[]", "security_group"),
        ),
    ),
    Kind(
        "hub", "Hub", "Hubs", "hubs", scope=Scope.SYSTEM, public_methods=frozenset(),
    ),
)

_BY_NAME = {kind.name: kind for kind in KINDS}


#: Full protobuf names of every kind's write-only fields (filters refuse them).
WRITE_ONLY_FIELDS: frozenset[str] = frozenset().union(*(kind.write_only_fields for kind in KINDS))


def kinds() -> Iterator[Kind]:
    return iter(KINDS)


def get(name: str) -> Kind:
    return _BY_NAME[name]


def has(name: str) -> bool:
    """Whether ``name`` is a kind's name."""
    return name in _BY_NAME


def by_message(message: str) -> Kind:
    for kind in KINDS:
        if kind.message == message:
            return kind
    raise KeyError(message)


def by_collection(collection: str) -> Kind:
    for kind in KINDS:
        if kind.collection == collection:
            return kind
    raise KeyError(collection)


def lookup(word: str) -> Kind | None:
    """A kind from what a person types: singular or plural, any case, with or without ``_``,
    or a short alias (``get subnets``, ``get ComputeInstance``, ``get vm``)."""
    wanted = word.lower().replace("-", "_")
    squashed = wanted.replace("_", "")
    for kind in KINDS:
        spellings = {kind.name, kind.collection, kind.message.lower(), kind.service.lower(), *kind.aliases}
        if wanted in spellings or squashed in {s.replace("_", "") for s in spellings}:
            return kind
    return None
