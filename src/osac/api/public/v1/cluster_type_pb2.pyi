import datetime

from google.protobuf import any_pb2 as _any_pb2
from google.protobuf import duration_pb2 as _duration_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from osac.api.public.v1 import condition_status_type_pb2 as _condition_status_type_pb2
from osac.api.public.v1 import metadata_type_pb2 as _metadata_type_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ClusterState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CLUSTER_STATE_UNSPECIFIED: _ClassVar[ClusterState]
    CLUSTER_STATE_PROGRESSING: _ClassVar[ClusterState]
    CLUSTER_STATE_READY: _ClassVar[ClusterState]
    CLUSTER_STATE_FAILED: _ClassVar[ClusterState]
    CLUSTER_STATE_DELETING: _ClassVar[ClusterState]
    CLUSTER_STATE_DELETE_FAILED: _ClassVar[ClusterState]

class ClusterConditionType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CLUSTER_CONDITION_TYPE_UNSPECIFIED: _ClassVar[ClusterConditionType]
    CLUSTER_CONDITION_TYPE_PROGRESSING: _ClassVar[ClusterConditionType]
    CLUSTER_CONDITION_TYPE_AVAILABLE: _ClassVar[ClusterConditionType]
    CLUSTER_CONDITION_TYPE_FAILED: _ClassVar[ClusterConditionType]
    CLUSTER_CONDITION_TYPE_DEGRADED: _ClassVar[ClusterConditionType]
    CLUSTER_CONDITION_TYPE_CONTROL_PLANE_AVAILABLE: _ClassVar[ClusterConditionType]
    CLUSTER_CONDITION_TYPE_WORKERS_READY: _ClassVar[ClusterConditionType]

class ClusterNodeSetState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CLUSTER_NODE_SET_STATE_UNSPECIFIED: _ClassVar[ClusterNodeSetState]
    CLUSTER_NODE_SET_STATE_PROVISIONING: _ClassVar[ClusterNodeSetState]
    CLUSTER_NODE_SET_STATE_READY: _ClassVar[ClusterNodeSetState]
    CLUSTER_NODE_SET_STATE_SCALING: _ClassVar[ClusterNodeSetState]
    CLUSTER_NODE_SET_STATE_DEGRADED: _ClassVar[ClusterNodeSetState]
CLUSTER_STATE_UNSPECIFIED: ClusterState
CLUSTER_STATE_PROGRESSING: ClusterState
CLUSTER_STATE_READY: ClusterState
CLUSTER_STATE_FAILED: ClusterState
CLUSTER_STATE_DELETING: ClusterState
CLUSTER_STATE_DELETE_FAILED: ClusterState
CLUSTER_CONDITION_TYPE_UNSPECIFIED: ClusterConditionType
CLUSTER_CONDITION_TYPE_PROGRESSING: ClusterConditionType
CLUSTER_CONDITION_TYPE_AVAILABLE: ClusterConditionType
CLUSTER_CONDITION_TYPE_FAILED: ClusterConditionType
CLUSTER_CONDITION_TYPE_DEGRADED: ClusterConditionType
CLUSTER_CONDITION_TYPE_CONTROL_PLANE_AVAILABLE: ClusterConditionType
CLUSTER_CONDITION_TYPE_WORKERS_READY: ClusterConditionType
CLUSTER_NODE_SET_STATE_UNSPECIFIED: ClusterNodeSetState
CLUSTER_NODE_SET_STATE_PROVISIONING: ClusterNodeSetState
CLUSTER_NODE_SET_STATE_READY: ClusterNodeSetState
CLUSTER_NODE_SET_STATE_SCALING: ClusterNodeSetState
CLUSTER_NODE_SET_STATE_DEGRADED: ClusterNodeSetState

