"""Objects from files, ``--set`` assignments, labels and per-kind flags (no server)."""

from __future__ import annotations

import pytest
from google.protobuf import json_format
from google.protobuf.message import Message

from osac.cli.errors import CliError
from osac.cli.inputs import apply_assignment, parse_documents, parse_label_changes, split_assignment
from osac.cli.kind_flags import apply_kind_flags, parse_kind_flags
from osac.model import protos


def public(message: str) -> Message:
    return protos.message_class(f"osac.public.v1.{message}")()


def as_dict(message: Message) -> dict:  # type: ignore[type-arg]
    return json_format.MessageToDict(message, preserving_proto_field_name=True)


@pytest.mark.parametrize(
    ("message", "assignment", "expected", "mask"),
    [
        ("Subnet", "spec.ipv4_cidr=10.0.1.0/24", {"spec": {"ipv4_cidr": "10.0.1.0/24"}}, "spec.ipv4_cidr"),
        ("Subnet", "metadata.labels.env=prod", {"metadata": {"labels": {"env": "prod"}}}, "metadata.labels"),
        ("Subnet", "metadata.labels=a=1,b=2", {"metadata": {"labels": {"a": "1", "b": "2"}}}, "metadata.labels"),
        ("Subnet", "status.state=READY", {"status": {"state": "SUBNET_STATE_READY"}}, "status.state"),
        ("Subnet", "status.state=subnet_state_failed", {"status": {"state": "SUBNET_STATE_FAILED"}}, "status.state"),
        ("Subnet", "status.state=2", {"status": {"state": "SUBNET_STATE_READY"}}, "status.state"),
        ("Subnet", "status.available_addresses=12", {"status": {"available_addresses": 12}}, "status.available_addresses"),
        ("Tenant", "spec.domains=a.com, b.org", {"spec": {"domains": ["a.com", "b.org"]}}, "spec.domains"),
        ("Tenant", "spec.domains=", {"spec": {}}, "spec.domains"),
        ("NetworkClass", "is_default=true", {"is_default": True}, "is_default"),
        ("NetworkClass", "spec.defaults.enable_nat_gateway=yes", {"spec": {"defaults": {"enable_nat_gateway": True}}},
         "spec.defaults.enable_nat_gateway"),
        ("Cluster", "spec.node_sets.workers.size=3", {"spec": {"node_sets": {"workers": {"size": 3}}}}, "spec.node_sets"),
        ("ComputeInstance", "spec.restart_requested_at=2025-01-02T03:04:05Z",
         {"spec": {"restart_requested_at": "2025-01-02T03:04:05Z"}}, "spec.restart_requested_at"),
        ("Subnet", 'spec={"ipv4_cidr": "10.9.0.0/24"}', {"spec": {"ipv4_cidr": "10.9.0.0/24"}}, "spec"),
    ],
    ids=lambda value: value if isinstance(value, str) else None,
)
def test_set_converts_by_field_type(message: str, assignment: str, expected: dict, mask: str) -> None:  # type: ignore[type-arg]
    obj = public(message)
    path, value = split_assignment(assignment)

    assert apply_assignment(obj, path, value) == mask
    assert as_dict(obj) == expected


@pytest.mark.parametrize(
    ("assignment", "error"),
    [
        ("spec.ipv4=1", "spec has no field 'ipv4'; fields: virtual_network, ipv4_cidr, ipv6_cidr"),
        ("status.state=SHINY", "status.state: 'SHINY' is not one of PENDING, READY, FAILED, DELETING, DELETE_FAILED"),
        ("status.available_addresses=many", "status.available_addresses: 'many' is not a number"),
        ("spec.ipv4_cidr.x=1", "spec.ipv4_cidr.x: spec.ipv4_cidr is not a message"),
        ("spec=1", "spec: a message; set its fields (e.g. spec.FIELD=VALUE) or give JSON"),
    ],
    ids=lambda value: value.split("=")[0] if "=" in value else None,
)
def test_set_errors_name_the_path_and_the_fix(assignment: str, error: str) -> None:
    path, value = split_assignment(assignment)

    with pytest.raises(CliError) as raised:
        apply_assignment(public("Subnet"), path, value)

    assert str(raised.value) == error


def test_set_needs_path_and_value() -> None:
    with pytest.raises(CliError, match="expected PATH=VALUE"):
        split_assignment("spec.ipv4_cidr")


