"""Pure parts of the CLI, table-driven: addresses, durations, edits, filters, tables, cells,
describe's sections."""

from __future__ import annotations

import stat
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from google.protobuf import json_format
from google.protobuf.message import Message

from osac.cli.connection.client import Link
from osac.cli.connection.config import SavedLogin, config_path, load_login, save_login
from osac.cli.connection.target import is_loopback, resolve_target, split_address
from osac.cli.connection.tokens import parse_duration
from osac.cli.errors import CliError
from osac.cli.objects.changes import changed_paths
from osac.cli.objects.inputs import Document
from osac.cli.objects.kinds import reference_filter, resolve_kind, resolve_write
from osac.cli.objects.watching import kind_event_filter, rebase_this
from osac.cli.objects.writes import create_is_private
from osac.cli.output.describe import Related, describe_lines
from osac.cli.output.fields import values_along
from osac.cli.output.render import CellContext, age, cell, state_label
from osac.cli.output.tables import Column, columns_for, reference_targets
from osac.model import protos, registry
from osac.model.kinds import Method


def message(name: str, data: dict | None = None) -> Message:  # type: ignore[type-arg]
    return json_format.ParseDict(data or {}, protos.message_class(name)())


# -- where to connect ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("address", "host_port", "scheme_plaintext"),
    [
        ("127.0.0.1:8000", "127.0.0.1:8000", None),
        ("https://api.example.com", "api.example.com:443", False),
        ("https://api.example.com:8443/", "api.example.com:8443", False),
        ("http://10.0.0.5", "10.0.0.5:80", True),
        ("[::1]:8000", "[::1]:8000", None),
    ],
    ids=["host-port", "https", "https-port", "http", "ipv6"],
)
def test_split_address(address: str, host_port: str, scheme_plaintext: bool | None) -> None:
    assert split_address(address) == (host_port, scheme_plaintext)


@pytest.mark.parametrize("address", ["localhost", "", "https://", "::1"])
def test_split_address_needs_a_port(address: str) -> None:
    with pytest.raises(CliError, match="expected HOST:PORT"):
        split_address(address)


@pytest.mark.parametrize(
    ("host_port", "loopback"),
    [("127.0.0.1:1", True), ("127.8.9.1:1", True), ("[::1]:1", True), ("localhost:1", True),
     ("10.0.0.1:1", False), ("api.example.com:443", False)],
)
def test_loopback_addresses_use_plaintext(host_port: str, loopback: bool) -> None:
    assert is_loopback(host_port) is loopback


SAVED = SavedLogin(address="api.example.com:443", token="saved-token")


@pytest.mark.parametrize(
    ("address", "token", "plaintext", "expected"),
    [
        (None, None, False, ("api.example.com:443", "saved-token", False)),
        ("api.example.com:443", None, False, ("api.example.com:443", "saved-token", False)),
        ("other.example.com:443", None, False, ("other.example.com:443", None, False)),
        ("other.example.com:443", "given", False, ("other.example.com:443", "given", False)),
        (None, "given", False, ("api.example.com:443", "given", False)),
        ("127.0.0.1:9000", None, False, ("127.0.0.1:9000", None, True)),
        (None, None, True, ("api.example.com:443", "saved-token", True)),
    ],
    ids=["saved", "same address", "other address gets no saved token", "given token",
         "token over saved", "loopback plaintext", "--plaintext"],
)
def test_target_options_over_saved_login(
    address: str | None, token: str | None, plaintext: bool, expected: tuple[str, str | None, bool]
) -> None:
    target = resolve_target(address, token, plaintext=plaintext, saved=SAVED)

    assert (target.address, target.token, target.is_plaintext) == expected


def test_defaults_without_a_saved_login() -> None:
    target = resolve_target(None, None, saved=SavedLogin())

    assert (target.address, target.token, target.is_plaintext) == ("127.0.0.1:8000", None, True)


