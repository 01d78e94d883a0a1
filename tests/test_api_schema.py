"""Tests of the API schema (proto/ and the generated code in src/osac/api).

* the generated code is up to date (``scripts/gen_proto.py --check``) and every generated module imports;
* the binding field and enum numbers of the specs (api.md §2.2, §7, §8, §11; cluster-status.md §4, §8.1;
  compute.md §2.1, §3.1; simulator.md §5, §7), table-driven, in both packages, including the absence of
  private-only fields from the public package;
* the method conventions of api.md §3 on every service;
* public messages are name-subsets of the private ones and public enums equal the private ones;
* every enum starts with ``<NAME>_UNSPECIFIED = 0`` and prefixes its values;
* every message, field, enum, enum value, oneof, service and method carries a comment.
"""

# mypy: disable-error-code="union-attr"
from __future__ import annotations

import importlib
import importlib.util
import pkgutil
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from google.protobuf import descriptor_pb2, descriptor_pool
from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor, FileDescriptor

ROOT = Path(__file__).resolve().parent.parent
PROTO_DIR = ROOT / "proto"
GEN_SCRIPT = ROOT / "scripts" / "gen_proto.py"


def _protoc_env() -> dict[str, str]:
    """The environment ``scripts/gen_proto.py`` gives its protoc child (one definition)."""
    spec = importlib.util.spec_from_file_location("gen_proto", GEN_SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.protoc_env()  # type: ignore[no-any-return]

PUB = "osac.public.v1"
PRIV = "osac.private.v1"


# ---------------------------------------------------------------------------------------------------------------
# Loading
# ---------------------------------------------------------------------------------------------------------------


def _import_all() -> list[str]:
    import osac.api

    names = []
    for info in pkgutil.walk_packages(osac.api.__path__, "osac.api."):
        importlib.import_module(info.name)
        names.append(info.name)
    return names


MODULES = _import_all()
POOL = descriptor_pool.Default()


def _proto_paths() -> list[str]:
    return sorted(p.relative_to(PROTO_DIR).as_posix() for p in PROTO_DIR.glob("osac/*/v1/*.proto"))


def _files(package: str) -> list[FileDescriptor]:
    return [POOL.FindFileByName(p) for p in _proto_paths() if POOL.FindFileByName(p).package == package]


def _messages(package: str) -> dict[str, Descriptor]:
    return {name: d for f in _files(package) for name, d in f.message_types_by_name.items()}


def _enums(package: str) -> dict[str, EnumDescriptor]:
    return {name: d for f in _files(package) for name, d in f.enum_types_by_name.items()}


def _services(package: str):
    return {name: d for f in _files(package) for name, d in f.services_by_name.items()}


_SCALARS = {
    FieldDescriptor.TYPE_STRING: "string",
    FieldDescriptor.TYPE_BYTES: "bytes",
    FieldDescriptor.TYPE_BOOL: "bool",
    FieldDescriptor.TYPE_INT32: "int32",
    FieldDescriptor.TYPE_INT64: "int64",
    FieldDescriptor.TYPE_UINT32: "uint32",
    FieldDescriptor.TYPE_UINT64: "uint64",
    FieldDescriptor.TYPE_DOUBLE: "double",
    FieldDescriptor.TYPE_FLOAT: "float",
}


def _short(full_name: str) -> str:
    for prefix in (PUB + ".", PRIV + "."):
        if full_name.startswith(prefix):
            return full_name[len(prefix) :]
    return full_name


def _is_map(field: FieldDescriptor) -> bool:
    return field.message_type is not None and field.message_type.GetOptions().map_entry


def _is_repeated(field: FieldDescriptor) -> bool:
    return field.is_repeated


def kind(field: FieldDescriptor) -> str:
    """Package-independent type of a field: `string`, `repeated Subnet`, `map<string,google.protobuf.Any>`."""
    if _is_map(field):
        entry = field.message_type
        return f"map<{kind(entry.fields_by_name['key'])},{kind(entry.fields_by_name['value'])}>"
    if field.type == FieldDescriptor.TYPE_MESSAGE:
        base = _short(field.message_type.full_name)
    elif field.type == FieldDescriptor.TYPE_ENUM:
        base = _short(field.enum_type.full_name)
    else:
        base = _SCALARS[field.type]
    return f"repeated {base}" if _is_repeated(field) else base


def _field_proto(field: FieldDescriptor) -> descriptor_pb2.FieldDescriptorProto:
    proto = descriptor_pb2.DescriptorProto()
    field.containing_type.CopyToProto(proto)
    return next(f for f in proto.field if f.name == field.name)


def _real_oneof(field: FieldDescriptor) -> str | None:
    if field.containing_oneof is None or _field_proto(field).proto3_optional:
        return None
    return field.containing_oneof.name


def _lookup(package: str, symbol: str):
    """`Message.field` -> FieldDescriptor, `Enum.VALUE` -> EnumValueDescriptor, or None if absent."""
    type_name, member = symbol.split(".")
    full = f"{package}.{type_name}"
    try:
        message = POOL.FindMessageTypeByName(full)
    except KeyError:
        message = None
    if message is not None:
        return message.fields_by_name.get(member)
    try:
        enum = POOL.FindEnumTypeByName(full)
    except KeyError:
        return None
    return enum.values_by_name.get(member)


# ---------------------------------------------------------------------------------------------------------------
# (a) generated code
# ---------------------------------------------------------------------------------------------------------------


def test_generated_code_is_up_to_date() -> None:
    result = subprocess.run(
        [sys.executable, str(GEN_SCRIPT), "--check"], cwd=ROOT, capture_output=True, text=True, timeout=300,
        env=_protoc_env(),
    )
    assert result.returncode == 0, f"generated code is stale:\n{result.stdout}{result.stderr}"


def test_every_proto_file_has_an_importable_module() -> None:
    protos = _proto_paths()
    assert len(protos) >= 80
    for path in protos:
        pkg, stem = re.fullmatch(r"osac/(public|private)/v1/(\w+)\.proto", path).groups()
        module = importlib.import_module(f"osac.api.{pkg}.v1.{stem}_pb2")
        # Descriptor file names and proto packages keep the real proto paths (gRPC reflection shows them).
        assert module.DESCRIPTOR.name == path
        assert module.DESCRIPTOR.package == f"osac.{pkg}.v1"
        has_service = bool(module.DESCRIPTOR.services_by_name)
        grpc_module = f"osac.api.{pkg}.v1.{stem}_pb2_grpc"
        assert (grpc_module in MODULES) == has_service, grpc_module
        for message in module.DESCRIPTOR.message_types_by_name.values():
            cls = getattr(module, message.name)
            assert cls.__module__ == module.__name__


def test_all_generated_modules_import() -> None:
    assert "osac.api.private.v1.cluster_type_pb2" in MODULES
    assert "osac.api.public.v1.subnets_service_pb2_grpc" in MODULES
    for name in MODULES:
        assert importlib.import_module(name) is not None


# ---------------------------------------------------------------------------------------------------------------
# (b) binding numbers: (symbol, public number, private number); None = must not exist in that package.
# ---------------------------------------------------------------------------------------------------------------

NUMBERS: list[tuple[str, int | None, int | None]] = [
    # api.md §2.2 Metadata
    ("Metadata.creation_timestamp", 1, 1),
    ("Metadata.deletion_timestamp", 2, 2),
    ("Metadata.finalizers", None, 3),
    ("Metadata.creator", 3, 4),
    ("Metadata.name", 4, 6),
    ("Metadata.tenant", 5, 5),
    ("Metadata.labels", 7, 7),
    ("Metadata.annotations", 8, 8),
    ("Metadata.version", 9, 9),
    ("Metadata.project", 10, 10),
    # api.md §2.7 ConditionStatus
    ("ConditionStatus.CONDITION_STATUS_UNSPECIFIED", 0, 0),
    ("ConditionStatus.CONDITION_STATUS_TRUE", 1, 1),
    ("ConditionStatus.CONDITION_STATUS_FALSE", 2, 2),
    # §11.1 Tenant
    ("Tenant.id", 1, 1),
    ("Tenant.metadata", 2, 2),
    ("Tenant.spec", 3, 3),
    ("Tenant.status", 4, 4),
    ("TenantSpec.domains", 1, 1),
    ("TenantStatus.state", 2, 2),
    ("TenantStatus.message", 3, 3),
    ("TenantStatus.conditions", 6, 6),
    ("TenantState.TENANT_STATE_PENDING", 1, 1),
    ("TenantState.TENANT_STATE_READY", 2, 2),
    ("TenantState.TENANT_STATE_FAILED", 3, 3),
    ("TenantState.TENANT_STATE_DELETING", 4, 4),
    ("TenantState.TENANT_STATE_DELETE_FAILED", 5, 5),
    ("TenantConditionType.TENANT_CONDITION_TYPE_DEFAULT_NETWORKING_READY", 1, 1),
    # §11.11 TenantCondition (reference numbering)
    ("TenantCondition.type", 1, 1),
    ("TenantCondition.status", 2, 2),
    ("TenantCondition.reason", 3, 3),
    ("TenantCondition.message", 4, 4),
    ("TenantCondition.last_transition_time", 5, 5),
    # §11.2 NetworkClass
    ("NetworkClass.id", 1, 1),
    ("NetworkClass.metadata", 2, 2),
    ("NetworkClass.title", 3, 3),
    ("NetworkClass.description", 4, 4),
    ("NetworkClass.implementation_strategy", None, 5),
    ("NetworkClass.constraints", None, 6),
    ("NetworkClass.capabilities", 7, 7),
    ("NetworkClass.status", 8, 8),
    ("NetworkClass.is_default", 9, 9),
    ("NetworkClass.fabric_manager", None, 10),
    ("NetworkClass.k8s_manager", None, 11),
    ("NetworkClass.spec", 12, 12),
    ("NetworkClassCapabilities.supports_ipv4", 1, 1),
    ("NetworkClassCapabilities.supports_ipv6", 2, 2),
    ("NetworkClassCapabilities.supports_dual_stack", 3, 3),
    ("NetworkClassCapabilities.dpu_support", 4, 4),
    ("NetworkClassStatus.state", 1, 1),
    ("NetworkClassStatus.message", 2, 2),
    ("NetworkClassStatus.hub", None, 3),
    ("NetworkClassSpec.defaults", 1, 1),
    ("NetworkClassSpec.disable_capabilities", 2, 2),
    ("NetworkClassSpec.vip_prefix_length", 3, 3),
    ("NetworkDefaults.virtual_network_ipv4_cidr", 1, 1),
    ("NetworkDefaults.subnet_ipv4_cidr", 2, 2),
    ("NetworkDefaults.ingress_rules", 3, 3),
    ("NetworkDefaults.egress_rules", 4, 4),
    ("NetworkDefaults.virtual_network_ipv6_cidr", 5, 5),
    ("NetworkDefaults.subnet_ipv6_cidr", 6, 6),
    ("NetworkDefaults.enable_nat_gateway", 7, 7),
    ("NetworkClassState.NETWORK_CLASS_STATE_PENDING", 1, 1),
    ("NetworkClassState.NETWORK_CLASS_STATE_READY", 2, 2),
    ("NetworkClassState.NETWORK_CLASS_STATE_FAILED", 3, 3),
    ("NetworkClassState.NETWORK_CLASS_STATE_DELETING", 4, 4),
    ("NetworkClassState.NETWORK_CLASS_STATE_DELETE_FAILED", 5, 5),
    # §11.3 VirtualNetwork
    ("VirtualNetworkSpec.region", None, 1),
    ("VirtualNetworkSpec.network_class", 2, 2),
    ("VirtualNetworkSpec.ipv4_cidr", 3, 3),
    ("VirtualNetworkSpec.ipv6_cidr", 4, 4),
    ("VirtualNetworkSpec.capabilities", 5, 5),
    ("VirtualNetworkSpec.implementation_strategy", None, 6),
    ("VirtualNetworkCapabilities.enable_ipv4", 1, 1),
    ("VirtualNetworkCapabilities.enable_ipv6", 2, 2),
    ("VirtualNetworkCapabilities.enable_dual_stack", 3, 3),
    ("VirtualNetworkStatus.state", 1, 1),
    ("VirtualNetworkStatus.message", 2, 2),
    ("VirtualNetworkStatus.hub", None, 3),
    ("VirtualNetworkState.VIRTUAL_NETWORK_STATE_DELETING", 4, 4),
    ("VirtualNetworkState.VIRTUAL_NETWORK_STATE_DELETE_FAILED", 5, 5),
    # §11.3 Subnet
    ("SubnetSpec.virtual_network", 1, 1),
    ("SubnetSpec.ipv4_cidr", 2, 2),
    ("SubnetSpec.ipv6_cidr", 3, 3),
    ("SubnetStatus.state", 1, 1),
    ("SubnetStatus.message", 2, 2),
    ("SubnetStatus.hub", None, 3),
    ("SubnetStatus.gateway", 3, 4),
    ("SubnetStatus.vip_range", 4, 5),
    ("SubnetStatus.available_addresses", 5, 6),
    ("SubnetState.SUBNET_STATE_PENDING", 1, 1),
    ("SubnetState.SUBNET_STATE_READY", 2, 2),
    ("SubnetState.SUBNET_STATE_FAILED", 3, 3),
    ("SubnetState.SUBNET_STATE_DELETING", 4, 4),
    ("SubnetState.SUBNET_STATE_DELETE_FAILED", 5, 5),
    # §11.3 SecurityGroup, SecurityRule, Protocol
    ("SecurityGroupSpec.virtual_network", 1, 1),
    ("SecurityGroupSpec.ingress", 2, 2),
    ("SecurityGroupSpec.egress", 3, 3),
    ("SecurityGroupSpec.implementation_strategy", None, 4),
    ("SecurityGroupStatus.state", 1, 1),
    ("SecurityGroupStatus.message", 2, 2),
    ("SecurityGroupStatus.hub", None, 3),
    ("SecurityGroupState.SECURITY_GROUP_STATE_DELETE_FAILED", 5, 5),
    ("SecurityRule.protocol", 1, 1),
    ("SecurityRule.port_from", 2, 2),
    ("SecurityRule.port_to", 3, 3),
    ("SecurityRule.ipv4_cidr", 4, 4),
    ("SecurityRule.ipv6_cidr", 5, 5),
    ("Protocol.PROTOCOL_TCP", 1, 1),
    ("Protocol.PROTOCOL_UDP", 2, 2),
    ("Protocol.PROTOCOL_ICMP", 3, 3),
    ("Protocol.PROTOCOL_ALL", 4, 4),
    # §11.3 ExternalIPPool (public view: ip_family and available only)
    ("ExternalIPPoolSpec.cidrs", None, 2),
    ("ExternalIPPoolSpec.ip_family", 3, 3),
    ("ExternalIPPoolSpec.implementation_strategy", None, 4),
    ("ExternalIPPoolStatus.state", None, 1),
    ("ExternalIPPoolStatus.message", None, 2),
    ("ExternalIPPoolStatus.hub", None, 3),
    ("ExternalIPPoolStatus.total", None, 4),
    ("ExternalIPPoolStatus.allocated", None, 5),
    ("ExternalIPPoolStatus.available", 6, 6),
    ("ExternalIPPoolState.EXTERNAL_IP_POOL_STATE_READY", None, 2),
    ("ExternalIPPoolState.EXTERNAL_IP_POOL_STATE_DELETE_FAILED", None, 5),
    ("IPFamily.IP_FAMILY_IPV4", 1, 1),
    ("IPFamily.IP_FAMILY_IPV6", 2, 2),
    # §11.3 ExternalIP
    ("ExternalIPSpec.pool", 1, 1),
    ("ExternalIPStatus.state", 1, 1),
    ("ExternalIPStatus.message", 2, 2),
    ("ExternalIPStatus.hub", None, 3),
    ("ExternalIPStatus.address", 3, 4),
    ("ExternalIPStatus.pool", 4, 5),
    ("ExternalIPStatus.attached", 5, 6),
    ("ExternalIPStatus.state_transition_time", 6, 7),
    ("ExternalIPState.EXTERNAL_IP_STATE_PENDING", 1, 1),
    ("ExternalIPState.EXTERNAL_IP_STATE_ALLOCATED", 2, 2),
    ("ExternalIPState.EXTERNAL_IP_STATE_FAILED", 3, 3),
    ("ExternalIPState.EXTERNAL_IP_STATE_DELETING", 4, 4),
    ("ExternalIPState.EXTERNAL_IP_STATE_DELETE_FAILED", 5, 5),
    # §11.3 ExternalIPAttachment
    ("ExternalIPAttachmentSpec.external_ip", 1, 1),
    ("ExternalIPAttachmentSpec.compute_instance", 2, 2),
    ("ExternalIPAttachmentSpec.cluster", 3, 3),
    ("ExternalIPAttachmentSpec.baremetal_instance", 4, 4),
    ("ExternalIPAttachmentSpec.target_endpoint", 5, 5),
    ("ExternalIPAttachmentEndpoint.EXTERNAL_IP_ATTACHMENT_ENDPOINT_API", 1, 1),
    ("ExternalIPAttachmentEndpoint.EXTERNAL_IP_ATTACHMENT_ENDPOINT_INGRESS", 2, 2),
    ("ExternalIPAttachmentStatus.state", 1, 1),
    ("ExternalIPAttachmentStatus.external_ip_address", 2, 2),
    ("ExternalIPAttachmentStatus.message", 3, 3),
    ("ExternalIPAttachmentStatus.hub", None, 4),
    ("ExternalIPAttachmentStatus.reason", 4, 5),
    ("ExternalIPAttachmentStatus.target_address", 5, 6),
    ("ExternalIPAttachmentState.EXTERNAL_IP_ATTACHMENT_STATE_READY", 2, 2),
    ("ExternalIPAttachmentState.EXTERNAL_IP_ATTACHMENT_STATE_DELETE_FAILED", 5, 5),
    # §11.3 NATGateway
    ("NATGatewaySpec.virtual_network", 1, 1),
    ("NATGatewaySpec.external_ip", 2, 2),
    ("NATGatewayStatus.state", 1, 1),
    ("NATGatewayStatus.message", 2, 2),
    ("NATGatewayStatus.hub", None, 3),
    ("NATGatewayState.NAT_GATEWAY_STATE_PENDING", 1, 1),
    ("NATGatewayState.NAT_GATEWAY_STATE_READY", 2, 2),
    ("NATGatewayState.NAT_GATEWAY_STATE_DELETE_FAILED", 5, 5),
    # §11.4 HostType
    ("HostType.id", 1, 1),
    ("HostType.metadata", 2, 2),
    ("HostType.title", 3, 3),
    ("HostType.description", 4, 4),
    ("HostType.interfaces", 5, 5),
    ("NetworkInterface.name", 1, 1),
    ("NetworkInterface.role", 2, 2),
    ("NetworkInterface.description", 3, 3),
    # §11.5 ClusterTemplate
    ("ClusterTemplate.title", 3, 3),
    ("ClusterTemplate.description", 4, 4),
    ("ClusterTemplate.parameters", 5, 5),
    ("ClusterTemplate.node_sets", 6, 6),
    ("ClusterTemplate.spec_defaults", 7, 7),
    ("ClusterTemplateParameterDefinition.name", 1, 1),
    ("ClusterTemplateParameterDefinition.title", 2, 2),
    ("ClusterTemplateParameterDefinition.description", 3, 3),
    ("ClusterTemplateParameterDefinition.required", 4, 4),
    ("ClusterTemplateParameterDefinition.type", 5, 5),
    ("ClusterTemplateParameterDefinition.default", 6, 6),
    ("ClusterTemplateNodeSet.host_type", 1, 1),
    ("ClusterTemplateNodeSet.size", 2, 2),
    ("ClusterTemplateSpecDefaults.ssh_public_key", 2, 2),
    ("ClusterTemplateSpecDefaults.release_image", 3, 3),
    ("ClusterTemplateSpecDefaults.network", 4, 4),
    # §11.6 Cluster
    ("ClusterSpec.template", 1, 1),
    ("ClusterSpec.template_parameters", 2, 2),
    ("ClusterSpec.node_sets", 3, 3),
    ("ClusterSpec.pull_secret", 4, 4),
    ("ClusterSpec.ssh_public_key", 5, 5),
    ("ClusterSpec.release_image", 6, 6),
    ("ClusterSpec.network", 7, 7),
    ("ClusterSpec.catalog_item", 8, 8),
    ("ClusterSpec.network_attachment", 9, 9),
    ("ClusterSpec.auto_external_ip_attachment", 10, 10),
    ("ClusterNetwork.pod_cidr", 1, 1),
    ("ClusterNetwork.service_cidr", 2, 2),
    ("ClusterNetworkAttachment.subnet", 1, 1),
    ("ClusterNetworkAttachment.security_groups", 2, 2),
    ("ClusterStatus.state", 1, 1),
    ("ClusterStatus.conditions", 2, 2),
    ("ClusterStatus.api_url", 3, 3),
    ("ClusterStatus.console_url", 4, 4),
    ("ClusterStatus.node_sets", 5, 5),
    ("ClusterStatus.hub", None, 6),
    ("ClusterStatus.api_endpoint", 6, 7),
    ("ClusterStatus.ingress_endpoint", 7, 8),
    ("ClusterStatus.state_transition_time", 8, 9),
    ("ClusterStatus.kubeconfig_secret", 9, 10),
    ("ClusterStatus.password_secret", 10, 11),
    ("ClusterStatus.stage", 11, 12),
    ("ClusterStatus.stage_entered_at", 12, 13),
    # cluster-status.md §8.1 ClusterNodeSet
    ("ClusterNodeSet.host_type", 1, 1),
    ("ClusterNodeSet.size", 2, 2),
    ("ClusterNodeSet.desired_replicas", 3, 3),
    ("ClusterNodeSet.current_replicas", 4, 4),
    ("ClusterNodeSet.ready_replicas", 5, 5),
    ("ClusterNodeSet.state", 6, 6),
    ("ClusterNodeSet.fabric_interface", 7, 7),
    ("ClusterNodeSet.first_ready_time", 8, 8),
    ("ClusterState.CLUSTER_STATE_PROGRESSING", 1, 1),
    ("ClusterState.CLUSTER_STATE_READY", 2, 2),
    ("ClusterState.CLUSTER_STATE_FAILED", 3, 3),
    ("ClusterState.CLUSTER_STATE_DELETING", 4, 4),
    ("ClusterState.CLUSTER_STATE_DELETE_FAILED", 5, 5),
    ("ClusterConditionType.CLUSTER_CONDITION_TYPE_PROGRESSING", 1, 1),
    ("ClusterConditionType.CLUSTER_CONDITION_TYPE_AVAILABLE", 2, 2),
    ("ClusterConditionType.CLUSTER_CONDITION_TYPE_FAILED", 3, 3),
    ("ClusterConditionType.CLUSTER_CONDITION_TYPE_DEGRADED", 4, 4),
    ("ClusterConditionType.CLUSTER_CONDITION_TYPE_CONTROL_PLANE_AVAILABLE", 5, 5),
    ("ClusterConditionType.CLUSTER_CONDITION_TYPE_WORKERS_READY", 6, 6),
    ("ClusterConditionType.CLUSTER_CONDITION_TYPE_READY", None, None),  # renamed to AVAILABLE
    ("ClusterNodeSetState.CLUSTER_NODE_SET_STATE_PROVISIONING", 1, 1),
    ("ClusterNodeSetState.CLUSTER_NODE_SET_STATE_READY", 2, 2),
    ("ClusterNodeSetState.CLUSTER_NODE_SET_STATE_SCALING", 3, 3),
    ("ClusterNodeSetState.CLUSTER_NODE_SET_STATE_DEGRADED", 4, 4),
    # §11.11 conditions
    ("ClusterCondition.type", 1, 1),
    ("ClusterCondition.status", 2, 2),
    ("ClusterCondition.last_transition_time", 3, 3),
    ("ClusterCondition.reason", 4, 4),
    ("ClusterCondition.message", 5, 5),
    ("ComputeInstanceCondition.type", 1, 1),
    ("ComputeInstanceCondition.last_transition_time", 3, 3),
    ("ComputeInstanceCondition.message", 5, 5),
    ("BareMetalInstanceCondition.status", 2, 2),
    ("BareMetalInstanceCondition.reason", 4, 4),
    # §11.7 ComputeInstanceTemplate, InstanceType
    ("ComputeInstanceTemplate.title", 3, 3),
    ("ComputeInstanceTemplate.description", 4, 4),
    ("ComputeInstanceTemplate.parameters", 5, 5),
    ("ComputeInstanceTemplate.spec_defaults", 6, 6),
    ("ComputeInstanceTemplateSpecDefaults.image", 3, 3),
    ("ComputeInstanceTemplateSpecDefaults.boot_disk", 4, 4),
    ("ComputeInstanceTemplateSpecDefaults.run_strategy", 5, 5),
    ("ComputeInstanceTemplateSpecDefaults.instance_type", 6, 6),
    ("ComputeInstanceTemplateSpecDefaults.is_windows", 7, 7),
    ("InstanceTypeSpec.cores", 1, 1),
    ("InstanceTypeSpec.memory_gib", 2, 2),
    ("InstanceTypeSpec.description", 3, 3),
    ("InstanceTypeSpec.state", 4, 4),
    ("InstanceTypeSpec.deprecation", 5, 5),
    ("InstanceTypeSpec.gpu", 6, 6),
    ("InstanceTypeState.INSTANCE_TYPE_STATE_ACTIVE", 1, 1),
    ("InstanceTypeState.INSTANCE_TYPE_STATE_DEPRECATED", 2, 2),
    ("InstanceTypeState.INSTANCE_TYPE_STATE_OBSOLETE", 3, 3),
    ("InstanceTypeDeprecation.state", 1, 1),
    ("InstanceTypeDeprecation.replacement", 2, 2),
    ("InstanceTypeDeprecation.deprecation_timestamp", 3, 3),
    ("InstanceTypeDeprecation.obsolescence_timestamp", 4, 4),
    ("InstanceTypeGPU.pci_device_selector", 1, 1),
    ("InstanceTypeGPU.resource_name", 2, 2),
    ("InstanceTypeGPU.count", 3, 3),
    # §11.8 ComputeInstance
    ("ComputeInstanceSpec.template", 1, 1),
    ("ComputeInstanceSpec.template_parameters", 2, 2),
    ("ComputeInstanceSpec.restart_requested_at", 3, 3),
    ("ComputeInstanceSpec.image", 4, 4),
    ("ComputeInstanceSpec.ssh_public_key", 7, 7),
    ("ComputeInstanceSpec.boot_disk", 8, 8),
    ("ComputeInstanceSpec.additional_disks", 9, 9),
    ("ComputeInstanceSpec.run_strategy", 10, 10),
    ("ComputeInstanceSpec.user_data", 11, 11),
    ("ComputeInstanceSpec.network_attachments", 14, 14),
    ("ComputeInstanceSpec.catalog_item", 15, 15),
    ("ComputeInstanceSpec.is_windows", 16, 16),
    ("ComputeInstanceSpec.instance_type", 17, 17),
    ("ComputeInstanceSpec.compute_network_attachments", 18, 18),
    ("ComputeInstanceSpec.auto_external_ip_attachment", 19, 19),
    ("ComputeInstanceImage.source_type", 1, 1),
    ("ComputeInstanceImage.source_ref", 2, 2),
    ("ComputeInstanceDisk.size_gib", 1, 1),
    ("NetworkAttachment.subnet", 1, 1),
    ("NetworkAttachment.security_groups", 2, 2),
    ("ComputeNetworkAttachment.subnet", 1, 1),
    ("ComputeNetworkAttachment.security_groups", 2, 2),
    ("ComputeNetworkAttachment.primary", 3, 3),
    ("ComputeNetworkAttachmentStatus.subnet", 1, 1),
    ("ComputeNetworkAttachmentStatus.ip_address", 2, 2),
    ("ComputeNetworkAttachmentStatus.primary", 3, 3),
    ("ComputeInstanceStatus.state", 1, 1),
    ("ComputeInstanceStatus.conditions", 2, 2),
    ("ComputeInstanceStatus.internal_ip_address", 3, 3),
    ("ComputeInstanceStatus.hub", None, 4),
    ("ComputeInstanceStatus.last_restarted_at", 4, 5),
    ("ComputeInstanceStatus.external_ip_address", 5, 6),
    ("ComputeInstanceStatus.state_transition_time", 6, 7),
    ("ComputeInstanceStatus.compute_network_attachment_statuses", 7, 8),
    # compute.md §2.1, §2.2
    ("ComputeInstanceState.COMPUTE_INSTANCE_STATE_STARTING", 1, 1),
    ("ComputeInstanceState.COMPUTE_INSTANCE_STATE_RUNNING", 2, 2),
    ("ComputeInstanceState.COMPUTE_INSTANCE_STATE_FAILED", 3, 3),
    ("ComputeInstanceState.COMPUTE_INSTANCE_STATE_DELETING", 4, 4),
    ("ComputeInstanceState.COMPUTE_INSTANCE_STATE_STOPPING", 5, 5),
    ("ComputeInstanceState.COMPUTE_INSTANCE_STATE_STOPPED", 6, 6),
    ("ComputeInstanceState.COMPUTE_INSTANCE_STATE_PAUSED", 7, 7),
    ("ComputeInstanceState.COMPUTE_INSTANCE_STATE_DELETE_FAILED", 8, 8),
    ("ComputeInstanceConditionType.COMPUTE_INSTANCE_CONDITION_TYPE_CONFIGURATION_APPLIED", 1, 1),
    ("ComputeInstanceConditionType.COMPUTE_INSTANCE_CONDITION_TYPE_READY", 2, 2),
    ("ComputeInstanceConditionType.COMPUTE_INSTANCE_CONDITION_TYPE_RESTART_IN_PROGRESS", 3, 3),
    ("ComputeInstanceConditionType.COMPUTE_INSTANCE_CONDITION_TYPE_RESTART_FAILED", 4, 4),
    ("ComputeInstanceConditionType.COMPUTE_INSTANCE_CONDITION_TYPE_PROVISIONED", 5, 5),
    ("ComputeInstanceConditionType.COMPUTE_INSTANCE_CONDITION_TYPE_RESTART_REQUIRED", 6, 6),
    # §11.9 BareMetalInstance
    ("BareMetalInstanceSpec.catalog_item", 1, 1),
    ("BareMetalInstanceSpec.ssh_public_key", 2, 2),
    ("BareMetalInstanceSpec.user_data", 3, 3),
    ("BareMetalInstanceSpec.run_strategy", 4, 4),
    ("BareMetalInstanceSpec.restart_trigger", 5, 5),
    ("BareMetalInstanceSpec.template_parameters", 6, 6),
    ("BareMetalInstanceSpec.image", 7, 7),
    ("BareMetalInstanceSpec.network_attachments", 8, 8),
    ("BareMetalInstanceSpec.auto_external_ip_attachment", 9, 9),
    ("BareMetalInstanceSpec.host_type", 10, 10),
    ("BareMetalInstanceRunStrategy.BARE_METAL_INSTANCE_RUN_STRATEGY_ALWAYS", 1, 1),
    ("BareMetalInstanceRunStrategy.BARE_METAL_INSTANCE_RUN_STRATEGY_HALTED", 2, 2),
    ("BareMetalNetworkAttachment.subnet", 1, 1),
    ("BareMetalNetworkAttachment.security_groups", 2, 2),
    ("BareMetalNetworkAttachment.interface", 3, 3),
    ("BareMetalNetworkAttachment.primary", 4, 4),
    ("BareMetalNetworkAttachmentStatus.interface", 1, 1),
    ("BareMetalNetworkAttachmentStatus.subnet", 2, 2),
    ("BareMetalNetworkAttachmentStatus.ip_address", 3, 3),
    ("BareMetalNetworkAttachmentStatus.primary", 4, 4),
    ("BareMetalInstanceStatus.state", 1, 1),
    ("BareMetalInstanceStatus.conditions", 2, 2),
    ("BareMetalInstanceStatus.restart_trigger", 3, 3),
    ("BareMetalInstanceStatus.hub", None, 4),
    ("BareMetalInstanceStatus.network_attachment_statuses", 4, 5),
    ("BareMetalInstanceStatus.state_transition_time", 5, 6),
    ("BareMetalInstanceStatus.host", None, 7),
    ("BareMetalInstanceStatus.provisioning_steps", None, 8),
    ("BareMetalInstanceProvisioningStep.gate", None, 1),
    ("BareMetalInstanceProvisioningStep.status", None, 2),
    ("BareMetalInstanceProvisioningStep.attempts", None, 3),
    ("BareMetalInstanceProvisioningStep.started_at", None, 4),
    ("BareMetalInstanceProvisioningStep.finished_at", None, 5),
    ("BareMetalInstanceProvisioningStep.message", None, 6),
    # compute.md §3.1
    ("BareMetalInstanceState.BARE_METAL_INSTANCE_STATE_PROVISIONING", 1, 1),
    ("BareMetalInstanceState.BARE_METAL_INSTANCE_STATE_RUNNING", 2, 2),
    ("BareMetalInstanceState.BARE_METAL_INSTANCE_STATE_FAILED", 3, 3),
    ("BareMetalInstanceState.BARE_METAL_INSTANCE_STATE_DELETING", 4, 4),
    ("BareMetalInstanceState.BARE_METAL_INSTANCE_STATE_STARTING", 5, 5),
    ("BareMetalInstanceState.BARE_METAL_INSTANCE_STATE_STOPPING", 6, 6),
    ("BareMetalInstanceState.BARE_METAL_INSTANCE_STATE_STOPPED", 7, 7),
    ("BareMetalInstanceState.BARE_METAL_INSTANCE_STATE_DELETE_FAILED", 8, 8),
    ("BareMetalInstanceConditionType.BARE_METAL_INSTANCE_CONDITION_TYPE_PROVISIONED", 1, 1),
    ("BareMetalInstanceConditionType.BARE_METAL_INSTANCE_CONDITION_TYPE_CONFIGURATION_APPLIED", 2, 2),
    ("BareMetalInstanceConditionType.BARE_METAL_INSTANCE_CONDITION_TYPE_READY", 3, 3),
    ("BareMetalInstanceConditionType.BARE_METAL_INSTANCE_CONDITION_TYPE_RESTART_IN_PROGRESS", 4, 4),
    ("BareMetalInstanceConditionType.BARE_METAL_INSTANCE_CONDITION_TYPE_RESTART_FAILED", 5, 5),
    ("BareMetalInstanceConditionType.BARE_METAL_INSTANCE_CONDITION_TYPE_RESTART_REQUIRED", 6, 6),
    # §11.10 Hub (private only)
    ("Hub.id", None, 1),
    ("Hub.metadata", None, 2),
    ("Hub.spec", None, 3),
    ("Hub.status", None, 4),
    ("HubSpec.kubeconfig", None, 3),
    ("HubSpec.namespace", None, 4),
    # §7.4 LifecycleEvent (flat, no metadata)
    ("LifecycleEvent.id", 1, 1),
    ("LifecycleEvent.object_type", 2, 2),
    ("LifecycleEvent.object_id", 3, 3),
    ("LifecycleEvent.tenant", 4, 4),
    ("LifecycleEvent.type", 5, 5),
    ("LifecycleEvent.reason", 6, 6),
    ("LifecycleEvent.message", 7, 7),
    ("LifecycleEvent.timestamp", 8, 8),
    ("LifecycleEvent.metadata", None, None),
    ("LifecycleEventType.LIFECYCLE_EVENT_TYPE_NORMAL", 1, 1),
    ("LifecycleEventType.LIFECYCLE_EVENT_TYPE_WARNING", 2, 2),
    # §7.1, §11.13 Event
    ("Event.id", 1, 1),
    ("Event.type", 2, 2),
    ("Event.cluster", 3, 3),
    ("Event.cluster_template", 4, 4),
    ("Event.host_type", 5, 5),
    ("Event.hub", None, 6),
    ("Event.compute_instance_template", 7, 7),
    ("Event.compute_instance", 8, 8),
    ("Event.network_class", 17, 11),
    ("Event.subnet", 18, 12),
    ("Event.virtual_network", 19, 13),
    ("Event.security_group", 20, 14),
    ("Event.instance_type", 12, 26),
    ("Event.bare_metal_instance", 15, 27),
    ("Event.tenant", 13, 31),
    ("Event.external_ip_pool", 21, 34),
    ("Event.external_ip", 22, 35),
    ("Event.external_ip_attachment", 23, 36),
    ("Event.nat_gateway", 24, 37),
    ("Event.revision", 25, 41),
    ("Event.lifecycle_event", None, None),
    ("EventType.EVENT_TYPE_OBJECT_CREATED", 1, 1),
    ("EventType.EVENT_TYPE_OBJECT_UPDATED", 2, 2),
    ("EventType.EVENT_TYPE_OBJECT_DELETED", 3, 3),
    ("EventType.EVENT_TYPE_OBJECT_SIGNALED", 4, 4),
    # §7.2 Watch
    ("EventsWatchRequest.filter", 1, 1),
    ("EventsWatchRequest.after_revision", 2, 2),
    ("EventsWatchResponse.event", 1, 1),
    # §3, §6 List (revision is A = 4)
    ("SubnetsListRequest.offset", 1, 1),
    ("SubnetsListRequest.limit", 2, 2),
    ("SubnetsListRequest.filter", 3, 3),
    ("SubnetsListRequest.order", 4, 4),
    ("SubnetsListResponse.size", 1, 1),
    ("SubnetsListResponse.total", 2, 2),
    ("SubnetsListResponse.items", 3, 3),
    ("SubnetsListResponse.revision", 4, 4),
    ("ClustersListResponse.revision", 4, 4),
    ("LifecycleEventsListResponse.revision", 4, 4),
    ("HubsListResponse.revision", None, 4),
    ("BareMetalInstancesGetResponse.object", 1, 1),
    ("ClustersUpdateRequest.object", 1, 1),
    ("ClustersUpdateRequest.update_mask", 2, 2),
    ("ClustersUpdateRequest.lock", 3, 3),
    ("ClustersGetKubeconfigRequest.id", 1, None),
    ("ClustersGetKubeconfigResponse.kubeconfig", 1, None),
    ("ClustersGetPasswordResponse.password", 1, None),
    ("ClustersSignalRequest.id", None, 1),
    ("NetworkClassesCreateRequest.object", None, 1),
    ("ExternalIPPoolsUpdateRequest.object", None, 1),
    # §8 Capabilities and keys (public only)
    ("CapabilitiesGetResponse.authn", 1, None),
    ("AuthnCapabilities.trusted_token_issuers", 1, None),
    ("JsonWebKeySetGetResponse.keys", 1, None),
    ("JsonWebKey.kty", 1, None),
    ("JsonWebKey.kid", 2, None),
    # simulator.md §5, §7 (private only)
    ("SimulatorFault.id", None, 1),
    ("SimulatorFault.target_kind", None, 2),
    ("SimulatorFault.target_id", None, 3),
    ("SimulatorFault.fault", None, 4),
    ("SimulatorFault.params", None, 5),
    ("SimulatorFault.remaining", None, 6),
    ("SimulatorFault.expires_at", None, 7),
    ("SimulatorGetObservationRequest.kind", None, 1),
    ("SimulatorGetObservationRequest.key", None, 2),
    ("SimulatorAdvanceClockRequest.duration", None, 1),
    ("SimulatorSetSpeedRequest.speed", None, 1),
    ("SimulatorCheckReachabilityRequest.src", None, 1),
    ("SimulatorCheckReachabilityRequest.dst", None, 2),
    ("SimulatorCheckReachabilityRequest.protocol", None, 3),
    ("SimulatorCheckReachabilityRequest.port", None, 4),
    ("SimulatorCheckReachabilityResponse.allowed", None, 1),
    ("SimulatorCheckReachabilityResponse.reason", None, 2),
    ("SimulatorCheckReachabilityResponse.translated_source", None, 3),
    ("SimulatorCheckReachabilityResponse.translated_destination", None, 4),
]


@pytest.mark.parametrize(("symbol", "public", "private"), NUMBERS, ids=[row[0] for row in NUMBERS])
def test_binding_numbers(symbol: str, public: int | None, private: int | None) -> None:
    for package, expected in ((PUB, public), (PRIV, private)):
        found = _lookup(package, symbol)
        if expected is None:
            assert found is None, f"{package}.{symbol} must not exist"
        else:
            assert found is not None, f"{package}.{symbol} is missing"
            assert found.number == expected, f"{package}.{symbol} = {found.number}, expected {expected}"


def test_numbers_table_is_unique_and_large() -> None:
    symbols = [row[0] for row in NUMBERS]
    assert len(symbols) == len(set(symbols))
    assert len(symbols) >= 40


# (symbol, type) in both packages where the field exists.
TYPES: list[tuple[str, str]] = [
    ("Metadata.creation_timestamp", "google.protobuf.Timestamp"),
    ("Metadata.finalizers", "repeated string"),
    ("Metadata.labels", "map<string,string>"),
    ("Metadata.annotations", "map<string,string>"),
    ("Metadata.version", "int32"),
    ("TenantSpec.domains", "repeated string"),
    ("TenantStatus.state", "TenantState"),
    ("TenantStatus.conditions", "repeated TenantCondition"),
    ("TenantCondition.status", "ConditionStatus"),
    ("NetworkClass.constraints", "NetworkClassConstraints"),
    ("NetworkClass.capabilities", "NetworkClassCapabilities"),
    ("NetworkClass.is_default", "bool"),
    ("NetworkClassSpec.disable_capabilities", "NetworkClassCapabilities"),
    ("NetworkClassSpec.vip_prefix_length", "int32"),
    ("NetworkDefaults.ingress_rules", "repeated SecurityRule"),
    ("NetworkDefaults.egress_rules", "repeated SecurityRule"),
    ("NetworkDefaults.enable_nat_gateway", "bool"),
    ("VirtualNetworkSpec.capabilities", "VirtualNetworkCapabilities"),
    ("SubnetStatus.vip_range", "string"),
    ("SubnetStatus.available_addresses", "int32"),
    ("SecurityGroupSpec.ingress", "repeated SecurityRule"),
    ("SecurityRule.protocol", "Protocol"),
    ("SecurityRule.port_from", "int32"),
    ("ExternalIPPoolSpec.cidrs", "repeated string"),
    ("ExternalIPPoolSpec.ip_family", "IPFamily"),
    ("ExternalIPPoolStatus.total", "int64"),
    ("ExternalIPPoolStatus.allocated", "int64"),
    ("ExternalIPPoolStatus.available", "int64"),
    ("ExternalIPStatus.attached", "bool"),
    ("ExternalIPStatus.state_transition_time", "google.protobuf.Timestamp"),
    ("ExternalIPAttachmentSpec.baremetal_instance", "string"),
    ("ExternalIPAttachmentSpec.target_endpoint", "ExternalIPAttachmentEndpoint"),
    ("HostType.interfaces", "repeated NetworkInterface"),
    ("ClusterTemplate.parameters", "repeated ClusterTemplateParameterDefinition"),
    ("ClusterTemplate.node_sets", "map<string,ClusterTemplateNodeSet>"),
    ("ClusterTemplateParameterDefinition.type", "string"),
    ("ClusterTemplateParameterDefinition.default", "google.protobuf.Any"),
    ("ClusterTemplateSpecDefaults.network", "ClusterNetwork"),
    ("ClusterSpec.template", "string"),
    ("ClusterSpec.template_parameters", "map<string,google.protobuf.Any>"),
    ("ClusterSpec.node_sets", "map<string,ClusterNodeSet>"),
    ("ClusterSpec.network_attachment", "ClusterNetworkAttachment"),
    ("ClusterSpec.auto_external_ip_attachment", "bool"),
    ("ClusterNetworkAttachment.security_groups", "repeated string"),
    ("ClusterStatus.conditions", "repeated ClusterCondition"),
    ("ClusterStatus.node_sets", "map<string,ClusterNodeSet>"),
    ("ClusterStatus.stage", "string"),
    ("ClusterStatus.stage_entered_at", "google.protobuf.Timestamp"),
    ("ClusterStatus.state_transition_time", "google.protobuf.Timestamp"),
    ("ClusterNodeSet.state", "ClusterNodeSetState"),
    ("ClusterNodeSet.first_ready_time", "google.protobuf.Timestamp"),
    ("ClusterCondition.type", "ClusterConditionType"),
    ("ComputeInstanceTemplateSpecDefaults.image", "ComputeInstanceImage"),
    ("ComputeInstanceTemplateSpecDefaults.boot_disk", "ComputeInstanceDisk"),
    ("ComputeInstanceTemplateSpecDefaults.instance_type", "string"),
    ("InstanceTypeSpec.deprecation", "InstanceTypeDeprecation"),
    ("InstanceTypeSpec.gpu", "InstanceTypeGPU"),
    ("ComputeInstanceSpec.restart_requested_at", "google.protobuf.Timestamp"),
    ("ComputeInstanceSpec.additional_disks", "repeated ComputeInstanceDisk"),
    ("ComputeInstanceSpec.run_strategy", "string"),
    ("ComputeInstanceSpec.network_attachments", "repeated NetworkAttachment"),
    ("ComputeInstanceSpec.compute_network_attachments", "repeated ComputeNetworkAttachment"),
    ("ComputeInstanceStatus.compute_network_attachment_statuses", "repeated ComputeNetworkAttachmentStatus"),
    ("ComputeInstanceStatus.last_restarted_at", "google.protobuf.Timestamp"),
    ("BareMetalInstanceSpec.run_strategy", "BareMetalInstanceRunStrategy"),
    ("BareMetalInstanceSpec.restart_trigger", "int64"),
    ("BareMetalInstanceSpec.image", "BareMetalInstanceImage"),
    ("BareMetalInstanceSpec.network_attachments", "repeated BareMetalNetworkAttachment"),
    ("BareMetalInstanceSpec.host_type", "string"),
    ("BareMetalInstanceStatus.restart_trigger", "int64"),
    ("BareMetalInstanceStatus.network_attachment_statuses", "repeated BareMetalNetworkAttachmentStatus"),
    ("BareMetalInstanceStatus.provisioning_steps", "repeated BareMetalInstanceProvisioningStep"),
    ("BareMetalInstanceProvisioningStep.attempts", "int32"),
    ("BareMetalInstanceProvisioningStep.started_at", "google.protobuf.Timestamp"),
    ("HubSpec.kubeconfig", "bytes"),
    ("LifecycleEvent.type", "LifecycleEventType"),
    ("LifecycleEvent.timestamp", "google.protobuf.Timestamp"),
    ("Event.type", "EventType"),
    ("Event.revision", "int64"),
    ("Event.cluster", "Cluster"),
    ("Event.nat_gateway", "NATGateway"),
    ("EventsWatchRequest.filter", "string"),
    ("EventsWatchRequest.after_revision", "int64"),
    ("EventsWatchResponse.event", "Event"),
    ("AuthnCapabilities.trusted_token_issuers", "repeated string"),
    ("JsonWebKeySetGetResponse.keys", "repeated JsonWebKey"),
    ("SimulatorFault.params", "google.protobuf.Struct"),
    ("SimulatorFault.remaining", "int32"),
    ("SimulatorFault.expires_at", "google.protobuf.Timestamp"),
    ("SimulatorGetObservationResponse.observation", "google.protobuf.Struct"),
    ("SimulatorAdvanceClockRequest.duration", "google.protobuf.Duration"),
    ("SimulatorCheckReachabilityRequest.protocol", "Protocol"),
    ("SimulatorCheckReachabilityResponse.allowed", "bool"),
]


@pytest.mark.parametrize(("symbol", "expected"), TYPES, ids=[row[0] for row in TYPES])
def test_field_types(symbol: str, expected: str) -> None:
    found = [f for f in (_lookup(PUB, symbol), _lookup(PRIV, symbol)) if f is not None]
    assert found, f"{symbol} exists in neither package"
    for field in found:
        assert kind(field) == expected, f"{field.full_name}: {kind(field)}"


RESERVED: list[tuple[str, set[int]]] = [
    ("ComputeInstanceSpec", {5, 6, 12, 13}),
    ("ComputeInstanceTemplateSpecDefaults", {1, 2}),
    ("ClusterTemplateSpecDefaults", {1}),
    ("TenantStatus", {1, 4, 5}),
]
PRIVATE_EVENT_RESERVED = set(range(16, 26)) | {28, 29, 30, 32, 33, 38, 39, 40}
PUBLIC_EVENT_RESERVED = {9, 10, 11, 14, 16}


def _reserved(package: str, message: str) -> set[int]:
    proto = descriptor_pb2.DescriptorProto()
    POOL.FindMessageTypeByName(f"{package}.{message}").CopyToProto(proto)
    return {n for r in proto.reserved_range for n in range(r.start, r.end)}


@pytest.mark.parametrize(("message", "numbers"), RESERVED, ids=[row[0] for row in RESERVED])
def test_reserved_numbers(message: str, numbers: set[int]) -> None:
    for package in (PUB, PRIV):
        assert _reserved(package, message) == numbers
        used = {f.number for f in POOL.FindMessageTypeByName(f"{package}.{message}").fields}
        assert not used & numbers


def test_event_reserved_ranges_and_payloads() -> None:
    assert _reserved(PRIV, "Event") == PRIVATE_EVENT_RESERVED
    assert _reserved(PUB, "Event") == PUBLIC_EVENT_RESERVED
    for package in (PUB, PRIV):
        event = POOL.FindMessageTypeByName(f"{package}.Event")
        payload = {f.name for f in event.oneofs_by_name["payload"].fields}
        assert payload == {f.name for f in event.fields} - {"id", "type", "revision"}
        # Every payload field is named after the snake case of its message.
        for field in event.oneofs_by_name["payload"].fields:
            assert field.name == _snake(field.message_type.name)
    private_payloads = {
        f.name for f in POOL.FindMessageTypeByName(f"{PRIV}.Event").oneofs_by_name["payload"].fields
    }
    public_payloads = {
        f.name for f in POOL.FindMessageTypeByName(f"{PUB}.Event").oneofs_by_name["payload"].fields
    }
    assert private_payloads - public_payloads == {"hub"}


def test_external_ip_attachment_target_oneof() -> None:
    for package in (PUB, PRIV):
        spec = POOL.FindMessageTypeByName(f"{package}.ExternalIPAttachmentSpec")
        assert [f.name for f in spec.oneofs_by_name["target"].fields] == [
            "compute_instance",
            "cluster",
            "baremetal_instance",
        ]


def test_deprecated_compute_instance_network_attachments() -> None:
    for package in (PUB, PRIV):
        spec = POOL.FindMessageTypeByName(f"{package}.ComputeInstanceSpec")
        assert spec.fields_by_name["network_attachments"].GetOptions().deprecated
        assert not spec.fields_by_name["compute_network_attachments"].GetOptions().deprecated


# ---------------------------------------------------------------------------------------------------------------
# api.md §3: services, methods and request/response conventions
# ---------------------------------------------------------------------------------------------------------------

STD = ["List", "Get", "Create", "Update", "Delete"]
KIND_SERVICES = {
    "Tenants": "Tenant",
    "NetworkClasses": "NetworkClass",
    "VirtualNetworks": "VirtualNetwork",
    "Subnets": "Subnet",
    "SecurityGroups": "SecurityGroup",
    "ExternalIPPools": "ExternalIPPool",
    "ExternalIPs": "ExternalIP",
    "ExternalIPAttachments": "ExternalIPAttachment",
    "NATGateways": "NATGateway",
    "HostTypes": "HostType",
    "ClusterTemplates": "ClusterTemplate",
    "Clusters": "Cluster",
    "ComputeInstanceTemplates": "ComputeInstanceTemplate",
    "InstanceTypes": "InstanceType",
    "ComputeInstances": "ComputeInstance",
    "BareMetalInstances": "BareMetalInstance",
    "Hubs": "Hub",
    "LifecycleEvents": "LifecycleEvent",
}
EXPECTED_SERVICES: dict[str, dict[str, list[str]]] = {
    PUB: {
        **{s: STD for s in KIND_SERVICES if s not in {"Hubs", "LifecycleEvents"}},
        "NetworkClasses": ["List", "Get"],
        "ExternalIPPools": ["List", "Get"],
        "Clusters": STD + ["GetKubeconfig", "GetPassword"],
        "LifecycleEvents": ["List", "Get"],
        "Events": ["Watch"],
        "Capabilities": ["Get"],
        "JsonWebKeySet": ["Get"],
    },
    PRIV: {
        **{s: STD + ["Signal"] for s in KIND_SERVICES if s != "LifecycleEvents"},
        "LifecycleEvents": ["List", "Get"],
        "Events": ["Watch"],
        "Simulator": [
            "GetObservation",
            "GetClock",
            "AdvanceClock",
            "SetSpeed",
            "ListHosts",
            "AddHosts",
            "RemoveHost",
            "CheckReachability",
        ],
        "SimulatorFaults": ["Create", "List", "Delete"],
    },
}


@pytest.mark.parametrize("package", [PUB, PRIV])
def test_services_and_methods(package: str) -> None:
    services = _services(package)
    assert set(services) == set(EXPECTED_SERVICES[package])
    for name, methods in EXPECTED_SERVICES[package].items():
        service = services[name]
        assert service.full_name == f"{package}.{name}"
        assert [m.name for m in service.methods] == methods, name
        for method in service.methods:
            assert method.input_type.full_name == f"{package}.{name}{method.name}Request"
            assert method.output_type.full_name == f"{package}.{name}{method.name}Response"
            assert not method.client_streaming
            assert method.server_streaming == (name == "Events")
            # Service and its messages live in <snake plural>_service.proto.
            assert (
                method.input_type.file.name == f"osac/{package.split('.')[1]}/v1/{_snake(name)}_service.proto"
            )


def _snake(name: str) -> str:
    name = name.replace("IPs", "Ips")
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name).lower()


