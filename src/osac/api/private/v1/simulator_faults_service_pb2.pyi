from osac.api.private.v1 import simulator_fault_type_pb2 as _simulator_fault_type_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class SimulatorFaultsCreateRequest(_message.Message):
    __slots__ = ("object",)
    OBJECT_FIELD_NUMBER: _ClassVar[int]
    object: _simulator_fault_type_pb2.SimulatorFault
    def __init__(self, object: _Optional[_Union[_simulator_fault_type_pb2.SimulatorFault, _Mapping]] = ...) -> None: ...

class SimulatorFaultsCreateResponse(_message.Message):
    __slots__ = ("object",)
    OBJECT_FIELD_NUMBER: _ClassVar[int]
    object: _simulator_fault_type_pb2.SimulatorFault
    def __init__(self, object: _Optional[_Union[_simulator_fault_type_pb2.SimulatorFault, _Mapping]] = ...) -> None: ...

class SimulatorFaultsListRequest(_message.Message):
    __slots__ = ("offset", "limit", "filter", "order")
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    FILTER_FIELD_NUMBER: _ClassVar[int]
    ORDER_FIELD_NUMBER: _ClassVar[int]
    offset: int
    limit: int
    filter: str
    order: str
    def __init__(self, offset: _Optional[int] = ..., limit: _Optional[int] = ..., filter: _Optional[str] = ..., order: _Optional[str] = ...) -> None: ...

class SimulatorFaultsListResponse(_message.Message):
    __slots__ = ("size", "total", "items", "revision")
    SIZE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    REVISION_FIELD_NUMBER: _ClassVar[int]
    size: int
    total: int
    items: _containers.RepeatedCompositeFieldContainer[_simulator_fault_type_pb2.SimulatorFault]
    revision: int
    def __init__(self, size: _Optional[int] = ..., total: _Optional[int] = ..., items: _Optional[_Iterable[_Union[_simulator_fault_type_pb2.SimulatorFault, _Mapping]]] = ..., revision: _Optional[int] = ...) -> None: ...

class SimulatorFaultsDeleteRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class SimulatorFaultsDeleteResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...
