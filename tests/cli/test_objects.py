"""Managing objects with the CLI: create, get, describe, label, edit, delete, watch."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from google.protobuf import json_format
from typer.testing import CliRunner

from osac.cli.connection.channel import Connection
from osac.cli.connection.client import KindClient
from osac.cli.connection.target import resolve_target
from osac.model import protos, registry

from .conftest import BackgroundServer, Osac, mark_ready, table

UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")

NETWORK_YAML = """\
metadata:
  name: net1
  labels: {env: dev}
spec:
  ipv4_cidr: 10.1.0.0/16
"""


@pytest.fixture(scope="module")
def network(
    server: BackgroundServer, admin: Osac, tenants: tuple[str, str], tmp_path_factory: pytest.TempPathFactory
) -> str:
    """Virtual network ``net1`` of tenant acme, created by its tenant admin from a YAML file, then
    made READY (subnets need a READY network) by the provider admin standing in for reconcilers."""
    directory = tmp_path_factory.mktemp("network")
    owner = Osac(server, directory / "osac.yaml", CliRunner())
    owner.login("tenant-admin", "acme")
    (directory / "vn.yaml").write_text(NETWORK_YAML)
    assert owner.ok("create", "vn", "-f", str(directory / "vn.yaml")).startswith("VirtualNetwork 'net1' created")
    mark_ready(admin, "vn", "net1")
    return "net1"


@pytest.fixture
def alice(osac: Osac, network: str) -> Osac:
    """A tenant admin of acme, where ``net1`` exists."""
    osac.login("tenant-admin", "acme", user="alice")
    return osac


def create_subnet(osac: Osac, name: str, cidr: str) -> str:
    out = osac.ok(
        "create", "subnet", "--name", name, "--set", "spec.virtual_network=net1", "--set", f"spec.ipv4_cidr={cidr}",
        "-o", "name",
    )
    kind, _, object_id = out.strip().partition("/")
    assert kind == "subnet" and UUID.match(object_id)
    return object_id


def get_json(osac: Osac, *args: str) -> dict:  # type: ignore[type-arg]
    return json.loads(osac.ok("get", *args, "-o", "json"))  # type: ignore[no-any-return]


def test_admin_sees_the_created_tenants_in_the_table(osac: Osac, tenants: tuple[str, str]) -> None:
    osac.login("provider-admin", user="root")

    rows = {row["NAME"]: row for row in table(osac.ok("get", "tenants"))}

    assert rows["acme"]["TENANT"] == "acme"
    assert rows["acme"]["STATE"] == "PENDING"
    assert UUID.match(rows["acme"]["ID"])


def test_subnet_created_with_set_shows_in_the_table(alice: Osac) -> None:
    subnet_id = create_subnet(alice, "app", "10.1.1.0/24")

    output = alice.ok("get", "subnets")

    header = output.splitlines()[0].split()
    assert " ".join(header) == "NAME TENANT VIRTUAL NETWORK CIDR GATEWAY AVAILABLE STATE AGE ID"
    row = next(row for row in table(output) if row["NAME"] == "app")
    assert row["TENANT"] == "acme"
    assert row["VIRTUAL NETWORK"] == "net1"  # the referenced id shown by name
    assert row["CIDR"] == "10.1.1.0/24"
    assert row["STATE"] == "PENDING"
    assert re.fullmatch(r"\d+[smhd]", row["AGE"])
    assert row["ID"] == subnet_id


def test_get_by_name_as_json_round_trips(alice: Osac) -> None:
    create_subnet(alice, "roundtrip", "10.1.2.0/24")

    data = get_json(alice, "subnet", "roundtrip")

    message = json_format.ParseDict(data, protos.message_class("osac.public.v1.Subnet")())
    assert json_format.MessageToDict(message, preserving_proto_field_name=True) == data
    assert data["metadata"]["name"] == "roundtrip"
    assert data["spec"]["ipv4_cidr"] == "10.1.2.0/24"
    assert data["status"]["state"] == "SUBNET_STATE_PENDING"
    assert yaml.safe_load(alice.ok("get", "subnet", data["id"], "-o", "yaml")) == data


def test_list_output_carries_the_list_revision(alice: Osac) -> None:
    listing = get_json(alice, "subnets")

    assert set(listing) == {"size", "total", "items", "revision"}
    assert int(listing["revision"]) > 0
    assert listing["size"] == len(listing["items"]) == listing["total"]


def test_filter_selects_objects(alice: Osac) -> None:
    create_subnet(alice, "filtered", "10.1.3.0/24")

    rows = table(alice.ok("get", "subnets", "--filter", "this.spec.ipv4_cidr == '10.1.3.0/24'"))

    assert [row["NAME"] for row in rows] == ["filtered"]


def test_describe_shows_identity_state_spec_labels_and_referrers(alice: Osac) -> None:
    create_subnet(alice, "described", "10.1.4.0/24")
    alice.ok("label", "subnet", "described", "team=db")

    subnet = alice.ok("describe", "subnet", "described")
    network = alice.ok("describe", "vn", "net1")

    assert "Kind:           Subnet" in subnet
    assert "Name:           described" in subnet
    assert "Tenant:         acme" in subnet
    assert "Creator:        alice" in subnet
    assert "State:          PENDING" in subnet
    assert "\nSpec:\n  virtual_network: " in subnet
    assert "  ipv4_cidr: 10.1.4.0/24" in subnet
    assert "\nLabels:\n  team=db" in subnet
    assert "Referenced by:" in network
    assert "Subnet 'described'" in network


def test_label_adds_and_removes(alice: Osac) -> None:
    create_subnet(alice, "labelled", "10.1.5.0/24")

    alice.ok("label", "subnet", "labelled", "env=prod", "tier=web")
    assert get_json(alice, "subnet", "labelled")["metadata"]["labels"] == {"env": "prod", "tier": "web"}

    out = alice.ok("label", "subnet", "labelled", "env-")
    assert out.strip() == "Subnet 'labelled' labelled; labels: tier=web"
    assert get_json(alice, "subnet", "labelled")["metadata"]["labels"] == {"tier": "web"}


def test_edit_with_set_updates_a_mutable_field(alice: Osac) -> None:
    create_subnet(alice, "edited", "10.1.6.0/24")
    before = get_json(alice, "subnet", "edited")

    out = alice.ok("edit", "subnet", "edited", "--set", "metadata.annotations.owner=team-a")

    assert out.startswith("Subnet 'edited' updated (metadata.annotations)")
    after = get_json(alice, "subnet", "edited")
    assert after["metadata"]["annotations"] == {"owner": "team-a"}
    assert after["metadata"].get("version", 0) == before["metadata"].get("version", 0) + 1


def test_edit_of_an_immutable_field_is_refused(alice: Osac) -> None:
    create_subnet(alice, "frozen", "10.1.7.0/24")

    result = alice("edit", "subnet", "frozen", "--set", "spec.ipv4_cidr=10.1.8.0/24")

    assert result.exit_code == 1
    assert result.stderr.startswith("Error: INVALID_ARGUMENT: ")
    assert "spec.ipv4_cidr" in result.stderr


def test_edit_in_the_editor_sends_the_changed_paths(alice: Osac, tmp_path: Path) -> None:
    create_subnet(alice, "in-editor", "10.1.9.0/24")
    editor = tmp_path / "editor.py"
    editor.write_text(
        "import sys\n"
        "path = sys.argv[1]\n"
        "text = open(path).read().replace('metadata:\\n', 'metadata:\\n  labels:\\n    edited: \"yes\"\\n', 1)\n"
        "open(path, 'w').write(text)\n"
    )

    out = alice.ok("edit", "subnet", "in-editor", env={"EDITOR": f"python3 {editor}"})

    assert out.startswith("Subnet 'in-editor' updated (metadata.labels)")
    assert get_json(alice, "subnet", "in-editor")["metadata"]["labels"] == {"edited": "yes"}
    assert "unchanged; nothing sent" in alice.ok("edit", "subnet", "in-editor", env={"EDITOR": "true"})


def test_delete_then_get_is_not_found(alice: Osac) -> None:
    create_subnet(alice, "doomed", "10.1.10.0/24")

    assert alice.ok("delete", "subnet", "doomed").strip() == "Subnet 'doomed' deleted"

    result = alice("get", "subnet", "doomed")
    assert result.exit_code == 1
    assert result.stderr == "Error: NOT_FOUND: Subnet 'doomed' not found\n"
    assert result.stdout == ""


def test_create_twice_is_already_exists(alice: Osac) -> None:
    create_subnet(alice, "twice", "10.1.11.0/24")

    result = alice("create", "subnet", "--name", "twice", "--set", "spec.virtual_network=net1",
                   "--set", "spec.ipv4_cidr=10.1.12.0/24")

    assert result.exit_code == 1
    assert result.stderr.startswith("Error: ALREADY_EXISTS: ")


def test_dry_run_creates_nothing(alice: Osac) -> None:
    out = alice.ok("create", "subnet", "--name", "dry", "--set", "spec.virtual_network=net1",
                   "--set", "spec.ipv4_cidr=10.1.13.0/24", "--dry-run")

    assert out.strip() == "Subnet 'dry' valid (dry run; nothing created)"
    assert alice("get", "subnet", "dry").exit_code == 1


def test_create_from_a_file_with_several_documents(alice: Osac, tmp_path: Path) -> None:
    (tmp_path / "subnets.yaml").write_text(
        "metadata: {name: multi-a}\nspec: {virtual_network: net1, ipv4_cidr: 10.1.14.0/24}\n"
        "---\n"
        '{"metadata": {"name": "multi-b"}, "spec": {"virtual_network": "net1", "ipv4_cidr": "10.1.15.0/24"}}\n'
    )

    out = alice.ok("create", "subnets", "-f", str(tmp_path / "subnets.yaml"))

    assert [line.split(" (id")[0] for line in out.splitlines()] == [
        "Subnet 'multi-a' created", "Subnet 'multi-b' created",
    ]


def test_a_failing_document_is_named_and_stops_the_run(alice: Osac, tmp_path: Path) -> None:
    (tmp_path / "subnets.yaml").write_text(
        "metadata: {name: first-ok}\nspec: {virtual_network: net1, ipv4_cidr: 10.1.22.0/24}\n"
        "---\n"
        "metadata: {name: first-ok}\nspec: {virtual_network: net1, ipv4_cidr: 10.1.23.0/24}\n"
        "---\n"
        "metadata: {name: never}\nspec: {virtual_network: net1, ipv4_cidr: 10.1.24.0/24}\n"
    )

    result = alice("create", "subnet", "-f", str(tmp_path / "subnets.yaml"))

    assert result.exit_code == 1
    assert result.stdout.startswith("Subnet 'first-ok' created")
    assert result.stderr.startswith(f"Error: {tmp_path / 'subnets.yaml'} document 2: ALREADY_EXISTS: ")
    assert alice("get", "subnet", "never").exit_code == 1


def test_a_file_in_the_wrong_shape_is_named(alice: Osac, tmp_path: Path) -> None:
    (tmp_path / "bad.yaml").write_text("metadata: {name: x}\nspec: {colour: blue}\n")

    result = alice("create", "subnet", "-f", str(tmp_path / "bad.yaml"))

    assert result.exit_code == 1
    assert result.stderr.startswith(f"Error: {tmp_path / 'bad.yaml'}: ")
    assert "colour" in result.stderr


def test_per_kind_flags_build_security_rules(alice: Osac) -> None:
    alice.ok("create", "sg", "--name", "web", "--virtual-network", "net1",
             "--ingress", "protocol=tcp,port=443,cidr=0.0.0.0/0", "--ingress=protocol=udp,port=1000-2000,cidr=10.0.0.0/8")

    spec = get_json(alice, "security_group", "web")["spec"]
    assert spec["ingress"] == [
        {"protocol": "PROTOCOL_TCP", "port_from": 443, "port_to": 443, "ipv4_cidr": "0.0.0.0/0"},
        {"protocol": "PROTOCOL_UDP", "port_from": 1000, "port_to": 2000, "ipv4_cidr": "10.0.0.0/8"},
    ]
    row = next(row for row in table(alice.ok("get", "sg")) if row["NAME"] == "web")
    assert (row["VIRTUAL NETWORK"], row["INGRESS"], row["EGRESS"]) == ("net1", "tcp/443,udp/1000-2000", "none")


def test_unknown_per_kind_flag_is_an_error(alice: Osac) -> None:
    result = alice("create", "subnet", "--name", "x", "--colour", "blue")

    assert result.exit_code == 1
    assert result.stderr.startswith("Error: unexpected argument '--colour' for subnet; its options: --virtual-network")


def test_name_output(alice: Osac) -> None:
    subnet_id = create_subnet(alice, "named", "10.1.16.0/24")

    assert f"subnet/{subnet_id}" in alice.ok("get", "subnets", "-o", "name").splitlines()


def test_watch_replays_events_after_a_list_revision(alice: Osac) -> None:
    revision = get_json(alice, "subnets")["revision"]
    create_subnet(alice, "watched", "10.1.17.0/24")

    line = alice.ok("watch", "subnet", "--after-revision", revision, "--max-events", "1").strip()
    event = json.loads(alice.ok("watch", "subnets", "--after-revision", revision, "--max-events", "1", "-o", "json"))

    fields = line.split()
    assert int(fields[0]) > int(revision)
    assert fields[1:] == ["CREATED", "subnet", "watched", "PENDING"]
    assert event["type"] == "EVENT_TYPE_OBJECT_CREATED"
    assert event["subnet"]["metadata"]["name"] == "watched"


def test_watch_with_a_filter_over_the_object(alice: Osac) -> None:
    revision = get_json(alice, "subnets")["revision"]
    create_subnet(alice, "ignored", "10.1.18.0/24")
    create_subnet(alice, "wanted", "10.1.19.0/24")

    line = alice.ok("watch", "subnet", "--after-revision", revision, "--max-events", "1",
                    "--filter", "this.metadata.name == 'wanted'")

    assert line.split()[1:4] == ["CREATED", "subnet", "wanted"]


@pytest.fixture
def relabelling(server: BackgroundServer, tmp_path: Path) -> Iterator[str]:
    """Subnet ``busy`` whose labels another client keeps changing, so a watcher sees events."""
    token = Osac(server, tmp_path / "bg.yaml", CliRunner()).ok(
        "token", "--role", "tenant-admin", "--tenant", "acme", "--data-dir", str(server.data_dir)
    ).strip()
    connection = Connection(resolve_target(server.address, token))
    client = KindClient(connection, registry.get("subnet"))
    busy = client.create(json_format.ParseDict(
        {"metadata": {"name": "busy"}, "spec": {"virtual_network": "net1", "ipv4_cidr": "10.1.20.0/24"}},
        client.message_class(),
    ))
    stop = threading.Event()

    def relabel() -> None:
        count = 0
        while not stop.wait(0.3):
            count += 1
            obj = client.get(busy.id)  # type: ignore[attr-defined]
            obj.metadata.labels["tick"] = str(count)  # type: ignore[attr-defined]
            client.update(obj, ["metadata.labels"], lock=False)

    thread = threading.Thread(target=relabel, daemon=True)
    thread.start()
    yield "busy"
    stop.set()
    thread.join()
    connection.close()


def test_get_watch_prints_the_list_then_only_rows_whose_cells_changed(alice: Osac, relabelling: str) -> None:
    """Relabelling changes no column of a subnet's table: the changes print no row (kubectl)."""
    out = alice.ok("get", "subnet", relabelling, "-w", "--max-events", "2")

    header, first, *changes = out.splitlines()
    assert header.split()[:2] == ["NAME", "TENANT"]
    assert first.split()[:2] == ["busy", "acme"]
    assert changes == []