def _fields(message: Descriptor) -> list[tuple[str, int, str, bool]]:
    return [(f.name, f.number, kind(f), _field_proto(f).proto3_optional) for f in message.fields]


def _warnings(service_name: str) -> list[tuple[str, int, str, bool]]:
    """Clusters' Create and Update answer with warnings (the next free number, docs/api-schema.md)."""
    return [("warnings", 2, "repeated string", False)] if service_name == "Clusters" else []


@pytest.mark.parametrize("package", [PUB, PRIV])
def test_standard_method_messages(package: str) -> None:
    checked = 0
    for service_name, kind_name in KIND_SERVICES.items():
        services = _services(package)
        if service_name not in services:
            continue
        for method in services[service_name].methods:
            req, resp = method.input_type, method.output_type
            m = method.name
            if m == "List":
                assert _fields(req) == [
                    ("offset", 1, "int32", True),
                    ("limit", 2, "int32", True),
                    ("filter", 3, "string", True),
                    ("order", 4, "string", True),
                ]
                assert _fields(resp) == [
                    ("size", 1, "int32", False),
                    ("total", 2, "int32", False),
                    ("items", 3, f"repeated {kind_name}", False),
                    ("revision", 4, "int64", False),
                ]
            elif m == "Get":
                assert _fields(req) == [("id", 1, "string", False)]
                assert _fields(resp) == [("object", 1, kind_name, False)]
            elif m == "Create":
                assert _fields(req) == [("object", 1, kind_name, False)]
                assert _fields(resp) == [("object", 1, kind_name, False), *_warnings(service_name)]
            elif m == "Update":
                assert _fields(req) == [
                    ("object", 1, kind_name, False),
                    ("update_mask", 2, "google.protobuf.FieldMask", False),
                    ("lock", 3, "bool", False),
                ]
                assert _fields(resp) == [("object", 1, kind_name, False), *_warnings(service_name)]
            elif m in ("Delete", "Signal"):
                assert _fields(req) == [("id", 1, "string", False)]
                assert _fields(resp) == []
            elif m == "GetKubeconfig":
                assert _fields(req) == [("id", 1, "string", False)]
                assert _fields(resp) == [("kubeconfig", 1, "string", False)]
            elif m == "GetPassword":
                assert _fields(req) == [("id", 1, "string", False)]
                assert _fields(resp) == [("password", 1, "string", False)]
            else:
                pytest.fail(f"unexpected method {service_name}.{m}")
            checked += 1
    assert checked >= 70


