"""``GET /console/live``: the change stream as Server-Sent Events, for the pages' live updates.

Fed by the resumable Watch (``EventsService.watch``) as the signed-in caller, so a tenant hears of
its own objects only. Each event is ``id: <revision>`` and a small JSON ``{kind, id, version,
type}``; the page asks for its new snapshot only when the version is higher than the one shown.
A reconnecting browser sends ``Last-Event-ID`` (the last revision it saw) and resumes there; a
first connection resumes from ``?after=`` (the revision the page was read at), so no change
between the read and the subscription is missed. When that revision is no longer retained the
stream says ``event: reload`` and continues live. A comment every ``KEEPALIVE`` seconds keeps
proxies from closing an idle stream.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator

from google.protobuf.message import Message
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from osac.api.private.v1.event_type_pb2 import Event
from osac.model.shape import as_kind, id_of, metadata_of
from osac.services.core.context import Caller
from osac.services.core.errors import InvalidArgument, OutOfRange
from osac.services.streams.events import EventsService

KEEPALIVE = 15.0
EVENT_TYPES = {1: "created", 2: "updated", 3: "deleted", 4: "signaled"}


def resume_point(request: Request) -> int:
    """``Last-Event-ID`` if the browser sent one, else ``?after=``, else 0 (live only)."""
    text = request.headers.get("last-event-id") or request.query_params.get("after") or "0"
    if not text.isdigit():
        raise InvalidArgument(f"after: '{text}' is not a revision (a non-negative integer)")
    return int(text)


def change_frame(message: Message) -> bytes | None:
    event = as_kind(message, Event)
    kind = event.WhichOneof("payload")
    if kind is None:
        return None
    obj = getattr(event, kind)
    data = {"kind": kind, "id": id_of(obj), "version": metadata_of(obj).version,
            "type": EVENT_TYPES.get(event.type, str(event.type))}
    return f"id: {event.revision}\nevent: change\ndata: {json.dumps(data)}\n\n".encode()


async def live_stream(events: EventsService, caller: Caller, after: int) -> Response:
    prefix = b""
    try:
        stream = await events.watch(caller, "", after)
    except OutOfRange:
        stream = await events.watch(caller, "", 0)
        prefix = b"event: reload\ndata: {}\n\n"
    return StreamingResponse(_frames(stream, prefix), media_type="text/event-stream",
                             headers={"cache-control": "no-store", "x-accel-buffering": "no"})


async def _frames(stream: AsyncIterator[Message], prefix: bytes) -> AsyncIterator[bytes]:
    queue: asyncio.Queue[Message | None] = asyncio.Queue()

    async def pump() -> None:
        try:
            async for event in stream:
                await queue.put(event)
        finally:
            await queue.put(None)

    task = asyncio.create_task(pump())
    try:
        yield prefix + b"retry: 1000\n\n"
        while True:
            try:
                event = await asyncio.wait_for(queue.get(), KEEPALIVE)
            except TimeoutError:
                yield b": keepalive\n\n"
                continue
            if event is None:
                return
            frame = change_frame(event)
            if frame is not None:
                yield frame
    finally:
        task.cancel()
        with contextlib.suppress(BaseException):
            await task