def test_saved_login_path_and_mode(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OSAC_CONFIG", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert config_path() == tmp_path / "xdg" / "osac" / "config.yaml"
    monkeypatch.setenv("OSAC_CONFIG", str(tmp_path / "mine.yaml"))
    assert config_path() == tmp_path / "mine.yaml"

    saved = save_login(SavedLogin(address="h:1", token="t", is_plaintext=True))

    assert stat.S_IMODE(saved.stat().st_mode) == 0o600
    assert load_login() == SavedLogin(address="h:1", token="t", is_plaintext=True)


def test_a_broken_saved_login_says_how_to_fix_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OSAC_CONFIG", str(tmp_path / "broken.yaml"))
    (tmp_path / "broken.yaml").write_text("- a list\n")

    with pytest.raises(CliError, match="must be a YAML mapping; run 'osac login' again"):
        load_login()


# -- kinds ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("word", "method", "private", "expected"),
    [
        ("networkclass", Method.CREATE, False, True),
        ("external_ip_pools", Method.DELETE, False, True),
        ("hub", Method.UPDATE, False, True),
        ("subnet", Method.CREATE, False, False),
        ("subnet", Method.CREATE, True, True),
        ("eips", Method.UPDATE, False, False),
    ],
)
def test_provider_only_writes_use_the_private_api(word: str, method: Method, private: bool, expected: bool) -> None:
    assert resolve_write(word, method, private=private)[1] is expected


@pytest.mark.parametrize(
    ("word", "private", "method", "error"),
    [
        ("hubs", False, Method.LIST, "Hub is served by the private API only; add --private (provider admins)"),
        ("network_classes", False, Method.CREATE,
         "NetworkClass is read-only in the public API; provider admins use --private for Create"),
    ],
    ids=["private kind", "read-only kind"],
)
def test_kind_not_served_by_the_api_in_use(word: str, private: bool, method: Method, error: str) -> None:
    with pytest.raises(CliError) as raised:
        resolve_kind(word, private=private, method=method)

    assert str(raised.value) == error


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("spec.virtual_network", "this.spec.virtual_network == 'ID'"),
        ("spec.network_attachment.security_groups[]", "'ID' in this.spec.network_attachment.security_groups"),
        ("spec.compute_network_attachments[].subnet",
         "this.spec.compute_network_attachments.exists(x0, x0.subnet == 'ID')"),
        ("spec.compute_network_attachments[].security_groups[]",
         "this.spec.compute_network_attachments.exists(x0, 'ID' in x0.security_groups)"),
        ("spec.node_sets{}.host_type", None),
    ],
    ids=["field", "list", "list of messages", "nested list", "map"],
)
def test_reference_filters(path: str, expected: str | None) -> None:
    assert reference_filter(path, "ID") == expected


# -- watch filters -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("this.metadata.name == 'a'", "event.subnet.metadata.name == 'a'"),
        ("this.metadata.name == 'this'", "event.subnet.metadata.name == 'this'"),
        ('"it\'s this" == this.id', '"it\'s this" == event.subnet.id'),
        ("has(this.status) && thisness == 1", "has(event.subnet.status) && thisness == 1"),
        ("event.type == EVENT_TYPE_OBJECT_DELETED", "event.type == EVENT_TYPE_OBJECT_DELETED"),
        ("x. this == 1", "x. this == 1"),
    ],
    ids=["field", "string literal", "double quotes", "identifier prefix", "event filter", "field named this"],
)
def test_this_points_at_the_event_payload(expression: str, expected: str) -> None:
    assert rebase_this(expression, "event.subnet") == expected


def test_kind_event_filter_combines_kind_ids_and_filter() -> None:
    subnet = registry.get("subnet")

    assert kind_event_filter(subnet, "this.metadata.name == 'a'", ["1", "2"]) == (
        "has(event.subnet) && event.subnet.id in ['1', '2'] && (event.subnet.metadata.name == 'a')"
    )
    assert kind_event_filter(subnet, None, None) == "has(event.subnet)"


# -- edits ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("before", "after", "paths"),
    [
        ({}, {}, []),
        ({"metadata": {"labels": {"a": "1"}}}, {"metadata": {"labels": {"a": "2"}}}, ["metadata.labels"]),
        ({"spec": {"ingress": [{"port_from": 1}]}}, {"spec": {"ingress": [{"port_from": 2}]}}, ["spec.ingress"]),
        ({"spec": {"virtual_network": "a", "ingress": [{"port_from": 1}]}},
         {"spec": {"virtual_network": "b", "ingress": [{"port_from": 1}]}}, ["spec.virtual_network"]),
        ({}, {"spec": {}}, ["spec"]),
        ({"status": {"state": "SECURITY_GROUP_STATE_READY"}}, {}, ["status.state"]),
    ],
    ids=["nothing", "map replaced whole", "repeated replaced whole", "leaf", "empty message set", "message cleared"],
)
def test_changed_paths(before: dict, after: dict, paths: list[str]) -> None:  # type: ignore[type-arg]
    name = "osac.public.v1.SecurityGroup"

    assert changed_paths(message(name, before), message(name, after)) == paths


