from osac.api.public.v1 import metadata_type_pb2 as _metadata_type_pb2
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class SubnetState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SUBNET_STATE_UNSPECIFIED: _ClassVar[SubnetState]
    SUBNET_STATE_PENDING: _ClassVar[SubnetState]
    SUBNET_STATE_READY: _ClassVar[SubnetState]
    SUBNET_STATE_FAILED: _ClassVar[SubnetState]
    SUBNET_STATE_DELETING: _ClassVar[SubnetState]
    SUBNET_STATE_DELETE_FAILED: _ClassVar[SubnetState]
SUBNET_STATE_UNSPECIFIED: SubnetState
SUBNET_STATE_PENDING: SubnetState
SUBNET_STATE_READY: SubnetState
SUBNET_STATE_FAILED: SubnetState
SUBNET_STATE_DELETING: SubnetState
SUBNET_STATE_DELETE_FAILED: SubnetState

class Subnet(_message.Message):
    __slots__ = ("id", "metadata", "spec", "status")
    ID_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    SPEC_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    id: str
    metadata: _metadata_type_pb2.Metadata
    spec: SubnetSpec
    status: SubnetStatus
    def __init__(self, id: _Optional[str] = ..., metadata: _Optional[_Union[_metadata_type_pb2.Metadata, _Mapping]] = ..., spec: _Optional[_Union[SubnetSpec, _Mapping]] = ..., status: _Optional[_Union[SubnetStatus, _Mapping]] = ...) -> None: ...

class SubnetSpec(_message.Message):
    __slots__ = ("virtual_network", "ipv4_cidr", "ipv6_cidr")
    VIRTUAL_NETWORK_FIELD_NUMBER: _ClassVar[int]
    IPV4_CIDR_FIELD_NUMBER: _ClassVar[int]
    IPV6_CIDR_FIELD_NUMBER: _ClassVar[int]
    virtual_network: str
    ipv4_cidr: str
    ipv6_cidr: str
    def __init__(self, virtual_network: _Optional[str] = ..., ipv4_cidr: _Optional[str] = ..., ipv6_cidr: _Optional[str] = ...) -> None: ...

class SubnetStatus(_message.Message):
    __slots__ = ("state", "message", "gateway", "vip_range", "available_addresses")
    STATE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    GATEWAY_FIELD_NUMBER: _ClassVar[int]
    VIP_RANGE_FIELD_NUMBER: _ClassVar[int]
    AVAILABLE_ADDRESSES_FIELD_NUMBER: _ClassVar[int]
    state: SubnetState
    message: str
    gateway: str
    vip_range: str
    available_addresses: int
    def __init__(self, state: _Optional[_Union[SubnetState, str]] = ..., message: _Optional[str] = ..., gateway: _Optional[str] = ..., vip_range: _Optional[str] = ..., available_addresses: _Optional[int] = ...) -> None: ...
