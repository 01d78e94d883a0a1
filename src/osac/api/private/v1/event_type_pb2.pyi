from osac.api.private.v1 import bare_metal_instance_type_pb2 as _bare_metal_instance_type_pb2
from osac.api.private.v1 import cluster_template_type_pb2 as _cluster_template_type_pb2
from osac.api.private.v1 import cluster_type_pb2 as _cluster_type_pb2
from osac.api.private.v1 import compute_instance_template_type_pb2 as _compute_instance_template_type_pb2
from osac.api.private.v1 import compute_instance_type_pb2 as _compute_instance_type_pb2
from osac.api.private.v1 import external_ip_attachment_type_pb2 as _external_ip_attachment_type_pb2
from osac.api.private.v1 import external_ip_pool_type_pb2 as _external_ip_pool_type_pb2
from osac.api.private.v1 import external_ip_type_pb2 as _external_ip_type_pb2
from osac.api.private.v1 import host_type_type_pb2 as _host_type_type_pb2
from osac.api.private.v1 import hub_type_pb2 as _hub_type_pb2
from osac.api.private.v1 import instance_type_type_pb2 as _instance_type_type_pb2
from osac.api.private.v1 import nat_gateway_type_pb2 as _nat_gateway_type_pb2
from osac.api.private.v1 import network_class_type_pb2 as _network_class_type_pb2
from osac.api.private.v1 import security_group_type_pb2 as _security_group_type_pb2
from osac.api.private.v1 import subnet_type_pb2 as _subnet_type_pb2
from osac.api.private.v1 import tenant_type_pb2 as _tenant_type_pb2
from osac.api.private.v1 import virtual_network_type_pb2 as _virtual_network_type_pb2
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class EventType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    EVENT_TYPE_UNSPECIFIED: _ClassVar[EventType]
    EVENT_TYPE_OBJECT_CREATED: _ClassVar[EventType]
    EVENT_TYPE_OBJECT_UPDATED: _ClassVar[EventType]
    EVENT_TYPE_OBJECT_DELETED: _ClassVar[EventType]
    EVENT_TYPE_OBJECT_SIGNALED: _ClassVar[EventType]
EVENT_TYPE_UNSPECIFIED: EventType
EVENT_TYPE_OBJECT_CREATED: EventType
EVENT_TYPE_OBJECT_UPDATED: EventType
EVENT_TYPE_OBJECT_DELETED: EventType
EVENT_TYPE_OBJECT_SIGNALED: EventType

class Event(_message.Message):
    __slots__ = ("id", "type", "cluster", "cluster_template", "host_type", "hub", "compute_instance_template", "compute_instance", "network_class", "subnet", "virtual_network", "security_group", "instance_type", "bare_metal_instance", "tenant", "external_ip_pool", "external_ip", "external_ip_attachment", "nat_gateway", "revision")
    ID_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    CLUSTER_FIELD_NUMBER: _ClassVar[int]
    CLUSTER_TEMPLATE_FIELD_NUMBER: _ClassVar[int]
    HOST_TYPE_FIELD_NUMBER: _ClassVar[int]
    HUB_FIELD_NUMBER: _ClassVar[int]
    COMPUTE_INSTANCE_TEMPLATE_FIELD_NUMBER: _ClassVar[int]
    COMPUTE_INSTANCE_FIELD_NUMBER: _ClassVar[int]
    NETWORK_CLASS_FIELD_NUMBER: _ClassVar[int]
    SUBNET_FIELD_NUMBER: _ClassVar[int]
    VIRTUAL_NETWORK_FIELD_NUMBER: _ClassVar[int]
    SECURITY_GROUP_FIELD_NUMBER: _ClassVar[int]
    INSTANCE_TYPE_FIELD_NUMBER: _ClassVar[int]
    BARE_METAL_INSTANCE_FIELD_NUMBER: _ClassVar[int]
    TENANT_FIELD_NUMBER: _ClassVar[int]
    EXTERNAL_IP_POOL_FIELD_NUMBER: _ClassVar[int]
    EXTERNAL_IP_FIELD_NUMBER: _ClassVar[int]
    EXTERNAL_IP_ATTACHMENT_FIELD_NUMBER: _ClassVar[int]
    NAT_GATEWAY_FIELD_NUMBER: _ClassVar[int]
    REVISION_FIELD_NUMBER: _ClassVar[int]
    id: str
    type: EventType
    cluster: _cluster_type_pb2.Cluster
    cluster_template: _cluster_template_type_pb2.ClusterTemplate
    host_type: _host_type_type_pb2.HostType
    hub: _hub_type_pb2.Hub
    compute_instance_template: _compute_instance_template_type_pb2.ComputeInstanceTemplate
    compute_instance: _compute_instance_type_pb2.ComputeInstance
    network_class: _network_class_type_pb2.NetworkClass
    subnet: _subnet_type_pb2.Subnet
    virtual_network: _virtual_network_type_pb2.VirtualNetwork
    security_group: _security_group_type_pb2.SecurityGroup
    instance_type: _instance_type_type_pb2.InstanceType
    bare_metal_instance: _bare_metal_instance_type_pb2.BareMetalInstance
    tenant: _tenant_type_pb2.Tenant
    external_ip_pool: _external_ip_pool_type_pb2.ExternalIPPool
    external_ip: _external_ip_type_pb2.ExternalIP
    external_ip_attachment: _external_ip_attachment_type_pb2.ExternalIPAttachment
    nat_gateway: _nat_gateway_type_pb2.NATGateway
    revision: int
    def __init__(self, id: _Optional[str] = ..., type: _Optional[_Union[EventType, str]] = ..., cluster: _Optional[_Union[_cluster_type_pb2.Cluster, _Mapping]] = ..., cluster_template: _Optional[_Union[_cluster_template_type_pb2.ClusterTemplate, _Mapping]] = ..., host_type: _Optional[_Union[_host_type_type_pb2.HostType, _Mapping]] = ..., hub: _Optional[_Union[_hub_type_pb2.Hub, _Mapping]] = ..., compute_instance_template: _Optional[_Union[_compute_instance_template_type_pb2.ComputeInstanceTemplate, _Mapping]] = ..., compute_instance: _Optional[_Union[_compute_instance_type_pb2.ComputeInstance, _Mapping]] = ..., network_class: _Optional[_Union[_network_class_type_pb2.NetworkClass, _Mapping]] = ..., subnet: _Optional[_Union[_subnet_type_pb2.Subnet, _Mapping]] = ..., virtual_network: _Optional[_Union[_virtual_network_type_pb2.VirtualNetwork, _Mapping]] = ..., security_group: _Optional[_Union[_security_group_type_pb2.SecurityGroup, _Mapping]] = ..., instance_type: _Optional[_Union[_instance_type_type_pb2.InstanceType, _Mapping]] = ..., bare_metal_instance: _Optional[_Union[_bare_metal_instance_type_pb2.BareMetalInstance, _Mapping]] = ..., tenant: _Optional[_Union[_tenant_type_pb2.Tenant, _Mapping]] = ..., external_ip_pool: _Optional[_Union[_external_ip_pool_type_pb2.ExternalIPPool, _Mapping]] = ..., external_ip: _Optional[_Union[_external_ip_type_pb2.ExternalIP, _Mapping]] = ..., external_ip_attachment: _Optional[_Union[_external_ip_attachment_type_pb2.ExternalIPAttachment, _Mapping]] = ..., nat_gateway: _Optional[_Union[_nat_gateway_type_pb2.NATGateway, _Mapping]] = ..., revision: _Optional[int] = ...) -> None: ...
