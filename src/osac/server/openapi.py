"""The OpenAPI 3.1 document of the REST gateway, generated from the route table and the
message descriptors (JSON mapping of proto3: proto field names, enums as names, int64 as
strings, Timestamps as RFC 3339)."""

from __future__ import annotations

from typing import Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor

from osac.model import protos, registry
from osac.server.rest import PRIVATE_PREFIX, PUBLIC_PREFIX, RestRoute
from osac.services.core import limits, ordering

# A 64-bit integer is written as a string of digits (and read as one or as a JSON number). The
# string forms have at most 18 (19) digits, every one of which is within the type's range.
_INT64: dict[str, Any] = {"oneOf": [
    {"type": "string", "pattern": "^-?[0-9]{1,18}$"},
    {"type": "integer", "minimum": -(2**63), "maximum": 2**63 - 1},
]}
_UINT64: dict[str, Any] = {"oneOf": [
    {"type": "string", "pattern": "^[0-9]{1,19}$"},
    {"type": "integer", "minimum": 0, "maximum": 2**64 - 1},
]}
# Control characters are refused in every string; free text keeps tab, newline and carriage
# return (limits.FREE_TEXT).
_NO_CONTROL = "^[^\\x00-\\x1f\\x7f]*$"
_FREE_TEXT = "^[^\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f\\x7f]*$"

_SCALARS: dict[int, dict[str, Any]] = {
    FieldDescriptor.TYPE_STRING: {"type": "string"},
    FieldDescriptor.TYPE_BOOL: {"type": "boolean"},
    FieldDescriptor.TYPE_INT32: {"type": "integer", "format": "int32"},
    FieldDescriptor.TYPE_SINT32: {"type": "integer", "format": "int32"},
    FieldDescriptor.TYPE_UINT32: {"type": "integer", "format": "int64", "minimum": 0, "maximum": 2**32 - 1},
    FieldDescriptor.TYPE_INT64: _INT64,
    FieldDescriptor.TYPE_SINT64: _INT64,
    FieldDescriptor.TYPE_UINT64: _UINT64,
    FieldDescriptor.TYPE_FIXED64: _UINT64,
    FieldDescriptor.TYPE_DOUBLE: {"type": "number"},
    FieldDescriptor.TYPE_FLOAT: {"type": "number"},
    FieldDescriptor.TYPE_BYTES: {"type": "string", "format": "byte"},
}

_WELL_KNOWN: dict[str, dict[str, Any]] = {
    "google.protobuf.Timestamp": {"type": "string", "format": "date-time"},
    "google.protobuf.Duration": {"type": "string", "pattern": "^-?[0-9]{1,12}(\\.[0-9]{1,9})?s$"},
    "google.protobuf.FieldMask": {"type": "string"},
    "google.protobuf.Any": {"type": "object", "required": ["@type"],
                            "properties": {"@type": {"type": "string", "minLength": 1}}},
    "google.protobuf.Struct": {"type": "object"},
    "google.protobuf.Value": {},
    "google.protobuf.Empty": {"type": "object"},
}

_ERROR = {
    "type": "object",
    "description": "google.rpc.Status",
    "properties": {
        "code": {"type": "integer"},
        "message": {"type": "string"},
        "details": {"type": "array", "items": {"type": "object"}},
    },
}


