"""Instances with the CLI (docs/workloads.md): ``osac create computeinstance NAME`` and
``baremetalinstance`` with their options, and ``osac restart``, against a real server.

The module's server runs no reconcilers: the provider admin marks the catalogue and tenant
``acme``'s default subnet and group READY through the private API, and an instance is made
RUNNING with its reconciler's status write (the API never writes instance status).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from osac.api.private.v1 import compute_instance_type_pb2 as compute
from osac.model import registry
from osac.store.tables import LIVE
from tests.cli.conftest import START_TIMEOUT, BackgroundServer, Osac, mark_ready

TENANT = "acme"


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BackgroundServer]:
    server = BackgroundServer(tmp_path_factory.mktemp("osac-workloads"))
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def owner(running: BackgroundServer, tmp_path_factory: pytest.TempPathFactory) -> Osac:
    """A tenant admin of ``acme``, whose default networking and a second subnet are READY."""
    root = Osac(running, tmp_path_factory.mktemp("root") / "osac.yaml", CliRunner())
    root.login("provider-admin", user="root")
    mark_ready(root, "network_class", "default")
    mark_ready(root, "external_ip_pool", "public-v4")
    root.ok("create", "tenant", TENANT)
    for kind in ("vn", "subnet", "sg"):
        mark_ready(root, kind, "default")
    alice = Osac(running, tmp_path_factory.mktemp("alice") / "osac.yaml", CliRunner())
    alice.login("tenant-admin", TENANT, user="alice")
    alice.ok("create", "subnet", "app", "--vn", "default", "--cidr", "10.0.16.0/24")
    alice.ok("create", "sg", "web", "--vn", "default", "--ingress", "protocol=tcp,port=443,cidr=0.0.0.0/0")
    mark_ready(root, "subnet", "app")
    mark_ready(root, "sg", "web")
    return alice


def get(osac: Osac, kind: str, name: str) -> dict[str, Any]:
    return json.loads(osac.ok("get", kind, name, "-o", "json"))  # type: ignore[no-any-return]


def ids(osac: Osac, kind: str, *names: str) -> list[str]:
    return [get(osac, kind, name)["id"] for name in names]


def write_status(server: BackgroundServer, kind_name: str, object_id: str, change: Any) -> None:
    """A reconciler's status write (``change`` edits the private message)."""
    async def write() -> None:
        app = server.application
        kind = registry.get(kind_name)
        async with app.store.write() as tx:
            [stored] = await tx.find(kind, LIVE[kind.name].c.id == object_id)
            desired = type(stored)()
            desired.CopyFrom(stored)
            change(desired)
            await app.services[kind.name].write_status(tx, desired, stored)

    asyncio.run_coroutine_threadsafe(write(), server.loop).result(START_TIMEOUT)


def make_running(server: BackgroundServer, vm_id: str) -> None:
    """What the VM reconciler writes once the VM runs."""
    write_status(server, "compute_instance", vm_id,
                 lambda desired: setattr(desired.status, "state", compute.COMPUTE_INSTANCE_STATE_RUNNING))


