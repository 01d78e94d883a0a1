"""The storage encoder equals the proto3 JSON mapping it replaced (field names, enums as
numbers, 64-bit integers as text, nine-digit timestamps), key order included, for every kind;
and what it writes parses back to the same message."""

from __future__ import annotations

import json

import pytest
from google.protobuf import json_format
from google.protobuf.message import Message
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from osac.model import registry
from osac.store.codec import from_storage, parse_by_json_mapping, storage_by_json_mapping, to_storage
from tests.support.messages import messages

CLASSES = sorted({kind.private_class() for kind in registry.KINDS}, key=lambda cls: cls.DESCRIPTOR.full_name)


@pytest.mark.parametrize("cls", CLASSES, ids=lambda cls: cls.DESCRIPTOR.name)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_storage_form_equals_the_json_mapping(cls: type[Message], data: st.DataObject) -> None:
    message = data.draw(messages(cls))
    stored = to_storage(message)
    expected = storage_by_json_mapping(message)
    assert json.dumps(stored) == json.dumps(expected)
    parsed = from_storage(stored, cls)
    assert parsed == message
    assert parsed.SerializeToString(deterministic=True) == parse_by_json_mapping(stored, cls).SerializeToString(
        deterministic=True
    )


def test_storage_form_of_a_cluster() -> None:
    cls = registry.get("cluster").private_class()
    cluster = cls()
    cluster.id = "c-1"
    cluster.metadata.version = 12
    cluster.metadata.creation_timestamp.FromSeconds(1_700_000_000)
    cluster.metadata.labels["team"] = "blue"
    cluster.status.state = 2
    cluster.status.hub = "hub-1"
    stored = to_storage(cluster)
    assert stored["id"] == "c-1"
    assert stored["metadata"]["version"] == 12
    assert stored["metadata"]["creation_timestamp"] == "2023-11-14T22:13:20.000000000Z"
    assert stored["metadata"]["labels"] == {"team": "blue"}
    assert stored["status"]["state"] == 2 and stored["status"]["hub"] == "hub-1"
    assert "spec" not in stored  # zero values are left out


def test_a_64_bit_integer_is_stored_as_text() -> None:
    instance = registry.get("bare_metal_instance").private_class()()
    instance.spec.restart_trigger = 2**40
    assert to_storage(instance) == {"spec": {"restart_trigger": str(2**40)}}


CLUSTER = registry.get("cluster").private_class()


@pytest.mark.parametrize(
    "data",
    [
        {"status": {"state": "CLUSTER_STATE_READY"}},  # an enum by name
        {"metadata": {"creation_timestamp": "2026-11-30T01:40:54Z"}},  # a timestamp in another form
        {"metadata": {"creation_timestamp": "2026-11-30T02:40:54.5+01:00"}},
        {"metadata": {"version": "12"}},  # a 32-bit integer as text
        {"id": "c-1", "written_by_a_newer_server": {"x": 1}, "status": {"later_field": True}},  # unknown names
        {"metadata": {"labels": {"a": "b"}, "name": None}},  # null: the field's default
    ],
    ids=["enum-name", "timestamp-no-fraction", "timestamp-offset", "int32-text", "unknown-fields", "null"],
)
def test_other_forms_parse_as_the_json_mapping_parses_them(data: dict) -> None:
    assert from_storage(data, CLUSTER) == parse_by_json_mapping(data, CLUSTER)


@pytest.mark.parametrize(
    "data",
    [{"metadata": {"version": 2**40}}, {"status": {"state": [1]}}, {"metadata": {"labels": ["a"]}}],
    ids=["out-of-range", "list-for-enum", "list-for-map"],
)
def test_a_malformed_value_fails_as_the_json_mapping_fails(data: dict) -> None:
    with pytest.raises(json_format.ParseError):
        parse_by_json_mapping(data, CLUSTER)
    with pytest.raises(json_format.ParseError):
        from_storage(data, CLUSTER)
