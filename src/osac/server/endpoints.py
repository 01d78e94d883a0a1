"""API endpoints shared by the gRPC servicers and the REST gateway.

Each endpoint takes the caller and a request message of the API called (public or private
package) and returns the response message. Conversion between the API's messages and the
private messages the services work on happens here and only here.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, cast

from google.protobuf.message import Message

from osac.model import protos
from osac.model.convert import convert
from osac.model.kinds import Kind
from osac.server import shapes
from osac.server.shapes import new_list_response, new_with_object, request_id
from osac.services.core.context import Caller
from osac.services.core.generic import KindService, Page
from osac.services.streams.events import EventsService
from osac.services.streams.lifecycle_events import LifecycleEventsService

Unary = Callable[[Caller, Message], Awaitable[Message]]


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
    return new_list_response(cls, map(convert_item, page.items), page.total, page.revision)


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
        obj = await self.service.get(caller, request_id(request))
        return new_with_object(self._response("Get"), self.output(obj))

    async def Create(self, caller: Caller, request: Message) -> Message:
        obj = await self.service.create(caller, self.input(cast(shapes.WriteRequest, request).object))
        return await self._with_warnings(new_with_object(self._response("Create"), self.output(obj)), obj)

    async def Update(self, caller: Caller, request: Message) -> Message:
        write = cast(shapes.WriteRequest, request)
        mask = list(write.update_mask.paths) if write.HasField("update_mask") else []
        obj = await self.service.update(caller, self.input(write.object), mask or None, write.lock)
        return await self._with_warnings(new_with_object(self._response("Update"), self.output(obj)), obj)

    async def _with_warnings(self, response: Message, obj: Message) -> Message:
        """Fill ``warnings`` of a response that has the field (clusters' Create and Update)."""
        if "warnings" in response.DESCRIPTOR.fields_by_name:
            cast(shapes.WithWarnings, response).warnings.extend(await self.service.warnings(obj))
        return response

    async def Delete(self, caller: Caller, request: Message) -> Message:
        await self.service.delete(caller, request_id(request))
        return self._response("Delete")()

    async def Signal(self, caller: Caller, request: Message) -> Message:
        await self.service.signal(caller, request_id(request))
        return self._response("Signal")()

    async def GetKubeconfig(self, caller: Caller, request: Message) -> Message:
        return await self._credential(caller, request, "GetKubeconfig", "kubeconfig")

    async def GetPassword(self, caller: Caller, request: Message) -> Message:
        return await self._credential(caller, request, "GetPassword", "password")

    async def _credential(self, caller: Caller, request: Message, method: str, name: str) -> Message:
        """A credential response: its one string field, ``name``, holds the object's credential."""
        response = self._response(method)()
        setattr(response, name, await self.service.credential(caller, request_id(request), name))
        return response


class LifecycleEventEndpoints:
    def __init__(self, service: LifecycleEventsService, private: bool) -> None:
        self.service = service
        self.private = private

    async def List(self, caller: Caller, request: Message) -> Message:
        page = await self.service.list(caller, **list_arguments(request))
        return _page_response(response_class(self.private, "LifecycleEvents", "List"), page, lambda item: item)

    async def Get(self, caller: Caller, request: Message) -> Message:
        obj = await self.service.get(caller, request_id(request))
        return new_with_object(response_class(self.private, "LifecycleEvents", "Get"), obj)


class EventEndpoints:
    def __init__(self, service: EventsService, private: bool) -> None:
        self.service = service
        self.private = private
        response = response_class(private, "Events", "Watch")

        def encode(event: Message) -> bytes:
            return shapes.new_with_event(response, event).SerializeToString()

        #: One function for the endpoint's life: each event's response is serialised once for
        #: every stream the shared window serves (EventsService.watch).
        self._encode = encode

    async def Watch(self, caller: Caller, request: Message) -> AsyncIterator[bytes]:
        """The stream of serialised responses (checked before it is returned)."""
        watch = cast(shapes.WatchRequest, request)
        return await self.service.watch(caller, watch.filter, watch.after_revision, self._encode)
