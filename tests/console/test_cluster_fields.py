"""Template parameter text to values and back (``osac.console.cluster_fields``): every value
carries the declared type URL, and text not of the type is refused naming the entry."""

from __future__ import annotations

import pytest
from google.protobuf import any_pb2, json_format, struct_pb2, wrappers_pb2

from osac.console.cluster_fields import parse_value, value_text
from osac.services.core.errors import InvalidArgument

PREFIX = "type.googleapis.com/google.protobuf."
PATH = "spec.template_parameters['p']"


@pytest.mark.parametrize(("type_name", "text", "expected"), [
    ("StringValue", " eu 1 ", wrappers_pb2.StringValue(value=" eu 1 ")),
    ("BoolValue", "true", wrappers_pb2.BoolValue(value=True)),
    ("BoolValue", "false", wrappers_pb2.BoolValue(value=False)),
    ("Int64Value", "-42", wrappers_pb2.Int64Value(value=-42)),
    ("UInt32Value", "7", wrappers_pb2.UInt32Value(value=7)),
    ("DoubleValue", "2.5", wrappers_pb2.DoubleValue(value=2.5)),
    ("Struct", '{"a": [1, "b"]}', json_format.ParseDict({"a": [1, "b"]}, struct_pb2.Struct())),
    ("Value", '"text"', struct_pb2.Value(string_value="text")),
], ids=lambda v: str(v) if isinstance(v, str) else "")
def test_text_of_the_type_is_packed_with_the_declared_type_url(type_name: str, text: str, expected: object) -> None:
    packed = parse_value(text, PREFIX + type_name, PATH)
    assert packed.type_url == PREFIX + type_name
    assert packed.value == expected.SerializeToString()  # type: ignore[attr-defined]


@pytest.mark.parametrize(("type_name", "text", "message"), [
    ("Int64Value", "three", "'three' is not a whole number (google.protobuf.Int64Value)"),
    ("Int64Value", "1.5", "'1.5' is not a whole number"),
    ("Int32Value", "3000000000", "3000000000 is out of range for google.protobuf.Int32Value"),
    ("UInt64Value", "-1", "-1 is negative; google.protobuf.UInt64Value takes 0 or more"),
    ("BoolValue", "maybe", "'maybe' is not a yes/no value; use true or false"),
    ("DoubleValue", "fast", "'fast' is not a number (google.protobuf.DoubleValue)"),
    ("DoubleValue", "inf", "'inf' is not a finite number"),
    ("Struct", "[1]", "not a JSON value of google.protobuf.Struct"),
    ("NoSuchType", "x", "this server does not know the type"),
], ids=lambda v: v if isinstance(v, str) and " " not in v else "")
def test_text_not_of_the_type_is_refused_naming_the_parameter(type_name: str, text: str, message: str) -> None:
    with pytest.raises(InvalidArgument) as refused:
        parse_value(text, PREFIX + type_name, PATH)
    assert refused.value.message.startswith(f"{PATH}: ")
    assert message in refused.value.message


@pytest.mark.parametrize(("value", "text"), [
    (wrappers_pb2.StringValue(value="eu-1"), "eu-1"),
    (wrappers_pb2.BoolValue(value=False), "false"),
    (wrappers_pb2.Int64Value(value=3), "3"),
    (json_format.ParseDict({"a": 1}, struct_pb2.Struct()), '{"a": 1.0}'),
])
def test_a_default_shows_as_the_text_that_parses_back_to_it(value: object, text: str) -> None:
    packed = any_pb2.Any()
    packed.Pack(value)  # type: ignore[arg-type]
    assert value_text(packed) == text
    assert parse_value(text, packed.type_url, PATH).value == packed.value