class _Schemas:
    def __init__(self) -> None:
        self.components: dict[str, Any] = {"Status": _ERROR}

    def ref(self, descriptor: Descriptor) -> dict[str, Any]:
        """A message that must be an object: a request body, a response, an item of a list or
        a map (the proto3 JSON mapping refuses null there)."""
        if descriptor.full_name in _WELL_KNOWN:
            return dict(_WELL_KNOWN[descriptor.full_name])
        name = descriptor.full_name
        if name not in self.components:
            self.components[name] = {}
            self.components[name] = self.message(descriptor)
        return {"$ref": f"#/components/schemas/{name}", "type": "object"}

    def message(self, descriptor: Descriptor) -> dict[str, Any]:
        # Object or null: a message field may be null, read as its default (the component names
        # both, so that a field needs no anyOf; where only an object is accepted, the reference
        # says "type": "object" beside it).
        properties = {field.name: self.field(field) for field in descriptor.fields}
        return {"type": ["object", "null"], "properties": properties, "additionalProperties": False}

    def field(self, field: FieldDescriptor) -> dict[str, Any]:
        """A field's schema with the bounds of ``osac.services.core.limits`` (docs/limits.md).
        Every field may be null, which the proto3 JSON mapping reads as the field's default (a
        PATCH clears the field with it); the items of a list and the values of a map may not."""
        return _or_null(self.field_value(field))

    def field_value(self, field: FieldDescriptor) -> dict[str, Any]:
        if field.is_repeated and (entry := protos.map_entry_of(field)) is not None:
            value_field = entry.fields_by_name["value"]
            values = self.single(value_field)
            if field.name == "labels":
                values["maxLength"] = limits.MAX_LABEL_VALUE_LENGTH
            elif field.name == "annotations":
                values.update(maxLength=limits.MAX_ANNOTATIONS_BYTES, pattern=_FREE_TEXT)
            return {
                "type": "object",
                "additionalProperties": values,
                "propertyNames": {"maxLength": limits.MAX_KEY_LENGTH, "pattern": _NO_CONTROL},
                "maxProperties": limits.max_items(field.name),
            }
        single = self.single(field)
        if field.is_repeated:
            return {"type": "array", "items": single, "maxItems": limits.max_items(field.name)}
        return single

    def single(self, field: FieldDescriptor) -> dict[str, Any]:
        if field.type == FieldDescriptor.TYPE_MESSAGE:
            return self.ref(protos.message_type_of(field))
        if field.type == FieldDescriptor.TYPE_ENUM:
            values = protos.enum_type_of(field).values
            names = [value.name for value in values]
            numbers = [value.number for value in values]
            return {"oneOf": [{"type": "string", "enum": names}, {"type": "integer", "enum": numbers}]}
        schema = dict(_SCALARS.get(field.type, {"type": "string"}))
        if field.type == FieldDescriptor.TYPE_STRING:
            bound = limits.MAX_NAME_LENGTH if field.full_name.endswith("Metadata.name") else limits.max_string_length(field.name)
            schema["maxLength"] = bound
            schema["pattern"] = _FREE_TEXT if field.name in limits.FREE_TEXT else _NO_CONTROL
        elif field.type == FieldDescriptor.TYPE_INT32:
            schema.update(minimum=-(2**31), maximum=2**31 - 1)
        return schema


