"""Automatic external access of instances (networking.md §8, §14 scenarios 34–35): the ExternalIP
and its attachment are created in the instance's Create transaction, labelled, or nothing at all."""

from __future__ import annotations

from typing import Any

from osac.services.networking.allocation_metrics import ALLOCATION_FAILURES
from osac.store import outbox
from tests.support.networking import find_by_name, set_state
from tests.support.watching import outbox_after
from tests.workloads.conftest import BMS, VMS, Workloads, failure

AUTO = "osac.openshift.io/auto-provisioned"
AUTO_FOR = "osac.openshift.io/auto-provisioned-for"
EXHAUSTED = "ExternalIPPool exhaustion: no available capacity in any READY pool for IPv4"


async def auto_children(wl: Workloads, parent_id: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    condition = f"this.metadata.labels['{AUTO_FOR}'] == '{parent_id}'"
    return await wl.items("external_ips", condition), await wl.items("external_ip_attachments", condition)


async def test_instances_get_an_external_ip_in_their_create_transaction(wl: Workloads) -> None:
    before = await wl.revision()
    vm = await wl.create(VMS, {"metadata": {"name": "web"}, "spec": {"template": "fedora", "auto_external_ip_attachment": True}})
    [eip], [attached] = await auto_children(wl, vm["id"])
    labels = {AUTO: "true", AUTO_FOR: vm["id"]}
    name = f"auto-{vm['id']}"
    assert (eip["metadata"]["name"], eip["metadata"]["labels"], eip["metadata"]["tenant"], eip["metadata"]["creator"]) == (
        name, labels, "acme", "system")
    assert eip["status"]["state"] == "EXTERNAL_IP_STATE_PENDING" and eip["status"]["address"].startswith("203.0.113.")
    assert (attached["metadata"]["name"], attached["metadata"]["labels"]) == (name, labels)
    assert attached["spec"] == {"external_ip": eip["id"], "compute_instance": vm["id"]}
    assert (attached["status"]["state"], attached["status"]["reason"]) == (
        "EXTERNAL_IP_ATTACHMENT_STATE_PENDING", "WaitingForIPAddress")
    assert await wl.events(vm["id"]) == [("NetworkAttachmentsPopulated", "NORMAL"), ("AutoExternalIPCreated", "NORMAL")]
    stored = await wl.get(VMS, vm["id"], private=True)
    assert stored["metadata"]["finalizers"] == ["osac.openshift.io/auto-provisioned-cleanup"]
    assert "finalizers" not in vm["metadata"]  # private-only field

    # One transaction: the Create's events carry consecutive revisions, nothing in between. The
    # addresses are reserved last (the subnet's and the pool's counters), and the events of the
    # ExternalIP and its attachment carry the address reserved then.
    written = (await outbox_after(wl.server.app, before))[:5]
    assert [(kind_of_change, kind) for _, kind_of_change, kind in written] == [
        ("CREATED", "compute_instance"), ("CREATED", "external_ip"), ("CREATED", "external_ip_attachment"),
        ("UPDATED", "subnet"), ("UPDATED", "external_ip_pool")]
    assert [revision for revision, _, _ in written] == list(range(before + 1, before + 6))
    async with wl.server.app.store.read() as tx:
        created = {event.kind: event.data for event in await outbox.events_after(tx, before, limit=5)}
    assert created["external_ip"]["status"]["address"] == eip["status"]["address"]
    assert created["external_ip_attachment"]["status"]["external_ip_address"] == eip["status"]["address"]

    server = await wl.create(BMS, {"metadata": {"name": "bm"}, "spec": {"host_type": "bm-standard",
                                                                         "auto_external_ip_attachment": True}})
    [server_eip], [server_attached] = await auto_children(wl, server["id"])
    assert server_eip["status"]["address"] != eip["status"]["address"]
    assert server_attached["spec"] == {"external_ip": server_eip["id"], "baremetal_instance": server["id"]}
    assert server_attached["metadata"]["labels"] == {AUTO: "true", AUTO_FOR: server["id"]}

    # Deleting waits for the auto cleanup (a reconciler's job): the instance and its children stay.
    assert (await wl.delete(VMS, vm["id"])).status_code == 200
    deleting = await wl.get(VMS, vm["id"])
    assert "deletion_timestamp" in deleting["metadata"]
    assert [len(children) for children in await auto_children(wl, vm["id"])] == [1, 1]


async def test_exhaustion_fails_the_create_and_persists_nothing(wl: Workloads) -> None:
    public = await find_by_name(wl.admin, "external_ip_pools", "public-v4")
    await set_state(wl.admin, "external_ip_pools", public["id"], "EXTERNAL_IP_POOL_STATE_PENDING")  # not READY
    await wl.pool("tiny", ["198.51.100.0/31"])  # RFC 3021: two usable addresses
    await wl.create(VMS, {"metadata": {"name": "one"}, "spec": {"template": "fedora", "auto_external_ip_attachment": True}})
    await wl.create(BMS, {"metadata": {"name": "two"}, "spec": {"host_type": "bm-standard", "auto_external_ip_attachment": True}})
    subnet = await wl.get("subnets", wl.defaults["subnets"]["id"])
    revision = await wl.revision()
    failures = ALLOCATION_FAILURES.labels("external", "auto")._value.get()

    for collection, spec in ((VMS, {"template": "fedora"}), (BMS, {"host_type": "bm-standard"})):
        response = await wl.post(collection, {"metadata": {"name": "three"}, "spec": {**spec, "auto_external_ip_attachment": True}})
        assert failure(response) == ("RESOURCE_EXHAUSTED", EXHAUSTED)

    assert await wl.revision() == revision  # no instance, external IP, attachment, counter or event
    assert await wl.items(VMS, "this.metadata.name == 'three'") == []
    assert await wl.items(BMS, "this.metadata.name == 'three'") == []
    assert len(await wl.items("external_ips", f"has(this.metadata.labels['{AUTO}'])")) == 2
    assert (await wl.get("subnets", subnet["id"]))["status"]["available_addresses"] == subnet["status"]["available_addresses"]
    assert ALLOCATION_FAILURES.labels("external", "auto")._value.get() == failures + 2

    dry = await wl.alice.request("POST", f"/api/fulfillment/v1/{VMS}", headers={"x-dry-run": "true"},
                                 json={"metadata": {"name": "dry"}, "spec": {"template": "fedora", "auto_external_ip_attachment": True}})
    assert failure(dry) == ("RESOURCE_EXHAUSTED", EXHAUSTED)  # dry run checks capacity too
