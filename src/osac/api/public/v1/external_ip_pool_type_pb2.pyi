from osac.api.public.v1 import ip_family_type_pb2 as _ip_family_type_pb2
from osac.api.public.v1 import metadata_type_pb2 as _metadata_type_pb2
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

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
    __slots__ = ("ip_family",)
    IP_FAMILY_FIELD_NUMBER: _ClassVar[int]
    ip_family: _ip_family_type_pb2.IPFamily
    def __init__(self, ip_family: _Optional[_Union[_ip_family_type_pb2.IPFamily, str]] = ...) -> None: ...

class ExternalIPPoolStatus(_message.Message):
    __slots__ = ("available",)
    AVAILABLE_FIELD_NUMBER: _ClassVar[int]
    available: int
    def __init__(self, available: _Optional[int] = ...) -> None: ...
