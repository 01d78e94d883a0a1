from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from typing import ClassVar as _ClassVar

DESCRIPTOR: _descriptor.FileDescriptor

class IPFamily(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    IP_FAMILY_UNSPECIFIED: _ClassVar[IPFamily]
    IP_FAMILY_IPV4: _ClassVar[IPFamily]
    IP_FAMILY_IPV6: _ClassVar[IPFamily]
IP_FAMILY_UNSPECIFIED: IPFamily
IP_FAMILY_IPV4: IPFamily
IP_FAMILY_IPV6: IPFamily