def test_unknown_kind_lists_the_kinds(alice: Osac) -> None:
    result = alice("get", "frobnicators")

    assert result.exit_code == 1
    assert result.stderr.startswith("Error: unknown kind 'frobnicators'; known kinds: tenant, network_class, ")
    assert "virtual_network (vn, vnet)" in result.stderr


def test_tenant_user_of_another_tenant_sees_nothing(alice: Osac, tenants: tuple[str, str]) -> None:
    subnet_id = create_subnet(alice, "private", "10.1.21.0/24")
    alice.login("tenant-user", "other", user="eve")

    listing = alice("get", "subnets")
    by_id = alice("get", "subnet", subnet_id)
    by_name = alice("get", "subnet", "private")

    assert listing.exit_code == 0
    assert {row["TENANT"] for row in table(listing.stdout)} == {"other"}  # its own default subnet only
    assert subnet_id not in listing.stdout
    assert by_id.exit_code == 1
    assert by_id.stderr == f"Error: NOT_FOUND: Subnet '{subnet_id}' not found\n"
    assert by_name.stderr == "Error: NOT_FOUND: Subnet 'private' not found\n"


def test_private_api_is_for_provider_admins(osac: Osac, network: str) -> None:
    osac.login("tenant-admin", "acme")
    refused = osac("get", "hubs", "--private")
    public = osac("get", "hubs")
    osac.login("provider-admin", user="root")
    hubs = table(osac.ok("get", "hubs", "--private"))

    assert refused.stderr.startswith("Error: PERMISSION_DENIED: ")
    assert public.stderr.startswith("Error: Hub is served by the private API only; add --private")
    assert [(row["NAME"], row["TENANT"]) for row in hubs] == [("sim-hub", "system")]