FLAT = {"NetworkClass", "HostType", "ClusterTemplate", "ComputeInstanceTemplate"}


@pytest.mark.parametrize("package", [PUB, PRIV])
def test_object_shapes(package: str) -> None:
    for kind_name in KIND_SERVICES.values():
        try:
            obj = POOL.FindMessageTypeByName(f"{package}.{kind_name}")
        except KeyError:
            assert package == PUB and kind_name == "Hub"
            continue
        fields = {f.name: (f.number, kind(f)) for f in obj.fields}
        assert fields["id"] == (1, "string")
        # The file holding a kind is <snake kind>_type.proto.
        assert obj.file.name == f"osac/{package.split('.')[1]}/v1/{_snake(kind_name)}_type.proto"
        if kind_name == "LifecycleEvent":
            assert "metadata" not in fields
            continue
        assert fields["metadata"] == (2, "Metadata")
        if kind_name in FLAT:
            continue
        assert fields["spec"] == (3, f"{kind_name}Spec")
        assert fields["status"] == (4, f"{kind_name}Status")


# ---------------------------------------------------------------------------------------------------------------
# (c) public is a name-subset of private; enums are identical
# ---------------------------------------------------------------------------------------------------------------

PUBLIC_ONLY_MESSAGES = {
    "CapabilitiesGetRequest",
    "CapabilitiesGetResponse",
    "AuthnCapabilities",
    "JsonWebKeySetGetRequest",
    "JsonWebKeySetGetResponse",
    "JsonWebKey",
    "ClustersGetKubeconfigRequest",
    "ClustersGetKubeconfigResponse",
    "ClustersGetPasswordRequest",
    "ClustersGetPasswordResponse",
}

