"""ClusterTemplate writes are checked as a whole, so clusters made from a template cannot fail on
the template's own values (api.md §11.4, §11.5; networking.md §7.3)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.caas.conftest import RELEASE_IMAGE, Caas, error, ssh_key

STRING = "type.googleapis.com/google.protobuf.StringValue"
WORKERS = {"workers": {"host_type": "vm-standard", "size": 3}}

CASES: list[tuple[str, dict[str, Any], str]] = [
    ("no node sets", {}, "node_sets: required; a template needs at least one node set (e.g. workers)"),
    ("bad key", {"node_sets": {"Workers_1": {"host_type": "vm-standard", "size": 1}}},
     "node_sets['Workers_1']: node set key 'Workers_1' is invalid; use at most 63 lowercase letters, digits and '-', "
     "starting and ending with a letter or digit"),
    ("no host type", {"node_sets": {"workers": {"size": 1}}}, "node_sets['workers'].host_type: required; name a HostType"),
    ("unknown host type", {"node_sets": {"workers": {"host_type": "huge", "size": 1}}},
     "node_sets['workers'].host_type: HostType 'huge' not found"),
    ("size 0", {"node_sets": {"workers": {"host_type": "vm-standard", "size": 0}}},
     "node_sets['workers'].size: must be greater than 0, got 0"),
    ("parameter without name", {"node_sets": WORKERS, "parameters": [{"type": STRING}]},
     "parameters[0].name: required; it is the key of the value in spec.template_parameters"),
    ("bad parameter name", {"node_sets": WORKERS, "parameters": [{"name": "a b", "type": STRING}]},
     "parameters[0].name: 'a b' is invalid; use at most 63 letters, digits, '_', '.' or '-', starting with a letter "
     "or '_'"),
    ("parameter twice", {"node_sets": WORKERS, "parameters": [{"name": "a", "type": STRING}, {"name": "a", "type": STRING}]},
     "parameters[1].name: 'a' is already defined by parameters[0]"),
    ("parameter without type", {"node_sets": WORKERS, "parameters": [{"name": "a"}]},
     f"parameters[0].type: required; give the type URL of the values (e.g. {STRING})"),
    ("unknown parameter type", {"node_sets": WORKERS, "parameters": [{"name": "a", "type": "type.googleapis.com/x.Y"}]},
     f"parameters[0].type: 'type.googleapis.com/x.Y' is not the type URL of a message type this server knows "
     f"(e.g. {STRING})"),
    ("default of another type", {"node_sets": WORKERS, "parameters": [{
        "name": "a", "type": STRING,
        "default": {"@type": "type.googleapis.com/google.protobuf.BoolValue", "value": True}}]},
     f"parameters[0].default: must be of type {STRING}, got type.googleapis.com/google.protobuf.BoolValue"),
    ("required with default", {"node_sets": WORKERS, "parameters": [{
        "name": "a", "type": STRING, "required": True, "default": {"@type": STRING, "value": "x"}}]},
     "parameters[0].default: a required parameter takes no default; make it optional or drop the default"),
    ("bad release image", {"node_sets": WORKERS, "spec_defaults": {"release_image": "latest"}},
     "spec_defaults.release_image: 'latest' is not a pinned image reference; use REGISTRY/REPOSITORY:TAG or "
     "REGISTRY/REPOSITORY@sha256:DIGEST (e.g. quay.io/openshift-release-dev/ocp-release:4.17.0-x86_64)"),
    ("bad ssh key", {"node_sets": WORKERS, "spec_defaults": {"ssh_public_key": "ssh-rsa AAAAB3NzaC1lZDI1NTE5"}},
     "spec_defaults.ssh_public_key: not an OpenSSH public key; expected one line '<type> <base64 key> [comment]' as "
     "in a .pub file; the key data does not match its type 'ssh-rsa'"),
    ("pods overlap default services", {"node_sets": WORKERS, "spec_defaults": {"network": {"pod_cidr": "172.30.0.0/15"}}},
     "spec_defaults.network.service_cidr: 172.30.0.0/16 overlaps spec_defaults.network.pod_cidr (172.30.0.0/15); "
     "pods and services need separate ranges"),
]


@pytest.mark.parametrize(("body", "message"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
async def test_invalid_template_is_refused(caas: Caas, body: dict[str, Any], message: str) -> None:
    assert error(await caas.template("bad", body)) == (400, message)


async def test_a_complete_template_is_stored_with_host_type_ids(caas: Caas) -> None:
    key = ssh_key()
    response = await caas.template("full", {
        "title": "Full", "node_sets": {"workers": {"host_type": "bm-standard", "size": 2}},
        "parameters": [{"name": "region", "type": STRING, "default": {"@type": STRING, "value": "eu"}}],
        "spec_defaults": {"release_image": RELEASE_IMAGE, "ssh_public_key": key,
                          "network": {"pod_cidr": "10.132.0.0/14"}}})
    assert response.status_code == 200, response.text
    template = response.json()
    [bm] = await caas.items("host_types", "this.metadata.name == 'bm-standard'")
    assert template["node_sets"] == {"workers": {"host_type": bm["id"], "size": 2}}
    assert template["spec_defaults"]["network"] == {"pod_cidr": "10.132.0.0/14"}
    cluster = await caas.cluster(template="full")
    assert cluster["spec"]["ssh_public_key"] == key
    assert cluster["spec"]["network"] == {"pod_cidr": "10.132.0.0/14", "service_cidr": "172.30.0.0/16"}


async def test_updates_are_checked_and_used_templates_cannot_go(caas: Caas) -> None:
    [template] = await caas.items("cluster_templates", "this.metadata.name == 'ocp-small'")
    shrink = await caas.patch("cluster_templates", template["id"], {"node_sets": {"workers": {"host_type": "vm-standard", "size": 0}}},
                              mask="node_sets", client=caas.admin)
    assert error(shrink) == (400, "node_sets['workers'].size: must be greater than 0, got 0")
    cluster = await caas.cluster()
    deleted = await caas.admin.request("DELETE", f"/api/fulfillment/v1/cluster_templates/{template['id']}")
    assert error(deleted) == (400, "cannot delete ClusterTemplate 'ocp-small': 1 Cluster(s) still reference it: prod")
    [vm] = await caas.items("host_types", "this.metadata.name == 'vm-standard'")
    in_use = await caas.admin.request("DELETE", f"/api/fulfillment/v1/host_types/{vm['id']}")
    assert error(in_use)[0] == 400 and "still reference it" in error(in_use)[1]
    assert cluster["spec"]["template"] == template["id"]


async def test_tenants_cannot_write_templates(caas: Caas) -> None:
    response = await caas.post("cluster_templates", {"metadata": {"name": "mine"}, "node_sets": WORKERS})
    assert response.status_code == 403
