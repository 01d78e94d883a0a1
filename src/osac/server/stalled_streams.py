"""Streams whose client stopped reading are ended, so that what one holds stays bounded in bytes.

A REST Watch writes each event line into the connection's transport; the server (uvicorn) waits
before the next one while the transport holds more than its high-water mark. A client that
reads nothing therefore holds the transport's buffer and one line (at most one replay batch of
about 1 MiB, docs/watch.md "Memory") — for as long as it stays connected, unless it is ended: a
line that waits longer than ``api.watch_stall_seconds`` for the client ends the response and
closes the connection. (The gRPC streams do the same in ``server/grpc_api.py``, with
RESOURCE_EXHAUSTED.) Nothing can be said to a client that does not read, so the end of its
stream is logged here instead, and uvicorn's own error for a response closed before its end is
expected once per such stream and not logged again.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator

from starlette.responses import StreamingResponse
from starlette.types import Message, Send

from osac.services.core import limits

log = logging.getLogger(__name__)

#: What uvicorn logs when an application ends a response before its last part.
_UNFINISHED = "ASGI callable returned without completing response."


class _ExpectedUnfinished(logging.Filter):
    """Drops uvicorn's error for the responses ended here on purpose (one per ended stream)."""

    def __init__(self) -> None:
        super().__init__()
        self.pending = 0

    def filter(self, record: logging.LogRecord) -> bool:
        if self.pending and record.getMessage() == _UNFINISHED:
            self.pending -= 1
            return False
        return True


_expected = _ExpectedUnfinished()
logging.getLogger("uvicorn.error").addFilter(_expected)


class _Stalled(Exception):
    pass


class ReadingClientStream(StreamingResponse):
    """A streaming response ended, connection closed, when its client reads nothing for
    ``stall_seconds`` while a part waits to be sent."""

    def __init__(self, content: AsyncIterator[bytes], *, media_type: str, stall_seconds: float) -> None:
        super().__init__(content, media_type=media_type)
        self.stall_seconds = stall_seconds

    async def stream_response(self, send: Send) -> None:
        async def send_in_time(message: Message) -> None:
            try:
                async with asyncio.timeout(self.stall_seconds):
                    await send(message)
            except TimeoutError:
                raise _Stalled from None

        try:
            await super().stream_response(send_in_time)
        except _Stalled:
            log.warning("%s", limits.watch_stalled(self.stall_seconds))
            _expected.pending += 1
