import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from osac.api.public.v1 import metadata_type_pb2 as _metadata_type_pb2
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class InstanceTypeState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    INSTANCE_TYPE_STATE_UNSPECIFIED: _ClassVar[InstanceTypeState]
    INSTANCE_TYPE_STATE_ACTIVE: _ClassVar[InstanceTypeState]
    INSTANCE_TYPE_STATE_DEPRECATED: _ClassVar[InstanceTypeState]
    INSTANCE_TYPE_STATE_OBSOLETE: _ClassVar[InstanceTypeState]
INSTANCE_TYPE_STATE_UNSPECIFIED: InstanceTypeState
INSTANCE_TYPE_STATE_ACTIVE: InstanceTypeState
INSTANCE_TYPE_STATE_DEPRECATED: InstanceTypeState
INSTANCE_TYPE_STATE_OBSOLETE: InstanceTypeState

class InstanceType(_message.Message):
    __slots__ = ("id", "metadata", "spec", "status")
    ID_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    SPEC_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    id: str
    metadata: _metadata_type_pb2.Metadata
    spec: InstanceTypeSpec
    status: InstanceTypeStatus
    def __init__(self, id: _Optional[str] = ..., metadata: _Optional[_Union[_metadata_type_pb2.Metadata, _Mapping]] = ..., spec: _Optional[_Union[InstanceTypeSpec, _Mapping]] = ..., status: _Optional[_Union[InstanceTypeStatus, _Mapping]] = ...) -> None: ...

class InstanceTypeSpec(_message.Message):
    __slots__ = ("cores", "memory_gib", "description", "state", "deprecation", "gpu")
    CORES_FIELD_NUMBER: _ClassVar[int]
    MEMORY_GIB_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    DEPRECATION_FIELD_NUMBER: _ClassVar[int]
    GPU_FIELD_NUMBER: _ClassVar[int]
    cores: int
    memory_gib: int
    description: str
    state: InstanceTypeState
    deprecation: InstanceTypeDeprecation
    gpu: InstanceTypeGPU
    def __init__(self, cores: _Optional[int] = ..., memory_gib: _Optional[int] = ..., description: _Optional[str] = ..., state: _Optional[_Union[InstanceTypeState, str]] = ..., deprecation: _Optional[_Union[InstanceTypeDeprecation, _Mapping]] = ..., gpu: _Optional[_Union[InstanceTypeGPU, _Mapping]] = ...) -> None: ...

class InstanceTypeDeprecation(_message.Message):
    __slots__ = ("state", "replacement", "deprecation_timestamp", "obsolescence_timestamp")
    STATE_FIELD_NUMBER: _ClassVar[int]
    REPLACEMENT_FIELD_NUMBER: _ClassVar[int]
    DEPRECATION_TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    OBSOLESCENCE_TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    state: InstanceTypeState
    replacement: str
    deprecation_timestamp: _timestamp_pb2.Timestamp
    obsolescence_timestamp: _timestamp_pb2.Timestamp
    def __init__(self, state: _Optional[_Union[InstanceTypeState, str]] = ..., replacement: _Optional[str] = ..., deprecation_timestamp: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., obsolescence_timestamp: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class InstanceTypeGPU(_message.Message):
    __slots__ = ("pci_device_selector", "resource_name", "count")
    PCI_DEVICE_SELECTOR_FIELD_NUMBER: _ClassVar[int]
    RESOURCE_NAME_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    pci_device_selector: str
    resource_name: str
    count: int
    def __init__(self, pci_device_selector: _Optional[str] = ..., resource_name: _Optional[str] = ..., count: _Optional[int] = ...) -> None: ...

class InstanceTypeStatus(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...
