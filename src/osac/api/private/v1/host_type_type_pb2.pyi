from osac.api.private.v1 import metadata_type_pb2 as _metadata_type_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class HostType(_message.Message):
    __slots__ = ("id", "metadata", "title", "description", "interfaces")
    ID_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    INTERFACES_FIELD_NUMBER: _ClassVar[int]
    id: str
    metadata: _metadata_type_pb2.Metadata
    title: str
    description: str
    interfaces: _containers.RepeatedCompositeFieldContainer[NetworkInterface]
    def __init__(self, id: _Optional[str] = ..., metadata: _Optional[_Union[_metadata_type_pb2.Metadata, _Mapping]] = ..., title: _Optional[str] = ..., description: _Optional[str] = ..., interfaces: _Optional[_Iterable[_Union[NetworkInterface, _Mapping]]] = ...) -> None: ...

class NetworkInterface(_message.Message):
    __slots__ = ("name", "role", "description")
    NAME_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    name: str
    role: str
    description: str
    def __init__(self, name: _Optional[str] = ..., role: _Optional[str] = ..., description: _Optional[str] = ...) -> None: ...
