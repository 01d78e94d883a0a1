"""API endpoints shared by the gRPC servicers and the REST gateway.

Each endpoint takes the caller and a request message of the API called (public or private
package) and returns the response message. Conversion between the API's messages and the
private messages the services work on happens here and only here.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from typing import Any, Protocol, TypeVar, cast

from google.protobuf.field_mask_pb2 import FieldMask
from google.protobuf.message import Message

from osac.model import protos
from osac.model.convert import convert
from osac.model.kinds import Kind
from osac.services.core.context import Caller
from osac.services.core.generic import KindService, Page
from osac.services.streams.events import EventsService
from osac.services.streams.lifecycle_events import LifecycleEventsService

Unary = Callable[[Caller, Message], Awaitable[Message]]

T_contra = TypeVar("T_contra", contravariant=True)


class _Extendable(Protocol[T_contra]):
    def extend(self, elem_seq: Iterable[T_contra]) -> None: ...


# The shapes of the request and response messages that every kind's service shares (the same
# fields in every ``<Kind>s<Method>Request``), where a generic ``Message`` is taken to have them.
class _ById(Protocol):
    id: str


class _Write(Protocol):
    object: Message
    update_mask: FieldMask
    lock: bool

    def HasField(self, field_name: str) -> bool: ...


class _Watch(Protocol):
    filter: str
    after_revision: int


class _Items(Protocol):
    items: _Extendable[Message]


class _Warnings(Protocol):
    warnings: _Extendable[str]


def _id(request: Message) -> str:
    return cast(_ById, request).id


def package(private: bool) -> str:
    return protos.PRIVATE if private else protos.PUBLIC


def response_class(private: bool, service: str, method: str) -> type[Message]:
    return protos.message_class(f"{package(private)}.{service}{method}Response")


def request_class(private: bool, service: str, method: str) -> type[Message]:
    return protos.message_class(f"{package(private)}.{service}{method}Request")


def _optional(request: Message, name: str) -> Any:
    return getattr(request, name) if request.HasField(name) else None


def list_arguments(request: Message) -> dict[str, Any]:
    """offset / limit / filter / order of a List request (proto3 optional: absent is None)."""
    return {name: _optional(request, name) for name in ("offset", "limit", "filter", "order")}


def _page_response(cls: type[Message], page: Page, convert_item: Callable[[Message], Message]) -> Message:
    response = cls(size=len(page.items), total=page.total, revision=page.revision)
    cast(_Items, response).items.extend(convert_item(item) for item in page.items)
    return response


class KindEndpoints:
    """The standard methods of one kind through one API."""

    def __init__(self, service: KindService, private: bool) -> None:
        self.service = service
        self.kind: Kind = service.kind
        self.private = private
        self.api_class = self.kind.message_class(private)

    def _response(self, method: str) -> type[Message]:
        return response_class(self.private, self.kind.service, method)

    def output(self, obj: Message) -> Message:
        return convert(obj, self.api_class)

    def input(self, obj: Message) -> Message:
        return convert(obj, self.kind.private_class())

    async def List(self, caller: Caller, request: Message) -> Message:
        page = await self.service.list(caller, **list_arguments(request))
        return _page_response(self._response("List"), page, self.output)

    async def Get(self, caller: Caller, request: Message) -> Message:
        obj = await self.service.get(caller, _id(request))
        return self._response("Get")(object=self.output(obj))

    async def Create(self, caller: Caller, request: Message) -> Message:
        obj = await self.service.create(caller, self.input(cast(_Write, request).object))
        return await self._with_warnings(self._response("Create")(object=self.output(obj)), obj)

    async def Update(self, caller: Caller, request: Message) -> Message:
        write = cast(_Write, request)
        mask = list(write.update_mask.paths) if write.HasField("update_mask") else []
        obj = await self.service.update(caller, self.input(write.object), mask or None, write.lock)
        return await self._with_warnings(self._response("Update")(object=self.output(obj)), obj)

    async def _with_warnings(self, response: Message, obj: Message) -> Message:
        """Fill ``warnings`` of a response that has the field (clusters' Create and Update)."""
        if "warnings" in response.DESCRIPTOR.fields_by_name:
            cast(_Warnings, response).warnings.extend(await self.service.warnings(obj))
        return response

    async def Delete(self, caller: Caller, request: Message) -> Message:
        await self.service.delete(caller, _id(request))
        return self._response("Delete")()

    async def Signal(self, caller: Caller, request: Message) -> Message:
        await self.service.signal(caller, _id(request))
        return self._response("Signal")()

    async def GetKubeconfig(self, caller: Caller, request: Message) -> Message:
        value = await self.service.credential(caller, _id(request), "kubeconfig")
        return self._response("GetKubeconfig")(kubeconfig=value)

    async def GetPassword(self, caller: Caller, request: Message) -> Message:
        value = await self.service.credential(caller, _id(request), "password")
        return self._response("GetPassword")(password=value)


class LifecycleEventEndpoints:
    def __init__(self, service: LifecycleEventsService, private: bool) -> None:
        self.service = service
        self.private = private

    async def List(self, caller: Caller, request: Message) -> Message:
        page = await self.service.list(caller, **list_arguments(request))
        return _page_response(response_class(self.private, "LifecycleEvents", "List"), page, lambda item: item)

    async def Get(self, caller: Caller, request: Message) -> Message:
        obj = await self.service.get(caller, _id(request))
        return response_class(self.private, "LifecycleEvents", "Get")(object=obj)


class EventEndpoints:
    def __init__(self, service: EventsService, private: bool) -> None:
        self.service = service
        self.private = private

    async def Watch(self, caller: Caller, request: Message) -> AsyncIterator[Message]:
        response = response_class(self.private, "Events", "Watch")
        watch = cast(_Watch, request)
        stream = await self.service.watch(caller, watch.filter, watch.after_revision)
        async for event in stream:
            yield response(event=event)
