import datetime

from google.protobuf import any_pb2 as _any_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from osac.api.private.v1 import condition_status_type_pb2 as _condition_status_type_pb2
from osac.api.private.v1 import metadata_type_pb2 as _metadata_type_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ComputeInstanceState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    COMPUTE_INSTANCE_STATE_UNSPECIFIED: _ClassVar[ComputeInstanceState]
    COMPUTE_INSTANCE_STATE_STARTING: _ClassVar[ComputeInstanceState]
    COMPUTE_INSTANCE_STATE_RUNNING: _ClassVar[ComputeInstanceState]
    COMPUTE_INSTANCE_STATE_FAILED: _ClassVar[ComputeInstanceState]
    COMPUTE_INSTANCE_STATE_DELETING: _ClassVar[ComputeInstanceState]
    COMPUTE_INSTANCE_STATE_STOPPING: _ClassVar[ComputeInstanceState]
    COMPUTE_INSTANCE_STATE_STOPPED: _ClassVar[ComputeInstanceState]
    COMPUTE_INSTANCE_STATE_PAUSED: _ClassVar[ComputeInstanceState]
    COMPUTE_INSTANCE_STATE_DELETE_FAILED: _ClassVar[ComputeInstanceState]

class ComputeInstanceConditionType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    COMPUTE_INSTANCE_CONDITION_TYPE_UNSPECIFIED: _ClassVar[ComputeInstanceConditionType]
    COMPUTE_INSTANCE_CONDITION_TYPE_CONFIGURATION_APPLIED: _ClassVar[ComputeInstanceConditionType]
    COMPUTE_INSTANCE_CONDITION_TYPE_READY: _ClassVar[ComputeInstanceConditionType]
    COMPUTE_INSTANCE_CONDITION_TYPE_RESTART_IN_PROGRESS: _ClassVar[ComputeInstanceConditionType]
    COMPUTE_INSTANCE_CONDITION_TYPE_RESTART_FAILED: _ClassVar[ComputeInstanceConditionType]
    COMPUTE_INSTANCE_CONDITION_TYPE_PROVISIONED: _ClassVar[ComputeInstanceConditionType]
    COMPUTE_INSTANCE_CONDITION_TYPE_RESTART_REQUIRED: _ClassVar[ComputeInstanceConditionType]
COMPUTE_INSTANCE_STATE_UNSPECIFIED: ComputeInstanceState
COMPUTE_INSTANCE_STATE_STARTING: ComputeInstanceState
COMPUTE_INSTANCE_STATE_RUNNING: ComputeInstanceState
COMPUTE_INSTANCE_STATE_FAILED: ComputeInstanceState
COMPUTE_INSTANCE_STATE_DELETING: ComputeInstanceState
COMPUTE_INSTANCE_STATE_STOPPING: ComputeInstanceState
COMPUTE_INSTANCE_STATE_STOPPED: ComputeInstanceState
COMPUTE_INSTANCE_STATE_PAUSED: ComputeInstanceState
COMPUTE_INSTANCE_STATE_DELETE_FAILED: ComputeInstanceState
COMPUTE_INSTANCE_CONDITION_TYPE_UNSPECIFIED: ComputeInstanceConditionType
COMPUTE_INSTANCE_CONDITION_TYPE_CONFIGURATION_APPLIED: ComputeInstanceConditionType
COMPUTE_INSTANCE_CONDITION_TYPE_READY: ComputeInstanceConditionType
COMPUTE_INSTANCE_CONDITION_TYPE_RESTART_IN_PROGRESS: ComputeInstanceConditionType
COMPUTE_INSTANCE_CONDITION_TYPE_RESTART_FAILED: ComputeInstanceConditionType
COMPUTE_INSTANCE_CONDITION_TYPE_PROVISIONED: ComputeInstanceConditionType
COMPUTE_INSTANCE_CONDITION_TYPE_RESTART_REQUIRED: ComputeInstanceConditionType

