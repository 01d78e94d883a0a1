from osac.api.private.v1 import event_type_pb2 as _event_type_pb2
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class EventsWatchRequest(_message.Message):
    __slots__ = ("filter", "after_revision")
    FILTER_FIELD_NUMBER: _ClassVar[int]
    AFTER_REVISION_FIELD_NUMBER: _ClassVar[int]
    filter: str
    after_revision: int
    def __init__(self, filter: _Optional[str] = ..., after_revision: _Optional[int] = ...) -> None: ...

class EventsWatchResponse(_message.Message):
    __slots__ = ("event",)
    EVENT_FIELD_NUMBER: _ClassVar[int]
    event: _event_type_pb2.Event
    def __init__(self, event: _Optional[_Union[_event_type_pb2.Event, _Mapping]] = ...) -> None: ...
