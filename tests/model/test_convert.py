"""``convert`` copies public and private twins field by field; the reference is the proto3 JSON
mapping by field name that it replaced (a dict of the source parsed into the target, unknown
names dropped)."""

from __future__ import annotations

import pytest
from google.protobuf import json_format
from google.protobuf.message import Message
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from osac.model import registry
from osac.model.convert import convert
from tests.support.messages import messages

PAIRS = [
    (kind.name, source, target)
    for kind in registry.KINDS
    if kind.has_public_api
    for source, target in ((kind.private_class(), kind.public_class()), (kind.public_class(), kind.private_class()))
]


def _by_json(message: Message, cls: type[Message]) -> Message:
    data = json_format.MessageToDict(message, preserving_proto_field_name=True, use_integers_for_enums=True)
    target = cls()
    json_format.ParseDict(data, target, ignore_unknown_fields=True)
    return target


@pytest.mark.parametrize(("kind", "source", "target"), PAIRS, ids=lambda value: getattr(value, "__name__", value))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_convert_equals_the_json_mapping_by_field_name(kind: str, source: type[Message], target: type[Message], data: st.DataObject) -> None:
    message = data.draw(messages(source))
    converted = convert(message, target)
    assert type(converted) is target
    assert converted == _by_json(message, target)
    # Set-but-empty messages stay set, as the JSON mapping keeps them ({}).
    assert converted.SerializeToString(deterministic=True) == _by_json(message, target).SerializeToString(deterministic=True)


def test_convert_drops_private_fields_and_keeps_shared_ones() -> None:
    kind = registry.get("cluster")
    private = kind.private_class()()
    private.id = "c-1"
    private.status.hub = "hub-1"
    private.status.api_endpoint = "https://api.example:6443"
    private.status.state = 7  # an enum number the package does not name
    public = convert(private, kind.public_class())
    assert public.id == "c-1"
    assert public.status.api_endpoint == "https://api.example:6443"
    assert public.status.state == 7
    assert "hub" not in public.status.DESCRIPTOR.fields_by_name


def test_convert_of_the_same_type_is_a_copy() -> None:
    cls = registry.get("subnet").private_class()
    original = cls()
    original.id = "s-1"
    copy = convert(original, cls)
    copy.id = "s-2"
    assert original.id == "s-1"