class ComputeInstance(_message.Message):
    __slots__ = ("id", "metadata", "spec", "status")
    ID_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    SPEC_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    id: str
    metadata: _metadata_type_pb2.Metadata
    spec: ComputeInstanceSpec
    status: ComputeInstanceStatus
    def __init__(self, id: _Optional[str] = ..., metadata: _Optional[_Union[_metadata_type_pb2.Metadata, _Mapping]] = ..., spec: _Optional[_Union[ComputeInstanceSpec, _Mapping]] = ..., status: _Optional[_Union[ComputeInstanceStatus, _Mapping]] = ...) -> None: ...

class ComputeInstanceSpec(_message.Message):
    __slots__ = ("template", "template_parameters", "restart_requested_at", "image", "ssh_public_key", "boot_disk", "additional_disks", "run_strategy", "user_data", "network_attachments", "catalog_item", "is_windows", "instance_type", "compute_network_attachments", "auto_external_ip_attachment")
    class TemplateParametersEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: _any_pb2.Any
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[_any_pb2.Any, _Mapping]] = ...) -> None: ...
    TEMPLATE_FIELD_NUMBER: _ClassVar[int]
    TEMPLATE_PARAMETERS_FIELD_NUMBER: _ClassVar[int]
    RESTART_REQUESTED_AT_FIELD_NUMBER: _ClassVar[int]
    IMAGE_FIELD_NUMBER: _ClassVar[int]
    SSH_PUBLIC_KEY_FIELD_NUMBER: _ClassVar[int]
    BOOT_DISK_FIELD_NUMBER: _ClassVar[int]
    ADDITIONAL_DISKS_FIELD_NUMBER: _ClassVar[int]
    RUN_STRATEGY_FIELD_NUMBER: _ClassVar[int]
    USER_DATA_FIELD_NUMBER: _ClassVar[int]
    NETWORK_ATTACHMENTS_FIELD_NUMBER: _ClassVar[int]
    CATALOG_ITEM_FIELD_NUMBER: _ClassVar[int]
    IS_WINDOWS_FIELD_NUMBER: _ClassVar[int]
    INSTANCE_TYPE_FIELD_NUMBER: _ClassVar[int]
    COMPUTE_NETWORK_ATTACHMENTS_FIELD_NUMBER: _ClassVar[int]
    AUTO_EXTERNAL_IP_ATTACHMENT_FIELD_NUMBER: _ClassVar[int]
    template: str
    template_parameters: _containers.MessageMap[str, _any_pb2.Any]
    restart_requested_at: _timestamp_pb2.Timestamp
    image: ComputeInstanceImage
    ssh_public_key: str
    boot_disk: ComputeInstanceDisk
    additional_disks: _containers.RepeatedCompositeFieldContainer[ComputeInstanceDisk]
    run_strategy: str
    user_data: str
    network_attachments: _containers.RepeatedCompositeFieldContainer[NetworkAttachment]
    catalog_item: str
    is_windows: bool
    instance_type: str
    compute_network_attachments: _containers.RepeatedCompositeFieldContainer[ComputeNetworkAttachment]
    auto_external_ip_attachment: bool
    def __init__(self, template: _Optional[str] = ..., template_parameters: _Optional[_Mapping[str, _any_pb2.Any]] = ..., restart_requested_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., image: _Optional[_Union[ComputeInstanceImage, _Mapping]] = ..., ssh_public_key: _Optional[str] = ..., boot_disk: _Optional[_Union[ComputeInstanceDisk, _Mapping]] = ..., additional_disks: _Optional[_Iterable[_Union[ComputeInstanceDisk, _Mapping]]] = ..., run_strategy: _Optional[str] = ..., user_data: _Optional[str] = ..., network_attachments: _Optional[_Iterable[_Union[NetworkAttachment, _Mapping]]] = ..., catalog_item: _Optional[str] = ..., is_windows: _Optional[bool] = ..., instance_type: _Optional[str] = ..., compute_network_attachments: _Optional[_Iterable[_Union[ComputeNetworkAttachment, _Mapping]]] = ..., auto_external_ip_attachment: _Optional[bool] = ...) -> None: ...

class ComputeInstanceImage(_message.Message):
    __slots__ = ("source_type", "source_ref")
    SOURCE_TYPE_FIELD_NUMBER: _ClassVar[int]
    SOURCE_REF_FIELD_NUMBER: _ClassVar[int]
    source_type: str
    source_ref: str
    def __init__(self, source_type: _Optional[str] = ..., source_ref: _Optional[str] = ...) -> None: ...

