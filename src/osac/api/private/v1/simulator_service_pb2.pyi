import datetime

from google.protobuf import duration_pb2 as _duration_pb2
from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from osac.api.private.v1 import security_rule_type_pb2 as _security_rule_type_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class SimulatorGetObservationRequest(_message.Message):
    __slots__ = ("kind", "key")
    KIND_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    kind: str
    key: str
    def __init__(self, kind: _Optional[str] = ..., key: _Optional[str] = ...) -> None: ...

class SimulatorGetObservationResponse(_message.Message):
    __slots__ = ("observation",)
    OBSERVATION_FIELD_NUMBER: _ClassVar[int]
    observation: _struct_pb2.Struct
    def __init__(self, observation: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class SimulatorGetClockRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SimulatorGetClockResponse(_message.Message):
    __slots__ = ("now",)
    NOW_FIELD_NUMBER: _ClassVar[int]
    now: _timestamp_pb2.Timestamp
    def __init__(self, now: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class SimulatorAdvanceClockRequest(_message.Message):
    __slots__ = ("duration",)
    DURATION_FIELD_NUMBER: _ClassVar[int]
    duration: _duration_pb2.Duration
    def __init__(self, duration: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ...) -> None: ...

class SimulatorAdvanceClockResponse(_message.Message):
    __slots__ = ("now",)
    NOW_FIELD_NUMBER: _ClassVar[int]
    now: _timestamp_pb2.Timestamp
    def __init__(self, now: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class SimulatorSetSpeedRequest(_message.Message):
    __slots__ = ("speed",)
    SPEED_FIELD_NUMBER: _ClassVar[int]
    speed: str
    def __init__(self, speed: _Optional[str] = ...) -> None: ...

class SimulatorSetSpeedResponse(_message.Message):
    __slots__ = ("speed",)
    SPEED_FIELD_NUMBER: _ClassVar[int]
    speed: str
    def __init__(self, speed: _Optional[str] = ...) -> None: ...

class SimulatorListHostsRequest(_message.Message):
    __slots__ = ("host_type",)
    HOST_TYPE_FIELD_NUMBER: _ClassVar[int]
    host_type: str
    def __init__(self, host_type: _Optional[str] = ...) -> None: ...

class SimulatorListHostsResponse(_message.Message):
    __slots__ = ("hosts",)
    HOSTS_FIELD_NUMBER: _ClassVar[int]
    hosts: _containers.RepeatedCompositeFieldContainer[SimulatorHost]
    def __init__(self, hosts: _Optional[_Iterable[_Union[SimulatorHost, _Mapping]]] = ...) -> None: ...

class SimulatorAddHostsRequest(_message.Message):
    __slots__ = ("prefix", "host_type", "count")
    PREFIX_FIELD_NUMBER: _ClassVar[int]
    HOST_TYPE_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    prefix: str
    host_type: str
    count: int
    def __init__(self, prefix: _Optional[str] = ..., host_type: _Optional[str] = ..., count: _Optional[int] = ...) -> None: ...

class SimulatorAddHostsResponse(_message.Message):
    __slots__ = ("hosts",)
    HOSTS_FIELD_NUMBER: _ClassVar[int]
    hosts: _containers.RepeatedCompositeFieldContainer[SimulatorHost]
    def __init__(self, hosts: _Optional[_Iterable[_Union[SimulatorHost, _Mapping]]] = ...) -> None: ...

class SimulatorRemoveHostRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class SimulatorRemoveHostResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SimulatorCheckReachabilityRequest(_message.Message):
    __slots__ = ("src", "dst", "protocol", "port")
    SRC_FIELD_NUMBER: _ClassVar[int]
    DST_FIELD_NUMBER: _ClassVar[int]
    PROTOCOL_FIELD_NUMBER: _ClassVar[int]
    PORT_FIELD_NUMBER: _ClassVar[int]
    src: str
    dst: str
    protocol: _security_rule_type_pb2.Protocol
    port: int
    def __init__(self, src: _Optional[str] = ..., dst: _Optional[str] = ..., protocol: _Optional[_Union[_security_rule_type_pb2.Protocol, str]] = ..., port: _Optional[int] = ...) -> None: ...

class SimulatorCheckReachabilityResponse(_message.Message):
    __slots__ = ("allowed", "reason", "translated_source", "translated_destination")
    ALLOWED_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    TRANSLATED_SOURCE_FIELD_NUMBER: _ClassVar[int]
    TRANSLATED_DESTINATION_FIELD_NUMBER: _ClassVar[int]
    allowed: bool
    reason: str
    translated_source: str
    translated_destination: str
    def __init__(self, allowed: _Optional[bool] = ..., reason: _Optional[str] = ..., translated_source: _Optional[str] = ..., translated_destination: _Optional[str] = ...) -> None: ...

class SimulatorHost(_message.Message):
    __slots__ = ("name", "host_type", "interfaces", "bmc", "power", "provisioning_state", "operational_status", "owner")
    NAME_FIELD_NUMBER: _ClassVar[int]
    HOST_TYPE_FIELD_NUMBER: _ClassVar[int]
    INTERFACES_FIELD_NUMBER: _ClassVar[int]
    BMC_FIELD_NUMBER: _ClassVar[int]
    POWER_FIELD_NUMBER: _ClassVar[int]
    PROVISIONING_STATE_FIELD_NUMBER: _ClassVar[int]
    OPERATIONAL_STATUS_FIELD_NUMBER: _ClassVar[int]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    name: str
    host_type: str
    interfaces: _containers.RepeatedCompositeFieldContainer[SimulatorHostInterface]
    bmc: str
    power: str
    provisioning_state: str
    operational_status: str
    owner: SimulatorHostOwner
    def __init__(self, name: _Optional[str] = ..., host_type: _Optional[str] = ..., interfaces: _Optional[_Iterable[_Union[SimulatorHostInterface, _Mapping]]] = ..., bmc: _Optional[str] = ..., power: _Optional[str] = ..., provisioning_state: _Optional[str] = ..., operational_status: _Optional[str] = ..., owner: _Optional[_Union[SimulatorHostOwner, _Mapping]] = ...) -> None: ...

class SimulatorHostInterface(_message.Message):
    __slots__ = ("name", "role", "mac", "switch", "port")
    NAME_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    MAC_FIELD_NUMBER: _ClassVar[int]
    SWITCH_FIELD_NUMBER: _ClassVar[int]
    PORT_FIELD_NUMBER: _ClassVar[int]
    name: str
    role: str
    mac: str
    switch: str
    port: str
    def __init__(self, name: _Optional[str] = ..., role: _Optional[str] = ..., mac: _Optional[str] = ..., switch: _Optional[str] = ..., port: _Optional[str] = ...) -> None: ...

class SimulatorHostOwner(_message.Message):
    __slots__ = ("kind", "id")
    KIND_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    kind: str
    id: str
    def __init__(self, kind: _Optional[str] = ..., id: _Optional[str] = ...) -> None: ...
