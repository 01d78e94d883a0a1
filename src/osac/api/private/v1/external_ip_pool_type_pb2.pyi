from osac.api.private.v1 import ip_family_type_pb2 as _ip_family_type_pb2
from osac.api.private.v1 import metadata_type_pb2 as _metadata_type_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ExternalIPPoolState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    EXTERNAL_IP_POOL_STATE_UNSPECIFIED: _ClassVar[ExternalIPPoolState]
    EXTERNAL_IP_POOL_STATE_PENDING: _ClassVar[ExternalIPPoolState]
    EXTERNAL_IP_POOL_STATE_READY: _ClassVar[ExternalIPPoolState]
    EXTERNAL_IP_POOL_STATE_FAILED: _ClassVar[ExternalIPPoolState]
    EXTERNAL_IP_POOL_STATE_DELETING: _ClassVar[ExternalIPPoolState]
    EXTERNAL_IP_POOL_STATE_DELETE_FAILED: _ClassVar[ExternalIPPoolState]
EXTERNAL_IP_POOL_STATE_UNSPECIFIED: ExternalIPPoolState
EXTERNAL_IP_POOL_STATE_PENDING: ExternalIPPoolState
EXTERNAL_IP_POOL_STATE_READY: ExternalIPPoolState
EXTERNAL_IP_POOL_STATE_FAILED: ExternalIPPoolState
EXTERNAL_IP_POOL_STATE_DELETING: ExternalIPPoolState
EXTERNAL_IP_POOL_STATE_DELETE_FAILED: ExternalIPPoolState

class ExternalIPPool(_message.Message):
    __slots__ = ("id", "metadata", "spec", "status")
    ID_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    SPEC_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    id: str
    metadata: _metadata_type_pb2.Metadata
    spec: ExternalIPPoolSpec
    status: ExternalIPPoolStatus
    def __init__(self, id: _Optional[str] = ..., metadata: _Optional[_Union[_metadata_type_pb2.Metadata, _Mapping]] = ..., spec: _Optional[_Union[ExternalIPPoolSpec, _Mapping]] = ..., status: _Optional[_Union[ExternalIPPoolStatus, _Mapping]] = ...) -> None: ...

class ExternalIPPoolSpec(_message.Message):
    __slots__ = ("cidrs", "ip_family", "implementation_strategy")
    CIDRS_FIELD_NUMBER: _ClassVar[int]
    IP_FAMILY_FIELD_NUMBER: _ClassVar[int]
    IMPLEMENTATION_STRATEGY_FIELD_NUMBER: _ClassVar[int]
    cidrs: _containers.RepeatedScalarFieldContainer[str]
    ip_family: _ip_family_type_pb2.IPFamily
    implementation_strategy: str
    def __init__(self, cidrs: _Optional[_Iterable[str]] = ..., ip_family: _Optional[_Union[_ip_family_type_pb2.IPFamily, str]] = ..., implementation_strategy: _Optional[str] = ...) -> None: ...

class ExternalIPPoolStatus(_message.Message):
    __slots__ = ("state", "message", "hub", "total", "allocated", "available")
    STATE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    HUB_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    ALLOCATED_FIELD_NUMBER: _ClassVar[int]
    AVAILABLE_FIELD_NUMBER: _ClassVar[int]
    state: ExternalIPPoolState
    message: str
    hub: str
    total: int
    allocated: int
    available: int
    def __init__(self, state: _Optional[_Union[ExternalIPPoolState, str]] = ..., message: _Optional[str] = ..., hub: _Optional[str] = ..., total: _Optional[int] = ..., allocated: _Optional[int] = ..., available: _Optional[int] = ...) -> None: ...