class ComputeInstanceDisk(_message.Message):
    __slots__ = ("size_gib",)
    SIZE_GIB_FIELD_NUMBER: _ClassVar[int]
    size_gib: int
    def __init__(self, size_gib: _Optional[int] = ...) -> None: ...

class NetworkAttachment(_message.Message):
    __slots__ = ("subnet", "security_groups")
    SUBNET_FIELD_NUMBER: _ClassVar[int]
    SECURITY_GROUPS_FIELD_NUMBER: _ClassVar[int]
    subnet: str
    security_groups: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, subnet: _Optional[str] = ..., security_groups: _Optional[_Iterable[str]] = ...) -> None: ...

class ComputeNetworkAttachment(_message.Message):
    __slots__ = ("subnet", "security_groups", "primary")
    SUBNET_FIELD_NUMBER: _ClassVar[int]
    SECURITY_GROUPS_FIELD_NUMBER: _ClassVar[int]
    PRIMARY_FIELD_NUMBER: _ClassVar[int]
    subnet: str
    security_groups: _containers.RepeatedScalarFieldContainer[str]
    primary: bool
    def __init__(self, subnet: _Optional[str] = ..., security_groups: _Optional[_Iterable[str]] = ..., primary: _Optional[bool] = ...) -> None: ...

class ComputeNetworkAttachmentStatus(_message.Message):
    __slots__ = ("subnet", "ip_address", "primary")
    SUBNET_FIELD_NUMBER: _ClassVar[int]
    IP_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    PRIMARY_FIELD_NUMBER: _ClassVar[int]
    subnet: str
    ip_address: str
    primary: bool
    def __init__(self, subnet: _Optional[str] = ..., ip_address: _Optional[str] = ..., primary: _Optional[bool] = ...) -> None: ...

class ComputeInstanceStatus(_message.Message):
    __slots__ = ("state", "conditions", "internal_ip_address", "hub", "last_restarted_at", "external_ip_address", "state_transition_time", "compute_network_attachment_statuses")
    STATE_FIELD_NUMBER: _ClassVar[int]
    CONDITIONS_FIELD_NUMBER: _ClassVar[int]
    INTERNAL_IP_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    HUB_FIELD_NUMBER: _ClassVar[int]
    LAST_RESTARTED_AT_FIELD_NUMBER: _ClassVar[int]
    EXTERNAL_IP_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    STATE_TRANSITION_TIME_FIELD_NUMBER: _ClassVar[int]
    COMPUTE_NETWORK_ATTACHMENT_STATUSES_FIELD_NUMBER: _ClassVar[int]
    state: ComputeInstanceState
    conditions: _containers.RepeatedCompositeFieldContainer[ComputeInstanceCondition]
    internal_ip_address: str
    hub: str
    last_restarted_at: _timestamp_pb2.Timestamp
    external_ip_address: str
    state_transition_time: _timestamp_pb2.Timestamp
    compute_network_attachment_statuses: _containers.RepeatedCompositeFieldContainer[ComputeNetworkAttachmentStatus]
    def __init__(self, state: _Optional[_Union[ComputeInstanceState, str]] = ..., conditions: _Optional[_Iterable[_Union[ComputeInstanceCondition, _Mapping]]] = ..., internal_ip_address: _Optional[str] = ..., hub: _Optional[str] = ..., last_restarted_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., external_ip_address: _Optional[str] = ..., state_transition_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., compute_network_attachment_statuses: _Optional[_Iterable[_Union[ComputeNetworkAttachmentStatus, _Mapping]]] = ...) -> None: ...

class ComputeInstanceCondition(_message.Message):
    __slots__ = ("type", "status", "last_transition_time", "reason", "message")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    LAST_TRANSITION_TIME_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    type: ComputeInstanceConditionType
    status: _condition_status_type_pb2.ConditionStatus
    last_transition_time: _timestamp_pb2.Timestamp
    reason: str
    message: str
    def __init__(self, type: _Optional[_Union[ComputeInstanceConditionType, str]] = ..., status: _Optional[_Union[_condition_status_type_pb2.ConditionStatus, str]] = ..., last_transition_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., reason: _Optional[str] = ..., message: _Optional[str] = ...) -> None: ...
