from osac.api.public.v1 import metadata_type_pb2 as _metadata_type_pb2
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class NATGatewayState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    NAT_GATEWAY_STATE_UNSPECIFIED: _ClassVar[NATGatewayState]
    NAT_GATEWAY_STATE_PENDING: _ClassVar[NATGatewayState]
    NAT_GATEWAY_STATE_READY: _ClassVar[NATGatewayState]
    NAT_GATEWAY_STATE_FAILED: _ClassVar[NATGatewayState]
    NAT_GATEWAY_STATE_DELETING: _ClassVar[NATGatewayState]
    NAT_GATEWAY_STATE_DELETE_FAILED: _ClassVar[NATGatewayState]
NAT_GATEWAY_STATE_UNSPECIFIED: NATGatewayState
NAT_GATEWAY_STATE_PENDING: NATGatewayState
NAT_GATEWAY_STATE_READY: NATGatewayState
NAT_GATEWAY_STATE_FAILED: NATGatewayState
NAT_GATEWAY_STATE_DELETING: NATGatewayState
NAT_GATEWAY_STATE_DELETE_FAILED: NATGatewayState

class NATGateway(_message.Message):
    __slots__ = ("id", "metadata", "spec", "status")
    ID_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    SPEC_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    id: str
    metadata: _metadata_type_pb2.Metadata
    spec: NATGatewaySpec
    status: NATGatewayStatus
    def __init__(self, id: _Optional[str] = ..., metadata: _Optional[_Union[_metadata_type_pb2.Metadata, _Mapping]] = ..., spec: _Optional[_Union[NATGatewaySpec, _Mapping]] = ..., status: _Optional[_Union[NATGatewayStatus, _Mapping]] = ...) -> None: ...

class NATGatewaySpec(_message.Message):
    __slots__ = ("virtual_network", "external_ip")
    VIRTUAL_NETWORK_FIELD_NUMBER: _ClassVar[int]
    EXTERNAL_IP_FIELD_NUMBER: _ClassVar[int]
    virtual_network: str
    external_ip: str
    def __init__(self, virtual_network: _Optional[str] = ..., external_ip: _Optional[str] = ...) -> None: ...

class NATGatewayStatus(_message.Message):
    __slots__ = ("state", "message")
    STATE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    state: NATGatewayState
    message: str
    def __init__(self, state: _Optional[_Union[NATGatewayState, str]] = ..., message: _Optional[str] = ...) -> None: ...
