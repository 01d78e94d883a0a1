"""The HTTP application: REST gateway, watch streams, OpenAPI, health, metrics and the web console."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import BaseRoute, Mount, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from osac.console.app import build_console
from osac.console.deps import ConsoleDeps
from osac.server import openapi
from osac.server.rest import build_routes, error_body, error_response, message_json, route_handler
from osac.server.simulator_api import simulator_rest_routes
from osac.services.core.errors import InvalidArgument, ServiceError, api_error

if TYPE_CHECKING:
    from osac.server.app import Application

log = logging.getLogger(__name__)

PUBLIC_WATCH = "/api/events/v1/events"
PRIVATE_WATCH = "/api/private/v1/events/watch"


class InternalErrors:
    """Outermost middleware: an unexpected exception becomes a google.rpc.Status body."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await self.app(scope, receive, send)
        except Exception:
            log.exception("internal error serving %s", scope.get("path"))
            response = JSONResponse({"code": 13, "message": "internal error; see the server log", "details": []},
                                    status_code=500)
            await response(scope, receive, send)


def build_http_app(application: Application) -> Starlette:
    by_service = application.endpoints.by_service
    rest_routes = build_routes(by_service) + simulator_rest_routes(by_service)
    routes: list[BaseRoute] = [
        Route(route.path, route_handler(route, application.authenticator), methods=[route.http_method])
        for route in rest_routes
    ]

    async def watch(request: Request) -> Response:
        private = request.url.path == PRIVATE_WATCH
        try:
            caller = await application.authenticator.caller(request.headers.get("authorization"), private=private)
            after = request.query_params.get("after_revision", "0") or "0"
            if not after.isdigit():
                raise InvalidArgument(f"after_revision: '{after}' is not a non-negative integer")
            stream = await application.events.watch(caller, request.query_params.get("filter", ""), int(after))
        except ServiceError as error:
            return error_response(error)

        async def lines() -> AsyncIterator[bytes]:
            try:
                async for event in stream:
                    yield (json.dumps({"result": {"event": message_json(event)}}) + "\n").encode()
            except Exception as error:
                # The 200 and its headers are sent: the failure can only be the stream's last line
                # (the InternalErrors middleware could not answer any more).
                known = api_error(error)
                if known is None:
                    log.exception("internal error serving %s", request.url.path)
                    known = ServiceError("internal error; see the server log")
                yield (json.dumps({"error": error_body(known)}) + "\n").encode()

        return StreamingResponse(lines(), media_type="application/x-ndjson")

    async def healthz(_request: Request) -> Response:
        try:
            async with application.store.read() as tx:
                await tx.revision()
        except Exception as error:
            return PlainTextResponse(f"database unreachable: {error}\n", status_code=503)
        return PlainTextResponse("ok\n")

    async def metrics(_request: Request) -> Response:
        return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)

    document: dict[str, Any] = {}

    async def openapi_json(_request: Request) -> Response:
        if not document:  # built on first request: most servers are never asked
            document.update(openapi.document(rest_routes))
        return JSONResponse(document)

    routes += [
        Route(PUBLIC_WATCH, watch, methods=["GET"]),
        Route(PRIVATE_WATCH, watch, methods=["GET"]),
        Route("/healthz", healthz, methods=["GET"]),
        Route("/metrics", metrics, methods=["GET"]),
        Route("/openapi.json", openapi_json, methods=["GET"]),
    ]
    # The web console answers every path the API does not (docs/console.md).
    routes.append(Mount("/", app=build_console(ConsoleDeps(
        services=application.services,
        events=application.events,
        lifecycle_events=application.lifecycle_events,
        verify=application.verifier.verify,
        clock=application.clock,
        dev_issuer=application.dev_issuer,
    ))))
    return Starlette(routes=routes, middleware=[Middleware(InternalErrors)])
