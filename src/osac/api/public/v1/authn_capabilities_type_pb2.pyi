from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable
from typing import ClassVar as _ClassVar, Optional as _Optional

DESCRIPTOR: _descriptor.FileDescriptor

class AuthnCapabilities(_message.Message):
    __slots__ = ("trusted_token_issuers",)
    TRUSTED_TOKEN_ISSUERS_FIELD_NUMBER: _ClassVar[int]
    trusted_token_issuers: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, trusted_token_issuers: _Optional[_Iterable[str]] = ...) -> None: ...