def _or_null(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` that also accepts null."""
    if "$ref" in schema:  # a message: its component accepts null
        return {"$ref": schema["$ref"]}
    if "oneOf" in schema:
        return {**schema, "oneOf": [*schema["oneOf"], {"type": "null"}]}
    if "type" in schema:
        return {**schema, "type": [schema["type"], "null"]}
    return schema  # google.protobuf.Value: any JSON value, null included


def document(routes: list[RestRoute]) -> dict[str, Any]:
    schemas = _Schemas()
    paths: dict[str, dict[str, Any]] = {}
    for route in routes:
        operation: dict[str, Any] = {
            "operationId": f"{route.service}.{route.method}".replace("osac.", ""),
            "summary": route.summary,
            "tags": [route.service.rsplit(".", 2)[-2] + " " + route.service.rsplit(".", 1)[1]],
            "responses": {
                "200": {"description": "OK", "content": {route.media_type: {"schema": _response(route, schemas)}}},
                "default": _ERROR_RESPONSE,
            },
        }
        if not route.anonymous:
            operation["security"] = [{"bearer": []}]
        parameters = _parameters(route)
        if parameters:
            operation["parameters"] = parameters
        body = _request_body(route)
        if body is not None:
            # An empty body is read as the empty JSON object (rest.read_json), so none is required.
            operation["requestBody"] = {
                "required": False,
                "content": {"application/json": {"schema": schemas.ref(body)}},
            }
        paths.setdefault(route.path, {})[route.http_method.lower()] = operation
    for path, private in (("/api/events/v1/events", False), ("/api/private/v1/events/watch", True)):
        paths[path] = {
            "get": {
                "operationId": f"{'private' if private else 'public'}.v1.Events.Watch",
                "summary": "Watch the change stream (newline-delimited JSON, one {\"result\": {\"event\": ...}} per line)",
                "security": [{"bearer": []}],
                "parameters": [
                    _FILTER,
                    {"name": "after_revision", "in": "query",
                     "schema": {"type": "integer", "minimum": limits.REVISION_RANGE[0], "maximum": limits.REVISION_RANGE[1]}},
                ],
                "responses": {
                    "200": {"description": "Stream", "content": {"application/x-ndjson": {"schema": {"type": "object"}}}},
                    "default": _ERROR_RESPONSE,
                },
            }
        }
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "OSAC fulfillment API",
            "version": "v1",
            "description": f"Public API under {PUBLIC_PREFIX}, private (provider admins) under {PRIVATE_PREFIX}.",
        },
        "paths": paths,
        "components": {
            "schemas": schemas.components,
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer", "bearerFormat": "JWT"}},
        },
    }


_FILTER = {"name": "filter", "in": "query",
           "schema": {"type": "string", "maxLength": limits.max_string_length("filter"), "pattern": _FREE_TEXT}}
_ERROR_RESPONSE = {"description": "Error", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Status"}}}}


def _request_body(route: RestRoute) -> Descriptor | None:
    """The message a route reads from its JSON body, if it reads one."""
    if route.is_body_the_request:
        return protos.descriptor_of(route.request_class)
    if route.method in ("Create", "Update"):
        return protos.message_type_of(protos.descriptor_of(route.request_class).fields_by_name["object"])
    return None


def _response(route: RestRoute, schemas: _Schemas) -> dict[str, Any]:
    if route.media_type != "application/json":
        return {"type": "string"}
    response = protos.descriptor_of(route.response_class)
    if route.method in ("Get", "Create", "Update") and "object" in response.fields_by_name:
        return schemas.ref(protos.message_type_of(response.fields_by_name["object"]))
    return schemas.ref(response)


def _order_description(route: RestRoute) -> str:
    kind = next((k for k in registry.kinds() if route.service.endswith(f".{k.service}")), None)
    if kind is None:
        return "Not supported: a non-empty order is refused (400); items are listed oldest first."
    return (
        f"Absent or blank: creation order (ascending id). Otherwise {ordering.accepted(kind)}, e.g. "
        "'metadata.name desc' or 'status.state, metadata.creation_timestamp desc' (direction case-insensitive, "
        "default asc); ties are broken by ascending id."
    )


def _parameters(route: RestRoute) -> list[dict[str, Any]]:
    parameters: list[dict[str, Any]] = []
    if "{id}" in route.path:
        parameters.append({"name": "id", "in": "path", "required": True,
                           "schema": {"type": "string", "maxLength": limits.DEFAULT_MAX_STRING_LENGTH,
                                      "pattern": _NO_CONTROL}})
    if route.method == "List":
        parameters += [
            {"name": "offset", "in": "query",
             "schema": {"type": "integer", "minimum": limits.OFFSET_RANGE[0], "maximum": limits.OFFSET_RANGE[1]}},
            {"name": "limit", "in": "query",
             "description": f"0 or absent: 100; above {limits.MAX_PAGE_SIZE} the page holds {limits.MAX_PAGE_SIZE}",
             "schema": {"type": "integer", "minimum": limits.LIMIT_RANGE[0], "maximum": limits.LIMIT_RANGE[1]}},
            _FILTER,
            {"name": "order", "in": "query", "description": _order_description(route),
             "schema": {"type": "string", "maxLength": limits.max_string_length("order"), "pattern": _NO_CONTROL}},
        ]
    if route.method == "Update":
        parameters += [
            {"name": "update_mask", "in": "query", "description": "comma-separated field paths",
             "schema": {"type": "string", "pattern": _NO_CONTROL}},
            {"name": "lock", "in": "query", "schema": {"type": "boolean"}},
        ]
    if route.method == "Create":
        parameters.append({"name": "X-Dry-Run", "in": "header", "schema": {"type": "boolean"}})
    return parameters
