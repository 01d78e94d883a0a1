from osac.api.private.v1 import metadata_type_pb2 as _metadata_type_pb2
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ExternalIPAttachmentEndpoint(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    EXTERNAL_IP_ATTACHMENT_ENDPOINT_UNSPECIFIED: _ClassVar[ExternalIPAttachmentEndpoint]
    EXTERNAL_IP_ATTACHMENT_ENDPOINT_API: _ClassVar[ExternalIPAttachmentEndpoint]
    EXTERNAL_IP_ATTACHMENT_ENDPOINT_INGRESS: _ClassVar[ExternalIPAttachmentEndpoint]

class ExternalIPAttachmentState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    EXTERNAL_IP_ATTACHMENT_STATE_UNSPECIFIED: _ClassVar[ExternalIPAttachmentState]
    EXTERNAL_IP_ATTACHMENT_STATE_PENDING: _ClassVar[ExternalIPAttachmentState]
    EXTERNAL_IP_ATTACHMENT_STATE_READY: _ClassVar[ExternalIPAttachmentState]
    EXTERNAL_IP_ATTACHMENT_STATE_FAILED: _ClassVar[ExternalIPAttachmentState]
    EXTERNAL_IP_ATTACHMENT_STATE_DELETING: _ClassVar[ExternalIPAttachmentState]
    EXTERNAL_IP_ATTACHMENT_STATE_DELETE_FAILED: _ClassVar[ExternalIPAttachmentState]
EXTERNAL_IP_ATTACHMENT_ENDPOINT_UNSPECIFIED: ExternalIPAttachmentEndpoint
EXTERNAL_IP_ATTACHMENT_ENDPOINT_API: ExternalIPAttachmentEndpoint
EXTERNAL_IP_ATTACHMENT_ENDPOINT_INGRESS: ExternalIPAttachmentEndpoint
EXTERNAL_IP_ATTACHMENT_STATE_UNSPECIFIED: ExternalIPAttachmentState
EXTERNAL_IP_ATTACHMENT_STATE_PENDING: ExternalIPAttachmentState
EXTERNAL_IP_ATTACHMENT_STATE_READY: ExternalIPAttachmentState
EXTERNAL_IP_ATTACHMENT_STATE_FAILED: ExternalIPAttachmentState
EXTERNAL_IP_ATTACHMENT_STATE_DELETING: ExternalIPAttachmentState
EXTERNAL_IP_ATTACHMENT_STATE_DELETE_FAILED: ExternalIPAttachmentState

class ExternalIPAttachment(_message.Message):
    __slots__ = ("id", "metadata", "spec", "status")
    ID_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    SPEC_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    id: str
    metadata: _metadata_type_pb2.Metadata
    spec: ExternalIPAttachmentSpec
    status: ExternalIPAttachmentStatus
    def __init__(self, id: _Optional[str] = ..., metadata: _Optional[_Union[_metadata_type_pb2.Metadata, _Mapping]] = ..., spec: _Optional[_Union[ExternalIPAttachmentSpec, _Mapping]] = ..., status: _Optional[_Union[ExternalIPAttachmentStatus, _Mapping]] = ...) -> None: ...

class ExternalIPAttachmentSpec(_message.Message):
    __slots__ = ("external_ip", "compute_instance", "cluster", "baremetal_instance", "target_endpoint")
    EXTERNAL_IP_FIELD_NUMBER: _ClassVar[int]
    COMPUTE_INSTANCE_FIELD_NUMBER: _ClassVar[int]
    CLUSTER_FIELD_NUMBER: _ClassVar[int]
    BAREMETAL_INSTANCE_FIELD_NUMBER: _ClassVar[int]
    TARGET_ENDPOINT_FIELD_NUMBER: _ClassVar[int]
    external_ip: str
    compute_instance: str
    cluster: str
    baremetal_instance: str
    target_endpoint: ExternalIPAttachmentEndpoint
    def __init__(self, external_ip: _Optional[str] = ..., compute_instance: _Optional[str] = ..., cluster: _Optional[str] = ..., baremetal_instance: _Optional[str] = ..., target_endpoint: _Optional[_Union[ExternalIPAttachmentEndpoint, str]] = ...) -> None: ...

class ExternalIPAttachmentStatus(_message.Message):
    __slots__ = ("state", "external_ip_address", "message", "hub", "reason", "target_address")
    STATE_FIELD_NUMBER: _ClassVar[int]
    EXTERNAL_IP_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    HUB_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    TARGET_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    state: ExternalIPAttachmentState
    external_ip_address: str
    message: str
    hub: str
    reason: str
    target_address: str
    def __init__(self, state: _Optional[_Union[ExternalIPAttachmentState, str]] = ..., external_ip_address: _Optional[str] = ..., message: _Optional[str] = ..., hub: _Optional[str] = ..., reason: _Optional[str] = ..., target_address: _Optional[str] = ...) -> None: ...
