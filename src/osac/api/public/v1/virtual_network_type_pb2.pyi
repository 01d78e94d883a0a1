from osac.api.public.v1 import metadata_type_pb2 as _metadata_type_pb2
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class VirtualNetworkState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    VIRTUAL_NETWORK_STATE_UNSPECIFIED: _ClassVar[VirtualNetworkState]
    VIRTUAL_NETWORK_STATE_PENDING: _ClassVar[VirtualNetworkState]
    VIRTUAL_NETWORK_STATE_READY: _ClassVar[VirtualNetworkState]
    VIRTUAL_NETWORK_STATE_FAILED: _ClassVar[VirtualNetworkState]
    VIRTUAL_NETWORK_STATE_DELETING: _ClassVar[VirtualNetworkState]
    VIRTUAL_NETWORK_STATE_DELETE_FAILED: _ClassVar[VirtualNetworkState]
VIRTUAL_NETWORK_STATE_UNSPECIFIED: VirtualNetworkState
VIRTUAL_NETWORK_STATE_PENDING: VirtualNetworkState
VIRTUAL_NETWORK_STATE_READY: VirtualNetworkState
VIRTUAL_NETWORK_STATE_FAILED: VirtualNetworkState
VIRTUAL_NETWORK_STATE_DELETING: VirtualNetworkState
VIRTUAL_NETWORK_STATE_DELETE_FAILED: VirtualNetworkState

class VirtualNetwork(_message.Message):
    __slots__ = ("id", "metadata", "spec", "status")
    ID_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    SPEC_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    id: str
    metadata: _metadata_type_pb2.Metadata
    spec: VirtualNetworkSpec
    status: VirtualNetworkStatus
    def __init__(self, id: _Optional[str] = ..., metadata: _Optional[_Union[_metadata_type_pb2.Metadata, _Mapping]] = ..., spec: _Optional[_Union[VirtualNetworkSpec, _Mapping]] = ..., status: _Optional[_Union[VirtualNetworkStatus, _Mapping]] = ...) -> None: ...

class VirtualNetworkSpec(_message.Message):
    __slots__ = ("network_class", "ipv4_cidr", "ipv6_cidr", "capabilities")
    NETWORK_CLASS_FIELD_NUMBER: _ClassVar[int]
    IPV4_CIDR_FIELD_NUMBER: _ClassVar[int]
    IPV6_CIDR_FIELD_NUMBER: _ClassVar[int]
    CAPABILITIES_FIELD_NUMBER: _ClassVar[int]
    network_class: str
    ipv4_cidr: str
    ipv6_cidr: str
    capabilities: VirtualNetworkCapabilities
    def __init__(self, network_class: _Optional[str] = ..., ipv4_cidr: _Optional[str] = ..., ipv6_cidr: _Optional[str] = ..., capabilities: _Optional[_Union[VirtualNetworkCapabilities, _Mapping]] = ...) -> None: ...

class VirtualNetworkCapabilities(_message.Message):
    __slots__ = ("enable_ipv4", "enable_ipv6", "enable_dual_stack")
    ENABLE_IPV4_FIELD_NUMBER: _ClassVar[int]
    ENABLE_IPV6_FIELD_NUMBER: _ClassVar[int]
    ENABLE_DUAL_STACK_FIELD_NUMBER: _ClassVar[int]
    enable_ipv4: bool
    enable_ipv6: bool
    enable_dual_stack: bool
    def __init__(self, enable_ipv4: _Optional[bool] = ..., enable_ipv6: _Optional[bool] = ..., enable_dual_stack: _Optional[bool] = ...) -> None: ...

class VirtualNetworkStatus(_message.Message):
    __slots__ = ("state", "message")
    STATE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    state: VirtualNetworkState
    message: str
    def __init__(self, state: _Optional[_Union[VirtualNetworkState, str]] = ..., message: _Optional[str] = ...) -> None: ...
