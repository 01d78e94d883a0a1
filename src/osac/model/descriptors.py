"""Every kind's descriptor, in registry order. Adding a kind is one entry here, plus the
registrations of its behaviour (``osac.services.kinds``) and its reconciler
(``osac.controllers.kinds``), which the layers above make against its name.

Importing this module loads no API type (``osac create --help`` lists the kinds' options from it);
``osac.model.registry`` adds the lookups and what is computed from the API's descriptors.
"""

from __future__ import annotations

from osac.model.columns import PUBLIC, Column
from osac.model.flags import ATTACHMENT_HELP, RULE_HELP, VN, Flag, instance_flags
from osac.model.kinds import READ_ONLY, Group, Kind, Policy, Reference, Scope

VM_ATTACHMENTS = "spec.compute_network_attachments"
BM_ATTACHMENTS = "spec.network_attachments"

KINDS: tuple[Kind, ...] = (
    Kind(
        "tenant", "Tenant", "Tenants", "tenants",
        group=Group.TENANCY, noun="tenant", plural="tenants", policy=Policy.PROVIDER_WRITES,
        scope=Scope.SELF, has_teardown=True, reconciled=True,
        columns=(Column("DOMAINS", "spec.domains"),),
        flags=(Flag("--domain", "spec.domains", "an e-mail domain of the tenant (repeatable)"),),
    ),
    Kind(
        "network_class", "NetworkClass", "NetworkClasses", "network_classes",
        group=Group.NETWORKING, noun="network class", plural="network classes", policy=Policy.READ_ONLY,
        scope=Scope.SHARED, flat=True, public_methods=READ_ONLY, reconciled=True,
        immutable=("fabric_manager", "k8s_manager"),
        columns=(
            Column("DEFAULT", "is_default", "yes"),
            Column("FABRIC MANAGER", "fabric_manager"),
        ),
        flags=(
            Flag("--title", "title", "title shown to tenants"),
            Flag("--description", "description", "description shown to tenants"),
            Flag("--fabric-manager", "fabric_manager", "registered fabric manager (required)"),
            Flag("--k8s-manager", "k8s_manager", "registered k8s manager (none: bare metal only)"),
            Flag("--default", "is_default", "make it the default class", switch=True),
            Flag("--vip-prefix-length", "spec.vip_prefix_length", "prefix length of a subnet's VIP range (28)"),
            Flag("--vn-cidr", "spec.defaults.virtual_network_ipv4_cidr", "tenant default: network IPv4 CIDR"),
            Flag("--vn-ipv6-cidr", "spec.defaults.virtual_network_ipv6_cidr", "tenant default: network IPv6 CIDR"),
            Flag("--subnet-cidr", "spec.defaults.subnet_ipv4_cidr", "tenant default: subnet IPv4 CIDR"),
            Flag("--subnet-ipv6-cidr", "spec.defaults.subnet_ipv6_cidr", "tenant default: subnet IPv6 CIDR"),
            Flag("--nat-gateway", "spec.defaults.enable_nat_gateway", "tenant default: a NAT gateway", switch=True),
            Flag("--ingress", "spec.defaults.ingress_rules", f"tenant default: ingress {RULE_HELP}", "rule"),
            Flag("--egress", "spec.defaults.egress_rules", f"tenant default: egress {RULE_HELP}", "rule"),
        ),
    ),
    Kind(
        "virtual_network", "VirtualNetwork", "VirtualNetworks", "virtual_networks",
        group=Group.NETWORKING, noun="virtual network", plural="virtual networks",
        has_teardown=True, reconciled=True, aliases=("vn", "vnet"),
        immutable=("spec.region", "spec.network_class", "spec.ipv4_cidr", "spec.ipv6_cidr",
                   "spec.capabilities"),
        references=(Reference("spec.network_class", "network_class"),),
        columns=(
            Column("CIDR", "spec.ipv4_cidr"),
            Column("CLASS", "spec.network_class", "ref"),
        ),
        flags=(
            Flag("--cidr", "spec.ipv4_cidr", "IPv4 CIDR of the network", aliases=("--ipv4-cidr",)),
            Flag("--ipv6-cidr", "spec.ipv6_cidr", "IPv6 CIDR of the network"),
            Flag("--network-class", "spec.network_class", "network class (name or id; default class if omitted)"),
        ),
    ),
    Kind(
        "subnet", "Subnet", "Subnets", "subnets",
        group=Group.NETWORKING, noun="subnet", plural="subnets", has_teardown=True, reconciled=True,
        immutable=("spec.virtual_network", "spec.ipv4_cidr", "spec.ipv6_cidr"),
        references=(Reference("spec.virtual_network", "virtual_network"),),
        columns=(
            Column("VIRTUAL NETWORK", "spec.virtual_network", "ref"),
            Column("CIDR", "spec.ipv4_cidr"),
            Column("GATEWAY", "status.gateway"),
            Column("AVAILABLE", "status.available_addresses"),
        ),
        flags=(
            Flag("--virtual-network", "spec.virtual_network", "virtual network (name or id)", aliases=VN),
            Flag("--cidr", "spec.ipv4_cidr", "IPv4 CIDR inside the network's", aliases=("--ipv4-cidr",)),
            Flag("--ipv6-cidr", "spec.ipv6_cidr", "IPv6 CIDR inside the network's"),
        ),
    ),
    Kind(
        "security_group", "SecurityGroup", "SecurityGroups", "security_groups",
        group=Group.NETWORKING, noun="security group", plural="security groups",
        has_teardown=True, reconciled=True, aliases=("sg",),
        immutable=("spec.virtual_network",),
        references=(Reference("spec.virtual_network", "virtual_network"),),
        columns=(
            Column("VIRTUAL NETWORK", "spec.virtual_network", "ref"),
            Column("INGRESS", "spec.ingress", "rules"),
            Column("EGRESS", "spec.egress", "rules"),
        ),
        flags=(
            Flag("--virtual-network", "spec.virtual_network", "virtual network (name or id)", aliases=VN),
            Flag("--ingress", "spec.ingress", f"ingress {RULE_HELP}", "rule"),
            Flag("--egress", "spec.egress", f"egress {RULE_HELP}", "rule"),
        ),
    ),
    Kind(
        "external_ip_pool", "ExternalIPPool", "ExternalIPPools", "external_ip_pools",
        group=Group.NETWORKING, noun="external IP pool", plural="external IP pools", policy=Policy.READ_ONLY,
        scope=Scope.SHARED, public_methods=READ_ONLY, has_teardown=True, reconciled=True,
        immutable=("spec.cidrs", "spec.ip_family"),
        columns=(
            Column("CIDRS", "spec.cidrs"),
            Column("FAMILY", "spec.ip_family", "enum"),
            Column("AVAILABLE", "status.available", api=PUBLIC),
            Column("TOTAL", "status.total"),
            Column("ALLOCATED", "status.allocated"),
        ),
        flags=(
            Flag("--cidr", "spec.cidrs", "a CIDR of the pool (repeatable)"),
            Flag("--family", "spec.ip_family", "ipv4 (default) or ipv6"),
        ),
    ),
    Kind(
        "external_ip", "ExternalIP", "ExternalIPs", "external_ips",
        group=Group.NETWORKING, noun="external IP", plural="external IPs", has_teardown=True, reconciled=True,
        aliases=("eip",),
        immutable=("spec.pool",),
        references=(Reference("spec.pool", "external_ip_pool"),),
        columns=(
            Column("POOL", "spec.pool", "ref"),
            Column("ADDRESS", "status.address"),
            Column("ATTACHED", "status.attached", "yes"),
        ),
        flags=(Flag("--pool", "spec.pool", "external IP pool (name or id)"),),
    ),
    Kind(
        "external_ip_attachment", "ExternalIPAttachment", "ExternalIPAttachments",
        "external_ip_attachments",
        group=Group.NETWORKING, noun="external IP attachment", plural="external IP attachments",
        has_teardown=True, reconciled=True, aliases=("eipa",),
        immutable=("spec.external_ip", "spec.compute_instance", "spec.cluster",
                   "spec.baremetal_instance", "spec.target_endpoint"),
        references=(
            Reference("spec.external_ip", "external_ip"),
            Reference("spec.compute_instance", "compute_instance", blocks_delete=False),
            Reference("spec.cluster", "cluster", blocks_delete=False),
            Reference("spec.baremetal_instance", "bare_metal_instance", blocks_delete=False),
        ),
        columns=(
            Column("EXTERNAL IP", "spec.external_ip", "ref", show="status.address"),
            Column("TARGET", "spec.target", "oneof"),
            Column("ENDPOINT", "spec.target_endpoint", "enum"),
            Column("TARGET ADDRESS", "status.target_address"),
            Column("REASON", "status.reason", after_state=True),
        ),
        flags=(
            Flag("--external-ip", "spec.external_ip", "external IP (name or id)", aliases=("--eip",)),
            Flag("--compute-instance", "spec.compute_instance", "target compute instance (name or id)",
                 aliases=("--vm",), group="target"),
            Flag("--cluster", "spec.cluster", "target cluster (name or id)", group="target"),
            Flag("--baremetal-instance", "spec.baremetal_instance", "target bare-metal instance (name or id)",
                 aliases=("--bare-metal-instance", "--bmi"), group="target"),
            Flag("--endpoint", "spec.target_endpoint", "endpoint of a cluster target: api or ingress"),
        ),
    ),
    Kind(
        "nat_gateway", "NATGateway", "NATGateways", "nat_gateways",
        group=Group.NETWORKING, noun="NAT gateway", plural="NAT gateways", has_teardown=True, reconciled=True,
        aliases=("natgw",),
        immutable=("spec.virtual_network", "spec.external_ip"),
        references=(
            Reference("spec.virtual_network", "virtual_network"),
            Reference("spec.external_ip", "external_ip"),
        ),
        columns=(
            Column("VIRTUAL NETWORK", "spec.virtual_network", "ref"),
            Column("EXTERNAL IP", "spec.external_ip", "ref", show="status.address"),
        ),
        flags=(
            Flag("--virtual-network", "spec.virtual_network", "virtual network (name or id)", aliases=VN),
            Flag("--external-ip", "spec.external_ip", "external IP (name or id)", aliases=("--eip",)),
        ),
    ),
    Kind(
        "host_type", "HostType", "HostTypes", "host_types",
        group=Group.CATALOGUE, noun="host type", plural="host types", policy=Policy.PROVIDER_WRITES,
        scope=Scope.SHARED, flat=True,
        columns=(
            Column("TITLE", "title"),
            Column("INTERFACES", "interfaces", "count"),
        ),
    ),
    Kind(
        "cluster_template", "ClusterTemplate", "ClusterTemplates", "cluster_templates",
        group=Group.CATALOGUE, noun="cluster template", plural="cluster templates", policy=Policy.PROVIDER_WRITES,
        scope=Scope.SHARED, flat=True,
        references=(Reference("node_sets{}.host_type", "host_type"),),
        columns=(
            Column("TITLE", "title"),
            Column("NODE SETS", "node_sets", "count"),
        ),
    ),
    Kind(
        "cluster", "Cluster", "Clusters", "clusters",
        group=Group.WORKLOAD, noun="cluster", plural="clusters", policy=Policy.TENANT_OWNED_WITH_CREDENTIALS,
        has_teardown=True, reconciled=True, write_only=("spec.pull_secret",),
        immutable=("spec.template", "spec.template_parameters", "spec.ssh_public_key",
                   "spec.release_image", "spec.network", "spec.catalog_item",
                   "spec.network_attachment.subnet", "spec.auto_external_ip_attachment"),
        references=(
            Reference("spec.template", "cluster_template"),
            Reference("spec.node_sets{}.host_type", "host_type"),
            Reference("spec.network_attachment.subnet", "subnet"),
            Reference("spec.network_attachment.security_groups[]", "security_group"),
        ),
        # STAGE and HEALTH are the two cell rules of cluster-status.md §14 (``cluster_columns``).
        columns=(
            Column("TEMPLATE", "spec.template", "ref"),
            Column("STAGE", "status", "cluster_stage", after_state=True),
            Column("HEALTH", "status", "cluster_health", after_state=True),
            Column("API URL", "status.api_url", after_state=True),
        ),
        flags=(
            Flag("--template", "spec.template", "cluster template (name or id)"),
            Flag("--node-set", "spec.node_sets", "node set KEY=[HOSTTYPE:]SIZE (repeatable; default: the template's)",
                 parse_entry="node_set"),
            Flag("--subnet", "spec.network_attachment.subnet", "subnet of the nodes and VIPs (default: the tenant's)"),
            Flag("--security-group", "spec.network_attachment.security_groups",
                 "security group of the nodes (repeatable)", aliases=("--sg",)),
            Flag("--external-ip-attachment", "spec.auto_external_ip_attachment",
                 "also create external IPs for the API and ingress endpoints", switch=True),
            Flag("--pull-secret-file", "spec.pull_secret", "file with the registry pull secret (JSON)",
                 reads_file=True),
            Flag("--ssh-key-file", "spec.ssh_public_key", "file with the SSH public key of the nodes", reads_file=True),
            Flag("--release-image", "spec.release_image", "OpenShift release image (default: the template's)"),
            Flag("--pod-cidr", "spec.network.pod_cidr", "pod network (default: the template's, else 10.128.0.0/14)"),
            Flag("--service-cidr", "spec.network.service_cidr",
                 "service network (default: the template's, else 172.30.0.0/16)"),
            Flag("--catalog-item", "spec.catalog_item", "catalogue label stored for metering"),
        ),
    ),
    Kind(
        "compute_instance_template", "ComputeInstanceTemplate", "ComputeInstanceTemplates",
        "compute_instance_templates",
        group=Group.CATALOGUE, noun="compute instance template", plural="compute instance templates",
        policy=Policy.PROVIDER_WRITES, scope=Scope.SHARED, flat=True,
        references=(Reference("spec_defaults.instance_type", "instance_type"),),
        columns=(Column("TITLE", "title"),),
    ),
    Kind(
        "instance_type", "InstanceType", "InstanceTypes", "instance_types",
        group=Group.CATALOGUE, noun="instance type", plural="instance types", policy=Policy.PROVIDER_WRITES,
        scope=Scope.SHARED,
        columns=(
            Column("CORES", "spec.cores"),
            Column("MEMORY GIB", "spec.memory_gib"),
            Column("STATE", "spec.state", "enum"),
        ),
    ),
    Kind(
        "compute_instance", "ComputeInstance", "ComputeInstances", "compute_instances",
        group=Group.WORKLOAD, noun="virtual machine", plural="virtual machines",
        has_teardown=True, reconciled=True, aliases=("vm", "vms", "ci"),
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
        columns=(
            Column("TEMPLATE", "spec.template", "ref"),
            Column("INSTANCE TYPE", "spec.instance_type", "ref"),
            Column("IP", "status.internal_ip_address"),
            Column("EXTERNAL IP", "status.external_ip_address"),
        ),
        flags=(
            Flag("--template", "spec.template", "compute instance template (name or id)"),
            Flag("--instance-type", "spec.instance_type", "instance type (name or id; default: the template's)"),
            *instance_flags(VM_ATTACHMENTS, ATTACHMENT_HELP, "Always (default) or Halted"),
        ),
    ),
    Kind(
        "bare_metal_instance", "BareMetalInstance", "BareMetalInstances", "baremetal_instances",
        group=Group.WORKLOAD, noun="bare-metal instance", plural="bare-metal instances",
        has_teardown=True, reconciled=True, aliases=("baremetal_instance", "baremetalinstance", "bmi"),
        immutable=("spec.catalog_item", "spec.ssh_public_key", "spec.user_data",
                   "spec.template_parameters", "spec.image", "spec.host_type",
                   "spec.auto_external_ip_attachment"),
        references=(
            Reference("spec.host_type", "host_type"),
            Reference("spec.network_attachments[].subnet", "subnet"),
            Reference("spec.network_attachments[].security_groups[]", "security_group"),
        ),
        columns=(
            Column("HOST TYPE", "spec.host_type", "ref"),
            Column("RUN", "spec.run_strategy", "enum"),
        ),
        flags=(
            Flag("--host-type", "spec.host_type", "bare-metal host type (name or id)"),
            *instance_flags(BM_ATTACHMENTS, ATTACHMENT_HELP.replace("primary=true", "interface=I,primary=true"),
                            "always (default) or halted"),
        ),
    ),
    Kind(
        "hub", "Hub", "Hubs", "hubs",
        group=Group.SYSTEM, noun="hub", plural="hubs", policy=Policy.PRIVATE_ONLY,
        scope=Scope.SYSTEM, public_methods=frozenset(),
        columns=(Column("NAMESPACE", "spec.namespace"),),
    ),
)

BY_NAME = {kind.name: kind for kind in KINDS}
