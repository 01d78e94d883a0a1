"""Cluster Update (api.md §2.5, §11.6; cluster-status.md §8.1, §12, §19): node sets are resized,
added and removed under the template's rules; immutable fields stay; the pull secret is
write-only; status input is ignored from every API caller."""

from __future__ import annotations

from typing import Any

import pytest

from osac.auth.subject import Role
from tests.caas.conftest import PULL_SECRET, RELEASE_IMAGE, Caas, error

MASK = "spec.node_sets"


async def _two_set_cluster(caas: Caas) -> dict[str, Any]:
    response = await caas.template("two-sets", {
        "node_sets": {"workers": {"host_type": "vm-standard", "size": 2}, "metal": {"host_type": "bm-standard", "size": 1}},
        "spec_defaults": {"release_image": RELEASE_IMAGE}})
    assert response.status_code == 200, response.text
    return await caas.cluster(template="two-sets", node_sets={"workers": {"size": 2}})


async def test_node_sets_are_resized_added_and_removed(caas: Caas) -> None:
    cluster = await _two_set_cluster(caas)
    workers = cluster["spec"]["node_sets"]["workers"]
    assert list(cluster["spec"]["node_sets"]) == ["workers"]

    added = await caas.patch("clusters", cluster["id"], {"spec": {"node_sets": {
        "workers": {"size": 0}, "metal": {"size": 2}}}}, mask=MASK)
    assert added.status_code == 200, added.text
    [bm] = await caas.items("host_types", "this.metadata.name == 'bm-standard'")
    assert added.json()["spec"]["node_sets"] == {
        "workers": {"host_type": workers["host_type"], "fabric_interface": "nic-0"},  # size 0: omitted in JSON
        "metal": {"host_type": bm["id"], "size": 2, "fabric_interface": "ens1f0"},
    }
    # The status node sets are the derivation's: an Update does not touch them.
    assert added.json()["status"]["node_sets"] == cluster["status"]["node_sets"]

    removed = await caas.patch("clusters", cluster["id"], {"spec": {"node_sets": {"metal": {"size": 2}}}}, mask=MASK)
    assert removed.status_code == 200, removed.text
    assert list(removed.json()["spec"]["node_sets"]) == ["metal"]


@pytest.mark.parametrize(("node_sets", "message"), [
    ({}, "spec.node_sets: a cluster keeps at least one node set; delete the cluster to remove them all"),
    ({"workers": {"size": -1}}, "spec.node_sets['workers'].size: must not be negative, got -1"),
    ({"workers": {"size": 2, "host_type": "bm-standard"}}, "spec.node_sets['workers'].host_type is immutable"),
    ({"workers": {"size": 2}, "gpu": {"size": 1}},
     "spec.node_sets['gpu']: ClusterTemplate 'two-sets' has no node set 'gpu'; its node sets are 'metal', 'workers'"),
    ({"workers": {"size": 2}, "metal": {"size": 1, "host_type": "vm-standard"}},
     "spec.node_sets['metal'].host_type: ClusterTemplate 'two-sets' gives node set 'metal' host type 'bm-standard'; "
     "omit host_type or use 'bm-standard' (got 'vm-standard')"),
], ids=["none left", "negative", "host type changed", "not in template", "added with another host type"])
async def test_invalid_node_set_updates_are_refused(caas: Caas, node_sets: dict[str, Any], message: str) -> None:
    cluster = await _two_set_cluster(caas)
    response = await caas.patch("clusters", cluster["id"], {"spec": {"node_sets": node_sets}}, mask=MASK)
    assert error(response) == (400, message)


@pytest.mark.parametrize(("body", "path"), [
    ({"spec": {"release_image": "quay.io/openshift-release-dev/ocp-release:4.18.0-x86_64"}}, "spec.release_image"),
    ({"spec": {"template": "two-sets"}}, "spec.template"),
    ({"spec": {"auto_external_ip_attachment": True}}, "spec.auto_external_ip_attachment"),
    ({"spec": {"catalog_item": "gold"}}, "spec.catalog_item"),
    ({"spec": {"network": {"pod_cidr": "10.200.0.0/16", "service_cidr": "172.30.0.0/16"}}}, "spec.network"),
], ids=["release image", "template", "auto external", "catalog item", "network"])
async def test_immutable_fields_cannot_change(caas: Caas, body: dict[str, Any], path: str) -> None:
    await _two_set_cluster(caas)
    cluster = await caas.cluster("other")
    response = await caas.patch("clusters", cluster["id"], body, mask=path)
    assert error(response) == (400, f"{path} is immutable")


