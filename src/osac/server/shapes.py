"""The fields that the request and response messages of every kind's service share.

The gRPC endpoints and the REST gateway handle every kind through the classes they look up by
name (``SubnetsGetResponse``, ``ClustersUpdateRequest``, ...), typed ``type[Message]``. Every
kind's ``<Kind>s<Method>Request`` and ``Response`` declares the same fields for the same method
(``id``, ``object``, ``update_mask`` and ``lock``, ``size``, ``total``, ``items`` and
``revision``), so this module, and only this one, takes a ``Message`` to have them, as
``model/shape.py`` does for the objects themselves. A message is built empty and its
fields are set through these shapes: the stub's ``Message`` takes no field keywords.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Protocol, TypeVar, cast

from google.protobuf.field_mask_pb2 import FieldMask
from google.protobuf.message import Message

T = TypeVar("T")


class Repeated(Protocol[T]):
    """A repeated field: read by iterating, filled by ``extend``."""

    def __iter__(self) -> Iterator[T]: ...

    def extend(self, elem_seq: Iterable[T]) -> None: ...


class ById(Protocol):
    """Get, Delete, Signal and the credential requests."""

    id: str


class WithObject(Protocol):
    """Get, Create and Update responses; Create and Update requests."""

    object: Message


class WriteRequest(Protocol):
    """Create and Update requests."""

    object: Message
    update_mask: FieldMask
    lock: bool

    def HasField(self, field_name: str) -> bool: ...


class ListResponse(Protocol):
    size: int
    total: int
    revision: int
    items: Repeated[Message]


class WithWarnings(Protocol):
    """The Create and Update responses of the kinds that warn (clusters)."""

    warnings: Repeated[str]


class WatchRequest(Protocol):
    filter: str
    after_revision: int


class WithEvent(Protocol):
    """A Watch response."""

    event: Message


def request_id(request: Message) -> str:
    return cast(ById, request).id


def new_by_id(cls: type[Message], object_id: str) -> Message:
    """A request naming one object by its id."""
    request = cls()
    cast(ById, request).id = object_id
    return request


def new_with_object(cls: type[Message], obj: Message) -> Message:
    """A request or response carrying one object (a copy of ``obj``)."""
    message = cls()
    cast(WithObject, message).object.CopyFrom(obj)
    return message


def new_with_event(cls: type[Message], event: Message) -> Message:
    response = cls()
    cast(WithEvent, response).event.CopyFrom(event)
    return response


def new_list_response(cls: type[Message], items: Iterable[Message], total: int, revision: int) -> Message:
    """A List response: one page of ``items`` out of ``total``, read at ``revision``."""
    response = cls()
    page = cast(ListResponse, response)
    listed = list(items)
    page.size = len(listed)
    page.total = total
    page.revision = revision
    page.items.extend(listed)
    return response