# -- durations -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [("12h", timedelta(hours=12)), ("30m", timedelta(minutes=30)), ("1h30m", timedelta(minutes=90)),
     ("2d", timedelta(days=2)), ("90", timedelta(seconds=90)), ("45s", timedelta(seconds=45))],
)
def test_durations(text: str, expected: timedelta) -> None:
    assert parse_duration(text) == expected


@pytest.mark.parametrize("text", ["", "12x", "h", "0", "-1h", "1.5h"])
def test_bad_durations(text: str) -> None:
    with pytest.raises(CliError):
        parse_duration(text)


# -- tables and cells ----------------------------------------------------------------------------


def headers(kind: str, private: bool) -> list[str]:
    chosen = registry.get(kind)
    return [c.header for c in columns_for(chosen, chosen.message_class(private).DESCRIPTOR)]


def test_columns_exist_in_the_api_used() -> None:
    assert headers("external_ip_pool", private=True) == [
        "NAME", "TENANT", "CIDRS", "FAMILY", "TOTAL", "ALLOCATED", "STATE", "AGE", "ID",
    ]
    assert headers("external_ip_pool", private=False) == ["NAME", "TENANT", "FAMILY", "AVAILABLE", "AGE", "ID"]
    assert headers("instance_type", private=False) == ["NAME", "TENANT", "CORES", "MEMORY GIB", "STATE", "AGE", "ID"]


@pytest.mark.parametrize("kind", [k.name for k in registry.KINDS])
def test_every_kind_renders_an_empty_object(kind: str) -> None:
    chosen = registry.get(kind)
    obj = chosen.private_class()()

    cells = [cell(obj, c, CellContext()) for c in columns_for(chosen, chosen.private_class().DESCRIPTOR)]

    assert cells[0] == "-"  # no name


@pytest.mark.parametrize(
    ("data", "column", "expected"),
    [
        ({"status": {"state": "SUBNET_STATE_DELETE_FAILED"}}, Column("S", "status.state", "enum"), "DELETE_FAILED"),
        ({"status": {"state": 42}}, Column("S", "status.state", "enum"), "42"),
        ({"spec": {"virtual_network": "id-1"}}, Column("V", "spec.virtual_network", "ref"), "net1"),
        ({"spec": {"virtual_network": "id-2"}}, Column("V", "spec.virtual_network", "ref"), "id-2"),
        ({"metadata": {"creation_timestamp": "2025-01-01T00:00:00Z"}},
         Column("A", "metadata.creation_timestamp", "age"), "3h"),
        ({}, Column("A", "metadata.creation_timestamp", "age"), "-"),
        ({"metadata": {"labels": {"b": "2", "a": "1"}}}, Column("L", "metadata.labels"), "a=1,b=2"),
    ],
    ids=["enum prefix stripped", "unknown enum raw", "ref by name", "ref without name", "age", "absent", "map"],
)
def test_cells(data: dict, column: Column, expected: str) -> None:  # type: ignore[type-arg]
    obj = message("osac.public.v1.Subnet", data)
    context = CellContext(now=datetime(2025, 1, 1, 3, 30, tzinfo=UTC), names={"id-1": "net1"})

    assert cell(obj, column, context) == expected