async def test_subnet_is_immutable_and_security_groups_are_checked(caas: Caas) -> None:
    cluster = await caas.cluster()
    [default_sg] = await caas.items("security_groups", "this.metadata.tenant == 'acme'")
    apps = await caas.create("virtual_networks", {"metadata": {"name": "apps"}, "spec": {"ipv4_cidr": "10.9.0.0/16"}})
    await caas.ready("virtual_networks", apps["id"])
    other = await caas.create("subnets", {"metadata": {"name": "other"},
                                          "spec": {"virtual_network": "apps", "ipv4_cidr": "10.9.1.0/24"}})
    await caas.ready("subnets", other["id"])
    moved = await caas.patch("clusters", cluster["id"], {"spec": {"network_attachment": {"subnet": "other"}}},
                             mask="spec.network_attachment.subnet")
    assert error(moved) == (400, "spec.network_attachment.subnet is immutable")
    web = await caas.create("security_groups", {"metadata": {"name": "web"},
                                                "spec": {"virtual_network": default_sg["spec"]["virtual_network"]}})
    path = "spec.network_attachment.security_groups"
    pending = await caas.patch("clusters", cluster["id"], {"spec": {"network_attachment": {"security_groups": ["web"]}}},
                               mask=path)
    assert error(pending) == (400, "SecurityGroup 'web' is not READY (state SECURITY_GROUP_STATE_PENDING)")
    await caas.ready("security_groups", web["id"])
    both = await caas.patch("clusters", cluster["id"], {"spec": {"network_attachment": {
        "security_groups": [default_sg["id"], "web"]}}}, mask=path)
    assert both.status_code == 200, both.text
    assert both.json()["spec"]["network_attachment"]["security_groups"] == [default_sg["id"], web["id"]]
    emptied = await caas.patch("clusters", cluster["id"], {"spec": {"network_attachment": {"security_groups": []}}},
                               mask=path)
    assert emptied.json()["spec"]["network_attachment"]["security_groups"] == [default_sg["id"]]  # default VN: §6.4
    foreign = await caas.create("security_groups", {"metadata": {"name": "elsewhere"},
                                                    "spec": {"virtual_network": "apps"}})
    refused = await caas.patch("clusters", cluster["id"], {"spec": {"network_attachment": {
        "security_groups": [foreign["id"]]}}}, mask=path)
    assert error(refused) == (400, "spec.network_attachment.security_groups[0]: SecurityGroup 'elsewhere' is not in "
                                   "VirtualNetwork 'default'")


async def test_pull_secret_is_write_only(caas: Caas) -> None:
    cluster = await caas.cluster(pull_secret=PULL_SECRET)
    assert cluster["spec"]["pull_secret"] == "***"
    for private in (False, True):
        assert (await caas.get("clusters", cluster["id"], private=private)).json()["spec"]["pull_secret"] == "***"
    listed = (await caas.alice.request("GET", "/api/fulfillment/v1/clusters")).json()["items"]
    assert [item["spec"]["pull_secret"] for item in listed] == ["***"]
    stored = await caas.stored(cluster["id"])
    assert stored is not None and stored.spec.pull_secret == PULL_SECRET  # type: ignore[attr-defined]

    echoed = await caas.patch("clusters", cluster["id"], {"spec": {"pull_secret": "***"}}, mask="spec.pull_secret")
    assert echoed.status_code == 200 and echoed.json()["metadata"].get("version", 0) == 0  # nothing changed
    rotated = json_secret = '{"auths": {"registry.example.net": {"auth": "b3RoZXI6c2VjcmV0"}}}'
    changed = await caas.patch("clusters", cluster["id"], {"spec": {"pull_secret": rotated}}, mask="spec.pull_secret")
    assert changed.json()["spec"]["pull_secret"] == "***" and changed.json()["metadata"]["version"] == 1
    assert (await caas.stored(cluster["id"])).spec.pull_secret == json_secret  # type: ignore[union-attr]
    bad = await caas.patch("clusters", cluster["id"], {"spec": {"pull_secret": "plain"}}, mask="spec.pull_secret")
    assert error(bad)[1].startswith("spec.pull_secret: not a registry pull secret")
    masked_input = await caas.cluster("masked", pull_secret="***")
    assert "pull_secret" not in masked_input["spec"]