class Cluster(_message.Message):
    __slots__ = ("id", "metadata", "spec", "status")
    ID_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    SPEC_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    id: str
    metadata: _metadata_type_pb2.Metadata
    spec: ClusterSpec
    status: ClusterStatus
    def __init__(self, id: _Optional[str] = ..., metadata: _Optional[_Union[_metadata_type_pb2.Metadata, _Mapping]] = ..., spec: _Optional[_Union[ClusterSpec, _Mapping]] = ..., status: _Optional[_Union[ClusterStatus, _Mapping]] = ...) -> None: ...

class ClusterSpec(_message.Message):
    __slots__ = ("template", "template_parameters", "node_sets", "pull_secret", "ssh_public_key", "release_image", "network", "catalog_item", "network_attachment", "auto_external_ip_attachment")
    class TemplateParametersEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: _any_pb2.Any
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[_any_pb2.Any, _Mapping]] = ...) -> None: ...
    class NodeSetsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: ClusterNodeSet
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[ClusterNodeSet, _Mapping]] = ...) -> None: ...
    TEMPLATE_FIELD_NUMBER: _ClassVar[int]
    TEMPLATE_PARAMETERS_FIELD_NUMBER: _ClassVar[int]
    NODE_SETS_FIELD_NUMBER: _ClassVar[int]
    PULL_SECRET_FIELD_NUMBER: _ClassVar[int]
    SSH_PUBLIC_KEY_FIELD_NUMBER: _ClassVar[int]
    RELEASE_IMAGE_FIELD_NUMBER: _ClassVar[int]
    NETWORK_FIELD_NUMBER: _ClassVar[int]
    CATALOG_ITEM_FIELD_NUMBER: _ClassVar[int]
    NETWORK_ATTACHMENT_FIELD_NUMBER: _ClassVar[int]
    AUTO_EXTERNAL_IP_ATTACHMENT_FIELD_NUMBER: _ClassVar[int]
    template: str
    template_parameters: _containers.MessageMap[str, _any_pb2.Any]
    node_sets: _containers.MessageMap[str, ClusterNodeSet]
    pull_secret: str
    ssh_public_key: str
    release_image: str
    network: ClusterNetwork
    catalog_item: str
    network_attachment: ClusterNetworkAttachment
    auto_external_ip_attachment: bool
    def __init__(self, template: _Optional[str] = ..., template_parameters: _Optional[_Mapping[str, _any_pb2.Any]] = ..., node_sets: _Optional[_Mapping[str, ClusterNodeSet]] = ..., pull_secret: _Optional[str] = ..., ssh_public_key: _Optional[str] = ..., release_image: _Optional[str] = ..., network: _Optional[_Union[ClusterNetwork, _Mapping]] = ..., catalog_item: _Optional[str] = ..., network_attachment: _Optional[_Union[ClusterNetworkAttachment, _Mapping]] = ..., auto_external_ip_attachment: _Optional[bool] = ...) -> None: ...

class ClusterNetwork(_message.Message):
    __slots__ = ("pod_cidr", "service_cidr")
    POD_CIDR_FIELD_NUMBER: _ClassVar[int]
    SERVICE_CIDR_FIELD_NUMBER: _ClassVar[int]
    pod_cidr: str
    service_cidr: str
    def __init__(self, pod_cidr: _Optional[str] = ..., service_cidr: _Optional[str] = ...) -> None: ...

class ClusterNetworkAttachment(_message.Message):
    __slots__ = ("subnet", "security_groups")
    SUBNET_FIELD_NUMBER: _ClassVar[int]
    SECURITY_GROUPS_FIELD_NUMBER: _ClassVar[int]
    subnet: str
    security_groups: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, subnet: _Optional[str] = ..., security_groups: _Optional[_Iterable[str]] = ...) -> None: ...

