"""A cluster end to end through the reconciler and the simulated HyperShift (instant speed):
named stages, endpoints, node ports on the subnet segment, teardown with nothing left."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from typing import Any

from osac.controllers.clusters.cluster import ClusterReconciler
from osac.controllers.runtime.manager import ObjectKey, TransientError
from tests.caas.conftest import PULL_SECRET, RELEASE_IMAGE, ssh_key
from tests.support.cluster_lifecycle import PRIVATE, PUBLIC, archived, condition, event_reasons, live
from tests.support.onboarding import wait_for

__all__ = ["live"]


async def test_cluster_provisions_through_named_stages_and_tears_down_cleanly(live) -> None:
    server, admin, alice = live
    body = {"metadata": {"name": "prod"},
            "spec": {"template": "ocp-small", "release_image": RELEASE_IMAGE, "pull_secret": PULL_SECRET,
                     "ssh_public_key": ssh_key(), "auto_external_ip_attachment": True}}
    response = await alice.request("POST", f"{PUBLIC}/clusters", json=body)
    assert response.status_code == 200, response.text
    created = response.json()
    assert created["status"]["state"] == "CLUSTER_STATE_PROGRESSING"
    assert created["status"]["stage"] == "PreparingInfrastructure"
    path = f"{PUBLIC}/clusters/{created['id']}"

    ready = await wait_for(alice, path, lambda c: c["status"]["state"] == "CLUSTER_STATE_READY", timeout=60)
    status = ready["status"]
    assert status.get("stage", "") == ""
    assert condition(ready, "AVAILABLE")["status"] == "CONDITION_STATUS_TRUE"
    assert condition(ready, "CONTROL_PLANE_AVAILABLE")["reason"] == "Available"
    assert condition(ready, "WORKERS_READY")["reason"] == "Ready"
    assert status["api_url"] == f"https://{status['api_endpoint']}:6443"
    assert status["console_url"].startswith("https://console-openshift-console.apps.")
    [(key, node_set)] = status["node_sets"].items()
    assert (key, node_set["current_replicas"], node_set["ready_replicas"], node_set["state"]) == (
        "workers", 3, 3, "CLUSTER_NODE_SET_STATE_READY")

    reasons = await event_reasons(alice, created["id"])
    assert [r for r in reasons if r == "StageChanged"] == ["StageChanged"] * 3
    for once in ("VIPsDiscovered", "ControlPlaneAvailable", "WorkersReady", "ClusterReady"):
        assert reasons.count(once) == 1, reasons

    # The worker ports sit on the cluster subnet's segment in the simulated fabric.
    subnet = (await alice.request("GET", f"{PUBLIC}/subnets/{ready['spec']['network_attachment']['subnet']}")).json()
    fabric = (await admin.request("POST", f"{PRIVATE}/simulator/get_observation",
                                  json={"kind": "fabric", "key": subnet["spec"]["virtual_network"]})).json()["observation"]
    node_ports = [p for p in fabric["ports"] if p["host_name"].startswith(f"node/{created['id']}/")]
    assert len(node_ports) == 3 and {p["segment"] for p in node_ports} == {subnet["id"]}

    # Automatic external access: both endpoints DNAT'ed once they exist.
    attachments = await wait_for(
        alice, f"{PUBLIC}/external_ip_attachments",
        lambda page: len([a for a in page["items"] if a["status"].get("state") == "EXTERNAL_IP_ATTACHMENT_STATE_READY"]) == 2)
    targets = sorted(a["status"]["target_address"] for a in attachments["items"])
    assert targets == sorted([status["api_endpoint"], status["ingress_endpoint"]])

    kubeconfig = await alice.request("GET", f"{path}/kubeconfig")
    assert kubeconfig.status_code == 200 and status["api_endpoint"] in kubeconfig.text

    # Deletion stays visible until teardown is complete, then nothing is left.
    assert (await alice.request("DELETE", path)).status_code == 200
    deleting = await wait_for(alice, path, lambda c: c["status"]["state"] == "CLUSTER_STATE_DELETING")
    assert deleting["status"]["stage"] in ("DestroyingCloudResources", "DestroyingControlPlane")
    await archived(alice, path)
    reasons = await event_reasons(alice, created["id"])
    assert reasons.count("Deleting") == 1 and reasons[-1] == "TeardownComplete"
    for collection in ("external_ip_attachments", "external_ips"):
        items = (await alice.request("GET", f"{PUBLIC}/{collection}")).json()["items"]
        assert [i for i in items if i["metadata"].get("labels", {}).get("osac.openshift.io/auto-provisioned-for")] == []
    fabric = (await admin.request("POST", f"{PRIVATE}/simulator/get_observation",
                                  json={"kind": "fabric", "key": subnet["spec"]["virtual_network"]})).json()["observation"]
    assert [p for p in fabric["ports"] if p["host_name"].startswith(f"node/{created['id']}/")] == []
    assert fabric.get("dnat", []) == []


async def test_credentials_wait_for_the_control_plane(caas) -> None:
    cluster = await caas.cluster("prod")
    for name in ("kubeconfig", "password"):
        response = await caas.alice.request("GET", f"{PUBLIC}/clusters/{cluster['id']}/{name}")
        assert response.status_code == 400
        assert response.json()["message"] == (
            f"Cluster 'prod': the control plane has not been available yet; the {name} is served once it is")


async def test_replays_concurrent_reconcilers_and_a_resync_add_no_events(live) -> None:
    """Scenario 18: once READY, 100 replays of the same observation, two reconcilers running side
    by side and a forced resync (Signal) leave the event list and the stored version as they were."""
    server, admin, alice = live
    body = {"metadata": {"name": "steady"}, "spec": {"template": "ocp-small", "release_image": RELEASE_IMAGE}}
    created = (await alice.request("POST", f"{PUBLIC}/clusters", json=body)).json()
    path = f"{PUBLIC}/clusters/{created['id']}"
    await wait_for(alice, path, lambda c: c["status"]["state"] == "CLUSTER_STATE_READY", timeout=60)
    manager = server.app.controllers
    await manager.wait_idle()
    settled = (await alice.request("GET", path)).json()
    events = await event_reasons(alice, created["id"])
    for once in ("NetworkAttachmentsPopulated", "VIPsDiscovered", "ControlPlaneAvailable", "WorkersReady", "ClusterReady"):
        assert events.count(once) == 1, events

    reconciler = manager.controllers["cluster"].reconciler
    assert isinstance(reconciler, ClusterReconciler)
    key = ObjectKey("cluster", created["id"])
    for _ in range(100):
        await reconciler.reconcile(key)
    twin = ClusterReconciler(server.app.services, reconciler.context)
    for _ in range(10):
        await asyncio.gather(reconciler.reconcile(key), twin.reconcile(key))
    assert (await admin.request("POST", f"{PRIVATE}/clusters/{created['id']}/signal", json={})).status_code == 200
    await manager.wait_idle()

    assert await event_reasons(alice, created["id"]) == events
    again = (await alice.request("GET", path)).json()
    assert again["metadata"]["version"] == settled["metadata"]["version"]
    assert again["status"] == settled["status"]


class _CountingProvider:
    """The server's cluster provider, counting the calls that create or change something."""

    def __init__(self, provider: Any) -> None:
        self.provider = provider
        self.applies: list[str] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.provider, name)

    async def apply_hosted_cluster(self, cluster_id: str, spec: Any) -> None:
        self.applies.append("HostedCluster")
        await self.provider.apply_hosted_cluster(cluster_id, spec)

    async def apply_node_pool(self, cluster_id: str, key: str, spec: Any) -> None:
        self.applies.append(f"NodePool {key}={spec.replicas}")
        await self.provider.apply_node_pool(cluster_id, key, spec)


