import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from osac.api.private.v1 import condition_status_type_pb2 as _condition_status_type_pb2
from osac.api.private.v1 import metadata_type_pb2 as _metadata_type_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class TenantState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TENANT_STATE_UNSPECIFIED: _ClassVar[TenantState]
    TENANT_STATE_PENDING: _ClassVar[TenantState]
    TENANT_STATE_READY: _ClassVar[TenantState]
    TENANT_STATE_FAILED: _ClassVar[TenantState]
    TENANT_STATE_DELETING: _ClassVar[TenantState]
    TENANT_STATE_DELETE_FAILED: _ClassVar[TenantState]

class TenantConditionType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TENANT_CONDITION_TYPE_UNSPECIFIED: _ClassVar[TenantConditionType]
    TENANT_CONDITION_TYPE_DEFAULT_NETWORKING_READY: _ClassVar[TenantConditionType]
TENANT_STATE_UNSPECIFIED: TenantState
TENANT_STATE_PENDING: TenantState
TENANT_STATE_READY: TenantState
TENANT_STATE_FAILED: TenantState
TENANT_STATE_DELETING: TenantState
TENANT_STATE_DELETE_FAILED: TenantState
TENANT_CONDITION_TYPE_UNSPECIFIED: TenantConditionType
TENANT_CONDITION_TYPE_DEFAULT_NETWORKING_READY: TenantConditionType

class Tenant(_message.Message):
    __slots__ = ("id", "metadata", "spec", "status")
    ID_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    SPEC_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    id: str
    metadata: _metadata_type_pb2.Metadata
    spec: TenantSpec
    status: TenantStatus
    def __init__(self, id: _Optional[str] = ..., metadata: _Optional[_Union[_metadata_type_pb2.Metadata, _Mapping]] = ..., spec: _Optional[_Union[TenantSpec, _Mapping]] = ..., status: _Optional[_Union[TenantStatus, _Mapping]] = ...) -> None: ...

class TenantSpec(_message.Message):
    __slots__ = ("domains",)
    DOMAINS_FIELD_NUMBER: _ClassVar[int]
    domains: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, domains: _Optional[_Iterable[str]] = ...) -> None: ...

class TenantStatus(_message.Message):
    __slots__ = ("state", "message", "conditions")
    STATE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    CONDITIONS_FIELD_NUMBER: _ClassVar[int]
    state: TenantState
    message: str
    conditions: _containers.RepeatedCompositeFieldContainer[TenantCondition]
    def __init__(self, state: _Optional[_Union[TenantState, str]] = ..., message: _Optional[str] = ..., conditions: _Optional[_Iterable[_Union[TenantCondition, _Mapping]]] = ...) -> None: ...

class TenantCondition(_message.Message):
    __slots__ = ("type", "status", "reason", "message", "last_transition_time")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    LAST_TRANSITION_TIME_FIELD_NUMBER: _ClassVar[int]
    type: TenantConditionType
    status: _condition_status_type_pb2.ConditionStatus
    reason: str
    message: str
    last_transition_time: _timestamp_pb2.Timestamp
    def __init__(self, type: _Optional[_Union[TenantConditionType, str]] = ..., status: _Optional[_Union[_condition_status_type_pb2.ConditionStatus, str]] = ..., reason: _Optional[str] = ..., message: _Optional[str] = ..., last_transition_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...
