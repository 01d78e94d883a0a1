from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Protocol(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PROTOCOL_UNSPECIFIED: _ClassVar[Protocol]
    PROTOCOL_TCP: _ClassVar[Protocol]
    PROTOCOL_UDP: _ClassVar[Protocol]
    PROTOCOL_ICMP: _ClassVar[Protocol]
    PROTOCOL_ALL: _ClassVar[Protocol]
PROTOCOL_UNSPECIFIED: Protocol
PROTOCOL_TCP: Protocol
PROTOCOL_UDP: Protocol
PROTOCOL_ICMP: Protocol
PROTOCOL_ALL: Protocol

class SecurityRule(_message.Message):
    __slots__ = ("protocol", "port_from", "port_to", "ipv4_cidr", "ipv6_cidr")
    PROTOCOL_FIELD_NUMBER: _ClassVar[int]
    PORT_FROM_FIELD_NUMBER: _ClassVar[int]
    PORT_TO_FIELD_NUMBER: _ClassVar[int]
    IPV4_CIDR_FIELD_NUMBER: _ClassVar[int]
    IPV6_CIDR_FIELD_NUMBER: _ClassVar[int]
    protocol: Protocol
    port_from: int
    port_to: int
    ipv4_cidr: str
    ipv6_cidr: str
    def __init__(self, protocol: _Optional[_Union[Protocol, str]] = ..., port_from: _Optional[int] = ..., port_to: _Optional[int] = ..., ipv4_cidr: _Optional[str] = ..., ipv6_cidr: _Optional[str] = ...) -> None: ...
