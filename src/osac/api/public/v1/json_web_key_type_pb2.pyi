from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Optional as _Optional

DESCRIPTOR: _descriptor.FileDescriptor

class JsonWebKey(_message.Message):
    __slots__ = ("kty", "kid", "use", "alg", "n", "e", "crv", "x", "y")
    KTY_FIELD_NUMBER: _ClassVar[int]
    KID_FIELD_NUMBER: _ClassVar[int]
    USE_FIELD_NUMBER: _ClassVar[int]
    ALG_FIELD_NUMBER: _ClassVar[int]
    N_FIELD_NUMBER: _ClassVar[int]
    E_FIELD_NUMBER: _ClassVar[int]
    CRV_FIELD_NUMBER: _ClassVar[int]
    X_FIELD_NUMBER: _ClassVar[int]
    Y_FIELD_NUMBER: _ClassVar[int]
    kty: str
    kid: str
    use: str
    alg: str
    n: str
    e: str
    crv: str
    x: str
    y: str
    def __init__(self, kty: _Optional[str] = ..., kid: _Optional[str] = ..., use: _Optional[str] = ..., alg: _Optional[str] = ..., n: _Optional[str] = ..., e: _Optional[str] = ..., crv: _Optional[str] = ..., x: _Optional[str] = ..., y: _Optional[str] = ...) -> None: ...
