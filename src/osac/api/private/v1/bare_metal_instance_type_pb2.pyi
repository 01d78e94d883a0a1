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

class BareMetalInstanceRunStrategy(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    BARE_METAL_INSTANCE_RUN_STRATEGY_UNSPECIFIED: _ClassVar[BareMetalInstanceRunStrategy]
    BARE_METAL_INSTANCE_RUN_STRATEGY_ALWAYS: _ClassVar[BareMetalInstanceRunStrategy]
    BARE_METAL_INSTANCE_RUN_STRATEGY_HALTED: _ClassVar[BareMetalInstanceRunStrategy]

class BareMetalInstanceProvisioningStepStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    BARE_METAL_INSTANCE_PROVISIONING_STEP_STATUS_UNSPECIFIED: _ClassVar[BareMetalInstanceProvisioningStepStatus]
    BARE_METAL_INSTANCE_PROVISIONING_STEP_STATUS_PENDING: _ClassVar[BareMetalInstanceProvisioningStepStatus]
    BARE_METAL_INSTANCE_PROVISIONING_STEP_STATUS_RUNNING: _ClassVar[BareMetalInstanceProvisioningStepStatus]
    BARE_METAL_INSTANCE_PROVISIONING_STEP_STATUS_COMPLETED: _ClassVar[BareMetalInstanceProvisioningStepStatus]
    BARE_METAL_INSTANCE_PROVISIONING_STEP_STATUS_FAILED: _ClassVar[BareMetalInstanceProvisioningStepStatus]

class BareMetalInstanceState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    BARE_METAL_INSTANCE_STATE_UNSPECIFIED: _ClassVar[BareMetalInstanceState]
    BARE_METAL_INSTANCE_STATE_PROVISIONING: _ClassVar[BareMetalInstanceState]
    BARE_METAL_INSTANCE_STATE_RUNNING: _ClassVar[BareMetalInstanceState]
    BARE_METAL_INSTANCE_STATE_FAILED: _ClassVar[BareMetalInstanceState]
    BARE_METAL_INSTANCE_STATE_DELETING: _ClassVar[BareMetalInstanceState]
    BARE_METAL_INSTANCE_STATE_STARTING: _ClassVar[BareMetalInstanceState]
    BARE_METAL_INSTANCE_STATE_STOPPING: _ClassVar[BareMetalInstanceState]
    BARE_METAL_INSTANCE_STATE_STOPPED: _ClassVar[BareMetalInstanceState]
    BARE_METAL_INSTANCE_STATE_DELETE_FAILED: _ClassVar[BareMetalInstanceState]

class BareMetalInstanceConditionType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    BARE_METAL_INSTANCE_CONDITION_TYPE_UNSPECIFIED: _ClassVar[BareMetalInstanceConditionType]
    BARE_METAL_INSTANCE_CONDITION_TYPE_PROVISIONED: _ClassVar[BareMetalInstanceConditionType]
    BARE_METAL_INSTANCE_CONDITION_TYPE_CONFIGURATION_APPLIED: _ClassVar[BareMetalInstanceConditionType]
    BARE_METAL_INSTANCE_CONDITION_TYPE_READY: _ClassVar[BareMetalInstanceConditionType]
    BARE_METAL_INSTANCE_CONDITION_TYPE_RESTART_IN_PROGRESS: _ClassVar[BareMetalInstanceConditionType]
    BARE_METAL_INSTANCE_CONDITION_TYPE_RESTART_FAILED: _ClassVar[BareMetalInstanceConditionType]
    BARE_METAL_INSTANCE_CONDITION_TYPE_RESTART_REQUIRED: _ClassVar[BareMetalInstanceConditionType]
BARE_METAL_INSTANCE_RUN_STRATEGY_UNSPECIFIED: BareMetalInstanceRunStrategy
BARE_METAL_INSTANCE_RUN_STRATEGY_ALWAYS: BareMetalInstanceRunStrategy
BARE_METAL_INSTANCE_RUN_STRATEGY_HALTED: BareMetalInstanceRunStrategy
BARE_METAL_INSTANCE_PROVISIONING_STEP_STATUS_UNSPECIFIED: BareMetalInstanceProvisioningStepStatus
BARE_METAL_INSTANCE_PROVISIONING_STEP_STATUS_PENDING: BareMetalInstanceProvisioningStepStatus
BARE_METAL_INSTANCE_PROVISIONING_STEP_STATUS_RUNNING: BareMetalInstanceProvisioningStepStatus
BARE_METAL_INSTANCE_PROVISIONING_STEP_STATUS_COMPLETED: BareMetalInstanceProvisioningStepStatus
BARE_METAL_INSTANCE_PROVISIONING_STEP_STATUS_FAILED: BareMetalInstanceProvisioningStepStatus
BARE_METAL_INSTANCE_STATE_UNSPECIFIED: BareMetalInstanceState
BARE_METAL_INSTANCE_STATE_PROVISIONING: BareMetalInstanceState
BARE_METAL_INSTANCE_STATE_RUNNING: BareMetalInstanceState
BARE_METAL_INSTANCE_STATE_FAILED: BareMetalInstanceState
BARE_METAL_INSTANCE_STATE_DELETING: BareMetalInstanceState
BARE_METAL_INSTANCE_STATE_STARTING: BareMetalInstanceState
BARE_METAL_INSTANCE_STATE_STOPPING: BareMetalInstanceState
BARE_METAL_INSTANCE_STATE_STOPPED: BareMetalInstanceState
BARE_METAL_INSTANCE_STATE_DELETE_FAILED: BareMetalInstanceState
BARE_METAL_INSTANCE_CONDITION_TYPE_UNSPECIFIED: BareMetalInstanceConditionType
BARE_METAL_INSTANCE_CONDITION_TYPE_PROVISIONED: BareMetalInstanceConditionType
BARE_METAL_INSTANCE_CONDITION_TYPE_CONFIGURATION_APPLIED: BareMetalInstanceConditionType
BARE_METAL_INSTANCE_CONDITION_TYPE_READY: BareMetalInstanceConditionType
BARE_METAL_INSTANCE_CONDITION_TYPE_RESTART_IN_PROGRESS: BareMetalInstanceConditionType
BARE_METAL_INSTANCE_CONDITION_TYPE_RESTART_FAILED: BareMetalInstanceConditionType
BARE_METAL_INSTANCE_CONDITION_TYPE_RESTART_REQUIRED: BareMetalInstanceConditionType

class BareMetalInstance(_message.Message):
    __slots__ = ("id", "metadata", "spec", "status")
    ID_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    SPEC_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    id: str
    metadata: _metadata_type_pb2.Metadata
    spec: BareMetalInstanceSpec
    status: BareMetalInstanceStatus
    def __init__(self, id: _Optional[str] = ..., metadata: _Optional[_Union[_metadata_type_pb2.Metadata, _Mapping]] = ..., spec: _Optional[_Union[BareMetalInstanceSpec, _Mapping]] = ..., status: _Optional[_Union[BareMetalInstanceStatus, _Mapping]] = ...) -> None: ...

class BareMetalInstanceSpec(_message.Message):
    __slots__ = ("catalog_item", "ssh_public_key", "user_data", "run_strategy", "restart_trigger", "template_parameters", "image", "network_attachments", "auto_external_ip_attachment", "host_type")
    class TemplateParametersEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: _any_pb2.Any
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[_any_pb2.Any, _Mapping]] = ...) -> None: ...
    CATALOG_ITEM_FIELD_NUMBER: _ClassVar[int]
    SSH_PUBLIC_KEY_FIELD_NUMBER: _ClassVar[int]
    USER_DATA_FIELD_NUMBER: _ClassVar[int]
    RUN_STRATEGY_FIELD_NUMBER: _ClassVar[int]
    RESTART_TRIGGER_FIELD_NUMBER: _ClassVar[int]
    TEMPLATE_PARAMETERS_FIELD_NUMBER: _ClassVar[int]
    IMAGE_FIELD_NUMBER: _ClassVar[int]
    NETWORK_ATTACHMENTS_FIELD_NUMBER: _ClassVar[int]
    AUTO_EXTERNAL_IP_ATTACHMENT_FIELD_NUMBER: _ClassVar[int]
    HOST_TYPE_FIELD_NUMBER: _ClassVar[int]
    catalog_item: str
    ssh_public_key: str
    user_data: str
    run_strategy: BareMetalInstanceRunStrategy
    restart_trigger: int
    template_parameters: _containers.MessageMap[str, _any_pb2.Any]
    image: BareMetalInstanceImage
    network_attachments: _containers.RepeatedCompositeFieldContainer[BareMetalNetworkAttachment]
    auto_external_ip_attachment: bool
    host_type: str
    def __init__(self, catalog_item: _Optional[str] = ..., ssh_public_key: _Optional[str] = ..., user_data: _Optional[str] = ..., run_strategy: _Optional[_Union[BareMetalInstanceRunStrategy, str]] = ..., restart_trigger: _Optional[int] = ..., template_parameters: _Optional[_Mapping[str, _any_pb2.Any]] = ..., image: _Optional[_Union[BareMetalInstanceImage, _Mapping]] = ..., network_attachments: _Optional[_Iterable[_Union[BareMetalNetworkAttachment, _Mapping]]] = ..., auto_external_ip_attachment: _Optional[bool] = ..., host_type: _Optional[str] = ...) -> None: ...

