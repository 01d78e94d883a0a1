"""The real HTTP application served in-process to a synchronous ASGI client (schemathesis).

Such a client runs the application on an event loop of its own, in another thread, and starts it
through the ASGI lifespan. ``LifespanServer`` starts the whole ``Application`` (store, bootstrap,
gRPC, HTTP) in that lifespan, so its database connections belong to the loop that serves the
requests, and answers every request with ``build_http_app`` of that application: the route
table, middleware and handlers ``osac serve`` runs.

``HeadOfStreams`` answers a watch (a newline-delimited JSON stream, which ends only when its
client leaves) with its status, headers and an empty body once the headers are sent, and cancels
the stream: a synchronous client could otherwise wait for it for ever.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import anyio
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from osac.server.http_app import build_http_app
from tests.support.server import ServerHandle, running_server

Setup = Callable[[ServerHandle], Awaitable[None]]
STREAM_MEDIA_TYPE = b"application/x-ndjson"


class LifespanServer:
    """An ASGI application that starts a server on ``db_url`` at lifespan startup (and runs
    ``setup`` against it the first time) and stops it at lifespan shutdown."""

    def __init__(self, data_dir: Path, db_url: str, setup: Setup | None = None, **settings: Any) -> None:
        self.data_dir, self.db_url, self.setup, self.settings = data_dir, db_url, setup, settings
        self.handle: ServerHandle | None = None
        self._http: ASGIApp | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if self._http is None:
            raise RuntimeError("the server is not started: the client must run the ASGI lifespan first")
        await self._http(scope, receive, send)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        await receive()  # lifespan.startup
        async with AsyncExitStack() as stack:
            try:
                self.handle = await stack.enter_async_context(
                    running_server(self.data_dir, self.db_url, **self.settings)
                )
                if self.setup is not None:  # once: a client may start the lifespan again
                    setup, self.setup = self.setup, None
                    await setup(self.handle)
                self._http = build_http_app(self.handle.app)
            except Exception as error:
                await send({"type": "lifespan.startup.failed", "message": f"{type(error).__name__}: {error}"})
                raise
            await send({"type": "lifespan.startup.complete"})
            await receive()  # lifespan.shutdown
            self._http = None
        await send({"type": "lifespan.shutdown.complete"})


class HeadOfStreams:
    """``app`` with its endless streams cut after their headers (see the module docstring)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        async with anyio.create_task_group() as group:
            cut = False

            async def forward(message: Message) -> None:
                nonlocal cut
                if cut:
                    return
                await send(message)
                if message["type"] == "http.response.start" and _is_stream(message):
                    cut = True
                    await send({"type": "http.response.body", "body": b"", "more_body": False})
                    group.cancel_scope.cancel()

            await self.app(scope, receive, forward)


def _is_stream(start: Message) -> bool:
    headers = dict(start.get("headers", []))
    return headers.get(b"content-type", b"").split(b";", 1)[0].strip() == STREAM_MEDIA_TYPE