# api.md §4: the fields that exist only in the private counterpart of a public message.
PRIVATE_ONLY_FIELDS = {
    "Metadata.finalizers",
    "NetworkClass.implementation_strategy",
    "NetworkClass.constraints",
    "NetworkClass.fabric_manager",
    "NetworkClass.k8s_manager",
    "NetworkClassStatus.hub",
    "VirtualNetworkSpec.region",
    "VirtualNetworkSpec.implementation_strategy",
    "VirtualNetworkStatus.hub",
    "SubnetStatus.hub",
    "SecurityGroupSpec.implementation_strategy",
    "SecurityGroupStatus.hub",
    "ExternalIPPoolSpec.cidrs",
    "ExternalIPPoolSpec.implementation_strategy",
    "ExternalIPPoolStatus.state",
    "ExternalIPPoolStatus.message",
    "ExternalIPPoolStatus.hub",
    "ExternalIPPoolStatus.total",
    "ExternalIPPoolStatus.allocated",
    "ExternalIPStatus.hub",
    "ExternalIPAttachmentStatus.hub",
    "NATGatewayStatus.hub",
    "ClusterStatus.hub",
    "ComputeInstanceStatus.hub",
    "BareMetalInstanceStatus.hub",
    "BareMetalInstanceStatus.host",
    "BareMetalInstanceStatus.provisioning_steps",
    "Event.hub",
}


