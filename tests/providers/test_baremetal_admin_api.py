"""The inventory and observations through the real server (simulator.md §7): the default
configuration's hosts loaded at start from the bootstrap HostType, ``Simulator.ListHosts`` /
``AddHosts`` / ``RemoveHost`` and ``GetObservation`` for ``host`` and ``compute_instance`` over
gRPC and REST, the ``osac simulator hosts`` commands, and a start-up that refuses an inventory
naming an unknown host type."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf import json_format
from typer.testing import CliRunner

from osac.auth.subject import Role
from osac.cli.simulator import plain
from osac.providers.simulator.baremetal.provider import SimulatedBareMetal
from osac.providers.simulator.compute.provider import SimulatedKubeVirt
from osac.server.app import Application
from osac.server.settings import DEFAULT_CONFIG, Settings, merge_config
from osac.server.simulated_workloads import InventoryStartupError
from tests.cli.conftest import BackgroundServer, Osac, table
from tests.providers.compute_support import check_shape, vm_spec
from tests.support.server import GrpcError

SIMULATOR = "osac.private.v1.Simulator"
DEFAULT_HOSTS = [f"bm-std-{n:03d}" for n in range(1, 13)]
VM = "0192a0c4-7f00-7000-8000-000000000010"


def hosts_of(server: Any) -> SimulatedBareMetal:
    provider = server.app.managers.baremetal_provider
    assert isinstance(provider, SimulatedBareMetal)
    return provider


async def test_the_default_inventory_is_listed_added_to_and_removed_from(server: Any) -> None:
    token = server.token(Role.PROVIDER_ADMIN, user="admin")
    async with server.grpc(token) as client:
        listed = await client.call(SIMULATOR, "ListHosts")
        assert [h.name for h in listed.hosts] == DEFAULT_HOSTS
        first = listed.hosts[0]
        assert [(i.name, i.role) for i in first.interfaces] == [
            ("eno1", "lifecycle"), ("ens1f0", "fabric"), ("ens1f1", "fabric"), ("ens2f0", "storage")]
        assert (first.host_type, first.bmc, first.power, first.provisioning_state, first.operational_status) == (
            "bm-standard", "redfish+sim://bm-std-001", "off", "available", "OK")
        assert not first.HasField("owner")
        assert (await client.call(SIMULATOR, "ListHosts", host_type="vm-standard")).hosts == []

        added = await client.call(SIMULATOR, "AddHosts", prefix="bm-std", host_type="bm-standard", count=2)
        assert [h.name for h in added.hosts] == ["bm-std-013", "bm-std-014"]
        for request, message in (
            ({"prefix": "bm-gpu", "host_type": "bm-h100", "count": 1}, "host_type: host type 'bm-h100' does not exist"),
            ({"prefix": "vm", "host_type": "vm-standard", "count": 1}, "has no 'lifecycle' interface"),
            ({"prefix": "BM", "host_type": "bm-standard", "count": 1}, "prefix: 'BM'"),
            ({"prefix": "bm", "host_type": "bm-standard", "count": 0}, "count: must be from 1"),
        ):
            with pytest.raises(GrpcError) as refused:
                await client.call(SIMULATOR, "AddHosts", **request)
            assert refused.value.code == grpc.StatusCode.INVALID_ARGUMENT and message in refused.value.message

        await client.call(SIMULATOR, "RemoveHost", name="bm-std-014")
        with pytest.raises(GrpcError) as gone:
            await client.call(SIMULATOR, "RemoveHost", name="bm-std-014")
        assert gone.value.code == grpc.StatusCode.NOT_FOUND

        owned = await hosts_of(server).assign_free_host("bm-standard", "BareMetalInstance", "bmi-42")
        assert owned is not None and owned.name == "bm-std-001"
        with pytest.raises(GrpcError) as in_use:
            await client.call(SIMULATOR, "RemoveHost", name="bm-std-001")
        assert in_use.value.code == grpc.StatusCode.FAILED_PRECONDITION
        assert "assigned to BareMetalInstance bmi-42" in in_use.value.message
        listed = await client.call(SIMULATOR, "ListHosts")
        assert [h.name for h in listed.hosts] == [*DEFAULT_HOSTS, "bm-std-013"]
        assert (listed.hosts[0].owner.kind, listed.hosts[0].owner.id) == ("BareMetalInstance", "bmi-42")

    tenant = server.token(Role.TENANT_ADMIN, tenants=("acme",))
    async with server.grpc(tenant) as client:
        with pytest.raises(GrpcError) as denied:
            await client.call(SIMULATOR, "ListHosts")
        assert denied.value.code == grpc.StatusCode.PERMISSION_DENIED


async def test_observations_of_hosts_and_vms(server: Any) -> None:
    compute = server.app.managers.compute_provider
    assert isinstance(compute, SimulatedKubeVirt)
    await compute.apply_virtual_machine(VM, vm_spec())
    token = server.token(Role.PROVIDER_ADMIN, user="admin")
    async with server.grpc(token) as client:
        response = await client.call(SIMULATOR, "GetObservation", kind="host", key="bm-std-002")
        observation = plain(json_format.MessageToDict(response.observation))
        assert observation["readable"] is True and observation["next_change_at"] is None
        check_shape("bare_metal_host", observation["host"])
        assert observation["host"]["metadata"]["name"] == "bm-std-002"
        unknown = await client.call(SIMULATOR, "GetObservation", kind="host", key="bm-none-001")
        assert json_format.MessageToDict(unknown.observation)["host"] is None

        response = await client.call(SIMULATOR, "GetObservation", kind="compute_instance", key=VM)
        observation = plain(json_format.MessageToDict(response.observation))
        assert observation["readable"] is True and observation["next_change_at"]
        check_shape("virtual_machine", observation["virtual_machine"])
        assert observation["virtual_machine"]["metadata"]["name"] == f"ci-{VM}"
        assert len(observation["data_volumes"]) == 3

    async with server.rest(token) as rest:
        base = "/api/private/v1/simulator"
        listed = await rest.request("POST", f"{base}/list_hosts", json={"host_type": "bm-standard"})
        assert listed.status_code == 200 and len(listed.json()["hosts"]) == 12
        added = await rest.request("POST", f"{base}/add_hosts", json={"prefix": "bm-r", "host_type": "bm-standard",
                                                                        "count": 1})
        assert added.status_code == 200 and added.json()["hosts"][0]["name"] == "bm-r-001"
        removed = await rest.request("POST", f"{base}/remove_host", json={"name": "bm-r-001"})
        assert removed.status_code == 200 and removed.json() == {}
        missing = await rest.request("POST", f"{base}/remove_host", json={"name": "bm-r-001"})
        assert missing.status_code == 404
        observed = await rest.request("POST", f"{base}/get_observation", json={"kind": "host", "key": "bm-std-003"})
        assert observed.json()["observation"]["host"]["status"]["provisioning"]["state"] == "available"


async def test_a_host_type_the_inventory_holds_or_its_configuration_names_is_not_deleted(server: Any) -> None:
    """Deleting ``bm-standard`` while ``simulator.inventory.hosts`` names it would stop the next
    start; a type whose hosts were added through the simulator is kept while they exist."""
    token = server.token(Role.PROVIDER_ADMIN, user="admin")
    async with server.rest(token) as admin:
        async def host_type(name: str) -> dict[str, Any] | None:
            found = await admin.request("GET", "/api/private/v1/host_types", params={"filter": f"this.metadata.name == '{name}'"})
            items = found.json().get("items", [])
            return items[0] if items else None

        standard = await host_type("bm-standard")
        assert standard is not None
        refused = await admin.request("DELETE", f"/api/private/v1/host_types/{standard['id']}")
        assert (refused.status_code, refused.json()["message"]) == (400, (
            "host type 'bm-standard' is named by the provider's configuration "
            "(simulator.inventory.hosts[0] (bm-std)); change the configuration first"))
        assert (await host_type("bm-standard")) == standard

        gpu = await admin.request("POST", "/api/private/v1/host_types", json={
            "metadata": {"name": "bm-gpu"}, "title": "GPU",
            "interfaces": [{"name": "eno1", "role": "lifecycle"}, {"name": "ens1f0", "role": "fabric"}]})
        assert gpu.status_code == 200, gpu.text
        added = await admin.request("POST", "/api/private/v1/simulator/add_hosts",
                                    json={"prefix": "bm-gpu", "host_type": "bm-gpu", "count": 7})
        assert added.status_code == 200, added.text
        path = f"/api/private/v1/host_types/{gpu.json()['id']}"
        refused = await admin.request("DELETE", path)
        assert (refused.status_code, refused.json()["message"]) == (400, (
            "host type 'bm-gpu' is used by 7 hosts of the bare-metal inventory (bm-gpu-001, bm-gpu-002, "
            "bm-gpu-003, bm-gpu-004, bm-gpu-005 and 2 more); remove them from the inventory first"))
        assert (await host_type("bm-gpu")) is not None
        for number in range(1, 8):
            removed = await admin.request("POST", "/api/private/v1/simulator/remove_host", json={"name": f"bm-gpu-{number:03d}"})
            assert removed.status_code == 200, removed.text
        assert (await admin.request("DELETE", path)).status_code == 200
        assert (await host_type("bm-gpu")) is None


async def test_an_inventory_naming_an_unknown_host_type_stops_the_start(tmp_path: Path) -> None:
    config = merge_config(DEFAULT_CONFIG, {"simulator": {"inventory": {"hosts": [
        {"prefix": "bm-std", "host_type": "bm-standard", "count": 2},
        {"prefix": "bm-gpu", "host_type": "bm-h100", "count": 4}]}}})
    application = Application(Settings(data_dir=tmp_path, grpc_address="127.0.0.1:0", http_address="127.0.0.1:0",
                                       run_controllers=False, config=config))
    try:
        with pytest.raises(InventoryStartupError) as refused:
            await application.start()
    finally:
        await application.stop()
    assert "simulator.inventory.hosts[1] (bm-gpu): host type 'bm-h100' does not exist" in str(refused.value)


# -- the CLI ----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def cli_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BackgroundServer]:
    running = BackgroundServer(tmp_path_factory.mktemp("osac-hosts"))
    running.start()
    yield running
    running.stop()


@pytest.fixture(scope="module")
def admin(cli_server: BackgroundServer, tmp_path_factory: pytest.TempPathFactory) -> Osac:
    provider_admin = Osac(cli_server, tmp_path_factory.mktemp("hosts-admin") / "osac.yaml", CliRunner())
    provider_admin.login("provider-admin", user="root")
    return provider_admin


def test_osac_simulator_hosts_lists_adds_and_removes(admin: Osac) -> None:
    rows = table(admin.ok("simulator", "hosts"))
    assert [row["NAME"] for row in rows] == DEFAULT_HOSTS
    assert rows[0] == {"NAME": "bm-std-001", "TYPE": "bm-standard", "POWER": "off", "PROVISIONING": "available",
                       "STATUS": "OK", "OWNER": "-", "BMC": "redfish+sim://bm-std-001"}
    assert table(admin.ok("simulator", "hosts", "list", "--host-type", "bm-standard")) == rows

    added = admin.ok("simulator", "hosts", "add", "bm-lab", "--host-type", "bm-standard", "--count", "2", "-o", "name")
    assert added.splitlines() == ["host/bm-lab-001", "host/bm-lab-002"]
    assert admin.ok("simulator", "hosts", "remove", "bm-lab-001", "bm-lab-002").splitlines() == [
        "Host bm-lab-001 removed", "Host bm-lab-002 removed"]
    assert [row["NAME"] for row in table(admin.ok("simulator", "hosts"))] == DEFAULT_HOSTS

    unknown = admin("simulator", "hosts", "add", "bm-gpu", "--host-type", "bm-h100")
    assert unknown.exit_code == 1
    assert unknown.stderr.startswith("Error: INVALID_ARGUMENT: host_type: host type 'bm-h100' does not exist")
    missing = admin("simulator", "hosts", "remove", "bm-lab-009")
    assert missing.exit_code == 1 and missing.stderr.startswith("Error: NOT_FOUND: ")
