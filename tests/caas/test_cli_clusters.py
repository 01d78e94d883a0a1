"""``osac create cluster`` and ``osac scale cluster`` as a user types them (tests/cli style: the
real command against a real server over gRPC)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from osac.api.private.v1 import cluster_type_pb2 as pb
from osac.model import registry
from tests.caas.conftest import PULL_SECRET, RELEASE_IMAGE, ssh_key
from tests.cli.conftest import START_TIMEOUT, BackgroundServer, Osac


def _cluster(osac: Osac, name: str) -> dict[str, Any]:
    return json.loads(osac.ok("get", "cluster", name, "-o", "json"))  # type: ignore[no-any-return]


def test_create_with_every_option(tenant_admin: Osac, tmp_path: Path) -> None:
    secret_file = tmp_path / "pull-secret.json"
    secret_file.write_text(PULL_SECRET + "\n")
    key_file = tmp_path / "id_ed25519.pub"
    key_file.write_text(ssh_key() + "\n")
    output = tenant_admin.ok(
        "create", "cluster", "prod", "--template", "ocp-small", "--node-set", "workers=vm-standard:2",
        "--security-group", "default", "--pull-secret-file", str(secret_file), "--ssh-key-file", str(key_file),
        "--release-image", RELEASE_IMAGE, "--pod-cidr", "10.200.0.0/16", "--catalog-item", "ocp-small-gold")
    assert output.startswith("Cluster 'prod' created (id ")
    spec = _cluster(tenant_admin, "prod")["spec"]
    assert spec["node_sets"]["workers"]["size"] == 2 and spec["node_sets"]["workers"]["fabric_interface"] == "nic-0"
    assert spec["pull_secret"] == "***"
    assert spec["ssh_public_key"] == ssh_key()  # the file's newline is not part of the key
    assert spec["network"] == {"pod_cidr": "10.200.0.0/16", "service_cidr": "172.30.0.0/16"}
    assert spec["catalog_item"] == "ocp-small-gold" and len(spec["network_attachment"]["security_groups"]) == 1


def test_create_with_external_access_and_defaults(tenant_admin: Osac) -> None:
    tenant_admin.ok("create", "cluster", "exposed", "--template", "ocp-small", "--external-ip-attachment")
    cluster = _cluster(tenant_admin, "exposed")
    assert cluster["spec"]["node_sets"]["workers"]["size"] == 3  # the template's
    names = json.loads(tenant_admin.ok("get", "eip", "-o", "json"))["items"]
    auto = sorted(item["metadata"]["name"] for item in names if item["metadata"]["name"].startswith("auto-"))
    assert auto == [f"auto-{cluster['id']}-api", f"auto-{cluster['id']}-ingress"]


def test_scale_prints_the_new_desired_size(tenant_admin: Osac) -> None:
    tenant_admin.ok("create", "cluster", "scaled", "--template", "ocp-small", "--node-set", "workers=2")
    output = tenant_admin.ok("scale", "cluster", "scaled", "--node-set", "workers", "--size", "5")
    assert output == "Cluster 'scaled' node set 'workers' scaled: desired size 5 (was 2)\n"
    assert _cluster(tenant_admin, "scaled")["spec"]["node_sets"]["workers"]["size"] == 5
    again = tenant_admin.ok("scale", "cluster", "scaled", "--node-set", "workers", "--size", "5")
    assert again == "Cluster 'scaled' node set 'workers' already has desired size 5; nothing sent\n"
    down = tenant_admin.ok("scale", "cluster", "scaled", "--node-set", "workers", "--size", "0")
    assert down == "Cluster 'scaled' node set 'workers' scaled: desired size 0 (was 5)\n"


def test_scale_and_create_errors(tenant_admin: Osac) -> None:
    tenant_admin.ok("create", "cluster", "small", "--template", "ocp-small", "--node-set", "workers=1")
    unknown = tenant_admin("scale", "cluster", "small", "--node-set", "gpu", "--size", "2")
    assert unknown.exit_code == 1
    assert unknown.stderr == ("Error: Cluster 'small' has no node set 'gpu' (it has: workers); add one with "
                              "osac edit cluster small --node-set gpu=SIZE\n")
    negative = tenant_admin("scale", "cluster", "small", "--node-set", "workers", "--size", "-1")
    assert negative.stderr == "Error: --size must be 0 or more, got -1\n"
    not_cluster = tenant_admin("scale", "subnet", "default", "--node-set", "workers", "--size", "1")
    assert not_cluster.stderr == "Error: subnets cannot be scaled; scale a cluster's node set\n"
    bad_flag = tenant_admin("create", "cluster", "x", "--template", "ocp-small", "--node-set", "workers")
    assert bad_flag.stderr == ("Error: --node-set 'workers': expected KEY=[HOSTTYPE:]SIZE, e.g. workers=3 or "
                               "workers=vm-standard:3\n")
    refused = tenant_admin("create", "cluster", "x", "--template", "ocp-small", "--node-set", "gpu=2")
    assert refused.stderr == ("Error: INVALID_ARGUMENT: spec.node_sets['gpu']: ClusterTemplate 'ocp-small' has no "
                              "node set 'gpu'; its node sets are 'workers'\n")


def test_edit_adds_a_node_set_and_keeps_the_others(tenant_admin: Osac, tmp_path: Path) -> None:
    template = tmp_path / "template.yaml"
    template.write_text(json.dumps({"metadata": {"name": "two"}, "node_sets": {
        "workers": {"host_type": "vm-standard", "size": 2}, "metal": {"host_type": "bm-standard", "size": 1}},
        "spec_defaults": {"release_image": RELEASE_IMAGE}}))
    admin = Osac(tenant_admin.server, tmp_path / "admin" / "osac.yaml", tenant_admin.runner)
    admin.login("provider-admin", user="root")
    admin.ok("create", "cluster_template", "-f", str(template))
    tenant_admin.ok("create", "cluster", "grow", "--template", "two", "--node-set", "workers=2")
    tenant_admin.ok("edit", "cluster", "grow", "--node-set", "metal=1")
    node_sets = _cluster(tenant_admin, "grow")["spec"]["node_sets"]
    assert {key: entry["size"] for key, entry in node_sets.items()} == {"workers": 2, "metal": 1}
    assert node_sets["metal"]["fabric_interface"] == "ens1f0"


def test_delete_says_what_it_did(tenant_admin: Osac, cli_server: BackgroundServer, tmp_path: Path) -> None:
    """Issue 17 item 9: a first Delete deletes, a Delete of a DELETE_FAILED cluster restarts its
    teardown and says so, a Delete of a cluster already being deleted says that."""
    tenant_admin.ok("create", "cluster", "r1", "--template", "ocp-small")
    cluster_id = _cluster(tenant_admin, "r1")["id"]
    admin = Osac(cli_server, tmp_path / "admin" / "osac.yaml", CliRunner())
    admin.login("provider-admin", user="root")
    admin.ok("edit", "cluster", cluster_id, "--private", "--set", "metadata.finalizers=fulfillment-controller")
    assert tenant_admin.ok("delete", "cluster", "r1") == "Cluster 'r1' deleted\n"
    assert tenant_admin.ok("delete", "cluster", "r1") == "Cluster 'r1' is already being deleted\n"

    async def teardown_failed() -> None:  # what the reconciler writes for a terminal teardown error
        app = cli_server.application
        async with app.store.write() as tx:
            stored = await tx.get(registry.get("cluster"), cluster_id)
            desired = type(stored)()
            desired.CopyFrom(stored)
            desired.status.state = pb.CLUSTER_STATE_DELETE_FAILED
            for entry in desired.status.conditions:
                if entry.type == pb.CLUSTER_CONDITION_TYPE_FAILED:
                    entry.status, entry.reason, entry.message = 1, "TeardownFailed", "permission denied"
            await app.services["cluster"].write_status(tx, desired, stored)

    asyncio.run_coroutine_threadsafe(teardown_failed(), cli_server.loop).result(START_TIMEOUT)
    assert tenant_admin.ok("delete", "cluster", "r1") == "Cluster 'r1': teardown restarted (it was DELETE_FAILED)\n"


def test_a_fault_target_is_resolved_by_name_and_an_unknown_one_refused(
        tenant_admin: Osac, cli_server: BackgroundServer, tmp_path: Path) -> None:
    """Issue 17 item 6: ``--target c8`` names a cluster as every other command does."""
    tenant_admin.ok("create", "cluster", "c8", "--template", "ocp-small")
    cluster_id = _cluster(tenant_admin, "c8")["id"]
    admin = Osac(cli_server, tmp_path / "admin" / "osac.yaml", CliRunner())
    admin.login("provider-admin", user="root")
    fault_id = admin.ok("simulator", "fault", "create", "hc_degraded", "--target-kind", "cluster", "--target", "c8").strip()
    listed = admin.ok("simulator", "fault", "list")
    assert any(fault_id in line and cluster_id in line for line in listed.splitlines()), listed
    refused = admin("simulator", "fault", "create", "hc_degraded", "--target-kind", "cluster", "--target", "no-such")
    assert refused.exit_code == 1
    assert "no-such" in refused.stderr and "NOT_FOUND" in refused.stderr
