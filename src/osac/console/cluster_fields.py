"""The cluster create form: a template's parameters and node sets as form fields, and the
submitted form as a new Cluster message.

A parameter (``ClusterTemplateParameterDefinition``) becomes one field named ``param.<name>``:
its title (or name) is the label, its description the help, ``required`` marks it, and its type
URL picks the input: text for ``StringValue``, a yes/no choice for ``BoolValue``, a whole number
for the integer wrappers, a number for ``DoubleValue``/``FloatValue``, JSON for ``Value``,
``Struct``, ``ListValue`` and any other message type the server knows. Its default is the
field's initial text. An empty field is omitted from ``spec.template_parameters``, so the
server applies the default (or refuses a required one, naming it).

Each template node set becomes ``node_set.<key>``, prefilled with the template's size: the API
lets a cluster give a template key's size (its host type stays the template's).

Text that is not of the parameter's type is refused here, naming the entry as the server does
(``spec.template_parameters['replicas']: 'three' is not a whole number``); the value sent always
carries the declared type URL, so the server's own type check holds.

The OpenShift fields (``release_image``, ``pull_secret``, ``pod_cidr``, ``service_cidr``) go to
the spec as typed; empty ones are the template's defaults (then the built-in CIDRs), as for the
API. The network attachment section is ``network_choice``'s.

The template is typed as the public class (the private one a provider admin reads has every
field of it); the new cluster is the private class the service creates.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from google.protobuf import any_pb2, json_format, wrappers_pb2
from google.protobuf.message import DecodeError

from osac.api.private.v1.cluster_type_pb2 import Cluster as PrivateCluster
from osac.api.public.v1.cluster_template_type_pb2 import ClusterTemplate
from osac.console import network_choice
from osac.services.clusters.parameters import message_type
from osac.services.core.errors import InvalidArgument

PARAMETER_PREFIX = "param."
NODE_SET_PREFIX = "node_set."
_WHOLE = re.compile(r"^[+-]?[0-9]+$")
_INTEGERS = frozenset({"google.protobuf.Int64Value", "google.protobuf.Int32Value",
                       "google.protobuf.UInt64Value", "google.protobuf.UInt32Value"})
_NUMBERS = frozenset({"google.protobuf.DoubleValue", "google.protobuf.FloatValue"})
_UNSIGNED = frozenset({"google.protobuf.UInt64Value", "google.protobuf.UInt32Value"})
#: The wrappers whose value a field shows as plain text (the others as JSON).
_PLAIN = (wrappers_pb2.StringValue, wrappers_pb2.Int64Value, wrappers_pb2.Int32Value,
          wrappers_pb2.UInt64Value, wrappers_pb2.UInt32Value, wrappers_pb2.DoubleValue, wrappers_pb2.FloatValue)


@dataclass(frozen=True)
class ParameterField:
    name: str
    field: str
    label: str
    help: str
    required: bool
    #: text, boolean, integer, number or json
    input: str
    type_url: str

    @property
    def type_name(self) -> str:
        return self.type_url.rsplit("/", 1)[-1]


@dataclass(frozen=True)
class NodeSetField:
    key: str
    field: str
    host_type: str
    size: int


def _input_of(type_url: str) -> str:
    full_name = type_url.rsplit("/", 1)[-1]
    if full_name == "google.protobuf.StringValue":
        return "text"
    if full_name == "google.protobuf.BoolValue":
        return "boolean"
    if full_name in _INTEGERS:
        return "integer"
    if full_name in _NUMBERS:
        return "number"
    return "json"


def parameter_fields(template: ClusterTemplate) -> tuple[ParameterField, ...]:
    return tuple(
        ParameterField(p.name, PARAMETER_PREFIX + p.name, p.title or p.name, p.description, p.required,
                       _input_of(p.type), p.type)
        for p in template.parameters
    )


def node_set_fields(template: ClusterTemplate, host_types: Mapping[str, str]) -> tuple[NodeSetField, ...]:
    node_sets = template.node_sets
    return tuple(NodeSetField(key, NODE_SET_PREFIX + key, host_types.get(node_sets[key].host_type,
                                                                          node_sets[key].host_type),
                              node_sets[key].size)
                 for key in sorted(node_sets))


def value_text(value: any_pb2.Any) -> str:
    """A parameter value (a default) as the field's text: the plain value of a wrapper, else JSON."""
    cls = message_type(value.type_url)
    if cls is None:
        return ""
    message = cls()
    try:
        message.ParseFromString(value.value)
    except DecodeError:
        return ""
    if isinstance(message, wrappers_pb2.BoolValue):
        return "true" if message.value else "false"
    if isinstance(message, _PLAIN):
        return str(message.value)
    return json.dumps(json_format.MessageToDict(message), separators=(", ", ": "))


