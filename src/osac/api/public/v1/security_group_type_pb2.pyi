from osac.api.public.v1 import metadata_type_pb2 as _metadata_type_pb2
from osac.api.public.v1 import security_rule_type_pb2 as _security_rule_type_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class SecurityGroupState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SECURITY_GROUP_STATE_UNSPECIFIED: _ClassVar[SecurityGroupState]
    SECURITY_GROUP_STATE_PENDING: _ClassVar[SecurityGroupState]
    SECURITY_GROUP_STATE_READY: _ClassVar[SecurityGroupState]
    SECURITY_GROUP_STATE_FAILED: _ClassVar[SecurityGroupState]
    SECURITY_GROUP_STATE_DELETING: _ClassVar[SecurityGroupState]
    SECURITY_GROUP_STATE_DELETE_FAILED: _ClassVar[SecurityGroupState]
SECURITY_GROUP_STATE_UNSPECIFIED: SecurityGroupState
SECURITY_GROUP_STATE_PENDING: SecurityGroupState
SECURITY_GROUP_STATE_READY: SecurityGroupState
SECURITY_GROUP_STATE_FAILED: SecurityGroupState
SECURITY_GROUP_STATE_DELETING: SecurityGroupState
SECURITY_GROUP_STATE_DELETE_FAILED: SecurityGroupState

class SecurityGroup(_message.Message):
    __slots__ = ("id", "metadata", "spec", "status")
    ID_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    SPEC_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    id: str
    metadata: _metadata_type_pb2.Metadata
    spec: SecurityGroupSpec
    status: SecurityGroupStatus
    def __init__(self, id: _Optional[str] = ..., metadata: _Optional[_Union[_metadata_type_pb2.Metadata, _Mapping]] = ..., spec: _Optional[_Union[SecurityGroupSpec, _Mapping]] = ..., status: _Optional[_Union[SecurityGroupStatus, _Mapping]] = ...) -> None: ...

class SecurityGroupSpec(_message.Message):
    __slots__ = ("virtual_network", "ingress", "egress")
    VIRTUAL_NETWORK_FIELD_NUMBER: _ClassVar[int]
    INGRESS_FIELD_NUMBER: _ClassVar[int]
    EGRESS_FIELD_NUMBER: _ClassVar[int]
    virtual_network: str
    ingress: _containers.RepeatedCompositeFieldContainer[_security_rule_type_pb2.SecurityRule]
    egress: _containers.RepeatedCompositeFieldContainer[_security_rule_type_pb2.SecurityRule]
    def __init__(self, virtual_network: _Optional[str] = ..., ingress: _Optional[_Iterable[_Union[_security_rule_type_pb2.SecurityRule, _Mapping]]] = ..., egress: _Optional[_Iterable[_Union[_security_rule_type_pb2.SecurityRule, _Mapping]]] = ...) -> None: ...

class SecurityGroupStatus(_message.Message):
    __slots__ = ("state", "message")
    STATE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    state: SecurityGroupState
    message: str
    def __init__(self, state: _Optional[_Union[SecurityGroupState, str]] = ..., message: _Optional[str] = ...) -> None: ...