async def test_a_settled_cluster_is_observed_again_but_applied_only_when_its_spec_changes(live) -> None:
    server, admin, alice = live
    body = {"metadata": {"name": "steady"}, "spec": {"template": "ocp-small", "release_image": RELEASE_IMAGE}}
    created = (await alice.request("POST", f"{PUBLIC}/clusters", json=body)).json()
    path = f"{PUBLIC}/clusters/{created['id']}"
    await wait_for(alice, path, lambda c: c["status"]["state"] == "CLUSTER_STATE_READY", timeout=60)
    served = server.app.controllers.controllers["cluster"].reconciler
    assert isinstance(served, ClusterReconciler)
    counting = _CountingProvider(served.provider)
    context = dataclasses.replace(served.context, provider=counting)
    reconciler = ClusterReconciler(server.app.services, context)
    key = ObjectKey("cluster", created["id"])

    async def passes(count: int) -> None:
        for _ in range(count):
            with contextlib.suppress(TransientError):  # the server's own reconciler acts on it meanwhile
                await reconciler.reconcile(key)

    await passes(20)
    assert counting.applies == ["HostedCluster", "NodePool workers=3"]  # the first pass of this reconciler

    patch = {"spec": {"node_sets": {"workers": {"host_type": "vm-standard", "size": 4}}}}
    response = await alice.request("PATCH", path, params={"update_mask": "spec.node_sets"}, json=patch)
    assert response.status_code == 200, response.text
    await passes(5)
    assert counting.applies[2:4] == ["HostedCluster", "NodePool workers=4"]
