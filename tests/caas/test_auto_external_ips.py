"""``auto_external_ip_attachment`` on a cluster (networking.md §8, §12; api.md §2.3, §2.4): two
ExternalIPs and two attachments (API, INGRESS) are created with the cluster, in its transaction,
labelled for it; without capacity for both, nothing at all is stored."""

from __future__ import annotations

from tests.caas.conftest import Caas, error
from tests.support.networking import PUBLIC, set_state
from tests.support.watching import outbox_after

AUTO = "osac.openshift.io/auto-provisioned"
AUTO_FOR = "osac.openshift.io/auto-provisioned-for"


async def test_two_external_ips_and_attachments_come_with_the_cluster(caas: Caas) -> None:
    before = await caas.revision()
    cluster = await caas.cluster(auto_external_ip_attachment=True)
    cluster_id = cluster["id"]
    labels = {AUTO: "true", AUTO_FOR: cluster_id}

    eips = await caas.items("external_ips", f"this.metadata.labels['{AUTO_FOR}'] == '{cluster_id}'")
    assert [e["metadata"]["name"] for e in eips] == [f"auto-{cluster_id}-api", f"auto-{cluster_id}-ingress"]
    for eip in eips:
        assert eip["metadata"]["labels"] == labels
        assert (eip["metadata"]["tenant"], eip["metadata"]["creator"]) == ("acme", "system")
        assert eip["status"]["state"] == "EXTERNAL_IP_STATE_PENDING"
        assert eip["status"]["address"].startswith("203.0.113.")
    attachments = await caas.items("external_ip_attachments", f"this.spec.cluster == '{cluster_id}'")
    assert [(a["metadata"]["name"], a["spec"]["external_ip"], a["spec"]["target_endpoint"]) for a in attachments] == [
        (f"auto-{cluster_id}-api", eips[0]["id"], "EXTERNAL_IP_ATTACHMENT_ENDPOINT_API"),
        (f"auto-{cluster_id}-ingress", eips[1]["id"], "EXTERNAL_IP_ATTACHMENT_ENDPOINT_INGRESS"),
    ]
    for attachment, eip in zip(attachments, eips, strict=True):
        assert attachment["metadata"]["labels"] == labels
        assert (attachment["status"]["state"], attachment["status"]["reason"]) == (
            "EXTERNAL_IP_ATTACHMENT_STATE_PENDING", "WaitingForIPAddress")
        assert attachment["status"]["external_ip_address"] == eip["status"]["address"]

    private = (await caas.get("clusters", cluster_id)).json()
    assert private["metadata"]["finalizers"] == ["osac.openshift.io/auto-provisioned-cleanup"]
    assert "finalizers" not in cluster["metadata"]  # private field, not in the public response

    events = (await caas.alice.request("GET", f"{PUBLIC}/lifecycle_events",
                                       params={"filter": f"this.object_id == '{cluster_id}'"})).json()["items"]
    [auto] = [e for e in events if e["reason"] == "AutoExternalIPCreated"]
    assert eips[0]["status"]["address"] in auto["message"] and eips[1]["status"]["address"] in auto["message"]

    written = [(revision, kind) for revision, _, kind in await outbox_after(caas.server.app, before)]
    revisions = [revision for revision, _ in written]
    assert revisions == list(range(revisions[0], revisions[0] + len(revisions)))  # one transaction
    kinds = [kind for _, kind in written]
    assert kinds.count("cluster") == 1 and kinds.count("external_ip") == 2
    assert kinds.count("external_ip_attachment") == 2 and kinds.index("cluster") < kinds.index("external_ip")


async def test_without_capacity_for_both_addresses_nothing_is_stored(caas: Caas) -> None:
    [public] = await caas.items("external_ip_pools", "this.metadata.name == 'public-v4'")
    await set_state(caas.admin, "external_ip_pools", public["id"], "EXTERNAL_IP_POOL_STATE_PENDING")
    one = await caas.create("external_ip_pools", {"metadata": {"name": "one"},
                                                  "spec": {"cidrs": ["198.51.100.7/32"], "ip_family": "IP_FAMILY_IPV4"}},
                            client=caas.admin, private=True)
    await caas.ready("external_ip_pools", one["id"])
    [subnet] = await caas.items("subnets", "this.metadata.tenant == 'acme'")
    before = await caas.revision()

    response = await caas.post("clusters", {"metadata": {"name": "exposed"},
                                            "spec": {"template": "ocp-small", "auto_external_ip_attachment": True}})
    assert error(response) == (429, "ExternalIPPool exhaustion: no available capacity in any READY pool for IPv4")
    assert await caas.revision() == before  # no change event at all
    assert await caas.items("clusters") == []
    assert await caas.items("external_ips", "this.metadata.name.startsWith('auto-')") == []
    assert await caas.items("external_ip_attachments") == []
    [pool] = await caas.items("external_ip_pools", "this.metadata.name == 'one'")
    assert (pool["status"].get("allocated", "0"), pool["status"]["available"]) == ("0", "1")
    [unchanged] = await caas.items("subnets", f"this.id == '{subnet['id']}'")
    assert unchanged["status"]["available_addresses"] == subnet["status"]["available_addresses"]
    # The same cluster without external access fits.
    assert (await caas.cluster("exposed"))["spec"].get("auto_external_ip_attachment") is None
