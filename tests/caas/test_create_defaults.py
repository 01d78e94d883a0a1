"""A cluster created with nothing but a template: everything it was given by default is stored in
its spec and returned, and its status is the first derivation's (api.md §2.4, §11.6;
networking.md §6.4, §7.3; cluster-status.md §3–§5, §8.1)."""

from __future__ import annotations

from tests.caas.conftest import RELEASE_IMAGE, Caas, ssh_key
from tests.support.networking import PRIVATE, PUBLIC

INITIAL_CONDITIONS = [
    ("CLUSTER_CONDITION_TYPE_PROGRESSING", "CONDITION_STATUS_TRUE", "PreparingInfrastructure"),
    ("CLUSTER_CONDITION_TYPE_AVAILABLE", "CONDITION_STATUS_FALSE", "Provisioning"),
    ("CLUSTER_CONDITION_TYPE_FAILED", "CONDITION_STATUS_FALSE", "AsExpected"),
    ("CLUSTER_CONDITION_TYPE_DEGRADED", "CONDITION_STATUS_FALSE", "AsExpected"),
    ("CLUSTER_CONDITION_TYPE_CONTROL_PLANE_AVAILABLE", "CONDITION_STATUS_FALSE", "NotYetAvailable"),
    ("CLUSTER_CONDITION_TYPE_WORKERS_READY", "CONDITION_STATUS_FALSE", "WaitingForControlPlane"),
]


async def _by_name(caas: Caas, collection: str, name: str, tenant: str = "acme") -> dict:
    [found] = await caas.items(collection, f"this.metadata.name == '{name}' && this.metadata.tenant == '{tenant}'")
    return found


async def test_template_and_tenant_defaults_are_stored_in_the_spec(caas: Caas) -> None:
    cluster = await caas.cluster()
    template = await _by_name(caas, "cluster_templates", "ocp-small", "shared")
    vm_standard = await _by_name(caas, "host_types", "vm-standard", "shared")
    subnet = await _by_name(caas, "subnets", "default")
    sg = await _by_name(caas, "security_groups", "default")
    spec = cluster["spec"]
    assert spec["template"] == template["id"]
    assert spec["node_sets"] == {"workers": {"host_type": vm_standard["id"], "size": 3, "fabric_interface": "nic-0"}}
    assert spec["release_image"] == RELEASE_IMAGE
    assert spec["network"] == {"pod_cidr": "10.128.0.0/14", "service_cidr": "172.30.0.0/16"}
    assert spec["network_attachment"] == {"subnet": subnet["id"], "security_groups": [sg["id"]]}
    assert "pull_secret" not in spec and "template_parameters" not in spec
    fetched = (await caas.get("clusters", cluster["id"], private=False)).json()
    assert fetched["spec"] == spec  # what Create returned is what Get returns

    events = (await caas.alice.request("GET", f"{PUBLIC}/lifecycle_events",
                                       params={"filter": f"this.object_id == '{cluster['id']}'"})).json()["items"]
    assert [(e["reason"], e["type"]) for e in events] == [
        ("NetworkAttachmentsPopulated", "LIFECYCLE_EVENT_TYPE_NORMAL"),
        ("StageChanged", "LIFECYCLE_EVENT_TYPE_NORMAL"),
    ]
    assert events[1]["message"] == '"" → PreparingInfrastructure'


async def test_the_first_derivation_is_the_initial_status(caas: Caas) -> None:
    cluster = await caas.cluster()
    created_at = cluster["metadata"]["creation_timestamp"]
    status = cluster["status"]
    assert status["state"] == "CLUSTER_STATE_PROGRESSING"
    assert status["state_transition_time"] == created_at
    assert status["stage"] == "PreparingInfrastructure"
    assert status["stage_entered_at"] == created_at
    assert [(c["type"], c["status"], c["reason"]) for c in status["conditions"]] == INITIAL_CONDITIONS
    assert {c["last_transition_time"] for c in status["conditions"]} == {created_at}
    assert status["node_sets"] == {"workers": {
        "host_type": cluster["spec"]["node_sets"]["workers"]["host_type"], "size": 3, "desired_replicas": 3,
        "fabric_interface": "nic-0", "state": "CLUSTER_NODE_SET_STATE_PROVISIONING"}}
    for absent in ("api_url", "console_url", "api_endpoint", "ingress_endpoint"):
        assert absent not in status
    private = (await caas.get("clusters", cluster["id"])).json()
    assert private["status"]["stage"] == "PreparingInfrastructure" and "hub" not in private["status"]


async def test_explicit_values_win_over_the_template(caas: Caas) -> None:
    key = ssh_key()
    cluster = await caas.cluster(
        ssh_public_key=key, release_image="quay.io/openshift-release-dev/ocp-release@sha256:" + "a" * 64,
        network={"pod_cidr": "10.200.0.0/16"}, catalog_item="ocp-gold",
        node_sets={"workers": {"size": 5}})
    spec = cluster["spec"]
    assert spec["ssh_public_key"] == key
    assert spec["release_image"].endswith("@sha256:" + "a" * 64)
    assert spec["network"] == {"pod_cidr": "10.200.0.0/16", "service_cidr": "172.30.0.0/16"}
    assert spec["catalog_item"] == "ocp-gold"
    assert spec["node_sets"]["workers"]["size"] == 5


async def test_bare_metal_node_sets_use_the_first_fabric_interface(caas: Caas) -> None:
    response = await caas.template("metal", {"node_sets": {
        "workers": {"host_type": "bm-standard", "size": 2}, "infra": {"host_type": "vm-standard", "size": 1}},
        "spec_defaults": {"release_image": RELEASE_IMAGE}})
    assert response.status_code == 200, response.text
    cluster = await caas.cluster(template="metal")
    interfaces = {key: entry["fabric_interface"] for key, entry in cluster["spec"]["node_sets"].items()}
    assert interfaces == {"workers": "ens1f0", "infra": "nic-0"}  # bm-standard: eno1 is lifecycle


async def test_template_parameters_are_checked_and_defaulted(caas: Caas) -> None:
    string = "type.googleapis.com/google.protobuf.StringValue"
    response = await caas.template("params", {
        "node_sets": {"workers": {"host_type": "vm-standard", "size": 1}},
        "spec_defaults": {"release_image": RELEASE_IMAGE},
        "parameters": [
            {"name": "region", "type": string, "required": True, "title": "Region"},
            {"name": "tier", "type": string, "default": {"@type": string, "value": "standard"}},
            {"name": "note", "type": string},
        ]})
    assert response.status_code == 200, response.text
    cluster = await caas.cluster(template="params", template_parameters={"region": {"@type": string, "value": "eu"}})
    assert cluster["spec"]["template_parameters"] == {
        "region": {"@type": string, "value": "eu"}, "tier": {"@type": string, "value": "standard"}}


async def test_dry_run_checks_everything_and_stores_nothing(caas: Caas) -> None:
    before = await caas.revision()
    response = await caas.alice.request("POST", f"{PUBLIC}/clusters", headers={"x-dry-run": "true"},
                                        json={"metadata": {"name": "try"}, "spec": {"template": "ocp-small",
                                                                                     "auto_external_ip_attachment": True}})
    assert response.status_code == 200, response.text
    assert "id" not in response.json() and response.json()["spec"]["node_sets"]["workers"]["size"] == 3
    assert await caas.revision() == before
    assert await caas.items("external_ips", "this.metadata.name.startsWith('auto-')") == []
    assert (await caas.admin.request("GET", f"{PRIVATE}/clusters")).json()["total"] == 0