def test_describe_lists_lifecycle_events(osac: Osac, tenants: tuple[str, str]) -> None:
    osac.login("tenant-admin", "acme")

    shown = osac.ok("describe", "tenant", "acme")

    assert "Kind:           Tenant" in shown
    assert "\nEvents:\n" in shown
    assert "NORMAL   DefaultNetworkingCreated" in shown


def test_signal_goes_through_the_private_api(osac: Osac, network: str) -> None:
    osac.login("tenant-admin", "acme")
    refused = osac("signal", "vn", "net1")
    osac.login("provider-admin", user="root")

    assert refused.exit_code == 1
    assert refused.stderr.startswith("Error: PERMISSION_DENIED: ")
    assert osac.ok("signal", "vn", "net1").strip() == "VirtualNetwork 'net1' signalled"


def test_a_name_shared_by_tenants_asks_for_the_id(osac: Osac, tenants: tuple[str, str]) -> None:
    osac.login("provider-admin", user="root")

    result = osac("describe", "vn", "default")  # every tenant has a default network

    assert result.exit_code == 1
    assert result.stderr.startswith("Error: ")
    assert "virtual networks are named 'default' (tenants acme, other" in result.stderr
    assert result.stderr.endswith("); use the id\n")


def test_an_empty_list_names_the_kind_as_the_rest_of_the_cli_does(alice: Osac) -> None:
    """Issue 17 item 14: one display name per kind in running text."""
    for kind, words in (("baremetalinstance", "bare-metal instances"), ("external_ip_attachment", "external IP attachments"),
                        ("nat_gateway", "NAT gateways")):
        result = alice("get", kind, "--filter", "this.metadata.name == 'nothing-has-this-name'")
        assert result.exit_code == 0, result.output
        assert result.stderr == f"No {words} found.\n"


