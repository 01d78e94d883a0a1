from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from typing import ClassVar as _ClassVar

DESCRIPTOR: _descriptor.FileDescriptor

class ConditionStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CONDITION_STATUS_UNSPECIFIED: _ClassVar[ConditionStatus]
    CONDITION_STATUS_TRUE: _ClassVar[ConditionStatus]
    CONDITION_STATUS_FALSE: _ClassVar[ConditionStatus]
CONDITION_STATUS_UNSPECIFIED: ConditionStatus
CONDITION_STATUS_TRUE: ConditionStatus
CONDITION_STATUS_FALSE: ConditionStatus
