from osac.api.public.v1 import authn_capabilities_type_pb2 as _authn_capabilities_type_pb2
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class CapabilitiesGetRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class CapabilitiesGetResponse(_message.Message):
    __slots__ = ("authn",)
    AUTHN_FIELD_NUMBER: _ClassVar[int]
    authn: _authn_capabilities_type_pb2.AuthnCapabilities
    def __init__(self, authn: _Optional[_Union[_authn_capabilities_type_pb2.AuthnCapabilities, _Mapping]] = ...) -> None: ...