@pytest.mark.parametrize(
    ("kind", "private", "expected"),
    [
        ("virtual_network", False, ["CIDR", "CLASS"]),
        ("subnet", False, ["VIRTUAL NETWORK", "CIDR", "GATEWAY", "AVAILABLE"]),
        ("security_group", False, ["VIRTUAL NETWORK", "INGRESS", "EGRESS"]),
        ("external_ip", False, ["POOL", "ADDRESS", "ATTACHED"]),
        ("nat_gateway", False, ["VIRTUAL NETWORK", "EXTERNAL IP"]),
        ("network_class", False, ["DEFAULT"]),
        ("network_class", True, ["DEFAULT", "FABRIC MANAGER"]),
        ("external_ip_pool", False, ["FAMILY", "AVAILABLE"]),
    ],
)
def test_networking_columns(kind: str, private: bool, expected: list[str]) -> None:
    every = headers(kind, private)
    has_state = "STATE" in every

    assert every == ["NAME", "TENANT", *expected, *(["STATE"] if has_state else []), "AGE", "ID"]


def test_attachment_columns_put_the_reason_after_the_state() -> None:
    assert headers("external_ip_attachment", private=False) == [
        "NAME", "TENANT", "EXTERNAL IP", "TARGET", "ENDPOINT", "TARGET ADDRESS", "STATE", "REASON", "AGE", "ID",
    ]


def test_reference_targets_of_oneof_columns() -> None:
    kind = registry.get("external_ip_attachment")
    targets = reference_targets(kind, columns_for(kind, kind.public_class().DESCRIPTOR))

    assert targets["spec.external_ip"] == "external_ip"
    assert targets["spec.compute_instance"] == "compute_instance"
    assert targets["spec.baremetal_instance"] == "bare_metal_instance"


@pytest.mark.parametrize(
    ("name", "data", "column", "expected"),
    [
        ("ExternalIPAttachment", {"spec": {"compute_instance": "vm-1"}}, Column("T", "spec.target", "oneof"),
         "compute_instance/web"),
        ("ExternalIPAttachment", {"spec": {"cluster": "c-9"}}, Column("T", "spec.target", "oneof"), "cluster/c-9"),
        ("ExternalIPAttachment", {}, Column("T", "spec.target", "oneof"), "-"),
        ("NATGateway", {"spec": {"external_ip": "eip-1"}},
         Column("E", "spec.external_ip", "ref", show="status.address"), "203.0.113.7"),
        ("NATGateway", {"spec": {"external_ip": "eip-2"}},
         Column("E", "spec.external_ip", "ref", show="status.address"), "-"),
        ("SecurityGroup", {"spec": {"virtual_network": "v"}}, Column("I", "spec.ingress", "rules"), "none"),
        ("SecurityGroup", {"spec": {"ingress": [{"protocol": "PROTOCOL_TCP", "port_from": 22, "port_to": 22},
                                                {"protocol": "PROTOCOL_ICMP"}]}},
         Column("I", "spec.ingress", "rules"), "tcp/22,icmp"),
        ("SecurityGroup", {"spec": {"ingress": [{"protocol": "PROTOCOL_ALL"}] * 3}},
         Column("I", "spec.ingress", "rules"), "3 rules"),
    ],
    ids=["oneof by name", "oneof without name", "oneof unset", "shown field", "shown but empty", "no rules",
         "short rules", "many rules"],
)
def test_networking_cells(name: str, data: dict, column: Column, expected: str) -> None:  # type: ignore[type-arg]
    context = CellContext(names={"vm-1": "web", "eip-1": "nat-ip"},
                          shown={("status.address", "eip-1"): "203.0.113.7", ("status.address", "eip-2"): ""})

    assert cell(message(f"osac.public.v1.{name}", data), column, context) == expected


def test_values_along_reference_paths() -> None:
    vm = message("osac.public.v1.ComputeInstance", {"spec": {"compute_network_attachments": [
        {"subnet": "s1", "security_groups": ["g1", "g2"]}, {"subnet": "s2", "security_groups": ["g3"]},
    ]}})

    assert values_along(vm, "spec.compute_network_attachments[].security_groups[]") == ["g1", "g2", "g3"]
    assert values_along(vm, "spec.compute_network_attachments[].subnet") == ["s1", "s2"]
    assert values_along(vm, "spec.template") == [""]
    assert values_along(message("osac.public.v1.Cluster"), "spec.network_attachment.subnet") == []