def test_public_messages_are_name_subsets_of_private() -> None:
    public, private = _messages(PUB), _messages(PRIV)
    assert set(public) >= PUBLIC_ONLY_MESSAGES
    assert not PUBLIC_ONLY_MESSAGES & set(private)
    problems = []
    private_only = set()
    for name, pub in sorted(public.items()):
        if name in PUBLIC_ONLY_MESSAGES:
            continue
        priv = private.get(name)
        if priv is None:
            problems.append(f"{name}: no private counterpart")
            continue
        for field in pub.fields:
            other = priv.fields_by_name.get(field.name)
            if other is None:
                problems.append(f"{name}.{field.name}: missing in private")
                continue
            if kind(field) != kind(other):
                problems.append(f"{name}.{field.name}: {kind(field)} != private {kind(other)}")
            if _real_oneof(field) != _real_oneof(other):
                problems.append(f"{name}.{field.name}: oneof {_real_oneof(field)} != {_real_oneof(other)}")
            if _field_proto(field).proto3_optional != _field_proto(other).proto3_optional:
                problems.append(f"{name}.{field.name}: presence differs")
        private_only |= {f"{name}.{f.name}" for f in priv.fields if f.name not in pub.fields_by_name}
    assert not problems, "\n".join(problems)
    assert private_only == PRIVATE_ONLY_FIELDS


