from osac.api.public.v1 import json_web_key_type_pb2 as _json_web_key_type_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class JsonWebKeySetGetRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class JsonWebKeySetGetResponse(_message.Message):
    __slots__ = ("keys",)
    KEYS_FIELD_NUMBER: _ClassVar[int]
    keys: _containers.RepeatedCompositeFieldContainer[_json_web_key_type_pb2.JsonWebKey]
    def __init__(self, keys: _Optional[_Iterable[_Union[_json_web_key_type_pb2.JsonWebKey, _Mapping]]] = ...) -> None: ...