@pytest.mark.parametrize("condition", [
    "this.spec.pull_secret == 'x'",
    "this.spec.pull_secret.startsWith('{')",
    "has(this.spec.pull_secret)",
])
async def test_a_write_only_field_cannot_be_filtered_on(caas: Caas, condition: str) -> None:
    """A filter on the pull secret would reveal it one guess at a time: refused everywhere."""
    await caas.cluster(pull_secret=PULL_SECRET)
    for client, prefix in ((caas.alice, "/api/fulfillment/v1"), (caas.admin, "/api/private/v1")):
        listed = await client.request("GET", f"{prefix}/clusters", params={"filter": condition})
        assert error(listed) == (400, "filter: field 'spec.pull_secret' is write-only and cannot be filtered on")
    watch_filter = condition.replace("this.", "event.cluster.")
    for client, path in ((caas.alice, "/api/events/v1/events"), (caas.admin, "/api/private/v1/events/watch")):
        watched = await client.request("GET", path, params={"filter": watch_filter})
        assert error(watched) == (400, "filter: field 'event.cluster.spec.pull_secret' is write-only and cannot be filtered on")
    names = await caas.alice.request("GET", "/api/fulfillment/v1/clusters", params={"filter": "has(this.spec.template)"})
    assert [item["metadata"]["name"] for item in names.json()["items"]] == ["prod"]


async def test_status_input_is_ignored_from_every_api_caller(caas: Caas) -> None:
    cluster = await caas.cluster()
    forged = {"status": {"state": "CLUSTER_STATE_READY", "stage": "", "api_url": "https://evil:6443",
                         "conditions": [{"type": "CLUSTER_CONDITION_TYPE_AVAILABLE", "status": "CONDITION_STATUS_TRUE"}],
                         "node_sets": {"workers": {"state": "CLUSTER_NODE_SET_STATE_READY", "ready_replicas": 3}}}}
    for private, mask in ((False, None), (True, None), (True, "status.state"), (True, "status")):
        response = await caas.patch("clusters", cluster["id"], forged, mask=mask, private=private,
                                    client=caas.admin if private else caas.alice)
        assert response.status_code == 200, response.text
    stored = (await caas.get("clusters", cluster["id"])).json()
    assert stored["status"] == cluster["status"] and stored["metadata"].get("version", 0) == 0

    created = await caas.create("clusters", {"metadata": {"name": "forged", "tenant": "acme"},
                                             "spec": {"template": "ocp-small"}, **forged},
                                client=caas.admin, private=True)
    assert created["status"]["state"] == "CLUSTER_STATE_PROGRESSING" and "api_url" not in created["status"]
    assert created["status"]["node_sets"]["workers"]["state"] == "CLUSTER_NODE_SET_STATE_PROVISIONING"


async def test_an_old_writer_keeps_newer_status_fields(caas: Caas) -> None:
    """Scenario 20: an old writer knowing conditions 1–4 does Get → edit spec → Update without a
    mask; conditions 5, 6, an unknown type 7, the stage fields and an unknown node-set state
    survive; unknown numbers are shown raw."""
    cluster = await caas.cluster()

    def future(status_holder: Any) -> None:
        status = status_holder.status
        status.conditions.add(type=7, status=1, reason="FromTheFuture", message="added by a newer version")
        status.node_sets["workers"].state = 9

    await caas.write_status(cluster["id"], future)
    before = (await caas.get("clusters", cluster["id"])).json()
    assert before["status"]["conditions"][-1]["type"] == 7
    assert before["status"]["node_sets"]["workers"]["state"] == 9

    for service, token in (("osac.private.v1.Clusters", caas.server.token(Role.PROVIDER_ADMIN, user="root")),
                           ("osac.public.v1.Clusters", caas.server.token(Role.TENANT_ADMIN, ("acme",), user="alice"))):
        async with caas.server.grpc(token) as client:
            old = (await client.call(service, "Get", id=cluster["id"])).object  # type: ignore[attr-defined]
            known = [c for c in old.status.conditions if c.type <= 4]
            del old.status.conditions[:]
            old.status.conditions.extend(known)
            for field in ("stage", "stage_entered_at", "state_transition_time"):
                old.status.ClearField(field)
            old.status.node_sets["workers"].state = 0
            old.spec.node_sets["workers"].size += 1
            await client.call(service, "Update", object=old, lock=True)

    after = (await caas.get("clusters", cluster["id"])).json()
    assert after["spec"]["node_sets"]["workers"]["size"] == 5
    assert after["status"] == before["status"]
    assert [c["type"] for c in after["status"]["conditions"]][4:] == [
        "CLUSTER_CONDITION_TYPE_CONTROL_PLANE_AVAILABLE", "CLUSTER_CONDITION_TYPE_WORKERS_READY", 7]
    public = (await caas.get("clusters", cluster["id"], private=False)).json()
    assert public["status"]["conditions"][-1]["type"] == 7 and public["status"]["node_sets"]["workers"]["state"] == 9