class ClusterNodeSet(_message.Message):
    __slots__ = ("host_type", "size", "desired_replicas", "current_replicas", "ready_replicas", "state", "fabric_interface", "first_ready_time")
    HOST_TYPE_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    DESIRED_REPLICAS_FIELD_NUMBER: _ClassVar[int]
    CURRENT_REPLICAS_FIELD_NUMBER: _ClassVar[int]
    READY_REPLICAS_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    FABRIC_INTERFACE_FIELD_NUMBER: _ClassVar[int]
    FIRST_READY_TIME_FIELD_NUMBER: _ClassVar[int]
    host_type: str
    size: int
    desired_replicas: int
    current_replicas: int
    ready_replicas: int
    state: ClusterNodeSetState
    fabric_interface: str
    first_ready_time: _timestamp_pb2.Timestamp
    def __init__(self, host_type: _Optional[str] = ..., size: _Optional[int] = ..., desired_replicas: _Optional[int] = ..., current_replicas: _Optional[int] = ..., ready_replicas: _Optional[int] = ..., state: _Optional[_Union[ClusterNodeSetState, str]] = ..., fabric_interface: _Optional[str] = ..., first_ready_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ClusterStatus(_message.Message):
    __slots__ = ("state", "conditions", "api_url", "console_url", "node_sets", "api_endpoint", "ingress_endpoint", "state_transition_time", "kubeconfig_secret", "password_secret", "stage", "stage_entered_at", "stage_threshold")
    class NodeSetsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: ClusterNodeSet
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[ClusterNodeSet, _Mapping]] = ...) -> None: ...
    STATE_FIELD_NUMBER: _ClassVar[int]
    CONDITIONS_FIELD_NUMBER: _ClassVar[int]
    API_URL_FIELD_NUMBER: _ClassVar[int]
    CONSOLE_URL_FIELD_NUMBER: _ClassVar[int]
    NODE_SETS_FIELD_NUMBER: _ClassVar[int]
    API_ENDPOINT_FIELD_NUMBER: _ClassVar[int]
    INGRESS_ENDPOINT_FIELD_NUMBER: _ClassVar[int]
    STATE_TRANSITION_TIME_FIELD_NUMBER: _ClassVar[int]
    KUBECONFIG_SECRET_FIELD_NUMBER: _ClassVar[int]
    PASSWORD_SECRET_FIELD_NUMBER: _ClassVar[int]
    STAGE_FIELD_NUMBER: _ClassVar[int]
    STAGE_ENTERED_AT_FIELD_NUMBER: _ClassVar[int]
    STAGE_THRESHOLD_FIELD_NUMBER: _ClassVar[int]
    state: ClusterState
    conditions: _containers.RepeatedCompositeFieldContainer[ClusterCondition]
    api_url: str
    console_url: str
    node_sets: _containers.MessageMap[str, ClusterNodeSet]
    api_endpoint: str
    ingress_endpoint: str
    state_transition_time: _timestamp_pb2.Timestamp
    kubeconfig_secret: str
    password_secret: str
    stage: str
    stage_entered_at: _timestamp_pb2.Timestamp
    stage_threshold: _duration_pb2.Duration
    def __init__(self, state: _Optional[_Union[ClusterState, str]] = ..., conditions: _Optional[_Iterable[_Union[ClusterCondition, _Mapping]]] = ..., api_url: _Optional[str] = ..., console_url: _Optional[str] = ..., node_sets: _Optional[_Mapping[str, ClusterNodeSet]] = ..., api_endpoint: _Optional[str] = ..., ingress_endpoint: _Optional[str] = ..., state_transition_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., kubeconfig_secret: _Optional[str] = ..., password_secret: _Optional[str] = ..., stage: _Optional[str] = ..., stage_entered_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., stage_threshold: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ...) -> None: ...

class ClusterCondition(_message.Message):
    __slots__ = ("type", "status", "last_transition_time", "reason", "message")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    LAST_TRANSITION_TIME_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    type: ClusterConditionType
    status: _condition_status_type_pb2.ConditionStatus
    last_transition_time: _timestamp_pb2.Timestamp
    reason: str
    message: str
    def __init__(self, type: _Optional[_Union[ClusterConditionType, str]] = ..., status: _Optional[_Union[_condition_status_type_pb2.ConditionStatus, str]] = ..., last_transition_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., reason: _Optional[str] = ..., message: _Optional[str] = ...) -> None: ...
