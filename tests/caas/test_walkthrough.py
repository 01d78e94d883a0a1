"""The new user's walk-through, through the CLI only: a provider admin onboards a tenant and
offers a cluster template with a virtual and a bare-metal node set; a tenant admin creates a
cluster with external access, waits for it, scales both node sets, reads its access, lives through
a fault the provider injects, and deletes it; twice, on both databases. At the end the simulator's
host inventory, the address pools and the fabric are exactly as they were before the first
cluster (issue: what a user trips over)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from osac.server.settings import DEFAULT_CONFIG, merge_config
from tests.cli.conftest import BackgroundServer, Osac

TENANT = "walk"
#: Fast enough for a test, slow enough that teardown steps overlap (the race that leaked hosts).
CONFIG = merge_config(DEFAULT_CONFIG, {"simulator": {"speed": 200}})
TEMPLATE = """\
metadata: {name: mixed}
title: Mixed
node_sets:
  workers: {host_type: vm-standard, size: 2}
  metal: {host_type: bm-standard, size: 2}
spec_defaults:
  release_image: quay.io/openshift-release-dev/ocp-release:4.17.0-x86_64
"""
WAIT = 120.0


@pytest.fixture
def walk(db_url: str, tmp_path: Path) -> Iterator[tuple[Osac, Osac]]:
    server = BackgroundServer(tmp_path / "data", live=True, db_url=db_url, config=CONFIG)
    server.start()
    try:
        root = Osac(server, tmp_path / "root" / "osac.yaml", CliRunner())
        alice = Osac(server, tmp_path / "alice" / "osac.yaml", CliRunner())
        yield root, alice
    finally:
        server.stop()


def _json(osac: Osac, *args: str) -> Any:
    return json.loads(osac.ok(*args, "-o", "json"))


def _until(read: Callable[[], Any], holds: Callable[[Any], bool], what: str) -> Any:
    deadline = time.monotonic() + WAIT
    while not holds(value := read()):
        assert time.monotonic() < deadline, f"{what} did not happen in {WAIT:.0f}s: {value}"
        time.sleep(0.1)
    return value


def _inventory(root: Osac, alice: Osac) -> dict[str, Any]:
    """What must be as it started: the hosts, the pools, the subnets' free addresses, the
    tenant's external IPs and the fabric of its network."""
    vn = _json(alice, "get", "vn", "default")
    fabric = _json(root, "simulator", "observe", "fabric", vn["id"])
    fabric.pop("observed_at", None)
    pools = {p["metadata"]["name"]: p["status"] for p in _json(root, "get", "externalippools", "--private")["items"]}
    subnets = {s["metadata"]["name"]: s["status"]["available_addresses"] for s in _json(alice, "get", "subnets")["items"]}
    eips = sorted(e["metadata"]["name"] for e in _json(alice, "get", "externalips")["items"])
    return {"hosts": _json(root, "simulator", "hosts"), "pools": pools, "subnets": subnets, "eips": eips,
            "fabric": fabric}


def _cluster(alice: Osac, name: str) -> dict[str, Any]:
    return dict(_json(alice, "get", "cluster", name))


def _condition(cluster: dict[str, Any], kind: str) -> str:
    [found] = [c for c in cluster["status"].get("conditions", []) if c["type"] == f"CLUSTER_CONDITION_TYPE_{kind}"]
    return str(found["status"]).removeprefix("CONDITION_STATUS_")


def _metal_owners(root: Osac) -> set[str]:
    return {h.get("owner", {}).get("id", "") for h in _json(root, "simulator", "hosts", "--host-type", "bm-standard")} - {""}


def _cluster_round(root: Osac, alice: Osac, name: str) -> None:
    """One cluster's life as a tenant admin lives it, with a fault of the provider's."""
    assert alice.ok("create", "cluster", name, "--template", "mixed", "--external-ip-attachment").startswith(
        f"Cluster '{name}' created (id ")
    alice.ok("wait", "cluster", name, "--for", "ready", "--timeout", "2m")
    cluster = _cluster(alice, name)
    assert _metal_owners(root) == {f"{cluster['id']}/metal"}
    described = alice.ok("describe", "cluster", name)
    assert "State:" in described and "READY" in described
    assert alice.ok("get", "kubeconfig", name).startswith("apiVersion: v1")
    assert alice.ok("get", "password", name).strip()

    # both node sets grow: one more machine, one more host
    alice.ok("scale", "cluster", name, "--node-set", "metal", "--size", "3")
    alice.ok("scale", "cluster", name, "--node-set", "workers", "--size", "3")
    _until(lambda: _cluster(alice, name), lambda c: c["status"]["state"] == "CLUSTER_STATE_READY"
           and c["status"]["node_sets"]["metal"].get("ready_replicas") == 3
           and c["status"]["node_sets"]["workers"].get("ready_replicas") == 3, f"{name} scaled up")
    assert len([h for h in _json(root, "simulator", "hosts", "--host-type", "bm-standard")
                if h.get("owner", {}).get("id") == f"{cluster['id']}/metal"]) == 3

    # the provider degrades the control plane; the tenant sees it, then sees it recover
    fault_id = root.ok("simulator", "fault", "create", "hc_degraded", "--target-kind", "cluster",
                       "--target", name).strip().split()[-1]
    _until(lambda: _cluster(alice, name), lambda c: _condition(c, "DEGRADED") == "TRUE", f"{name} degraded")
    root.ok("simulator", "fault", "delete", fault_id)
    _until(lambda: _cluster(alice, name), lambda c: _condition(c, "DEGRADED") == "FALSE", f"{name} recovered")

    # and shrinks back, then goes
    alice.ok("scale", "cluster", name, "--node-set", "metal", "--size", "1")
    _until(lambda: _cluster(alice, name), lambda c: c["status"]["node_sets"]["metal"].get("ready_replicas") == 1
           and c["status"]["state"] == "CLUSTER_STATE_READY", f"{name} scaled down")
    _until(lambda: _metal_owners(root), lambda owners: owners == {f"{cluster['id']}/metal"}, "surplus hosts released")
    assert alice.ok("delete", "cluster", name).startswith(f"Cluster '{name}' ")
    alice.ok("wait", "cluster", name, "--for", "deleted", "--timeout", "2m")


def test_a_new_user_walks_through_clusters_twice_and_leaves_nothing_behind(walk: tuple[Osac, Osac], tmp_path: Path) -> None:
    root, alice = walk
    root.login("provider-admin", user="root")
    template = tmp_path / "mixed.yaml"
    template.write_text(TEMPLATE)
    assert root.ok("create", "clustertemplate", "-f", str(template), "--private").startswith("ClusterTemplate 'mixed' created")
    assert root.ok("create", "tenant", "--name", TENANT).startswith(f"Tenant '{TENANT}' created")
    root.ok("wait", "tenant", TENANT, "--for", "ready", "--timeout", "2m")
    alice.login("tenant-admin", TENANT)
    alice.ok("wait", "subnet", "default", "--for", "ready", "--timeout", "1m")
    start = _inventory(root, alice)
    assert _metal_owners(root) == set()

    for round_ in range(2):
        _cluster_round(root, alice, f"lab-{round_}")
        assert _inventory(root, alice) == start, f"round {round_}: something of the cluster was left behind"