def test_public_types_reference_only_public_types() -> None:
    for name, message in _messages(PUB).items():
        for field in message.fields:
            target = field.message_type or field.enum_type
            if target is not None and not target.full_name.startswith("google.protobuf."):
                if field.message_type is not None and field.message_type.GetOptions().map_entry:
                    target = field.message_type.fields_by_name["value"].message_type
                    if target is None or target.full_name.startswith("google.protobuf."):
                        continue
                assert target.full_name.startswith(PUB + "."), f"{name}.{field.name} -> {target.full_name}"


def test_public_enums_equal_private_enums() -> None:
    public, private = _enums(PUB), _enums(PRIV)
    for name, enum in public.items():
        assert name in private, f"public enum {name} has no private counterpart"
        pub_values = [(v.name, v.number) for v in enum.values]
        priv_values = [(v.name, v.number) for v in private[name].values]
        assert pub_values == priv_values, name
    assert set(private) - set(public) == {"ExternalIPPoolState", "BareMetalInstanceProvisioningStepStatus"}


# ---------------------------------------------------------------------------------------------------------------
# (d) enum conventions
# ---------------------------------------------------------------------------------------------------------------


def _upper_snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name).upper()


@pytest.mark.parametrize("package", [PUB, PRIV])
def test_enum_conventions(package: str) -> None:
    enums = _enums(package)
    assert len(enums) >= 20
    for name, enum in enums.items():
        prefix = _upper_snake(name)
        first = enum.values[0]
        assert (first.name, first.number) == (f"{prefix}_UNSPECIFIED", 0), name
        for value in enum.values:
            assert value.name.startswith(prefix + "_"), value.name
        numbers = [v.number for v in enum.values]
        assert numbers == sorted(set(numbers)), f"{name}: values not unique and ascending"


