"""``osac create``, ``edit`` and ``scale cluster`` print the server's warnings on stderr: a
bare-metal node set larger than the whole inventory is stored, and said to wait for hosts (its
own server: the other CLI tests' clusters use up the default subnet's addresses)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.caas.conftest import RELEASE_IMAGE
from tests.cli.conftest import Osac


def _cluster(osac: Osac, name: str) -> dict[str, Any]:
    return json.loads(osac.ok("get", "cluster", name, "-o", "json"))  # type: ignore[no-any-return]


BEYOND = ("node set 'metal' asks for 13 hosts of type 'bm-standard', but the inventory has 12 in all; "
          "the cluster waits for hosts until a provider admin adds 1 more")


def test_a_node_set_beyond_the_whole_inventory_is_stored_with_a_warning(tenant_admin: Osac, tmp_path: Path) -> None:
    """The default inventory has 12 bm-standard hosts: asking for 13 is a valid desired state
    (stored, the cluster waits for hosts), answered with a warning on stderr over gRPC."""
    template = tmp_path / "template.yaml"
    template.write_text(json.dumps({"metadata": {"name": "beyond"}, "node_sets": {
        "workers": {"host_type": "vm-standard", "size": 1}, "metal": {"host_type": "bm-standard", "size": 1}},
        "spec_defaults": {"release_image": RELEASE_IMAGE}}))
    admin = Osac(tenant_admin.server, tmp_path / "admin" / "osac.yaml", tenant_admin.runner)
    admin.login("provider-admin", user="root")
    admin.ok("create", "cluster_template", "-f", str(template))

    created = tenant_admin("create", "cluster", "wide", "--template", "beyond", "--node-set", "metal=1")
    assert (created.exit_code, created.stderr) == (0, "")
    scaled = tenant_admin("scale", "cluster", "wide", "--node-set", "metal", "--size", "13")
    assert scaled.exit_code == 0, scaled.stderr
    assert scaled.stdout == "Cluster 'wide' node set 'metal' scaled: desired size 13 (was 1)\n"
    assert scaled.stderr == f"Warning: {BEYOND}\n"
    assert _cluster(tenant_admin, "wide")["spec"]["node_sets"]["metal"]["size"] == 13

    edited = tenant_admin("edit", "cluster", "wide", "--node-set", "metal=12")
    assert (edited.exit_code, edited.stderr) == (0, "")  # the whole inventory can serve 12
    edited = tenant_admin("edit", "cluster", "wide", "--node-set", "metal=13")
    assert (edited.exit_code, edited.stderr) == (0, f"Warning: {BEYOND}\n")

    at_create = tenant_admin("create", "cluster", "wider", "--template", "beyond", "--node-set", "metal=13")
    assert at_create.exit_code == 0 and at_create.stdout.startswith("Cluster 'wider' created")
    assert at_create.stderr == f"Warning: {BEYOND}\n"
