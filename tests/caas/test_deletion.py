"""Deleting clusters (api.md §2.6; cluster-status.md §3, §10; networking.md §10): the state is
the derivation's, so Delete only marks the cluster; a recorded teardown failure is cleared by
Delete again or a private Signal so the derivation resumes teardown; a provisioning failure
stays until deletion."""

from __future__ import annotations

from typing import Any

from osac.api.private.v1 import cluster_type_pb2 as pb
from tests.caas.conftest import Caas
from tests.support.networking import PRIVATE, PUBLIC

FAILED = pb.CLUSTER_CONDITION_TYPE_FAILED


def _fail(state: int, reason: str, message: str) -> Any:
    """What the derivation writes for a terminal provider error."""

    def change(cluster: Any) -> None:
        cluster.status.state = state
        for condition in cluster.status.conditions:
            if condition.type == FAILED:
                condition.status = 1
                condition.reason = reason
                condition.message = message

    return change


def _failed_condition(cluster: dict[str, Any]) -> dict[str, Any]:
    [condition] = [c for c in cluster["status"]["conditions"] if c["type"] == "CLUSTER_CONDITION_TYPE_FAILED"]
    return condition


async def _held_cluster(caas: Caas) -> dict[str, Any]:
    """A cluster whose reconciler holds it with its finalizer (teardown not finished)."""
    cluster = await caas.cluster()
    held = await caas.patch("clusters", cluster["id"], {"metadata": {"finalizers": ["fulfillment-controller"]}},
                            mask="metadata.finalizers", client=caas.admin, private=True)
    assert held.status_code == 200, held.text
    return dict(held.json())


async def test_delete_writes_deleting_and_the_first_teardown_stage_at_once(caas: Caas) -> None:
    """Scenario 9 "at once": the Delete transaction itself writes DELETING, stage
    DestroyingCloudResources and the ``Deleting`` event; no reconciler runs here."""
    cluster = await _held_cluster(caas)
    assert (await caas.alice.request("DELETE", f"{PUBLIC}/clusters/{cluster['id']}")).status_code == 200
    marked = (await caas.get("clusters", cluster["id"], private=False)).json()
    assert "deletion_timestamp" in marked["metadata"]
    status = marked["status"]
    assert (status["state"], status["stage"]) == ("CLUSTER_STATE_DELETING", "DestroyingCloudResources")
    assert status["state_transition_time"] == status["stage_entered_at"] == marked["metadata"]["deletion_timestamp"]
    conditions = {c["type"].removeprefix("CLUSTER_CONDITION_TYPE_"): (c["status"].removeprefix("CONDITION_STATUS_"), c["reason"])
                  for c in status["conditions"]}
    assert conditions["PROGRESSING"] == ("TRUE", "DestroyingCloudResources")
    assert conditions["AVAILABLE"] == ("FALSE", "Deleting")
    assert conditions["FAILED"] == ("FALSE", "AsExpected")
    page = (await caas.alice.request("GET", f"{PUBLIC}/lifecycle_events",
                                     params={"filter": f"this.object_id == '{cluster['id']}'"})).json()
    assert [(e["reason"], e["message"]) for e in page["items"]][-2:] == [
        ("StageChanged", "PreparingInfrastructure → DestroyingCloudResources"), ("Deleting", "Deletion requested; tearing the cluster down")]
    refused = await caas.patch("clusters", cluster["id"], {"spec": {"node_sets": {"workers": {"size": 5}}}},
                               mask="spec.node_sets")
    assert refused.status_code == 400 and refused.json()["message"] == "Cluster 'prod': object is being deleted"


