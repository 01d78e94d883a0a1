from google.protobuf import field_mask_pb2 as _field_mask_pb2
from osac.api.private.v1 import compute_instance_type_pb2 as _compute_instance_type_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ComputeInstancesListRequest(_message.Message):
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

class ComputeInstancesListResponse(_message.Message):
    __slots__ = ("size", "total", "items", "revision")
    SIZE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    REVISION_FIELD_NUMBER: _ClassVar[int]
    size: int
    total: int
    items: _containers.RepeatedCompositeFieldContainer[_compute_instance_type_pb2.ComputeInstance]
    revision: int
    def __init__(self, size: _Optional[int] = ..., total: _Optional[int] = ..., items: _Optional[_Iterable[_Union[_compute_instance_type_pb2.ComputeInstance, _Mapping]]] = ..., revision: _Optional[int] = ...) -> None: ...

class ComputeInstancesGetRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class ComputeInstancesGetResponse(_message.Message):
    __slots__ = ("object",)
    OBJECT_FIELD_NUMBER: _ClassVar[int]
    object: _compute_instance_type_pb2.ComputeInstance
    def __init__(self, object: _Optional[_Union[_compute_instance_type_pb2.ComputeInstance, _Mapping]] = ...) -> None: ...

class ComputeInstancesCreateRequest(_message.Message):
    __slots__ = ("object",)
    OBJECT_FIELD_NUMBER: _ClassVar[int]
    object: _compute_instance_type_pb2.ComputeInstance
    def __init__(self, object: _Optional[_Union[_compute_instance_type_pb2.ComputeInstance, _Mapping]] = ...) -> None: ...

class ComputeInstancesCreateResponse(_message.Message):
    __slots__ = ("object",)
    OBJECT_FIELD_NUMBER: _ClassVar[int]
    object: _compute_instance_type_pb2.ComputeInstance
    def __init__(self, object: _Optional[_Union[_compute_instance_type_pb2.ComputeInstance, _Mapping]] = ...) -> None: ...

class ComputeInstancesUpdateRequest(_message.Message):
    __slots__ = ("object", "update_mask", "lock")
    OBJECT_FIELD_NUMBER: _ClassVar[int]
    UPDATE_MASK_FIELD_NUMBER: _ClassVar[int]
    LOCK_FIELD_NUMBER: _ClassVar[int]
    object: _compute_instance_type_pb2.ComputeInstance
    update_mask: _field_mask_pb2.FieldMask
    lock: bool
    def __init__(self, object: _Optional[_Union[_compute_instance_type_pb2.ComputeInstance, _Mapping]] = ..., update_mask: _Optional[_Union[_field_mask_pb2.FieldMask, _Mapping]] = ..., lock: _Optional[bool] = ...) -> None: ...

class ComputeInstancesUpdateResponse(_message.Message):
    __slots__ = ("object",)
    OBJECT_FIELD_NUMBER: _ClassVar[int]
    object: _compute_instance_type_pb2.ComputeInstance
    def __init__(self, object: _Optional[_Union[_compute_instance_type_pb2.ComputeInstance, _Mapping]] = ...) -> None: ...

class ComputeInstancesDeleteRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class ComputeInstancesDeleteResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ComputeInstancesSignalRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class ComputeInstancesSignalResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...