class BareMetalInstanceImage(_message.Message):
    __slots__ = ("source_type", "source_ref")
    SOURCE_TYPE_FIELD_NUMBER: _ClassVar[int]
    SOURCE_REF_FIELD_NUMBER: _ClassVar[int]
    source_type: str
    source_ref: str
    def __init__(self, source_type: _Optional[str] = ..., source_ref: _Optional[str] = ...) -> None: ...

class BareMetalNetworkAttachment(_message.Message):
    __slots__ = ("subnet", "security_groups", "interface", "primary")
    SUBNET_FIELD_NUMBER: _ClassVar[int]
    SECURITY_GROUPS_FIELD_NUMBER: _ClassVar[int]
    INTERFACE_FIELD_NUMBER: _ClassVar[int]
    PRIMARY_FIELD_NUMBER: _ClassVar[int]
    subnet: str
    security_groups: _containers.RepeatedScalarFieldContainer[str]
    interface: str
    primary: bool
    def __init__(self, subnet: _Optional[str] = ..., security_groups: _Optional[_Iterable[str]] = ..., interface: _Optional[str] = ..., primary: _Optional[bool] = ...) -> None: ...

class BareMetalNetworkAttachmentStatus(_message.Message):
    __slots__ = ("interface", "subnet", "ip_address", "primary")
    INTERFACE_FIELD_NUMBER: _ClassVar[int]
    SUBNET_FIELD_NUMBER: _ClassVar[int]
    IP_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    PRIMARY_FIELD_NUMBER: _ClassVar[int]
    interface: str
    subnet: str
    ip_address: str
    primary: bool
    def __init__(self, interface: _Optional[str] = ..., subnet: _Optional[str] = ..., ip_address: _Optional[str] = ..., primary: _Optional[bool] = ...) -> None: ...