def test_describe_shows_details_rules_and_links_both_ways() -> None:
    group = message("osac.public.v1.SecurityGroup", {
        "id": "sg-1", "metadata": {"name": "web"}, "status": {"state": "SECURITY_GROUP_STATE_READY"},
        "spec": {"virtual_network": "vn-1",
                 "ingress": [{"protocol": "PROTOCOL_TCP", "port_from": 443, "port_to": 443, "ipv4_cidr": "0.0.0.0/0"}],
                 "egress": [{"protocol": "PROTOCOL_ALL", "ipv4_cidr": "0.0.0.0/0"}]},
    })
    network = message("osac.public.v1.VirtualNetwork", {
        "id": "vn-1", "metadata": {"name": "net1"}, "spec": {"ipv4_cidr": "10.1.0.0/16"},
        "status": {"state": "VIRTUAL_NETWORK_STATE_READY"},
    })
    vm = message("osac.public.v1.ComputeInstance", {"id": "vm-1", "metadata": {"name": "app"}})
    related = Related(
        referrers=[Link("spec.compute_network_attachments[].security_groups[]", registry.get("compute_instance"),
                        "vm-1", vm)],
        references=[Link("spec.virtual_network", registry.get("virtual_network"), "vn-1", network)],
    )

    text = "\n".join(describe_lines(registry.get("security_group"), group, related))

    assert "  ingress:\n  - tcp 443 from 0.0.0.0/0\n  egress:\n  - all to 0.0.0.0/0\n" in text
    assert "\nReferences:\n  spec.virtual_network   VirtualNetwork 'net1'   READY   10.1.0.0/16   vn-1\n" in text
    assert text.endswith(
        "\nReferenced by:\n"
        "  ComputeInstance 'app'   -   -   vm-1   (via spec.compute_network_attachments[].security_groups[])"
    )


def test_describe_names_the_consumer_of_an_external_ip() -> None:
    eip = message("osac.public.v1.ExternalIP", {
        "id": "eip-1", "metadata": {"name": "nat-ip"},
        "status": {"state": "EXTERNAL_IP_STATE_ALLOCATED", "address": "203.0.113.7", "attached": True},
    })
    gateway = message("osac.public.v1.NATGateway", {
        "id": "gw-1", "metadata": {"name": "gw"}, "status": {"state": "NAT_GATEWAY_STATE_READY"}})
    unreadable = Link("spec.pool", registry.get("external_ip_pool"), "pool-1", None)

    lines = describe_lines(registry.get("external_ip"), eip, Related(
        referrers=[Link("spec.external_ip", registry.get("nat_gateway"), "gw-1", gateway)], references=[unreadable]))

    assert lines[lines.index("State:          ALLOCATED") + 1:][:3] == [
        "Address:        203.0.113.7", "Attached:       yes", "Consumer:       NATGateway 'gw' (READY)",
    ]
    assert "  spec.pool   ExternalIPPool pool-1   not found   -   pool-1" in lines


def test_describe_hides_empty_optional_details() -> None:
    subnet = message("osac.public.v1.Subnet", {"id": "s-1", "spec": {"ipv4_cidr": "10.0.1.0/24"},
                                               "status": {"state": "SUBNET_STATE_PENDING"}})

    lines = describe_lines(registry.get("subnet"), subnet)

    assert "CIDR:           10.0.1.0/24" in lines and "Gateway:        -" in lines
    assert not any(line.startswith("IPv6 CIDR:") for line in lines)


def test_unknown_state_number_is_shown_raw() -> None:
    assert state_label(message("osac.public.v1.Subnet", {"status": {"state": 99}})) == "99"


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(0, "0s"), (59, "59s"), (60, "1m"), (7199, "119m"), (7200, "2h"), (172799, "47h"), (172800, "2d")],
)
def test_age(seconds: int, text: str) -> None:
    assert age(timedelta(seconds=seconds)) == text


@pytest.mark.parametrize(
    ("kind_words", "given", "private", "expected"),
    [
        (["Subnet"], None, False, False),
        (["Subnet", "ExternalIPPool"], None, False, True),
        ([None], "network_class", False, True),
        ([None], "subnet", True, True),
    ],
    ids=["tenant kinds", "a provider kind among them", "given provider kind", "asked"],
)
def test_create_uses_the_private_api_for_provider_kinds(
    kind_words: list[str | None], given: str | None, private: bool, expected: bool
) -> None:
    documents = [Document({}, word, "f.yaml") for word in kind_words]

    assert create_is_private(documents, registry.get(given) if given else None, private=private) is expected
