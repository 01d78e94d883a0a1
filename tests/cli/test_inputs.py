"""Objects from files, ``--set`` assignments, labels, per-kind flags and security rules (no server)."""

from __future__ import annotations

import pytest
from google.protobuf import json_format
from google.protobuf.message import Message

from osac.cli.errors import CliError
from osac.cli.objects.inputs import apply_assignment, parse_documents, parse_label_changes, split_assignment
from osac.cli.objects.kind_flags import apply_kind_flags, check_mutable, parse_kind_flags
from osac.cli.objects.rules import rule_text, short_rule
from osac.model import protos, registry


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
        "--egress=protocol=all,cidr6=::/0",
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
    pairs = parse_kind_flags("external_ip_attachment", ["--endpoint", "web"])

    with pytest.raises(CliError) as raised:
        apply_kind_flags(public("ExternalIPAttachment"), pairs)

    assert str(raised.value) == "--endpoint 'web': spec.target_endpoint: 'web' is not one of API, INGRESS"


# -- security rules and the networking kinds' flags ---------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("protocol=tcp,port=443,cidr=0.0.0.0/0",
         {"protocol": "PROTOCOL_TCP", "port_from": 443, "port_to": 443, "ipv4_cidr": "0.0.0.0/0"}),
        ("protocol=UDP,ports=1000-2000,cidr=10.0.0.0/8",
         {"protocol": "PROTOCOL_UDP", "port_from": 1000, "port_to": 2000, "ipv4_cidr": "10.0.0.0/8"}),
        ("protocol=tcp,port=8000-8080,cidr6=fd00::/8",
         {"protocol": "PROTOCOL_TCP", "port_from": 8000, "port_to": 8080, "ipv6_cidr": "fd00::/8"}),
        ("protocol=icmp,cidr=0.0.0.0/0,cidr6=::/0",
         {"protocol": "PROTOCOL_ICMP", "ipv4_cidr": "0.0.0.0/0", "ipv6_cidr": "::/0"}),
        ("protocol=all,port=0,cidr=10.1.2.3", {"protocol": "PROTOCOL_ALL", "ipv4_cidr": "10.1.2.3/32"}),
        ("protocol=PROTOCOL_TCP,port_from=22,port_to=23,ipv4_cidr=0.0.0.0/0",
         {"protocol": "PROTOCOL_TCP", "port_from": 22, "port_to": 23, "ipv4_cidr": "0.0.0.0/0"}),
    ],
    ids=["tcp port", "udp ports", "ipv6", "icmp dual", "all with port 0", "field names"],
)
def test_rules_from_text(text: str, expected: dict) -> None:  # type: ignore[type-arg]
    obj = public("SecurityGroup")

    apply_kind_flags(obj, parse_kind_flags("security_group", ["--ingress", text]))

    assert as_dict(obj) == {"spec": {"ingress": [expected]}}


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("protocol=tcp,port=22,port=23,cidr=0.0.0.0/0", "port is given twice; give it once"),
        ("protocol=tcp,port=22,ports=1-2,cidr=0.0.0.0/0", "give the ports once: port=N or ports=N-M, not port and ports"),
        ("protocol=tcp,port=0,cidr=0.0.0.0/0", "port 0 is out of range; ports are 1-65535"),
        ("protocol=tcp,port=22,cidr=nowhere", "cidr 'nowhere' is not an IPv4 network; write e.g. cidr=0.0.0.0/0"),
        ("protocol=all,ports=1-2,cidr=0.0.0.0/0", "all rules have no ports; remove ports=1-2"),
    ],
    ids=["twice", "port and ports", "port zero", "bad cidr", "ports on all"],
)
def test_rule_errors_name_the_flag_and_the_fix(text: str, error: str) -> None:
    with pytest.raises(CliError) as raised:
        parse_kind_flags("security_group", ["--egress", text])

    assert str(raised.value) == f"--egress '{text}': {error}"


def test_rule_sentences() -> None:
    rules = public("SecurityGroup")
    apply_kind_flags(rules, parse_kind_flags("security_group", [
        "--ingress", "protocol=tcp,port=443,cidr=0.0.0.0/0", "--ingress", "protocol=icmp,cidr=0.0.0.0/0,cidr6=::/0",
        "--egress", "protocol=udp,ports=53-54,cidr=10.0.0.0/8",
    ]))
    ingress, icmp = rules.spec.ingress  # type: ignore[attr-defined]
    [egress] = rules.spec.egress  # type: ignore[attr-defined]

    assert rule_text(ingress) == "tcp 443 from 0.0.0.0/0"
    assert rule_text(icmp) == "icmp from 0.0.0.0/0, ::/0"
    assert rule_text(egress, egress=True) == "udp 53-54 to 10.0.0.0/8"
    assert [short_rule(r) for r in (ingress, icmp, egress)] == ["tcp/443", "icmp", "udp/53-54"]