class BareMetalInstanceStatus(_message.Message):
    __slots__ = ("state", "conditions", "restart_trigger", "hub", "network_attachment_statuses", "state_transition_time", "host", "provisioning_steps")
    STATE_FIELD_NUMBER: _ClassVar[int]
    CONDITIONS_FIELD_NUMBER: _ClassVar[int]
    RESTART_TRIGGER_FIELD_NUMBER: _ClassVar[int]
    HUB_FIELD_NUMBER: _ClassVar[int]
    NETWORK_ATTACHMENT_STATUSES_FIELD_NUMBER: _ClassVar[int]
    STATE_TRANSITION_TIME_FIELD_NUMBER: _ClassVar[int]
    HOST_FIELD_NUMBER: _ClassVar[int]
    PROVISIONING_STEPS_FIELD_NUMBER: _ClassVar[int]
    state: BareMetalInstanceState
    conditions: _containers.RepeatedCompositeFieldContainer[BareMetalInstanceCondition]
    restart_trigger: int
    hub: str
    network_attachment_statuses: _containers.RepeatedCompositeFieldContainer[BareMetalNetworkAttachmentStatus]
    state_transition_time: _timestamp_pb2.Timestamp
    host: str
    provisioning_steps: _containers.RepeatedCompositeFieldContainer[BareMetalInstanceProvisioningStep]
    def __init__(self, state: _Optional[_Union[BareMetalInstanceState, str]] = ..., conditions: _Optional[_Iterable[_Union[BareMetalInstanceCondition, _Mapping]]] = ..., restart_trigger: _Optional[int] = ..., hub: _Optional[str] = ..., network_attachment_statuses: _Optional[_Iterable[_Union[BareMetalNetworkAttachmentStatus, _Mapping]]] = ..., state_transition_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., host: _Optional[str] = ..., provisioning_steps: _Optional[_Iterable[_Union[BareMetalInstanceProvisioningStep, _Mapping]]] = ...) -> None: ...

class BareMetalInstanceProvisioningStep(_message.Message):
    __slots__ = ("gate", "status", "attempts", "started_at", "finished_at", "message")
    GATE_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    ATTEMPTS_FIELD_NUMBER: _ClassVar[int]
    STARTED_AT_FIELD_NUMBER: _ClassVar[int]
    FINISHED_AT_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    gate: str
    status: BareMetalInstanceProvisioningStepStatus
    attempts: int
    started_at: _timestamp_pb2.Timestamp
    finished_at: _timestamp_pb2.Timestamp
    message: str
    def __init__(self, gate: _Optional[str] = ..., status: _Optional[_Union[BareMetalInstanceProvisioningStepStatus, str]] = ..., attempts: _Optional[int] = ..., started_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., finished_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., message: _Optional[str] = ...) -> None: ...

class BareMetalInstanceCondition(_message.Message):
    __slots__ = ("type", "status", "last_transition_time", "reason", "message")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    LAST_TRANSITION_TIME_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    type: BareMetalInstanceConditionType
    status: _condition_status_type_pb2.ConditionStatus
    last_transition_time: _timestamp_pb2.Timestamp
    reason: str
    message: str
    def __init__(self, type: _Optional[_Union[BareMetalInstanceConditionType, str]] = ..., status: _Optional[_Union[_condition_status_type_pb2.ConditionStatus, str]] = ..., last_transition_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., reason: _Optional[str] = ..., message: _Optional[str] = ...) -> None: ...
