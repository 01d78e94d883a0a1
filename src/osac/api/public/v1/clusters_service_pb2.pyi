from google.protobuf import field_mask_pb2 as _field_mask_pb2
from osac.api.public.v1 import cluster_type_pb2 as _cluster_type_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ClustersListRequest(_message.Message):
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

class ClustersListResponse(_message.Message):
    __slots__ = ("size", "total", "items", "revision")
    SIZE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    REVISION_FIELD_NUMBER: _ClassVar[int]
    size: int
    total: int
    items: _containers.RepeatedCompositeFieldContainer[_cluster_type_pb2.Cluster]
    revision: int
    def __init__(self, size: _Optional[int] = ..., total: _Optional[int] = ..., items: _Optional[_Iterable[_Union[_cluster_type_pb2.Cluster, _Mapping]]] = ..., revision: _Optional[int] = ...) -> None: ...

class ClustersGetRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class ClustersGetResponse(_message.Message):
    __slots__ = ("object",)
    OBJECT_FIELD_NUMBER: _ClassVar[int]
    object: _cluster_type_pb2.Cluster
    def __init__(self, object: _Optional[_Union[_cluster_type_pb2.Cluster, _Mapping]] = ...) -> None: ...

class ClustersCreateRequest(_message.Message):
    __slots__ = ("object",)
    OBJECT_FIELD_NUMBER: _ClassVar[int]
    object: _cluster_type_pb2.Cluster
    def __init__(self, object: _Optional[_Union[_cluster_type_pb2.Cluster, _Mapping]] = ...) -> None: ...

class ClustersCreateResponse(_message.Message):
    __slots__ = ("object", "warnings")
    OBJECT_FIELD_NUMBER: _ClassVar[int]
    WARNINGS_FIELD_NUMBER: _ClassVar[int]
    object: _cluster_type_pb2.Cluster
    warnings: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, object: _Optional[_Union[_cluster_type_pb2.Cluster, _Mapping]] = ..., warnings: _Optional[_Iterable[str]] = ...) -> None: ...

class ClustersUpdateRequest(_message.Message):
    __slots__ = ("object", "update_mask", "lock")
    OBJECT_FIELD_NUMBER: _ClassVar[int]
    UPDATE_MASK_FIELD_NUMBER: _ClassVar[int]
    LOCK_FIELD_NUMBER: _ClassVar[int]
    object: _cluster_type_pb2.Cluster
    update_mask: _field_mask_pb2.FieldMask
    lock: bool
    def __init__(self, object: _Optional[_Union[_cluster_type_pb2.Cluster, _Mapping]] = ..., update_mask: _Optional[_Union[_field_mask_pb2.FieldMask, _Mapping]] = ..., lock: _Optional[bool] = ...) -> None: ...

class ClustersUpdateResponse(_message.Message):
    __slots__ = ("object", "warnings")
    OBJECT_FIELD_NUMBER: _ClassVar[int]
    WARNINGS_FIELD_NUMBER: _ClassVar[int]
    object: _cluster_type_pb2.Cluster
    warnings: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, object: _Optional[_Union[_cluster_type_pb2.Cluster, _Mapping]] = ..., warnings: _Optional[_Iterable[str]] = ...) -> None: ...

class ClustersDeleteRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class ClustersDeleteResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ClustersGetKubeconfigRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class ClustersGetKubeconfigResponse(_message.Message):
    __slots__ = ("kubeconfig",)
    KUBECONFIG_FIELD_NUMBER: _ClassVar[int]
    kubeconfig: str
    def __init__(self, kubeconfig: _Optional[str] = ...) -> None: ...

class ClustersGetPasswordRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class ClustersGetPasswordResponse(_message.Message):
    __slots__ = ("password",)
    PASSWORD_FIELD_NUMBER: _ClassVar[int]
    password: str
    def __init__(self, password: _Optional[str] = ...) -> None: ...
