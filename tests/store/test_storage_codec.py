"""The storage encoder equals the proto3 JSON mapping it replaced (field names, enums as
numbers, 64-bit integers as text, nine-digit timestamps), key order included, for every kind;
and what it writes parses back to the same message."""

from __future__ import annotations

import json

import pytest
from google.protobuf.message import Message
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from osac.model import registry
from osac.store.codec import from_storage, storage_by_json_mapping, to_storage
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
    assert from_storage(stored, cls) == message


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
