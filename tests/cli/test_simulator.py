"""``osac simulator``: faults, observations, reachability and the clock against a real server.

Faults, reachability and the clock use the session's server (no reconcilers, system clock); the
fabric observation of a tenant's default virtual network needs a live server, whose reconcilers
and simulated fabric (at instant speed) make the tenant's networking READY by themselves.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from typer.testing import CliRunner

from osac.cli.simulator import param_text, parse_params, parse_value

from .conftest import BackgroundServer, Osac, table
from .test_networking import UUID, get_object, wait_until

TENANT = "simco"


# -- parsing --------------------------------------------------------------------------------------


def test_param_values_are_typed_when_they_look_like_one() -> None:
    assert parse_params(["operation=create_subnet", "terminal=true", "times=3", "seconds=0.5", "reason="]) == {
        "operation": "create_subnet", "terminal": True, "times": 3, "seconds": 0.5, "reason": "",
    }
    assert parse_value("False") is False
    assert parse_value("1e3") == 1000.0
    assert parse_value("10.0.0.1") == "10.0.0.1"
    assert [param_text(v) for v in (True, 3.0, 0.5, "x")] == ["true", "3", "0.5", "x"]


# -- faults ---------------------------------------------------------------------------------------


def test_create_list_and_delete_a_fault_with_params(admin: Osac) -> None:
    created = admin.ok(
        "simulator", "fault", "create", "fabric_fail",
        "--param", "operation=create_subnet", "--param", "terminal=true", "--times", "2", "--expires-in", "10m",
    ).strip()
    assert UUID.match(created), created

    rows = {row["ID"]: row for row in table(admin.ok("simulator", "fault", "list"))}
    row = rows[created]
    assert row["FAULT"] == "fabric_fail"
    assert row["TARGET KIND"] == "fabric"
    assert row["TARGET"] == "*"
    assert row["PARAMS"] == "operation=create_subnet,terminal=true,times=2"
    assert row["REMAINING"] == "2"
    assert row["EXPIRES"].endswith("Z")

    listing = json.loads(admin.ok("simulator", "fault", "list", "-o", "json"))
    stored = next(item for item in listing["items"] if item["id"] == created)
    assert stored["params"] == {"operation": "create_subnet", "terminal": True, "times": 2}
    assert stored["remaining"] == 2
    assert isinstance(stored["params"]["times"], int)

    assert admin.ok("simulator", "fault", "delete", created) == f"Fault {created} deleted\n"
    assert created not in admin.ok("simulator", "fault", "list", "-o", "yaml")
    gone = admin("simulator", "fault", "delete", created)
    assert gone.exit_code == 1
    assert gone.stderr.startswith("Error: NOT_FOUND: ")


def test_an_invalid_fault_names_the_field(admin: Osac) -> None:
    result = admin("simulator", "fault", "create", "meltdown")
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: INVALID_ARGUMENT: object.fault: 'meltdown' is not a simulator fault")

    result = admin("simulator", "fault", "create", "fabric_fail", "--param", "operation=frobnicate")
    assert result.exit_code == 1
    assert "INVALID_ARGUMENT: object.params.operation:" in result.stderr

    result = admin("simulator", "fault", "create", "fabric_fail", "--param", "operation")
    assert result.exit_code == 1
    assert result.stderr == "Error: --param 'operation': expected KEY=VALUE (e.g. operation=create_subnet)\n"


def test_a_tenant_admin_is_refused(osac: Osac, tenants: tuple[str, str]) -> None:
    osac.login("tenant-admin", tenants[0])
    for args in (("fault", "list"), ("fault", "create", "vanish"), ("speed", "instant")):
        result = osac("simulator", *args)
        assert result.exit_code == 1, result.output
        assert result.stderr.startswith("Error: PERMISSION_DENIED: ")
        assert "provider admins" in result.stderr
        assert "Traceback" not in result.output


# -- the Simulator service ------------------------------------------------------------------------


def test_reachability_from_the_internet_to_an_unknown_address_is_denied(admin: Osac) -> None:
    lines = admin.ok("simulator", "reachability", "internet", "10.99.0.7", "--protocol", "tcp", "--port", "22")
    first, source, destination = lines.splitlines()
    assert first.startswith("DENIED (") and first != "DENIED (-)", first
    assert source.startswith("Translated source:")
    assert destination.startswith("Translated destination:")

    wrong = admin("simulator", "reachability", "internet", "10.99.0.7", "--protocol", "sctp")
    assert wrong.exit_code == 1
    assert wrong.stderr == "Error: --protocol 'sctp': expected one of tcp, udp, icmp, all\n"


def test_advance_on_the_system_clock_is_a_failed_precondition(admin: Osac) -> None:
    result = admin("simulator", "advance", "1m")
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: FAILED_PRECONDITION: the simulator runs on the system clock")
    assert len(result.stderr.splitlines()) == 1


def test_hosts_and_speed(admin: Osac) -> None:
    hosts = admin("simulator", "hosts")
    if hosts.exit_code:  # no inventory configured: surfaced as the server says
        assert hosts.stderr.startswith("Error: FAILED_PRECONDITION: ")
    bad = admin("simulator", "speed", "fast")
    assert bad.exit_code == 1
    assert bad.stderr.startswith("Error: INVALID_ARGUMENT: speed: ")


# -- a live fabric --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BackgroundServer]:
    running = BackgroundServer(tmp_path_factory.mktemp("osac-sim-live"), live=True)
    running.start()
    yield running
    running.stop()


@pytest.fixture(scope="module")
def provider(live: BackgroundServer, tmp_path_factory: pytest.TempPathFactory) -> Osac:
    """A provider admin once tenant ``simco`` and its default networking are READY."""
    root = Osac(live, tmp_path_factory.mktemp("sim-provider") / "osac.yaml", CliRunner())
    root.login("provider-admin", user="root")
    wait_until(root, "network_class", "default", "--private")
    wait_until(root, "external_ip_pool", "public-v4", "--private")
    root.ok("create", "tenant", "--name", TENANT)
    wait_until(root, "tenant", TENANT)
    return root


def test_observe_the_fabric_of_a_default_virtual_network(provider: Osac) -> None:
    vn = wait_until(provider, "vn", "default")
    subnet = wait_until(provider, "subnet", "default")
    yaml_text = provider.ok("simulator", "observe", "fabric", vn["id"])
    assert "segments:" in yaml_text

    observation: dict[str, Any] = json.loads(provider.ok("simulator", "observe", "fabric", vn["id"], "-o", "json"))
    assert observation["readable"] is True
    assert observation["virtual_network"]["vn_id"] == vn["id"]
    segments = {s["subnet_id"]: s for s in observation["segments"]}
    assert segments[subnet["id"]]["cidr"] == subnet["spec"]["ipv4_cidr"]

    wrong = provider("simulator", "observe", "galaxy", vn["id"])
    assert wrong.exit_code == 1
    assert wrong.stderr.startswith("Error: INVALID_ARGUMENT: kind: 'galaxy'")
    assert get_object(provider, "vn", "default")["id"] == vn["id"]