def initial_values(template: ClusterTemplate) -> dict[str, str]:
    """The fields a fresh form shows: every default and the template's node-set sizes."""
    values: dict[str, str] = {"template": template.metadata.name}
    for parameter in template.parameters:
        if parameter.HasField("default"):
            values[PARAMETER_PREFIX + parameter.name] = value_text(parameter.default)
    for key, node_set in template.node_sets.items():
        values[NODE_SET_PREFIX + key] = str(node_set.size)
    return values


def parse_value(text: str, type_url: str, path: str) -> any_pb2.Any:
    """``text`` as a value of ``type_url``. :raises InvalidArgument: naming ``path``."""
    cls = message_type(type_url)
    if cls is None:
        raise InvalidArgument(f"{path}: this server does not know the type {type_url}")
    full_name = cls.DESCRIPTOR.full_name
    message: Any = cls()
    if full_name == "google.protobuf.StringValue":
        message.value = text
    elif full_name == "google.protobuf.BoolValue":
        if text not in ("true", "false"):
            raise InvalidArgument(f"{path}: '{text}' is not a yes/no value; use true or false")
        message.value = text == "true"
    elif full_name in _INTEGERS:
        if not _WHOLE.match(text.strip()):
            raise InvalidArgument(f"{path}: '{text}' is not a whole number ({full_name})")
        number = int(text)
        if number < 0 and full_name in _UNSIGNED:
            raise InvalidArgument(f"{path}: {number} is negative; {full_name} takes 0 or more")
        bits = 64 if "64" in full_name else 32
        low, high = (0, 2 ** bits - 1) if full_name in _UNSIGNED else (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)
        if not low <= number <= high:
            raise InvalidArgument(f"{path}: {number} is out of range for {full_name} ({low} to {high})")
        message.value = number
    elif full_name in _NUMBERS:
        try:
            number_value = float(text)
        except ValueError:
            raise InvalidArgument(f"{path}: '{text}' is not a number ({full_name})") from None
        if not math.isfinite(number_value):
            raise InvalidArgument(f"{path}: '{text}' is not a finite number ({full_name})")
        message.value = number_value
    else:
        try:
            json_format.Parse(text, message)
        except json_format.ParseError as error:
            raise InvalidArgument(f"{path}: not a JSON value of {full_name}: {error}") from None
    packed = any_pb2.Any()
    packed.type_url = type_url
    packed.value = message.SerializeToString()
    return packed


def fill_cluster(cluster: PrivateCluster, template: ClusterTemplate, form: Mapping[str, str]) -> None:
    """Set a new cluster's template, parameter values and node-set sizes from the form.

    :raises InvalidArgument: a value not of its parameter's type, or a size that is not a whole
        number, named as the API names the entry.
    """
    spec = cluster.spec
    spec.template = template.id
    for item in parameter_fields(template):
        text = form.get(item.field, "")
        if item.input != "text":
            text = text.strip()
        if text == "":
            continue
        path = f"spec.template_parameters['{item.name}']"
        spec.template_parameters[item.name].CopyFrom(parse_value(text, item.type_url, path))
    for key in sorted(template.node_sets):
        text = form.get(NODE_SET_PREFIX + key, "").strip()
        if text == "":
            continue
        if not text.isdigit():
            raise InvalidArgument(f"spec.node_sets['{key}'].size: '{text}' is not a whole number of nodes")
        spec.node_sets[key].size = int(text)
    if form.get("ssh_public_key", "").strip():
        spec.ssh_public_key = form["ssh_public_key"].strip()
    spec.release_image = form.get("release_image", "").strip()  # empty: the template's
    spec.pull_secret = form.get("pull_secret", "").strip()
    if form.get("pod_cidr", "").strip():  # an empty network is left unset, as the API's omitted one
        spec.network.pod_cidr = form["pod_cidr"].strip()
    if form.get("service_cidr", "").strip():
        spec.network.service_cidr = form["service_cidr"].strip()
    subnet, groups = network_choice.chosen(form)
    spec.network_attachment.subnet = subnet
    spec.network_attachment.security_groups.extend(groups)
    spec.auto_external_ip_attachment = form.get("external_access") == "on"