def test_state_enums_follow_kind_names() -> None:
    for package in (PUB, PRIV):
        for kind_name in KIND_SERVICES.values():
            try:
                status = POOL.FindMessageTypeByName(f"{package}.{kind_name}Status")
            except KeyError:
                continue
            state = status.fields_by_name.get("state")
            if state is not None:
                assert state.enum_type.name == f"{kind_name}State"
            conditions = status.fields_by_name.get("conditions")
            if conditions is not None:
                assert conditions.message_type.name == f"{kind_name}Condition"
                assert (
                    conditions.message_type.fields_by_name["type"].enum_type.name
                    == f"{kind_name}ConditionType"
                )
                assert conditions.message_type.fields_by_name["status"].enum_type.name == "ConditionStatus"


# ---------------------------------------------------------------------------------------------------------------
# Documentation: every element carries a comment
# ---------------------------------------------------------------------------------------------------------------


def _descriptor_set_with_comments() -> descriptor_pb2.FileDescriptorSet:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "set.binpb"
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "grpc_tools.protoc",
                "-I.",
                "--include_source_info",
                f"--descriptor_set_out={out}",
                *_proto_paths(),
            ],
            cwd=PROTO_DIR,
            capture_output=True,
            text=True,
            env=_protoc_env(),
            timeout=300,
        )
        assert result.returncode == 0, result.stderr
        fds = descriptor_pb2.FileDescriptorSet()
        fds.ParseFromString(out.read_bytes())
        return fds