def test_compute_instance_from_options(owner: Osac, tmp_path: Path) -> None:
    key = tmp_path / "id.pub"
    key.write_text("ssh-ed25519 AAAAC3Nz alice@example\n")
    user_data = tmp_path / "user-data"
    user_data.write_text("#cloud-config\npackages: [nginx]\n")
    out = owner.ok("create", "computeinstance", "web", "--template", "fedora", "--instance-type", "medium",
                   "--ssh-key-file", str(key), "--user-data-file", str(user_data), "--run-strategy", "Halted")
    assert out.startswith("ComputeInstance 'web' created (id ")
    spec = get(owner, "vm", "web")["spec"]
    subnet, group = ids(owner, "subnet", "default") + ids(owner, "sg", "default")
    assert (spec["ssh_public_key"], spec["user_data"]) == (key.read_text(), user_data.read_text())
    assert (spec["run_strategy"], spec["instance_type"]) == ("Halted", ids(owner, "instance_type", "medium")[0])
    assert spec["compute_network_attachments"] == [{"subnet": subnet, "security_groups": [group], "primary": True}]

    owner.ok("create", "vm", "one", "--template", "fedora", "--subnet", "app", "--security-group", "web", "--sg", "default")
    assert get(owner, "vm", "one")["spec"]["compute_network_attachments"] == [
        {"subnet": ids(owner, "subnet", "app")[0], "security_groups": [*ids(owner, "sg", "web", "default")], "primary": True}]

    owner.ok("create", "vm", "multi", "--template", "fedora", "--external-ip-attachment",
             "--network-attachment", "subnet=default,security-groups=web;default",
             "--network-attachment", "subnet=app,primary=true")
    multi = get(owner, "vm", "multi")
    assert [(a["subnet"], a.get("security_groups"), a.get("primary", False))
            for a in multi["spec"]["compute_network_attachments"]] == [
        (subnet, ids(owner, "sg", "web", "default"), False), (ids(owner, "subnet", "app")[0], [group], True)]
    assert multi["spec"]["auto_external_ip_attachment"] is True
    assert get(owner, "eip", f"auto-{multi['id']}")["metadata"]["labels"]["osac.openshift.io/auto-provisioned-for"] == multi["id"]

    edited = owner.ok("edit", "vm", "one", "--security-group", "default")
    assert "updated (spec.compute_network_attachments)" in edited
    assert get(owner, "vm", "one")["spec"]["compute_network_attachments"][0]["security_groups"] == ids(owner, "sg", "default")


def test_bare_metal_instance_from_options(owner: Osac) -> None:
    owner.ok("create", "baremetalinstance", "bm", "--host-type", "bm-standard", "--run-strategy", "halted",
             "--network-attachment", "subnet=default,interface=ens1f1,primary=true",
             "--network-attachment", "subnet=app,interface=ens2f0,sg=web")
    spec = get(owner, "bmi", "bm")["spec"]
    assert spec["run_strategy"] == "BARE_METAL_INSTANCE_RUN_STRATEGY_HALTED"
    assert [(a["interface"], a.get("primary", False)) for a in spec["network_attachments"]] == [
        ("ens1f1", True), ("ens2f0", False)]
    assert spec["network_attachments"][1]["security_groups"] == ids(owner, "sg", "web")

    refused = owner("create", "bmi", "bad", "--host-type", "bm-standard", "--network-attachment", "subnet=app,interface=eno1")
    assert refused.exit_code == 1
    assert refused.stderr == (
        "Error: INVALID_ARGUMENT: spec.network_attachments[0].interface: interface 'eno1' of host type "
        "'bm-standard' has role 'lifecycle' (PXE/BMC) and cannot be attached\n")


def test_restart(owner: Osac, running: BackgroundServer) -> None:
    owner.ok("create", "vm", "api", "--template", "fedora")
    refused = owner("restart", "computeinstance", "api")
    assert refused.exit_code == 1
    assert refused.stderr == (
        "Error: FAILED_PRECONDITION: restart requires a running instance: ComputeInstance 'api' is STARTING\n")

    make_running(running, get(owner, "vm", "api")["id"])
    assert owner.ok("restart", "vm", "api") == "ComputeInstance 'api' restart requested\n"
    assert "restart_requested_at" in get(owner, "vm", "api")["spec"]

    owner.ok("create", "bmi", "box", "--host-type", "bm-standard")
    owner.ok("restart", "bmi", "box")
    assert owner.ok("restart", "baremetalinstance", "box") == "BareMetalInstance 'box' restart requested\n"
    assert get(owner, "bmi", "box")["spec"]["restart_trigger"] == "2"


@pytest.mark.parametrize(("args", "message"), [
    (["create", "vm", "x", "--template", "fedora", "--subnet", "app", "--network-attachment", "subnet=app"],
     "--subnet and --network-attachment exclude each other: describe one attachment with --subnet, or each "
     "attachment with --network-attachment"),
    (["create", "vm", "x", "--network-attachment", "security-groups=web"],
     "--network-attachment 'security-groups=web': no subnet; add subnet=NAME (e.g. subnet=app,security-groups=web;ssh,"
     "primary=true)"),
    (["create", "vm", "x", "--network-attachment", "subnet=app,colour=red"],
     "--network-attachment 'subnet=app,colour=red': unknown key 'colour'; the keys are subnet, security-groups, "
     "primary, interface (e.g. subnet=app,security-groups=web;ssh,primary=true)"),
    (["create", "vm", "x", "--name", "y"], "give the name once: as NAME (x) or with --name (y)"),
    (["create", "vm", "x", "--ssh-key-file", "/nonexistent/key"],
     "--ssh-key-file '/nonexistent/key': cannot read /nonexistent/key: No such file or directory"),
    (["restart", "subnet", "app"], "subnets cannot be restarted; restart a compute or bare-metal instance"),
])
def test_option_errors(owner: Osac, args: list[str], message: str) -> None:
    result = owner(*args)
    assert (result.exit_code, result.stderr) == (1, f"Error: {message}\n")



