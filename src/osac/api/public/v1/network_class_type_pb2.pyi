from osac.api.public.v1 import metadata_type_pb2 as _metadata_type_pb2
from osac.api.public.v1 import security_rule_type_pb2 as _security_rule_type_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class NetworkClassState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    NETWORK_CLASS_STATE_UNSPECIFIED: _ClassVar[NetworkClassState]
    NETWORK_CLASS_STATE_PENDING: _ClassVar[NetworkClassState]
    NETWORK_CLASS_STATE_READY: _ClassVar[NetworkClassState]
    NETWORK_CLASS_STATE_FAILED: _ClassVar[NetworkClassState]
    NETWORK_CLASS_STATE_DELETING: _ClassVar[NetworkClassState]
    NETWORK_CLASS_STATE_DELETE_FAILED: _ClassVar[NetworkClassState]
NETWORK_CLASS_STATE_UNSPECIFIED: NetworkClassState
NETWORK_CLASS_STATE_PENDING: NetworkClassState
NETWORK_CLASS_STATE_READY: NetworkClassState
NETWORK_CLASS_STATE_FAILED: NetworkClassState
NETWORK_CLASS_STATE_DELETING: NetworkClassState
NETWORK_CLASS_STATE_DELETE_FAILED: NetworkClassState

class NetworkClass(_message.Message):
    __slots__ = ("id", "metadata", "title", "description", "capabilities", "status", "is_default", "spec")
    ID_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    CAPABILITIES_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    IS_DEFAULT_FIELD_NUMBER: _ClassVar[int]
    SPEC_FIELD_NUMBER: _ClassVar[int]
    id: str
    metadata: _metadata_type_pb2.Metadata
    title: str
    description: str
    capabilities: NetworkClassCapabilities
    status: NetworkClassStatus
    is_default: bool
    spec: NetworkClassSpec
    def __init__(self, id: _Optional[str] = ..., metadata: _Optional[_Union[_metadata_type_pb2.Metadata, _Mapping]] = ..., title: _Optional[str] = ..., description: _Optional[str] = ..., capabilities: _Optional[_Union[NetworkClassCapabilities, _Mapping]] = ..., status: _Optional[_Union[NetworkClassStatus, _Mapping]] = ..., is_default: _Optional[bool] = ..., spec: _Optional[_Union[NetworkClassSpec, _Mapping]] = ...) -> None: ...

class NetworkClassSpec(_message.Message):
    __slots__ = ("defaults", "disable_capabilities", "vip_prefix_length")
    DEFAULTS_FIELD_NUMBER: _ClassVar[int]
    DISABLE_CAPABILITIES_FIELD_NUMBER: _ClassVar[int]
    VIP_PREFIX_LENGTH_FIELD_NUMBER: _ClassVar[int]
    defaults: NetworkDefaults
    disable_capabilities: NetworkClassCapabilities
    vip_prefix_length: int
    def __init__(self, defaults: _Optional[_Union[NetworkDefaults, _Mapping]] = ..., disable_capabilities: _Optional[_Union[NetworkClassCapabilities, _Mapping]] = ..., vip_prefix_length: _Optional[int] = ...) -> None: ...

class NetworkDefaults(_message.Message):
    __slots__ = ("virtual_network_ipv4_cidr", "subnet_ipv4_cidr", "ingress_rules", "egress_rules", "virtual_network_ipv6_cidr", "subnet_ipv6_cidr", "enable_nat_gateway")
    VIRTUAL_NETWORK_IPV4_CIDR_FIELD_NUMBER: _ClassVar[int]
    SUBNET_IPV4_CIDR_FIELD_NUMBER: _ClassVar[int]
    INGRESS_RULES_FIELD_NUMBER: _ClassVar[int]
    EGRESS_RULES_FIELD_NUMBER: _ClassVar[int]
    VIRTUAL_NETWORK_IPV6_CIDR_FIELD_NUMBER: _ClassVar[int]
    SUBNET_IPV6_CIDR_FIELD_NUMBER: _ClassVar[int]
    ENABLE_NAT_GATEWAY_FIELD_NUMBER: _ClassVar[int]
    virtual_network_ipv4_cidr: str
    subnet_ipv4_cidr: str
    ingress_rules: _containers.RepeatedCompositeFieldContainer[_security_rule_type_pb2.SecurityRule]
    egress_rules: _containers.RepeatedCompositeFieldContainer[_security_rule_type_pb2.SecurityRule]
    virtual_network_ipv6_cidr: str
    subnet_ipv6_cidr: str
    enable_nat_gateway: bool
    def __init__(self, virtual_network_ipv4_cidr: _Optional[str] = ..., subnet_ipv4_cidr: _Optional[str] = ..., ingress_rules: _Optional[_Iterable[_Union[_security_rule_type_pb2.SecurityRule, _Mapping]]] = ..., egress_rules: _Optional[_Iterable[_Union[_security_rule_type_pb2.SecurityRule, _Mapping]]] = ..., virtual_network_ipv6_cidr: _Optional[str] = ..., subnet_ipv6_cidr: _Optional[str] = ..., enable_nat_gateway: _Optional[bool] = ...) -> None: ...

class NetworkClassCapabilities(_message.Message):
    __slots__ = ("supports_ipv4", "supports_ipv6", "supports_dual_stack", "dpu_support")
    SUPPORTS_IPV4_FIELD_NUMBER: _ClassVar[int]
    SUPPORTS_IPV6_FIELD_NUMBER: _ClassVar[int]
    SUPPORTS_DUAL_STACK_FIELD_NUMBER: _ClassVar[int]
    DPU_SUPPORT_FIELD_NUMBER: _ClassVar[int]
    supports_ipv4: bool
    supports_ipv6: bool
    supports_dual_stack: bool
    dpu_support: bool
    def __init__(self, supports_ipv4: _Optional[bool] = ..., supports_ipv6: _Optional[bool] = ..., supports_dual_stack: _Optional[bool] = ..., dpu_support: _Optional[bool] = ...) -> None: ...

class NetworkClassStatus(_message.Message):
    __slots__ = ("state", "message")
    STATE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    state: NetworkClassState
    message: str
    def __init__(self, state: _Optional[_Union[NetworkClassState, str]] = ..., message: _Optional[str] = ...) -> None: ...