@pytest.fixture(scope="module")
def sortable(server: BackgroundServer, admin: Osac, tenants: tuple[str, str],
             tmp_path_factory: pytest.TempPathFactory) -> Osac:
    """Virtual networks s-c, s-a, s-b of acme (created in that order, labelled sort=cli), s-b READY."""
    owner = Osac(server, tmp_path_factory.mktemp("sortable") / "osac.yaml", CliRunner())
    owner.login("tenant-admin", "acme")
    for number, name in enumerate(("s-c", "s-a", "s-b")):
        owner.ok("create", "vn", "--name", name, "--label", "sort=cli", "--set", f"spec.ipv4_cidr=10.{201 + number}.0.0/16")
    mark_ready(admin, "vn", "s-b")
    return owner


SORTED = "this.metadata.labels['sort'] == 'cli'"


@pytest.mark.parametrize(("sort_by", "names"), [
    pytest.param("name", ["s-a", "s-b", "s-c"], id="name"),
    pytest.param("-.metadata.name", ["s-c", "s-b", "s-a"], id="kubectl-path-descending"),
    pytest.param("{.metadata.creationTimestamp}", ["s-c", "s-a", "s-b"], id="kubectl-jsonpath-created"),
    pytest.param("-created", ["s-b", "s-a", "s-c"], id="created-descending"),
    pytest.param("metadata.creation_timestamp desc", ["s-b", "s-a", "s-c"], id="api-form"),
    pytest.param("-state,name", ["s-b", "s-a", "s-c"], id="state-then-name"),
    pytest.param("state, -name", ["s-c", "s-a", "s-b"], id="state-then-name-descending"),
])
def test_get_sort_by_prints_rows_in_the_servers_order(sortable: Osac, sort_by: str, names: list[str]) -> None:
    rows = table(sortable.ok("get", "vn", "--filter", SORTED, "--sort-by", sort_by))
    assert [row["NAME"] for row in rows] == names
    listed = json.loads(sortable.ok("get", "vn", "--filter", SORTED, "--sort-by", sort_by, "-o", "json"))
    assert [item["metadata"]["name"] for item in listed["items"]] == names


