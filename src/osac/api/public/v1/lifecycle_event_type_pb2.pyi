import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class LifecycleEventType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    LIFECYCLE_EVENT_TYPE_UNSPECIFIED: _ClassVar[LifecycleEventType]
    LIFECYCLE_EVENT_TYPE_NORMAL: _ClassVar[LifecycleEventType]
    LIFECYCLE_EVENT_TYPE_WARNING: _ClassVar[LifecycleEventType]
LIFECYCLE_EVENT_TYPE_UNSPECIFIED: LifecycleEventType
LIFECYCLE_EVENT_TYPE_NORMAL: LifecycleEventType
LIFECYCLE_EVENT_TYPE_WARNING: LifecycleEventType

class LifecycleEvent(_message.Message):
    __slots__ = ("id", "object_type", "object_id", "tenant", "type", "reason", "message", "timestamp", "object_name")
    ID_FIELD_NUMBER: _ClassVar[int]
    OBJECT_TYPE_FIELD_NUMBER: _ClassVar[int]
    OBJECT_ID_FIELD_NUMBER: _ClassVar[int]
    TENANT_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    OBJECT_NAME_FIELD_NUMBER: _ClassVar[int]
    id: str
    object_type: str
    object_id: str
    tenant: str
    type: LifecycleEventType
    reason: str
    message: str
    timestamp: _timestamp_pb2.Timestamp
    object_name: str
    def __init__(self, id: _Optional[str] = ..., object_type: _Optional[str] = ..., object_id: _Optional[str] = ..., tenant: _Optional[str] = ..., type: _Optional[_Union[LifecycleEventType, str]] = ..., reason: _Optional[str] = ..., message: _Optional[str] = ..., timestamp: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., object_name: _Optional[str] = ...) -> None: ...