def test_every_element_is_commented() -> None:
    missing = []
    for file in _descriptor_set_with_comments().file:
        commented = {
            tuple(loc.path) for loc in file.source_code_info.location if loc.leading_comments.strip()
        }

        def need(path: tuple[int, ...], what: str, file=file, commented=commented) -> None:
            if path not in commented:
                missing.append(f"{file.name}: {what}")

        for i, message in enumerate(file.message_type):
            need((4, i), message.name)
            for j, field in enumerate(message.field):
                need((4, i, 2, j), f"{message.name}.{field.name}")
            for j, oneof in enumerate(message.oneof_decl):
                if not oneof.name.startswith("_"):  # synthetic oneofs of proto3 optional fields
                    need((4, i, 8, j), f"{message.name}.{oneof.name} (oneof)")
            assert not [n for n in message.nested_type if not n.options.map_entry], message.name
        for i, enum in enumerate(file.enum_type):
            need((5, i), enum.name)
            for j, value in enumerate(enum.value):
                need((5, i, 2, j), f"{enum.name}.{value.name}")
        for i, service in enumerate(file.service):
            need((6, i), service.name)
            for j, method in enumerate(service.method):
                need((6, i, 2, j), f"{service.name}.{method.name}")
    assert not missing, "uncommented elements:\n" + "\n".join(missing)
