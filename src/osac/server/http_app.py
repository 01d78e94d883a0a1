"""The HTTP application: REST gateway, watch streams, OpenAPI, health, metrics and the web console."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any

from google.protobuf.message import Message
from prometheus_client import CONTENT_TYPE_LATEST, disable_created_metrics, generate_latest
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from osac.api.private.v1 import events_service_pb2 as private_events
from osac.api.public.v1 import events_service_pb2 as public_events
from osac.console.app import build_console
from osac.console.deps import ConsoleDeps
from osac.server import openapi
from osac.server.rest import build_routes, error_body, error_response, int_param, message_json, route_handler
from osac.server.simulator_api import simulator_rest_routes
from osac.server.stalled_streams import ReadingClientStream
from osac.services.core import limits
from osac.services.core.errors import ServiceError, api_error

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


Endpoint = Callable[[Request], Awaitable[Response]]
#: The methods every REST path answers (those not served there: 405 with ``Allow``). A method
#: left out would fall through to the console, which answers 404 for an API path.
HTTP_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "QUERY"]


def dispatch(handlers: dict[str, Endpoint]) -> Endpoint:
    """One route per path serving every method bound to it: OPTIONS answers 204 and a method
    not served answers 405, both with the ``Allow`` header of the methods served there."""
    methods = dict(handlers)
    if "GET" in methods:
        methods["HEAD"] = methods["GET"]
    allow = ", ".join(sorted([*methods, "OPTIONS"]))

    async def endpoint(request: Request) -> Response:
        handler = methods.get(request.method)
        if handler is not None:
            return await handler(request)
        if request.method == "OPTIONS":
            return Response(status_code=204, headers={"Allow": allow})
        return JSONResponse(
            {"code": 12, "message": f"method {request.method} is not served here; use {allow}", "details": []},
            status_code=405, headers={"Allow": allow},
        )

    return endpoint


def operations_routes(application: Application) -> list[BaseRoute]:
    """``/healthz`` (the database answers) and ``/metrics`` (Prometheus), which every process serves."""

    async def healthz(_request: Request) -> Response:
        try:
            async with application.store.read() as tx:
                await tx.revision()
        except Exception as error:
            return PlainTextResponse(f"database unreachable: {error}\n", status_code=503)
        return PlainTextResponse("ok\n")

    metrics_for_admins = application.settings.metrics_require_provider_admin
    # No `<name>_created` series beside every counter and histogram: the text format carries them
    # as separate gauges that no rule reads (67 of 310 samples on an idle server).
    disable_created_metrics()

    async def metrics(request: Request) -> Response:
        if metrics_for_admins:  # the series name tenants and clusters (docs/auth.md "Metrics")
            try:
                await application.authenticator.provider_admin(request.headers.get("authorization"), "/metrics")
            except ServiceError as error:
                return error_response(error)
        return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)

    return [Route("/healthz", healthz, methods=["GET"]), Route("/metrics", metrics, methods=["GET"])]


def watch_line(event: Message) -> bytes:
    """A watch stream's NDJSON line of one event (made once per event for every stream)."""
    return (json.dumps({"result": {"event": message_json(event)}}) + "\n").encode()


def build_operations_app(application: Application) -> Starlette:
    """The HTTP app of a process that serves no API (``osac controllers``): health and metrics."""
    return Starlette(routes=operations_routes(application), middleware=[Middleware(InternalErrors)])


def build_http_app(application: Application) -> Starlette:
    by_service = application.endpoints.by_service
    rest_routes = build_routes(by_service) + simulator_rest_routes(by_service)
    by_path: dict[str, dict[str, Endpoint]] = {}
    for route in rest_routes:
        by_path.setdefault(route.path, {})[route.http_method] = route_handler(route, application.authenticator)
    routes: list[BaseRoute] = [
        Route(path, dispatch(handlers), methods=HTTP_METHODS) for path, handlers in by_path.items()
    ]

    stall_seconds = application.settings.watch_stall_seconds

    async def watch(request: Request) -> Response:
        private = request.url.path == PRIVATE_WATCH
        try:
            caller = await application.authenticator.caller(request.headers.get("authorization"), private=private)
            low, high = limits.REVISION_RANGE
            filter_text = request.query_params.get("filter", "")
            after_revision = int_param(request, "after_revision", low, high) or 0
            request_class = private_events.EventsWatchRequest if private else public_events.EventsWatchRequest
            watch_request = request_class(filter=filter_text, after_revision=after_revision)
            limits.check_request(watch_request)
            stream = await application.events.watch(caller, filter_text, after_revision, watch_line)
        except ServiceError as error:
            return error_response(error)

        async def lines() -> AsyncIterator[bytes]:
            try:
                async for line in stream:
                    yield line
            except Exception as error:
                # The 200 and its headers are sent: the failure can only be the stream's last line
                # (the InternalErrors middleware could not answer any more).
                known = api_error(error)
                if known is None:
                    log.exception("internal error serving %s", request.url.path)
                    known = ServiceError("internal error; see the server log")
                yield (json.dumps({"error": error_body(known)}) + "\n").encode()

        return ReadingClientStream(lines(), media_type="application/x-ndjson", stall_seconds=stall_seconds)

    document: dict[str, Any] = {}

    async def openapi_json(_request: Request) -> Response:
        if not document:  # built on first request: most servers are never asked
            document.update(openapi.document(rest_routes))
        return JSONResponse(document)

    routes += [
        Route(PUBLIC_WATCH, dispatch({"GET": watch}), methods=HTTP_METHODS),
        Route(PRIVATE_WATCH, dispatch({"GET": watch}), methods=HTTP_METHODS),
        *operations_routes(application),
        Route("/openapi.json", openapi_json, methods=["GET"]),
    ]
    # The web console answers every path the API does not (docs/console.md).
    routes.append(Mount("/", app=build_console(ConsoleDeps(
        services=application.services,
        events=application.events,
        lifecycle_events=application.lifecycle_events,
        verify=application.verifier.verify,
        clock=application.clock,
        sign_ins=application.sign_ins,
        dev_issuer=application.dev_issuer,
        issuers=application.trusted_issuers,
        verify_id_token=application.verifier.verify_id_token,
    ))))
    app = Starlette(routes=routes, middleware=[Middleware(InternalErrors)])
    app.state.max_request_bytes = application.settings.max_request_bytes
    return app