def test_describe_shows_each_interface(owner: Osac, running: BackgroundServer) -> None:
    owner.ok("create", "vm", "described", "--template", "fedora",
             "--network-attachment", "subnet=default", "--network-attachment", "subnet=app,primary=true")
    vm = get(owner, "vm", "described")
    default, app_subnet = ids(owner, "subnet", "default", "app")

    def running_with_addresses(desired: Any) -> None:
        desired.status.state = compute.COMPUTE_INSTANCE_STATE_RUNNING
        desired.status.internal_ip_address = "10.0.16.7"
        desired.status.compute_network_attachment_statuses.add(subnet=default, ip_address="10.0.0.9")
        desired.status.compute_network_attachment_statuses.add(subnet=app_subnet, ip_address="10.0.16.7", primary=True)

    write_status(running, "compute_instance", vm["id"], running_with_addresses)
    lines = owner.ok("describe", "vm", "described").splitlines()
    assert "Internal IP:    10.0.16.7" in lines
    at = lines.index("Interfaces:")
    assert [line.split() for line in lines[at + 1:at + 4]] == [
        ["SUBNET", "IP", "PRIMARY"], ["default", "10.0.0.9", "no"], ["app", "10.0.16.7", "yes"]]

    owner.ok("create", "bmi", "described-bm", "--host-type", "bm-standard",
             "--network-attachment", "subnet=app,interface=ens1f1,primary=true")
    bm = get(owner, "bmi", "described-bm")
    write_status(running, "bare_metal_instance", bm["id"], lambda desired: desired.status.network_attachment_statuses.add(
        interface="ens1f1", subnet=app_subnet, primary=True))
    lines = owner.ok("describe", "bmi", "described-bm").splitlines()
    at = lines.index("Interfaces:")
    assert [line.split() for line in lines[at + 1:at + 3]] == [
        ["INTERFACE", "SUBNET", "IP", "PRIMARY"], ["ens1f1", "app", "-", "yes"]]


def test_wait_for_ready_ends_on_running_instances(owner: Osac, running: BackgroundServer) -> None:
    """Issue 17 item 2: RUNNING is the usable state of VMs and bare-metal instances, so
    ``--for ready`` (and its alias ``--for running``) ends there instead of timing out."""
    owner.ok("create", "vm", "waited", "--template", "fedora")
    make_running(running, get(owner, "vm", "waited")["id"])
    assert owner.ok("wait", "computeinstance", "waited", "--for", "ready", "--timeout", "5s").splitlines()[-1] == (
        "ComputeInstance 'waited' is RUNNING")
    assert owner.ok("wait", "vm", "waited", "--for", "running", "--timeout", "5s").splitlines()[-1] == (
        "ComputeInstance 'waited' is RUNNING")
    owner.ok("create", "bmi", "metal-waited", "--host-type", "bm-standard")
    write_status(running, "bare_metal_instance", get(owner, "bmi", "metal-waited")["id"],
                 lambda desired: setattr(desired.status, "state", 2))  # BARE_METAL_INSTANCE_STATE_RUNNING
    assert owner.ok("wait", "bmi", "metal-waited", "--for", "ready", "--timeout", "5s").splitlines()[-1] == (
        "BareMetalInstance 'metal-waited' is RUNNING")
    owner.ok("create", "vm", "starting", "--template", "fedora")
    timed_out = owner("wait", "vm", "starting", "--for", "ready", "--timeout", "1s")
    assert timed_out.exit_code == 1
    assert timed_out.stderr == (
        "Error: timed out after 1s waiting for ComputeInstance 'starting' to be RUNNING; now STARTING\n")
