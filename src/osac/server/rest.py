"""The REST gateway (api.md §5): one generic transcoder from HTTP+JSON to the gRPC endpoints.

Routes are data (``RestRoute``), built from the same endpoint table as the gRPC server, and the
OpenAPI document is generated from that list, so the two cannot drift apart.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, cast

from google.protobuf import json_format
from google.protobuf.message import Message
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from osac.model import protos, registry
from osac.model.shape import id_of, set_id
from osac.server import json_body, shapes
from osac.server.authn import Authenticator
from osac.server.endpoints import request_class
from osac.server.metrics import observe
from osac.services.core import fields, limits
from osac.services.core.context import Caller
from osac.services.core.errors import (
    API_ERRORS,
    InvalidArgument,
    PayloadTooLarge,
    ServiceError,
    UnsupportedMediaType,
    api_error,
)

PUBLIC_PREFIX = "/api/fulfillment/v1"
PRIVATE_PREFIX = "/api/private/v1"

Binder = Callable[[Request, type[Message]], Awaitable[Message]]
Renderer = Callable[[Message], Response]


@dataclass(frozen=True)
class RestRoute:
    """One HTTP route bound to one gRPC method."""

    http_method: str
    path: str
    service: str  # full gRPC service name
    method: str
    private: bool
    endpoint: Any
    binder: Binder
    renderer: Renderer
    anonymous: bool = False
    summary: str = ""
    #: The media type of a successful answer (JSON, or the text of a credential).
    media_type: str = "application/json"
    #: The JSON body is the whole request message (not only the object of a Create or Update).
    is_body_the_request: bool = False

    @property
    def request_class(self) -> type[Message]:
        return request_class(self.private, self.service.rsplit(".", 1)[1], self.method)

    @property
    def response_class(self) -> type[Message]:
        descriptor = protos.service_descriptor(self.service).methods_by_name[self.method]
        return protos.message_class(descriptor.output_type.full_name)


# -- JSON ---------------------------------------------------------------------------------------


def message_json(message: Message) -> Any:
    return json_format.MessageToDict(message, preserving_proto_field_name=True)


def json_response(data: Any, status: int = 200) -> Response:
    return Response(json.dumps(data, separators=(",", ":")), status_code=status, media_type="application/json")


def error_body(error: ServiceError) -> dict[str, Any]:
    return {"code": error.code.value[0], "message": error.message, "details": []}


def error_response(error: ServiceError) -> Response:
    return JSONResponse(error_body(error), status_code=error.http_status)


def max_request_bytes(request: Request) -> int:
    return int(getattr(request.app.state, "max_request_bytes", limits.DEFAULT_MAX_REQUEST_BYTES))


async def read_body(request: Request) -> bytes:
    """The body, refused (413) as soon as it is larger than the configured bound."""
    bound = max_request_bytes(request)
    too_large = PayloadTooLarge(f"request body: larger than {bound} bytes; at most {bound} bytes are accepted")
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > bound:
        raise too_large
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > bound:
            raise too_large
        chunks.append(chunk)
    return b"".join(chunks)


async def read_json(request: Request) -> dict[str, Any]:
    body = await read_body(request)
    if not body.strip():
        return {}
    media_type = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if media_type != "application/json":
        raise UnsupportedMediaType(
            f"request body: content type '{media_type[:80]}' is not accepted; send application/json"
        )
    data = json_body.decode(body)
    if not isinstance(data, dict):
        raise InvalidArgument("request body must be a JSON object")
    return data


def parse_message(data: dict[str, Any], cls: type[Message], what: str = "object") -> Message:
    json_body.check_values(data, protos.descriptor_of(cls))
    message = cls()
    try:
        json_format.ParseDict(data, message)
    except json_format.ParseError as error:
        raise InvalidArgument(f"{what}: {_parse_error_text(error)}") from None
    return message


def _parse_error_text(error: Exception) -> str:
    text = str(error)
    return text.replace('Message type "', "message ").replace('" has no field named "', " has no field '")


# -- binders ------------------------------------------------------------------------------------


def int_param(request: Request, name: str, low: int, high: int) -> int | None:
    """An integer query parameter within [low, high]; absent is None, empty is refused."""
    value = request.query_params.get(name)
    if value is None:
        return None
    text = value.strip()
    if not text or len(text) > 40 or not text.lstrip("-").isdigit():
        raise InvalidArgument(f"{name}: '{value[:40]}' is not an integer; use an integer from {low} to {high}")
    number = int(text)
    if not low <= number <= high:
        raise InvalidArgument(f"{name}: {text} is out of range; use an integer from {low} to {high}")
    return number


async def bind_list(request: Request, cls: type[Message]) -> Message:
    message = cls()
    for name, (low, high) in (("offset", limits.OFFSET_RANGE), ("limit", limits.LIMIT_RANGE)):
        value = int_param(request, name, low, high)
        if value is not None:
            setattr(message, name, value)
    for name in ("filter", "order"):
        if name in request.query_params:
            setattr(message, name, request.query_params[name])
    return message


async def bind_id(request: Request, cls: type[Message]) -> Message:
    return shapes.new_by_id(cls, request.path_params["id"])


def _object_class(request_class: type[Message]) -> type[Message]:
    """The class of the ``object`` field of a Create or Update request."""
    field = protos.descriptor_of(request_class).fields_by_name["object"]
    return protos.message_class(protos.message_type_of(field).full_name)


async def bind_create(request: Request, cls: type[Message]) -> Message:
    obj = parse_message(await read_json(request), _object_class(cls))
    return shapes.new_with_object(cls, obj)


async def bind_update(request: Request, cls: type[Message]) -> Message:
    object_type = _object_class(cls)
    data = await read_json(request)
    obj = parse_message(data, object_type)
    path_id = request.path_params["id"]
    if id_of(obj) and id_of(obj) != path_id:
        raise InvalidArgument(f"id: body id '{id_of(obj)}' differs from the URL id '{path_id}'")
    set_id(obj, path_id)
    message = cls()
    update = cast(shapes.WriteRequest, message)
    update.object.CopyFrom(obj)
    mask = request.query_params.get("update_mask")
    paths = [p.strip() for p in mask.split(",") if p.strip()] if mask else fields.leaf_paths(
        {k: v for k, v in data.items() if k not in ("id",)}, protos.descriptor_of(object_type)
    )
    paths = [p for p in paths if p != "metadata.version"]
    update.update_mask.paths.extend(paths)
    lock = request.query_params.get("lock", "false").lower()
    if lock not in ("true", "false", "1", "0"):
        raise InvalidArgument(f"lock: '{lock}' is not a boolean; use true or false")
    update.lock = lock in ("true", "1")
    return message


async def bind_empty(request: Request, cls: type[Message]) -> Message:
    return cls()


# -- renderers ----------------------------------------------------------------------------------


def render_object(response: Message) -> Response:
    """The object itself; a response's ``warnings`` become ``Warning: 299 osac "<text>"``
    headers (RFC 7234, as the Kubernetes API sends its warnings), so the body stays the object."""
    rendered = json_response(message_json(cast(shapes.WithObject, response).object))
    for warning in getattr(response, "warnings", ()):
        rendered.headers.append("Warning", f"299 osac {json.dumps(warning)}")
    return rendered


def render_list(response: Message) -> Response:
    page = cast(shapes.ListResponse, response)
    return json_response(
        {
            "size": page.size,
            "total": page.total,
            "items": [message_json(item) for item in page.items],
            "revision": str(page.revision),
        }
    )


def render_message(response: Message) -> Response:
    return json_response(message_json(response))


def render_text(field: str, media_type: str) -> Renderer:
    def render(response: Message) -> Response:
        return Response(getattr(response, field), media_type=media_type)

    return render


_STANDARD: dict[str, tuple[str, str, Binder, Renderer, str]] = {
    "List": ("GET", "", bind_list, render_list, "application/json"),
    "Get": ("GET", "/{id}", bind_id, render_object, "application/json"),
    "Create": ("POST", "", bind_create, render_object, "application/json"),
    "Update": ("PATCH", "/{id}", bind_update, render_object, "application/json"),
    "Delete": ("DELETE", "/{id}", bind_id, render_message, "application/json"),
    "Signal": ("POST", "/{id}/signal", bind_id, render_message, "application/json"),
    "GetKubeconfig": ("GET", "/{id}/kubeconfig", bind_id, render_text("kubeconfig", "application/yaml"),
                      "application/yaml"),
    "GetPassword": ("GET", "/{id}/password", bind_id, render_text("password", "text/plain"), "text/plain"),
}


def _collection(service_name: str) -> str | None:
    short = service_name.rsplit(".", 1)[1]
    if short == "LifecycleEvents":
        return "lifecycle_events"
    for kind in registry.KINDS:
        if kind.service == short:
            return kind.collection
    return None


def build_routes(by_service: dict[str, tuple[Any, bool]]) -> list[RestRoute]:
    """The REST route table for every served gRPC service."""
    routes: list[RestRoute] = []
    for service, (endpoint, private) in by_service.items():
        collection = _collection(service)
        if collection is None:
            continue
        prefix = PRIVATE_PREFIX if private else PUBLIC_PREFIX
        for method in protos.service_descriptor(service).methods:
            if method.name not in _STANDARD or not hasattr(endpoint, method.name):
                continue
            http_method, suffix, binder, renderer, media_type = _STANDARD[method.name]
            routes.append(
                RestRoute(http_method, f"{prefix}/{collection}{suffix}", service, method.name, private,
                          endpoint, binder, renderer, summary=f"{method.name} {collection}", media_type=media_type)
            )
    capabilities = f"{protos.PUBLIC}.Capabilities"
    if capabilities in by_service:
        routes.append(RestRoute("GET", f"{PUBLIC_PREFIX}/capabilities", capabilities, "Get", False,
                                by_service[capabilities][0], bind_empty, render_message, anonymous=True,
                                summary="Capabilities of this deployment"))
    jwks = f"{protos.PUBLIC}.JsonWebKeySet"
    if jwks in by_service:
        routes.append(RestRoute("GET", "/.well-known/jwks.json", jwks, "Get", False, by_service[jwks][0],
                                bind_empty, render_message, anonymous=True,
                                summary="Public keys of the built-in token issuer"))
    return routes


def route_handler(route: RestRoute, authenticator: Authenticator) -> Callable[[Request], Awaitable[Response]]:
    function = getattr(route.endpoint, route.method)

    async def handle(request: Request) -> Response:
        with observe("rest", route.private, route.service, route.method) as outcome:
            try:
                caller: Caller | None = None
                if not route.anonymous:
                    caller = await authenticator.caller(
                        request.headers.get("authorization"),
                        private=route.private,
                        dry_run=request.headers.get("x-dry-run"),
                    )
                message = await route.binder(request, route.request_class)
                limits.check_request(message)
                return route.renderer(await function(caller, message))
            except API_ERRORS as error:
                known = api_error(error)
                assert known is not None
                outcome.code = known.code.name
                return error_response(known)

    return handle
