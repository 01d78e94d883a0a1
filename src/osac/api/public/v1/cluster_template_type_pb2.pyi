from google.protobuf import any_pb2 as _any_pb2
from osac.api.public.v1 import cluster_type_pb2 as _cluster_type_pb2
from osac.api.public.v1 import metadata_type_pb2 as _metadata_type_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ClusterTemplate(_message.Message):
    __slots__ = ("id", "metadata", "title", "description", "parameters", "node_sets", "spec_defaults")
    class NodeSetsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: ClusterTemplateNodeSet
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[ClusterTemplateNodeSet, _Mapping]] = ...) -> None: ...
    ID_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    PARAMETERS_FIELD_NUMBER: _ClassVar[int]
    NODE_SETS_FIELD_NUMBER: _ClassVar[int]
    SPEC_DEFAULTS_FIELD_NUMBER: _ClassVar[int]
    id: str
    metadata: _metadata_type_pb2.Metadata
    title: str
    description: str
    parameters: _containers.RepeatedCompositeFieldContainer[ClusterTemplateParameterDefinition]
    node_sets: _containers.MessageMap[str, ClusterTemplateNodeSet]
    spec_defaults: ClusterTemplateSpecDefaults
    def __init__(self, id: _Optional[str] = ..., metadata: _Optional[_Union[_metadata_type_pb2.Metadata, _Mapping]] = ..., title: _Optional[str] = ..., description: _Optional[str] = ..., parameters: _Optional[_Iterable[_Union[ClusterTemplateParameterDefinition, _Mapping]]] = ..., node_sets: _Optional[_Mapping[str, ClusterTemplateNodeSet]] = ..., spec_defaults: _Optional[_Union[ClusterTemplateSpecDefaults, _Mapping]] = ...) -> None: ...

class ClusterTemplateParameterDefinition(_message.Message):
    __slots__ = ("name", "title", "description", "required", "type", "default")
    NAME_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    REQUIRED_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_FIELD_NUMBER: _ClassVar[int]
    name: str
    title: str
    description: str
    required: bool
    type: str
    default: _any_pb2.Any
    def __init__(self, name: _Optional[str] = ..., title: _Optional[str] = ..., description: _Optional[str] = ..., required: _Optional[bool] = ..., type: _Optional[str] = ..., default: _Optional[_Union[_any_pb2.Any, _Mapping]] = ...) -> None: ...

class ClusterTemplateNodeSet(_message.Message):
    __slots__ = ("host_type", "size")
    HOST_TYPE_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    host_type: str
    size: int
    def __init__(self, host_type: _Optional[str] = ..., size: _Optional[int] = ...) -> None: ...

class ClusterTemplateSpecDefaults(_message.Message):
    __slots__ = ("ssh_public_key", "release_image", "network")
    SSH_PUBLIC_KEY_FIELD_NUMBER: _ClassVar[int]
    RELEASE_IMAGE_FIELD_NUMBER: _ClassVar[int]
    NETWORK_FIELD_NUMBER: _ClassVar[int]
    ssh_public_key: str
    release_image: str
    network: _cluster_type_pb2.ClusterNetwork
    def __init__(self, ssh_public_key: _Optional[str] = ..., release_image: _Optional[str] = ..., network: _Optional[_Union[_cluster_type_pb2.ClusterNetwork, _Mapping]] = ...) -> None: ...
