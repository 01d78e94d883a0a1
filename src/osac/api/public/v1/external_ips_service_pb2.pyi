from google.protobuf import field_mask_pb2 as _field_mask_pb2
from osac.api.public.v1 import external_ip_type_pb2 as _external_ip_type_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ExternalIPsListRequest(_message.Message):
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

class ExternalIPsListResponse(_message.Message):
    __slots__ = ("size", "total", "items", "revision")
    SIZE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    REVISION_FIELD_NUMBER: _ClassVar[int]
    size: int
    total: int
    items: _containers.RepeatedCompositeFieldContainer[_external_ip_type_pb2.ExternalIP]
    revision: int
    def __init__(self, size: _Optional[int] = ..., total: _Optional[int] = ..., items: _Optional[_Iterable[_Union[_external_ip_type_pb2.ExternalIP, _Mapping]]] = ..., revision: _Optional[int] = ...) -> None: ...

class ExternalIPsGetRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class ExternalIPsGetResponse(_message.Message):
    __slots__ = ("object",)
    OBJECT_FIELD_NUMBER: _ClassVar[int]
    object: _external_ip_type_pb2.ExternalIP
    def __init__(self, object: _Optional[_Union[_external_ip_type_pb2.ExternalIP, _Mapping]] = ...) -> None: ...

class ExternalIPsCreateRequest(_message.Message):
    __slots__ = ("object",)
    OBJECT_FIELD_NUMBER: _ClassVar[int]
    object: _external_ip_type_pb2.ExternalIP
    def __init__(self, object: _Optional[_Union[_external_ip_type_pb2.ExternalIP, _Mapping]] = ...) -> None: ...

class ExternalIPsCreateResponse(_message.Message):
    __slots__ = ("object",)
    OBJECT_FIELD_NUMBER: _ClassVar[int]
    object: _external_ip_type_pb2.ExternalIP
    def __init__(self, object: _Optional[_Union[_external_ip_type_pb2.ExternalIP, _Mapping]] = ...) -> None: ...

class ExternalIPsUpdateRequest(_message.Message):
    __slots__ = ("object", "update_mask", "lock")
    OBJECT_FIELD_NUMBER: _ClassVar[int]
    UPDATE_MASK_FIELD_NUMBER: _ClassVar[int]
    LOCK_FIELD_NUMBER: _ClassVar[int]
    object: _external_ip_type_pb2.ExternalIP
    update_mask: _field_mask_pb2.FieldMask
    lock: bool
    def __init__(self, object: _Optional[_Union[_external_ip_type_pb2.ExternalIP, _Mapping]] = ..., update_mask: _Optional[_Union[_field_mask_pb2.FieldMask, _Mapping]] = ..., lock: _Optional[bool] = ...) -> None: ...

class ExternalIPsUpdateResponse(_message.Message):
    __slots__ = ("object",)
    OBJECT_FIELD_NUMBER: _ClassVar[int]
    object: _external_ip_type_pb2.ExternalIP
    def __init__(self, object: _Optional[_Union[_external_ip_type_pb2.ExternalIP, _Mapping]] = ...) -> None: ...

class ExternalIPsDeleteRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class ExternalIPsDeleteResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...