def test_get_named_objects_sorted(sortable: Osac) -> None:
    rows = table(sortable.ok("get", "vn", "s-c", "s-b", "s-a", "--sort-by", "-name"))
    assert [row["NAME"] for row in rows] == ["s-c", "s-b", "s-a"]
    rows = table(sortable.ok("get", "vn", "s-c", "s-a", "--sort-by", "name"))
    assert [row["NAME"] for row in rows] == ["s-a", "s-c"]


@pytest.mark.parametrize(("kind", "sort_by", "message"), [
    pytest.param("vn", "size", "virtual networks cannot be sorted by 'size'; use id, name, created, state or a field "
                 "path (id, metadata.name, metadata.creation_timestamp, status.state); '-' first sorts descending, "
                 "commas sort by several", id="unknown-field"),
    pytest.param("host_types", "state", "host types have no state; use id, name, created or a field path (id, "
                 "metadata.name, metadata.creation_timestamp); '-' first sorts descending, commas sort by several",
                 id="no-state"),
    pytest.param("vn", "name up", "'name up' is not a field; use id, name, created, state or a field path (id, "
                 "metadata.name, metadata.creation_timestamp, status.state); '-' first sorts descending, commas "
                 "sort by several", id="bad-direction"),
])
def test_get_sort_by_refuses_what_cannot_be_sorted(sortable: Osac, kind: str, sort_by: str, message: str) -> None:
    result = sortable("get", kind, "--sort-by", sort_by)
    assert result.exit_code == 1
    assert result.stderr == f"Error: --sort-by: {message}\n"


def test_get_sort_by_a_repeated_field_is_refused_by_the_server(sortable: Osac) -> None:
    result = sortable("get", "vn", "--sort-by", "name,-name")
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: INVALID_ARGUMENT: order: metadata.name is given more than once; name each field once\n"
    )
