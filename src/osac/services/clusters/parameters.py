"""Template parameters (api.md §11.5, §11.6): the definitions a ClusterTemplate declares and the
values a Cluster gives in ``spec.template_parameters``.

A definition is ``{name, title, description, required, type, default}``; ``type`` is the type
URL of the ``google.protobuf.Any`` values it takes (``type.googleapis.com/google.protobuf.
StringValue``) and must name a message type the server knows, so every value can be checked,
decoded and shown (JSON ``{"@type": …, "value": …}``). A required parameter has no default.

At Cluster create every given value must name a declared parameter and carry the declared type;
required parameters must be given; omitted optional parameters get their default, stored in the
spec (the map is immutable afterwards). Every failure is INVALID_ARGUMENT naming the entry.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from google.protobuf import any_pb2, descriptor_pool, message_factory, struct_pb2, wrappers_pb2
from google.protobuf.message import DecodeError, Message

from osac.api.private.v1.cluster_template_type_pb2 import ClusterTemplateParameterDefinition
from osac.api.private.v1.compute_instance_template_type_pb2 import ComputeInstanceTemplateParameterDefinition
from osac.services.core.errors import InvalidArgument

#: The well-known value types are always available to templates, whatever else is loaded.
WELL_KNOWN = (wrappers_pb2.StringValue, wrappers_pb2.BoolValue, wrappers_pb2.Int64Value,
              wrappers_pb2.DoubleValue, struct_pb2.Value, struct_pb2.Struct, struct_pb2.ListValue)
EXAMPLE_TYPE = "type.googleapis.com/google.protobuf.StringValue"
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]{0,62}$")
#: A parameter definition of either kind of template (the same fields).
ParameterDefinition = ClusterTemplateParameterDefinition | ComputeInstanceTemplateParameterDefinition


def message_type(type_url: str) -> type[Message] | None:
    """The message class a type URL names, or None when the server does not know it."""
    full_name = type_url.rsplit("/", 1)[-1]
    try:
        descriptor = descriptor_pool.Default().FindMessageTypeByName(full_name)
    except KeyError:
        return None
    return message_factory.GetMessageClass(descriptor)


def _check_value(value: any_pb2.Any, type_url: str, path: str) -> None:
    """``value`` carries ``type_url`` and its bytes decode as that type."""
    if value.type_url != type_url:
        raise InvalidArgument(f"{path}: must be of type {type_url}, got {value.type_url or 'no type'}")
    cls = message_type(type_url)
    if cls is None:
        return  # the definition was checked when the template was written; a later server may lack it
    try:
        cls().ParseFromString(value.value)
    except DecodeError:
        raise InvalidArgument(f"{path}: the value is not a valid {cls.DESCRIPTOR.full_name}") from None


def validate_definitions(parameters: Sequence[ParameterDefinition], path: str = "parameters") -> None:
    """A template's parameter definitions: names unique and well formed, types known, defaults
    of their type, no default on a required parameter."""
    seen: dict[str, int] = {}
    for index, parameter in enumerate(parameters):
        here = f"{path}[{index}]"
        name = parameter.name
        if not name:
            raise InvalidArgument(f"{here}.name: required; it is the key of the value in spec.template_parameters")
        if not _NAME.match(name):
            raise InvalidArgument(
                f"{here}.name: '{name[:80]}' is invalid; use at most 63 letters, digits, '_', '.' or '-', "
                "starting with a letter or '_'"
            )
        if name in seen:
            raise InvalidArgument(f"{here}.name: '{name}' is already defined by {path}[{seen[name]}]")
        seen[name] = index
        type_url = parameter.type
        if not type_url:
            raise InvalidArgument(f"{here}.type: required; give the type URL of the values (e.g. {EXAMPLE_TYPE})")
        if "/" not in type_url or message_type(type_url) is None:
            raise InvalidArgument(
                f"{here}.type: '{type_url[:200]}' is not the type URL of a message type this server knows "
                f"(e.g. {EXAMPLE_TYPE})"
            )
        if parameter.HasField("default"):
            if parameter.required:
                raise InvalidArgument(
                    f"{here}.default: a required parameter takes no default; make it optional or drop the default"
                )
            _check_value(parameter.default, type_url, f"{here}.default")


def apply_to_cluster(
    values: Mapping[str, any_pb2.Any], parameters: Sequence[ParameterDefinition], template_label: str, path: str
) -> dict[str, any_pb2.Any]:
    """The values a new cluster stores: the given ones, checked against the template's
    definitions, plus the defaults of omitted optional parameters."""
    declared = {p.name: p for p in parameters}
    for name in sorted(values):
        if name not in declared:
            known = ", ".join(f"'{n}'" for n in sorted(declared))
            offer = f"its parameters are {known}" if known else "it takes no parameters"
            raise InvalidArgument(f"{path}['{name}']: {template_label} has no parameter '{name}'; {offer}")
        _check_value(values[name], declared[name].type, f"{path}['{name}']")
    result = {name: value for name, value in values.items()}
    for name, parameter in declared.items():
        if name in result:
            continue
        if parameter.required:
            title = parameter.title
            raise InvalidArgument(
                f"{path}['{name}']: required by {template_label}" + (f" ({title})" if title else "")
            )
        if parameter.HasField("default"):
            result[name] = parameter.default
    return result
