"""Every way a Cluster Create is refused names the field (or object) and the fix, and stores
nothing (api.md §10, §11.6; networking.md §2, §4, §6.4, §7.1, §7.3)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.caas.conftest import RELEASE_IMAGE, Caas, error
from tests.support.networking import PRIVATE, set_state

STRING = "type.googleapis.com/google.protobuf.StringValue"
INT64 = "type.googleapis.com/google.protobuf.Int64Value"

CASES: list[tuple[str, dict[str, Any], int, str]] = [
    ("no template", {}, 400, "spec.template: required; name a ClusterTemplate (e.g. ocp-small)"),
    ("unknown template", {"template": "nope"}, 400, "spec.template: ClusterTemplate 'nope' not found"),
    ("node set not in the template", {"template": "ocp-small", "node_sets": {"gpu": {"size": 1}}}, 400,
     "spec.node_sets['gpu']: ClusterTemplate 'ocp-small' has no node set 'gpu'; its node sets are 'workers'"),
    ("another host type", {"template": "ocp-small", "node_sets": {"workers": {"host_type": "bm-standard", "size": 1}}},
     400, "spec.node_sets['workers'].host_type: ClusterTemplate 'ocp-small' gives node set 'workers' host type "
          "'vm-standard'; omit host_type or use 'vm-standard' (got 'bm-standard')"),
    ("unknown host type", {"template": "ocp-small", "node_sets": {"workers": {"host_type": "huge", "size": 1}}},
     400, "spec.node_sets['workers'].host_type: HostType 'huge' not found"),
    ("size 0 at create", {"template": "ocp-small", "node_sets": {"workers": {"size": 0}}}, 400,
     "spec.node_sets['workers'].size: must be greater than 0 at create, got 0"),
    ("negative size", {"template": "ocp-small", "node_sets": {"workers": {"size": -2}}}, 400,
     "spec.node_sets['workers'].size: must be greater than 0 at create, got -2"),
    ("bad release image", {"template": "ocp-small", "release_image": "ocp 4.17"}, 400,
     "spec.release_image: 'ocp 4.17' is not a pinned image reference; use REGISTRY/REPOSITORY:TAG or "
     "REGISTRY/REPOSITORY@sha256:DIGEST (e.g. quay.io/openshift-release-dev/ocp-release:4.17.0-x86_64)"),
    ("unpinned release image", {"template": "ocp-small", "release_image": "quay.io/openshift/release"}, 400,
     "spec.release_image: 'quay.io/openshift/release' is not a pinned image reference; use REGISTRY/REPOSITORY:TAG "
     "or REGISTRY/REPOSITORY@sha256:DIGEST (e.g. quay.io/openshift-release-dev/ocp-release:4.17.0-x86_64)"),
    ("bad ssh key", {"template": "ocp-small", "ssh_public_key": "ssh-ed25519 not-base64!"}, 400,
     "spec.ssh_public_key: not an OpenSSH public key; expected one line '<type> <base64 key> [comment]' as in a "
     ".pub file; the key is not valid base64"),
    ("unknown ssh key type", {"template": "ocp-small", "ssh_public_key": "ssh-foo AAAA"}, 400,
     "spec.ssh_public_key: not an OpenSSH public key; expected one line '<type> <base64 key> [comment]' as in a "
     ".pub file (type one of ssh-ed25519, ssh-rsa, ecdsa-sha2-nistp256, ecdsa-sha2-nistp384, ecdsa-sha2-nistp521, "
     "sk-ssh-ed25519@openssh.com, sk-ecdsa-sha2-nistp256@openssh.com)"),
    ("bad pull secret", {"template": "ocp-small", "pull_secret": "hunter2"}, 400,
     "spec.pull_secret: not a registry pull secret; expected a JSON object with an \"auths\" map (the content of "
     "a .dockerconfigjson)"),
    ("pod CIDR not a network", {"template": "ocp-small", "network": {"pod_cidr": "10.128.0.1/14"}}, 400,
     "spec.network.pod_cidr: '10.128.0.1/14' has host bits set; the network is 10.128.0.0/14"),
    ("service CIDR garbage", {"template": "ocp-small", "network": {"service_cidr": "services"}}, 400,
     "spec.network.service_cidr: 'services' is not a valid IPv4 network (e.g. 10.0.0.0/16)"),
    ("pod and service overlap", {"template": "ocp-small", "network": {"service_cidr": "10.130.0.0/16"}}, 400,
     "spec.network.service_cidr: 10.130.0.0/16 overlaps spec.network.pod_cidr (10.128.0.0/14); pods and services "
     "need separate ranges"),
    ("pods overlap the subnet", {"template": "ocp-small", "network": {"pod_cidr": "10.0.0.0/14"}}, 400,
     "spec.network.pod_cidr: 10.0.0.0/14 overlaps Subnet 'default' (10.0.0.0/20) of spec.network_attachment; "
     "choose a range outside the node network"),
    ("services overlap the subnet", {"template": "ocp-small", "network": {"service_cidr": "10.0.8.0/24"}}, 400,
     "spec.network.service_cidr: 10.0.8.0/24 overlaps Subnet 'default' (10.0.0.0/20) of spec.network_attachment; "
     "choose a range outside the node network"),
    ("unknown parameter", {"template": "ocp-small", "template_parameters": {"x": {"@type": STRING, "value": "1"}}},
     400, "spec.template_parameters['x']: ClusterTemplate 'ocp-small' has no parameter 'x'; it takes no parameters"),
    ("unknown subnet", {"template": "ocp-small", "network_attachment": {"subnet": "db"}}, 400,
     "spec.network_attachment.subnet: Subnet 'db' not found"),
]


@pytest.mark.parametrize(("body", "status", "message"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
async def test_invalid_create_is_refused(caas: Caas, body: dict[str, Any], status: int, message: str) -> None:
    before = await caas.revision()
    response = await caas.post("clusters", {"metadata": {"name": "bad"}, "spec": body})
    assert error(response) == (status, message)
    assert await caas.revision() == before


async def _parameter_template(caas: Caas) -> None:
    response = await caas.template("params", {
        "node_sets": {"workers": {"host_type": "vm-standard", "size": 1}},
        "spec_defaults": {"release_image": RELEASE_IMAGE},
        "parameters": [{"name": "region", "type": STRING, "required": True, "title": "Region"},
                       {"name": "count", "type": INT64}]})
    assert response.status_code == 200, response.text


@pytest.mark.parametrize(("parameters", "message"), [
    ({}, "spec.template_parameters['region']: required by ClusterTemplate 'params' (Region)"),
    ({"region": {"@type": INT64, "value": "1"}},
     f"spec.template_parameters['region']: must be of type {STRING}, got {INT64}"),
    ({"region": {"@type": STRING, "value": "eu"}, "zone": {"@type": STRING, "value": "a"}},
     "spec.template_parameters['zone']: ClusterTemplate 'params' has no parameter 'zone'; its parameters are "
     "'count', 'region'"),
], ids=["missing required", "wrong type", "undeclared"])
async def test_template_parameters_are_validated(caas: Caas, parameters: dict[str, Any], message: str) -> None:
    await _parameter_template(caas)
    response = await caas.post("clusters", {"metadata": {"name": "p"},
                                            "spec": {"template": "params", "template_parameters": parameters}})
    assert error(response) == (400, message)


async def test_a_template_without_release_image_needs_one_from_the_cluster(caas: Caas) -> None:
    response = await caas.template("bare", {"node_sets": {"workers": {"host_type": "vm-standard", "size": 1}}})
    assert response.status_code == 200, response.text
    refused = await caas.post("clusters", {"metadata": {"name": "c"}, "spec": {"template": "bare"}})
    assert error(refused) == (400, "spec.release_image: required; ClusterTemplate 'bare' has no default release "
                                   "image (e.g. quay.io/openshift-release-dev/ocp-release:4.17.0-x86_64)")
    assert (await caas.cluster("c", template="bare", release_image=RELEASE_IMAGE))["spec"]["release_image"] == RELEASE_IMAGE


async def test_host_type_without_fabric_interface_is_refused(caas: Caas) -> None:
    """Editing a host type after the template was written cannot slip a node set without a fabric
    interface into a cluster: the Create names the node set and the host type."""
    host_type = await caas.create("host_types", {"metadata": {"name": "gpu-box"}, "title": "GPU",
                                                 "interfaces": [{"name": "nic-0", "role": "fabric"}]}, client=caas.admin)
    assert (await caas.template("gpu", {"node_sets": {"gpu": {"host_type": "gpu-box", "size": 1}},
                                        "spec_defaults": {"release_image": RELEASE_IMAGE}})).status_code == 200
    edited = await caas.patch("host_types", host_type["id"], {"interfaces": [{"name": "bmc", "role": "lifecycle"}]},
                              mask="interfaces", client=caas.admin)
    assert edited.status_code == 200, edited.text
    response = await caas.post("clusters", {"metadata": {"name": "g"}, "spec": {"template": "gpu"}})
    assert error(response) == (400, "host type 'gpu-box' of node set 'gpu' has no interface with role 'fabric'")


async def test_omitted_networking_needs_ready_defaults(caas: Caas) -> None:
    [subnet] = await caas.items("subnets", "this.metadata.tenant == 'acme'")
    await set_state(caas.admin, "subnets", subnet["id"], "SUBNET_STATE_PENDING")
    response = await caas.post("clusters", {"metadata": {"name": "c"}, "spec": {"template": "ocp-small"}})
    assert error(response) == (400, "Default networking is not ready: Subnet 'default' is PENDING")


async def test_tenant_without_defaults_must_name_a_subnet(caas: Caas) -> None:
    [vn] = await caas.items("virtual_networks", "this.metadata.tenant == 'acme'")
    await caas.admin.request("PATCH", f"{PRIVATE}/virtual_networks/{vn['id']}", params={"update_mask": "metadata.labels"},
                             json={"metadata": {"labels": {}}})
    response = await caas.post("clusters", {"metadata": {"name": "c"}, "spec": {"template": "ocp-small"}})
    assert error(response) == (400, "No default networking resources available. Please contact your administrator.")


async def test_explicit_attachment_rules(caas: Caas) -> None:
    vn = await caas.create("virtual_networks", {"metadata": {"name": "apps"}, "spec": {"ipv4_cidr": "10.20.0.0/16"}})
    await caas.ready("virtual_networks", vn["id"])
    subnet = await caas.create("subnets", {"metadata": {"name": "apps"},
                                           "spec": {"virtual_network": "apps", "ipv4_cidr": "10.20.1.0/24"}})
    web = await caas.create("security_groups", {"metadata": {"name": "web"}, "spec": {"virtual_network": "apps"}})

    pending_subnet = await caas.post("clusters", {"metadata": {"name": "c"}, "spec": {
        "template": "ocp-small", "network_attachment": {"subnet": "apps"}}})
    assert error(pending_subnet) == (400, "Subnet 'apps' is not READY (state SUBNET_STATE_PENDING)")
    await caas.ready("subnets", subnet["id"])

    foreign_sg = await caas.post("clusters", {"metadata": {"name": "c"}, "spec": {
        "template": "ocp-small", "network_attachment": {"subnet": "apps", "security_groups": ["default"]}}})
    assert error(foreign_sg) == (400, "spec.network_attachment.security_groups[0]: SecurityGroup 'default' is not in "
                                      "VirtualNetwork 'apps'")
    pending_sg = await caas.post("clusters", {"metadata": {"name": "c"}, "spec": {
        "template": "ocp-small", "network_attachment": {"subnet": "apps", "security_groups": ["web"]}}})
    assert error(pending_sg) == (400, "SecurityGroup 'web' is not READY (state SECURITY_GROUP_STATE_PENDING)")
    await caas.ready("security_groups", web["id"])

    # Outside the default VN an attachment without groups stays deny-all; the explicit subnet stays.
    bare = await caas.cluster("bare", network_attachment={"subnet": "apps"})
    assert bare["spec"]["network_attachment"] == {"subnet": subnet["id"]}
    shielded = await caas.cluster("shielded", network_attachment={"subnet": "apps", "security_groups": ["web"]})
    assert shielded["spec"]["network_attachment"] == {"subnet": subnet["id"], "security_groups": [web["id"]]}
    # In the default VN the default group is filled in.
    [default_sg] = await caas.items("security_groups", "this.metadata.tenant == 'acme' && this.metadata.name == 'default'")
    [default_subnet] = await caas.items("subnets", "this.metadata.tenant == 'acme' && this.metadata.name == 'default'")
    filled = await caas.cluster("filled", network_attachment={"subnet": default_subnet["id"]})
    assert filled["spec"]["network_attachment"]["security_groups"] == [default_sg["id"]]


async def test_a_class_without_kubernetes_manager_cannot_host_clusters(caas: Caas) -> None:
    metal = await caas.create("network_classes", {"metadata": {"name": "metal"}, "title": "Metal",
                                                  "fabric_manager": "sim-fabric"}, client=caas.admin, private=True)
    await caas.ready("network_classes", metal["id"])
    vn = await caas.create("virtual_networks", {"metadata": {"name": "metal"},
                                                "spec": {"ipv4_cidr": "10.30.0.0/16", "network_class": "metal"}})
    await caas.ready("virtual_networks", vn["id"])
    subnet = await caas.create("subnets", {"metadata": {"name": "metal"},
                                           "spec": {"virtual_network": "metal", "ipv4_cidr": "10.30.1.0/24"}})
    await caas.ready("subnets", subnet["id"])
    response = await caas.post("clusters", {"metadata": {"name": "c"}, "spec": {
        "template": "ocp-small", "network_attachment": {"subnet": "metal"}}})
    assert error(response) == (400, "Clusters are not supported in this deployment: NetworkClass 'metal' has no "
                                    "Kubernetes network manager")
