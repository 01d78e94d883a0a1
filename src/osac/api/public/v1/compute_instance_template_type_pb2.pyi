from google.protobuf import any_pb2 as _any_pb2
from osac.api.public.v1 import compute_instance_type_pb2 as _compute_instance_type_pb2
from osac.api.public.v1 import metadata_type_pb2 as _metadata_type_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ComputeInstanceTemplate(_message.Message):
    __slots__ = ("id", "metadata", "title", "description", "parameters", "spec_defaults")
    ID_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    PARAMETERS_FIELD_NUMBER: _ClassVar[int]
    SPEC_DEFAULTS_FIELD_NUMBER: _ClassVar[int]
    id: str
    metadata: _metadata_type_pb2.Metadata
    title: str
    description: str
    parameters: _containers.RepeatedCompositeFieldContainer[ComputeInstanceTemplateParameterDefinition]
    spec_defaults: ComputeInstanceTemplateSpecDefaults
    def __init__(self, id: _Optional[str] = ..., metadata: _Optional[_Union[_metadata_type_pb2.Metadata, _Mapping]] = ..., title: _Optional[str] = ..., description: _Optional[str] = ..., parameters: _Optional[_Iterable[_Union[ComputeInstanceTemplateParameterDefinition, _Mapping]]] = ..., spec_defaults: _Optional[_Union[ComputeInstanceTemplateSpecDefaults, _Mapping]] = ...) -> None: ...

class ComputeInstanceTemplateParameterDefinition(_message.Message):
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

class ComputeInstanceTemplateSpecDefaults(_message.Message):
    __slots__ = ("image", "boot_disk", "run_strategy", "instance_type", "is_windows")
    IMAGE_FIELD_NUMBER: _ClassVar[int]
    BOOT_DISK_FIELD_NUMBER: _ClassVar[int]
    RUN_STRATEGY_FIELD_NUMBER: _ClassVar[int]
    INSTANCE_TYPE_FIELD_NUMBER: _ClassVar[int]
    IS_WINDOWS_FIELD_NUMBER: _ClassVar[int]
    image: _compute_instance_type_pb2.ComputeInstanceImage
    boot_disk: _compute_instance_type_pb2.ComputeInstanceDisk
    run_strategy: str
    instance_type: str
    is_windows: bool
    def __init__(self, image: _Optional[_Union[_compute_instance_type_pb2.ComputeInstanceImage, _Mapping]] = ..., boot_disk: _Optional[_Union[_compute_instance_type_pb2.ComputeInstanceDisk, _Mapping]] = ..., run_strategy: _Optional[str] = ..., instance_type: _Optional[str] = ..., is_windows: _Optional[bool] = ...) -> None: ...
