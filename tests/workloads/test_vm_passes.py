"""What bringing up one VM with one-call external access costs the reconcilers, counted in
passes (issue 18): a pass's own writes (a finalizer, then the status it reached) queue no second
pass of its object, and a READY attachment no longer follows its external IP, so the flag it
writes there (``status.attached``) does not come back to it.

The periodic looks are an hour long, so every pass counted was caused by a change. The counts are
what the design allows whatever the interleaving of the three reconcilers: the ExternalIP passes
once to be announced and once for the flag its attachment writes (a change of its own kind, by
another reconciler); the VM passes for its creation, for the VM running and for its attachment
turning READY (the external address it shows), merged when they meet. The attachment passes for
its creation and for each write of what it follows until it is READY: the ExternalIP's two (its
finalizer, then announced) and the VM's three before its address is stored (its finalizer and
the statuses of its first passes), six at most. A write committed before
one of its passes began queues none (that pass read it), so it takes a loaded machine for each of
the six to land after the previous pass began: five is what an unloaded one shows."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from bench.pass_cost import Passes
from osac.server.settings import merge_config
from tests.support.onboarding import INSTANT, wait_for
from tests.support.server import SAFETY_NETS_AN_HOUR
from tests.support.vmaas import PRIVATE, VMS, serving_vmaas

KINDS = ("compute_instance", "external_ip", "external_ip_attachment")


async def test_a_vm_with_external_access_comes_up_without_passes_for_its_own_writes(db_url: str, tmp_path: Path) -> None:
    async with serving_vmaas(db_url, tmp_path, merge_config(INSTANT, SAFETY_NETS_AN_HOUR)) as vmaas:
        server, admin, alice = vmaas.server, vmaas.admin, vmaas.alice
        assert server.app.controllers is not None
        controllers = {kind: server.app.controllers.controllers[kind] for kind in KINDS}
        passes = {kind: Passes() for kind in KINDS}
        for kind in KINDS:
            controllers[kind].add_pass_listener(passes[kind])
            await passes[kind].quiet(controllers[kind])
        # When one VM is created with automatic external access
        created = await alice.request("POST", VMS, json={
            "metadata": {"name": "web"}, "spec": {"template": "fedora", "auto_external_ip_attachment": True}})
        assert created.status_code == 200, created.text
        vm_id = created.json()["id"]
        vm = await wait_for(alice, f"{VMS}/{vm_id}",
                            lambda v: v["status"].get("state") == "COMPUTE_INSTANCE_STATE_RUNNING"
                            and bool(v["status"].get("external_ip_address")), timeout=30)
        for kind in KINDS:
            await passes[kind].quiet(controllers[kind])
        # Then each object passed only for what changed under it
        per_object = {kind: Counter(object_id for object_id, _, _ in passes[kind].seen) for kind in KINDS}
        [eip_id] = per_object["external_ip"]
        [attachment_id] = per_object["external_ip_attachment"]
        assert set(per_object["compute_instance"]) == {vm_id}
        assert per_object["external_ip"][eip_id] == 2, per_object
        assert per_object["external_ip_attachment"][attachment_id] <= 6, per_object
        assert per_object["compute_instance"][vm_id] <= 3, per_object
        assert vm["status"]["external_ip_address"]
        # And a change of the ExternalIP no longer queues its READY attachment
        seen = {kind: len(passes[kind].seen) for kind in KINDS}
        labelled = await admin.request("PATCH", f"{PRIVATE}/external_ips/{eip_id}",
                                       params={"update_mask": "metadata.labels"},
                                       json={"metadata": {"labels": {"team": "web"}}})
        assert labelled.status_code == 200, labelled.text
        await passes["external_ip"].quiet(controllers["external_ip"], after=seen["external_ip"], object_id=eip_id)
        await passes["external_ip_attachment"].quiet(controllers["external_ip_attachment"])
        assert len(passes["external_ip"].seen) == seen["external_ip"] + 1
        assert len(passes["external_ip_attachment"].seen) == seen["external_ip_attachment"]
