from google.protobuf import field_mask_pb2 as _field_mask_pb2
from osac.api.public.v1 import external_ip_attachment_type_pb2 as _external_ip_attachment_type_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ExternalIPAttachmentsListRequest(_message.Message):
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

class ExternalIPAttachmentsListResponse(_message.Message):
    __slots__ = ("size", "total", "items", "revision")
    SIZE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    REVISION_FIELD_NUMBER: _ClassVar[int]
    size: int
    total: int
    items: _containers.RepeatedCompositeFieldContainer[_external_ip_attachment_type_pb2.ExternalIPAttachment]
    revision: int
    def __init__(self, size: _Optional[int] = ..., total: _Optional[int] = ..., items: _Optional[_Iterable[_Union[_external_ip_attachment_type_pb2.ExternalIPAttachment, _Mapping]]] = ..., revision: _Optional[int] = ...) -> None: ...

class ExternalIPAttachmentsGetRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class ExternalIPAttachmentsGetResponse(_message.Message):
    __slots__ = ("object",)
    OBJECT_FIELD_NUMBER: _ClassVar[int]
    object: _external_ip_attachment_type_pb2.ExternalIPAttachment
    def __init__(self, object: _Optional[_Union[_external_ip_attachment_type_pb2.ExternalIPAttachment, _Mapping]] = ...) -> None: ...

class ExternalIPAttachmentsCreateRequest(_message.Message):
    __slots__ = ("object",)
    OBJECT_FIELD_NUMBER: _ClassVar[int]
    object: _external_ip_attachment_type_pb2.ExternalIPAttachment
    def __init__(self, object: _Optional[_Union[_external_ip_attachment_type_pb2.ExternalIPAttachment, _Mapping]] = ...) -> None: ...

class ExternalIPAttachmentsCreateResponse(_message.Message):
    __slots__ = ("object",)
    OBJECT_FIELD_NUMBER: _ClassVar[int]
    object: _external_ip_attachment_type_pb2.ExternalIPAttachment
    def __init__(self, object: _Optional[_Union[_external_ip_attachment_type_pb2.ExternalIPAttachment, _Mapping]] = ...) -> None: ...

class ExternalIPAttachmentsUpdateRequest(_message.Message):
    __slots__ = ("object", "update_mask", "lock")
    OBJECT_FIELD_NUMBER: _ClassVar[int]
    UPDATE_MASK_FIELD_NUMBER: _ClassVar[int]
    LOCK_FIELD_NUMBER: _ClassVar[int]
    object: _external_ip_attachment_type_pb2.ExternalIPAttachment
    update_mask: _field_mask_pb2.FieldMask
    lock: bool
    def __init__(self, object: _Optional[_Union[_external_ip_attachment_type_pb2.ExternalIPAttachment, _Mapping]] = ..., update_mask: _Optional[_Union[_field_mask_pb2.FieldMask, _Mapping]] = ..., lock: _Optional[bool] = ...) -> None: ...

class ExternalIPAttachmentsUpdateResponse(_message.Message):
    __slots__ = ("object",)
    OBJECT_FIELD_NUMBER: _ClassVar[int]
    object: _external_ip_attachment_type_pb2.ExternalIPAttachment
    def __init__(self, object: _Optional[_Union[_external_ip_attachment_type_pb2.ExternalIPAttachment, _Mapping]] = ...) -> None: ...

class ExternalIPAttachmentsDeleteRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class ExternalIPAttachmentsDeleteResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...
