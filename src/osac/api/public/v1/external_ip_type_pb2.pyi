import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from osac.api.public.v1 import metadata_type_pb2 as _metadata_type_pb2
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ExternalIPState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    EXTERNAL_IP_STATE_UNSPECIFIED: _ClassVar[ExternalIPState]
    EXTERNAL_IP_STATE_PENDING: _ClassVar[ExternalIPState]
    EXTERNAL_IP_STATE_ALLOCATED: _ClassVar[ExternalIPState]
    EXTERNAL_IP_STATE_FAILED: _ClassVar[ExternalIPState]
    EXTERNAL_IP_STATE_DELETING: _ClassVar[ExternalIPState]
    EXTERNAL_IP_STATE_DELETE_FAILED: _ClassVar[ExternalIPState]
EXTERNAL_IP_STATE_UNSPECIFIED: ExternalIPState
EXTERNAL_IP_STATE_PENDING: ExternalIPState
EXTERNAL_IP_STATE_ALLOCATED: ExternalIPState
EXTERNAL_IP_STATE_FAILED: ExternalIPState
EXTERNAL_IP_STATE_DELETING: ExternalIPState
EXTERNAL_IP_STATE_DELETE_FAILED: ExternalIPState

class ExternalIP(_message.Message):
    __slots__ = ("id", "metadata", "spec", "status")
    ID_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    SPEC_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    id: str
    metadata: _metadata_type_pb2.Metadata
    spec: ExternalIPSpec
    status: ExternalIPStatus
    def __init__(self, id: _Optional[str] = ..., metadata: _Optional[_Union[_metadata_type_pb2.Metadata, _Mapping]] = ..., spec: _Optional[_Union[ExternalIPSpec, _Mapping]] = ..., status: _Optional[_Union[ExternalIPStatus, _Mapping]] = ...) -> None: ...

class ExternalIPSpec(_message.Message):
    __slots__ = ("pool",)
    POOL_FIELD_NUMBER: _ClassVar[int]
    pool: str
    def __init__(self, pool: _Optional[str] = ...) -> None: ...

class ExternalIPStatus(_message.Message):
    __slots__ = ("state", "message", "address", "pool", "attached", "state_transition_time")
    STATE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    ADDRESS_FIELD_NUMBER: _ClassVar[int]
    POOL_FIELD_NUMBER: _ClassVar[int]
    ATTACHED_FIELD_NUMBER: _ClassVar[int]
    STATE_TRANSITION_TIME_FIELD_NUMBER: _ClassVar[int]
    state: ExternalIPState
    message: str
    address: str
    pool: str
    attached: bool
    state_transition_time: _timestamp_pb2.Timestamp
    def __init__(self, state: _Optional[_Union[ExternalIPState, str]] = ..., message: _Optional[str] = ..., address: _Optional[str] = ..., pool: _Optional[str] = ..., attached: _Optional[bool] = ..., state_transition_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...