def test_documents_in_every_accepted_shape() -> None:
    text = (
        "metadata: {name: a, creation_timestamp: 2025-01-01T00:00:00Z}\n"
        "---\n"
        '{"items": [{"metadata": {"name": "b"}}, {"metadata": {"name": "c"}}], "revision": "4"}\n'
        "---\n"
        "kind: Subnet\nobject: {metadata: {name: d}}\n"
    )

    documents = parse_documents(text, "f.yaml")

    assert [(d.data["metadata"]["name"], d.kind_word) for d in documents] == [
        ("a", None), ("b", None), ("c", None), ("d", "Subnet"),
    ]
    assert documents[0].data["metadata"]["creation_timestamp"] == "2025-01-01T00:00:00Z"  # not a datetime
    assert [d.source for d in documents][:2] == ["f.yaml document 1", "f.yaml document 2 items[0]"]


@pytest.mark.parametrize(
    ("text", "error"),
    [("", "f.yaml: no objects found"), ("- a\n- b\n", "f.yaml: expected an object (a mapping), got list"),
     ("a: [", "f.yaml: not valid YAML or JSON")],
    ids=["empty", "list", "broken"],
)
def test_bad_documents(text: str, error: str) -> None:
    with pytest.raises(CliError) as raised:
        parse_documents(text, "f.yaml")

    assert str(raised.value).startswith(error)


@pytest.mark.parametrize(
    ("words", "sets", "removes"),
    [
        (["env=prod"], {"env": "prod"}, []),
        (["env-"], {}, ["env"]),
        (["a=1", "b-", "c="], {"a": "1", "c": ""}, ["b"]),
        (["example.com/team=x"], {"example.com/team": "x"}, []),
    ],
    ids=["set", "remove", "mixed", "prefixed"],
)
def test_label_changes(words: list[str], sets: dict[str, str], removes: list[str]) -> None:
    changes = parse_label_changes(words)

    assert (changes.set, changes.remove) == (sets, removes)


@pytest.mark.parametrize("word", ["env", "-", "=x"])
def test_label_change_errors(word: str) -> None:
    with pytest.raises(CliError, match="expected KEY=VALUE"):
        parse_label_changes([word])


def test_kind_flags_set_scalars_and_append_rules() -> None:
    obj = public("SecurityGroup")
    pairs = parse_kind_flags("security_group", [
        "--virtual-network", "net1", "--ingress", "protocol=tcp,port=22,cidr=0.0.0.0/0",
        "--egress=protocol=all,cidr=::/0",
    ])

    apply_kind_flags(obj, pairs)

    assert as_dict(obj) == {"spec": {
        "virtual_network": "net1",
        "ingress": [{"protocol": "PROTOCOL_TCP", "port_from": 22, "port_to": 22, "ipv4_cidr": "0.0.0.0/0"}],
        "egress": [{"protocol": "PROTOCOL_ALL", "ipv6_cidr": "::/0"}],
    }}


def test_kind_flags_append_to_repeated_scalars() -> None:
    obj = public("Tenant")

    apply_kind_flags(obj, parse_kind_flags("tenant", ["--domain", "a.com", "--domain", "b.org"]))

    assert list(obj.spec.domains) == ["a.com", "b.org"]  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("kind", "args", "error"),
    [
        ("subnet", ["--pool", "x"], "unexpected argument '--pool' for subnet; its options: --virtual-network, "),
        ("hub", ["--x"], "unexpected argument '--x' for hub; its options: none besides the common ones"),
        ("subnet", ["--ipv4-cidr"], "--ipv4-cidr needs a value"),
    ],
    ids=["other kind's flag", "kind without flags", "missing value"],
)
def test_kind_flag_errors(kind: str, args: list[str], error: str) -> None:
    with pytest.raises(CliError) as raised:
        parse_kind_flags(kind, args)

    assert str(raised.value).startswith(error)


def test_kind_flag_value_errors_name_the_option() -> None:
    pairs = parse_kind_flags("security_group", ["--ingress", "protocol=smoke"])

    with pytest.raises(CliError) as raised:
        apply_kind_flags(public("SecurityGroup"), pairs)

    assert str(raised.value).startswith("--ingress 'protocol=smoke': protocol: 'smoke' is not one of TCP, UDP")
