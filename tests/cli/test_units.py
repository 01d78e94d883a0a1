"""Pure parts of the CLI, table-driven: addresses, durations, edits, filters, tables, cells."""

from __future__ import annotations

import stat
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from google.protobuf import json_format
from google.protobuf.message import Message

from osac.cli.changes import changed_paths
from osac.cli.config import SavedLogin, config_path, load_login, save_login
from osac.cli.connection import is_loopback, resolve_target, split_address
from osac.cli.errors import CliError
from osac.cli.kinds import reference_filter, resolve_kind
from osac.cli.render import CellContext, age, cell, state_label
from osac.cli.tables import Column, columns_for
from osac.cli.tokens import parse_duration
from osac.cli.watching import kind_event_filter, rebase_this
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
        "NAME", "TENANT", "CIDRS", "FAMILY", "AVAILABLE", "STATE", "AGE", "ID",
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


def test_unknown_state_number_is_shown_raw() -> None:
    assert state_label(message("osac.public.v1.Subnet", {"status": {"state": 99}})) == "99"


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(0, "0s"), (59, "59s"), (60, "1m"), (7199, "119m"), (7200, "2h"), (172799, "47h"), (172800, "2d")],
)
def test_age(seconds: int, text: str) -> None:
    assert age(timedelta(seconds=seconds)) == text