async def test_delete_again_clears_a_teardown_failure(caas: Caas) -> None:
    cluster = await _held_cluster(caas)
    await caas.alice.request("DELETE", f"{PUBLIC}/clusters/{cluster['id']}")
    await caas.write_status(cluster["id"], _fail(pb.CLUSTER_STATE_DELETE_FAILED, "TeardownFailed",
                                                 "delete_hosted_cluster: permission denied"))
    failed = (await caas.get("clusters", cluster["id"])).json()
    assert failed["status"]["state"] == "CLUSTER_STATE_DELETE_FAILED"

    assert (await caas.alice.request("DELETE", f"{PUBLIC}/clusters/{cluster['id']}")).status_code == 200
    resumed = (await caas.get("clusters", cluster["id"])).json()
    condition = _failed_condition(resumed)
    assert (condition["status"], condition["reason"]) == ("CONDITION_STATUS_FALSE", "TeardownRestarted")
    assert condition["message"] == "teardown restarted by Delete after: delete_hosted_cluster: permission denied"
    assert resumed["status"]["state"] == "CLUSTER_STATE_DELETE_FAILED"  # the derivation moves it to DELETING
    assert resumed["metadata"]["version"] == failed["metadata"]["version"] + 1

    # Nothing recorded any more: a further Delete changes nothing.
    assert (await caas.alice.request("DELETE", f"{PUBLIC}/clusters/{cluster['id']}")).status_code == 200
    assert (await caas.get("clusters", cluster["id"])).json()["metadata"]["version"] == resumed["metadata"]["version"]


async def test_signal_clears_a_teardown_failure_but_not_a_provisioning_failure(caas: Caas) -> None:
    cluster = await _held_cluster(caas)
    await caas.write_status(cluster["id"], _fail(pb.CLUSTER_STATE_FAILED, "ProvisioningFailed", "invalid release image"))
    signal = f"{PRIVATE}/clusters/{cluster['id']}/signal"
    assert (await caas.admin.request("POST", signal)).status_code == 200
    still = (await caas.get("clusters", cluster["id"])).json()
    assert still["status"]["state"] == "CLUSTER_STATE_FAILED" and _failed_condition(still)["reason"] == "ProvisioningFailed"

    await caas.alice.request("DELETE", f"{PUBLIC}/clusters/{cluster['id']}")
    await caas.write_status(cluster["id"], _fail(pb.CLUSTER_STATE_DELETE_FAILED, "TeardownFailed", "port stuck"))
    assert (await caas.admin.request("POST", signal)).status_code == 200
    resumed = (await caas.get("clusters", cluster["id"])).json()
    assert _failed_condition(resumed)["message"] == "teardown restarted by Signal after: port stuck"


async def test_the_last_finalizer_archives_the_cluster_and_frees_its_addresses(caas: Caas) -> None:
    cluster = await _held_cluster(caas)
    await caas.alice.request("DELETE", f"{PUBLIC}/clusters/{cluster['id']}")
    [subnet] = await caas.items("subnets", "this.metadata.tenant == 'acme'")

    def teardown_complete(stored: Any) -> None:
        stored.status.state = pb.CLUSTER_STATE_DELETING
        del stored.metadata.finalizers[:]

    await caas.write_status(cluster["id"], teardown_complete)
    assert (await caas.get("clusters", cluster["id"])).status_code == 404
    [after] = await caas.items("subnets", f"this.id == '{subnet['id']}'")
    assert after["status"]["available_addresses"] == subnet["status"]["available_addresses"] + 3
    again = await caas.cluster("prod")  # the name is free and the addresses are reused
    assert again["id"] != cluster["id"]


async def test_a_delete_gate_names_every_kind_of_dependent(caas: Caas) -> None:
    """Issue 17 item 8: a subnet used by a cluster and a VM, and a tenant holding both, name
    both kinds with their counts and names."""
    await caas.cluster("c6")
    await caas.create("compute_instances", {"metadata": {"name": "web1"}, "spec": {"template": "fedora"}})
    [subnet] = await caas.items("subnets", "this.metadata.tenant == 'acme'")
    blocked = await caas.alice.request("DELETE", f"{PUBLIC}/subnets/{subnet['id']}")
    assert (blocked.status_code, blocked.json()["message"]) == (400, (
        "cannot delete Subnet 'default': 1 Cluster(s) still reference it: c6; and 1 ComputeInstance(s): web1"))
    [tenant] = [t for t in await caas.items("tenants") if t["metadata"]["name"] == "acme"]
    blocked = await caas.admin.request("DELETE", f"{PUBLIC}/tenants/{tenant['id']}")
    message = blocked.json()["message"]
    assert blocked.status_code == 400 and message.startswith("cannot delete Tenant 'acme': ")
    assert "1 Cluster(s)" in message and "c6" in message and "1 ComputeInstance(s)" in message and "web1" in message