def test_network_class_flags_with_switches_and_default_rules() -> None:
    obj = protos.message_class("osac.private.v1.NetworkClass")()
    pairs = parse_kind_flags("network_class", [
        "--title", "Gold", "--fabric-manager", "sim-fabric", "--default", "--vip-prefix-length", "27",
        "--vn-cidr", "10.50.0.0/16", "--subnet-cidr=10.50.0.0/24", "--nat-gateway=false",
        "--ingress", "protocol=tcp,port=22,cidr=0.0.0.0/0",
    ])

    apply_kind_flags(obj, pairs)

    assert as_dict(obj) == {
        "title": "Gold", "fabric_manager": "sim-fabric", "is_default": True,
        "spec": {"vip_prefix_length": 27, "defaults": {
            "virtual_network_ipv4_cidr": "10.50.0.0/16", "subnet_ipv4_cidr": "10.50.0.0/24",
            "ingress_rules": [{"protocol": "PROTOCOL_TCP", "port_from": 22, "port_to": 22, "ipv4_cidr": "0.0.0.0/0"}],
        }},
    }


def test_pool_and_attachment_flags() -> None:
    pool = public("ExternalIPPool")
    private_pool = protos.message_class("osac.private.v1.ExternalIPPool")()
    attachment = public("ExternalIPAttachment")

    apply_kind_flags(private_pool, parse_kind_flags("external_ip_pool", [
        "--cidr", "198.51.100.0/25", "--cidr", "198.51.100.128/25", "--family", "ipv4"]))
    apply_kind_flags(attachment, parse_kind_flags("external_ip_attachment", [
        "--eip", "web-ip", "--cluster", "c1", "--endpoint", "ingress"]))

    assert as_dict(private_pool) == {"spec": {"cidrs": ["198.51.100.0/25", "198.51.100.128/25"], "ip_family": "IP_FAMILY_IPV4"}}
    assert as_dict(attachment) == {"spec": {
        "external_ip": "web-ip", "cluster": "c1", "target_endpoint": "EXTERNAL_IP_ATTACHMENT_ENDPOINT_INGRESS"}}
    with pytest.raises(CliError, match=r"^--cidr: ExternalIPPool has no field spec.cidrs$"):
        apply_kind_flags(pool, parse_kind_flags("external_ip_pool", ["--cidr", "198.51.100.0/25"]))


def test_aliases_of_flags() -> None:
    pairs = parse_kind_flags("subnet", ["--vn", "net1", "--cidr", "10.0.1.0/24", "--ipv4-cidr=10.0.2.0/24"])

    assert [(flag.option, value) for flag, value in pairs] == [
        ("--virtual-network", "net1"), ("--cidr", "10.0.1.0/24"), ("--cidr", "10.0.2.0/24"),
    ]


def test_edit_replaces_lists_and_refuses_immutable_fields() -> None:
    obj = public("SecurityGroup")
    apply_kind_flags(obj, parse_kind_flags("security_group", [
        "--ingress", "protocol=tcp,port=22,cidr=0.0.0.0/0", "--egress", "protocol=all,cidr=0.0.0.0/0"]))

    paths = apply_kind_flags(obj, parse_kind_flags("security_group", [
        "--ingress", "protocol=tcp,port=80,cidr=0.0.0.0/0", "--ingress", "protocol=tcp,port=443,cidr=0.0.0.0/0"]),
        replace=True)
    cleared = apply_kind_flags(obj, parse_kind_flags("security_group", ["--egress", "none"]), replace=True)

    assert paths == ["spec.ingress"] and cleared == ["spec.egress"]
    assert [rule.port_from for rule in obj.spec.ingress] == [80, 443]  # type: ignore[attr-defined]
    assert len(obj.spec.egress) == 0  # type: ignore[attr-defined]
    with pytest.raises(CliError) as raised:
        check_mutable(registry.get("security_group"), parse_kind_flags("security_group", ["--vn", "other"]))
    assert str(raised.value) == "--virtual-network: SecurityGroup spec.virtual_network cannot be changed after create"
