from osac.api.private.v1 import metadata_type_pb2 as _metadata_type_pb2
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Hub(_message.Message):
    __slots__ = ("id", "metadata", "spec", "status")
    ID_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    SPEC_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    id: str
    metadata: _metadata_type_pb2.Metadata
    spec: HubSpec
    status: HubStatus
    def __init__(self, id: _Optional[str] = ..., metadata: _Optional[_Union[_metadata_type_pb2.Metadata, _Mapping]] = ..., spec: _Optional[_Union[HubSpec, _Mapping]] = ..., status: _Optional[_Union[HubStatus, _Mapping]] = ...) -> None: ...

class HubSpec(_message.Message):
    __slots__ = ("kubeconfig", "namespace")
    KUBECONFIG_FIELD_NUMBER: _ClassVar[int]
    NAMESPACE_FIELD_NUMBER: _ClassVar[int]
    kubeconfig: bytes
    namespace: str
    def __init__(self, kubeconfig: _Optional[bytes] = ..., namespace: _Optional[str] = ...) -> None: ...

class HubStatus(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...
