"""ComputeInstance API semantics (api.md §11.7, §11.8; networking.md §5.3, §6.4, §7.1, §7.2):
defaults stored, attachment rules, addresses reserved and released, the deprecated field 14."""

from __future__ import annotations

from typing import Any

from osac.model import registry
from osac.services.compute.legacy_attachments import DEPRECATED_FIELD_USES
from tests.support.networking import find_by_name
from tests.workloads.conftest import VMS, Workloads, failure

PATH = "spec.compute_network_attachments"
STRING = "type.googleapis.com/google.protobuf.StringValue"


def vm(name: str, **spec: Any) -> dict[str, Any]:
    return {"metadata": {"name": name}, "spec": {"template": "fedora", **spec}}


async def test_omitted_fields_come_from_the_template_and_the_tenant_defaults(wl: Workloads) -> None:
    subnet, sg = wl.defaults["subnets"], wl.defaults["security_groups"]
    fedora = await find_by_name(wl.admin, "compute_instance_templates", "fedora")
    small = await find_by_name(wl.admin, "instance_types", "small")

    created = await wl.create(VMS, vm("web"))

    assert created["spec"] == {
        "template": fedora["id"],
        "instance_type": small["id"],
        "image": {"source_type": "registry", "source_ref": "quay.io/containerdisks/fedora:latest"},
        "boot_disk": {"size_gib": 20},
        "run_strategy": "Always",
        "compute_network_attachments": [{"subnet": subnet["id"], "security_groups": [sg["id"]], "primary": True}],
    }
    assert await wl.get(VMS, created["id"]) == created
    status = created["status"]
    assert status["state"] == "COMPUTE_INSTANCE_STATE_STARTING"
    assert [(c["type"].removeprefix("COMPUTE_INSTANCE_CONDITION_TYPE_"), c["status"], c["reason"])
            for c in status["conditions"]] == [
        ("CONFIGURATION_APPLIED", "CONDITION_STATUS_FALSE", "ApplyingConfiguration"),
        ("READY", "CONDITION_STATUS_FALSE", "VirtualMachineNotFound"),
        ("RESTART_IN_PROGRESS", "CONDITION_STATUS_FALSE", "AsExpected"),
        ("RESTART_FAILED", "CONDITION_STATUS_FALSE", "AsExpected"),
        ("PROVISIONED", "CONDITION_STATUS_FALSE", "Initialized"),
        ("RESTART_REQUIRED", "CONDITION_STATUS_FALSE", "AsExpected"),
    ]
    assert status["state_transition_time"] >= created["metadata"]["creation_timestamp"]
    assert {c["last_transition_time"] for c in status["conditions"]} == {status["state_transition_time"]}
    assert await wl.events(created["id"]) == [("NetworkAttachmentsPopulated", "NORMAL")]

    assert await wl.allocations("compute_instance", created["id"]) == [(subnet["id"], "10.0.0.2", "attachment", 0)]
    after = await wl.get("subnets", subnet["id"])
    assert after["status"]["available_addresses"] == subnet["status"]["available_addresses"] - 1


async def test_explicit_attachments_are_kept_and_completed(wl: Workloads) -> None:
    default_vn, default_sg = wl.defaults["virtual_networks"], wl.defaults["security_groups"]
    app = await wl.subnet("app", default_vn["id"], "10.0.16.0/24")
    web = await wl.security_group("web", default_vn["id"])
    other_vn = await wl.network("other", "10.1.0.0/16")
    other = await wl.subnet("other", other_vn["id"], "10.1.1.0/24")

    lone = await wl.create(VMS, vm("lone", instance_type="medium", compute_network_attachments=[{"subnet": "app"}]))
    assert lone["spec"]["compute_network_attachments"] == [
        {"subnet": app["id"], "security_groups": [default_sg["id"]], "primary": True}]  # default SG on the default VN
    assert await wl.events(lone["id"]) == []  # nothing was omitted

    elsewhere = await wl.create(VMS, vm("elsewhere", compute_network_attachments=[{"subnet": other["id"]}]))
    assert elsewhere["spec"]["compute_network_attachments"] == [{"subnet": other["id"], "primary": True}]  # deny-all

    multi = await wl.create(VMS, vm("multi", compute_network_attachments=[
        {"subnet": "default", "security_groups": ["web"]}, {"subnet": "app", "primary": True}]))
    assert multi["spec"]["compute_network_attachments"] == [
        {"subnet": wl.defaults["subnets"]["id"], "security_groups": [web["id"]]},
        {"subnet": app["id"], "security_groups": [default_sg["id"]], "primary": True},
    ]
    assert await wl.allocations("compute_instance", multi["id"]) == [
        (wl.defaults["subnets"]["id"], "10.0.0.2", "attachment", 0), (app["id"], "10.0.16.3", "attachment", 1)]


async def test_attachment_rules_refuse_and_store_nothing(wl: Workloads) -> None:
    default_vn = wl.defaults["virtual_networks"]
    await wl.subnet("app", default_vn["id"], "10.0.16.0/24")
    await wl.subnet("pending", default_vn["id"], "10.0.17.0/24", ready=False)
    await wl.security_group("pending-sg", default_vn["id"], ready=False)
    other_vn = await wl.network("other", "10.1.0.0/16")
    await wl.subnet("other", other_vn["id"], "10.1.1.0/24")
    await wl.security_group("other-sg", other_vn["id"])
    cases: list[tuple[str, list[dict[str, Any]], tuple[str, str]]] = [
        ("no primary of two", [{"subnet": "default"}, {"subnet": "app"}],
         ("INVALID_ARGUMENT", f"{PATH}: exactly one attachment must be primary (found 0)")),
        ("two primaries", [{"subnet": "default", "primary": True}, {"subnet": "app", "primary": True}],
         ("INVALID_ARGUMENT", f"{PATH}: exactly one attachment must be primary (found 2)")),
        ("two networks", [{"subnet": "default", "primary": True}, {"subnet": "other"}],
         ("INVALID_ARGUMENT", f"{PATH}[1].subnet: Subnet 'other' is in VirtualNetwork 'other', not VirtualNetwork "
                              f"'default' like {PATH}[0]; a ComputeInstance attaches to one VirtualNetwork")),
        ("group of another network", [{"subnet": "default", "security_groups": ["other-sg"]}],
         ("INVALID_ARGUMENT", f"{PATH}[0].security_groups[0]: SecurityGroup 'other-sg' is not in VirtualNetwork 'default'")),
        ("repeated subnet", [{"subnet": "app", "primary": True}, {"subnet": "app"}],
         ("INVALID_ARGUMENT", f"{PATH}[1].subnet: the subnet is already attached by {PATH}[0]; a subnet may appear at most once")),
        ("unknown subnet", [{"subnet": "nope"}], ("INVALID_ARGUMENT", f"{PATH}[0].subnet: Subnet 'nope' not found")),
        ("no subnet", [{"security_groups": ["default"]}], ("INVALID_ARGUMENT", f"{PATH}[0].subnet: required; name a Subnet")),
        ("pending subnet", [{"subnet": "pending"}],
         ("FAILED_PRECONDITION", "Subnet 'pending' is not READY (state SUBNET_STATE_PENDING)")),
        ("pending group", [{"subnet": "app", "security_groups": ["pending-sg"]}],
         ("FAILED_PRECONDITION", "SecurityGroup 'pending-sg' is not READY (state SECURITY_GROUP_STATE_PENDING)")),
    ]
    revision = await wl.revision()
    for case, attachments, expected in cases:
        response = await wl.post(VMS, vm("bad", compute_network_attachments=attachments))
        assert failure(response) == expected, case
    assert await wl.revision() == revision  # no object, no reservation counter, no event
    assert await wl.items(VMS) == []


async def test_template_and_instance_type_rules(wl: Workloads) -> None:
    await wl.create("compute_instance_templates", {
        "metadata": {"name": "bare"}, "title": "Bare",
        "parameters": [{"name": "size", "type": STRING, "required": True, "title": "Size"},
                       {"name": "colour", "type": STRING, "default": {"@type": STRING, "value": "blue"}}]}, private=True)
    await wl.create("instance_types", {"metadata": {"name": "old"}, "spec": {
        "cores": 1, "memory_gib": 1, "state": "INSTANCE_TYPE_STATE_DEPRECATED", "deprecation": {"replacement": "small"}}},
        private=True)
    size = {"size": {"@type": STRING, "value": "m"}}
    cases: list[tuple[str, dict[str, Any], tuple[str, str]]] = [
        ("no template", {"instance_type": "small"}, ("INVALID_ARGUMENT", "spec.template: required; name a ComputeInstanceTemplate")),
        ("unknown template", {"template": "nope"}, ("INVALID_ARGUMENT", "spec.template: ComputeInstanceTemplate 'nope' not found")),
        ("no instance type", {"template": "bare", "template_parameters": size},
         ("INVALID_ARGUMENT", "spec.instance_type: required; ComputeInstanceTemplate 'bare' has no default instance type")),
        ("unknown instance type", {"template": "fedora", "instance_type": "huge"},
         ("INVALID_ARGUMENT", "spec.instance_type: InstanceType 'huge' not found")),
        ("deprecated instance type", {"template": "fedora", "instance_type": "old"},
         ("FAILED_PRECONDITION", "InstanceType 'old' is DEPRECATED; new instances need an ACTIVE instance type such as 'small'")),
        ("bad run strategy", {"template": "fedora", "run_strategy": "Sometimes"},
         ("INVALID_ARGUMENT", "spec.run_strategy: 'Sometimes' is not a run strategy; use Always or Halted")),
        ("unknown parameter", {"template": "bare", "instance_type": "small", "template_parameters": {
            **size, "x": {"@type": STRING, "value": "1"}}},
         ("INVALID_ARGUMENT", "spec.template_parameters['x']: ComputeInstanceTemplate 'bare' has no parameter 'x'; "
                              "its parameters are 'colour', 'size'")),
        ("parameter of another type", {"template": "bare", "instance_type": "small", "template_parameters": {
            "size": {"@type": "type.googleapis.com/google.protobuf.Int64Value", "value": "3"}}},
         ("INVALID_ARGUMENT", f"spec.template_parameters['size']: must be of type {STRING}, got "
                              "type.googleapis.com/google.protobuf.Int64Value")),
        ("required parameter missing", {"template": "bare", "instance_type": "small"},
         ("INVALID_ARGUMENT", "spec.template_parameters['size']: required by ComputeInstanceTemplate 'bare' (Size)")),
        ("empty additional disk", {"template": "fedora", "additional_disks": [{"size_gib": 10}, {}]},
         ("INVALID_ARGUMENT", "spec.additional_disks[1].size_gib: must be > 0, got 0")),
    ]
    for case, spec, expected in cases:
        response = await wl.post(VMS, {"metadata": {"name": "bad"}, "spec": spec})
        assert failure(response) == expected, case

    made = await wl.create(VMS, {"metadata": {"name": "ok"}, "spec": {
        "template": "bare", "instance_type": "large", "template_parameters": size, "run_strategy": "halted",
        "is_windows": True}})
    spec = made["spec"]
    assert spec["template_parameters"] == {**size, "colour": {"@type": STRING, "value": "blue"}}
    assert (spec["run_strategy"], spec["is_windows"]) == ("Halted", True)
    assert "image" not in spec and "boot_disk" not in spec  # the template has no defaults for them


async def test_field_14_is_converted_and_never_returned(wl: Workloads) -> None:
    default_vn = wl.defaults["virtual_networks"]
    app = await wl.subnet("app", default_vn["id"], "10.0.16.0/24")
    web = await wl.security_group("web", default_vn["id"])
    uses = DEPRECATED_FIELD_USES.labels("spec.network_attachments")._value.get()

    both = await wl.post(VMS, vm("both", network_attachments=[{"subnet": "app"}],
                                 compute_network_attachments=[{"subnet": "app"}]))
    assert failure(both) == (
        "INVALID_ARGUMENT", "spec.network_attachments and spec.compute_network_attachments are mutually exclusive")

    legacy = await wl.create(VMS, vm("legacy", network_attachments=[
        {"subnet": "default"}, {"subnet": "app", "security_groups": ["web"]}]))
    expected = [
        {"subnet": wl.defaults["subnets"]["id"], "security_groups": [wl.defaults["security_groups"]["id"]], "primary": True},
        {"subnet": app["id"], "security_groups": [web["id"]]},
    ]
    assert legacy["spec"]["compute_network_attachments"] == expected
    assert "network_attachments" not in legacy["spec"]
    assert "network_attachments" not in (await wl.get(VMS, legacy["id"], private=True))["spec"]
    assert await wl.allocations("compute_instance", legacy["id"]) == [
        (wl.defaults["subnets"]["id"], "10.0.0.2", "attachment", 0), (app["id"], "10.0.16.2", "attachment", 1)]

    # An older client updating through field 14 changes the groups; the primary choice stays.
    updated = await wl.patch(VMS, legacy["id"], {"spec": {"network_attachments": [
        {"subnet": "default", "security_groups": ["web"]}, {"subnet": "app"}]}}, "spec.network_attachments")
    assert updated.status_code == 200, updated.text
    assert updated.json()["spec"]["compute_network_attachments"] == [
        {"subnet": wl.defaults["subnets"]["id"], "security_groups": [web["id"]], "primary": True},
        {"subnet": app["id"]},
    ]
    assert DEPRECATED_FIELD_USES.labels("spec.network_attachments")._value.get() == uses + 2


async def test_updates_change_only_groups_and_run_strategy(wl: Workloads) -> None:
    default_vn, default_sg = wl.defaults["virtual_networks"], wl.defaults["security_groups"]
    app = await wl.subnet("app", default_vn["id"], "10.0.16.0/24")
    web = await wl.security_group("web", default_vn["id"])
    await wl.security_group("fresh", default_vn["id"], ready=False)
    other_vn = await wl.network("other", "10.1.0.0/16")
    await wl.security_group("other-sg", other_vn["id"])
    created = await wl.create(VMS, vm("web", compute_network_attachments=[{"subnet": "default"}, {"subnet": "app", "primary": True}]))
    current = created["spec"]["compute_network_attachments"]

    def attachments(*changes: dict[str, Any]) -> dict[str, Any]:
        return {"spec": {"compute_network_attachments": [{**a, **c} for a, c in zip(current, changes, strict=True)]}}

    cases: list[tuple[str, dict[str, Any], str, tuple[str, str]]] = [
        ("subnet changed", attachments({}, {"subnet": wl.defaults["subnets"]["id"]}), PATH,
         ("INVALID_ARGUMENT", f"{PATH}[1].subnet is immutable")),
        ("attachment added", {"spec": {"compute_network_attachments": [*current, {"subnet": "app"}]}}, PATH,
         ("INVALID_ARGUMENT", f"{PATH}: network attachments cannot be added or removed; recreate the ComputeInstance")),
        ("attachment removed", {"spec": {"compute_network_attachments": current[:1]}}, PATH,
         ("INVALID_ARGUMENT", f"{PATH}: network attachments cannot be added or removed; recreate the ComputeInstance")),
        ("group of another network", attachments({"security_groups": ["other-sg"]}, {}), PATH,
         ("INVALID_ARGUMENT", f"{PATH}[0].security_groups[0]: SecurityGroup 'other-sg' is not in VirtualNetwork 'default'")),
        ("pending group added", attachments({}, {"security_groups": ["fresh"]}), PATH,
         ("FAILED_PRECONDITION", "SecurityGroup 'fresh' is not READY (state SECURITY_GROUP_STATE_PENDING)")),
        ("bad run strategy", {"spec": {"run_strategy": "Paused"}}, "spec.run_strategy",
         ("INVALID_ARGUMENT", "spec.run_strategy: 'Paused' is not a run strategy; use Always or Halted")),
        ("immutable image", {"spec": {"image": {"source_ref": "quay.io/other"}}}, "spec.image",
         ("INVALID_ARGUMENT", "spec.image is immutable")),
    ]
    for case, body, mask, expected in cases:
        assert failure(await wl.patch(VMS, created["id"], body, mask)) == expected, case

    # Moving the primary is refused; leaving the flags out (false in proto3) keeps them.
    swapped = attachments({"primary": True}, {"primary": False})
    assert failure(await wl.patch(VMS, created["id"], swapped, PATH)) == ("INVALID_ARGUMENT", f"{PATH}[0].primary is immutable")
    unflagged = await wl.patch(VMS, created["id"], attachments({}, {"primary": False}), PATH)
    assert unflagged.status_code == 200 and unflagged.json()["metadata"].get("version", 0) == 0  # nothing changed

    changed = await wl.patch(VMS, created["id"], attachments({"security_groups": ["web", "default"]}, {}), PATH)
    assert changed.status_code == 200, changed.text
    updated = changed.json()
    assert updated["spec"]["compute_network_attachments"][0]["security_groups"] == [web["id"], default_sg["id"]]
    assert updated["spec"]["compute_network_attachments"][1] == {"subnet": app["id"], "security_groups": [default_sg["id"]],
                                                                 "primary": True}
    assert (updated["metadata"]["version"], updated["status"]) == (1, created["status"])  # state untouched

    halted = (await wl.patch(VMS, created["id"], {"spec": {"run_strategy": "halted"}}, "spec.run_strategy")).json()
    assert halted["spec"]["run_strategy"] == "Halted"

    # A full-spec update that leaves the attachments out keeps them (omitted is not removed).
    spec = {k: v for k, v in halted["spec"].items() if k != "compute_network_attachments"}
    kept = await wl.patch(VMS, created["id"], {"spec": {**spec, "run_strategy": "Always"}})
    assert kept.status_code == 200, kept.text
    assert kept.json()["spec"] == {**halted["spec"], "run_strategy": "Always"}


async def test_addresses_are_released_when_the_instance_is_archived(wl: Workloads) -> None:
    subnet = wl.defaults["subnets"]
    first = await wl.create(VMS, vm("first"))
    second = await wl.create(VMS, vm("second"))
    assert [a[1] for a in await wl.allocations("compute_instance", second["id"])] == ["10.0.0.3"]

    assert (await wl.delete(VMS, first["id"])).status_code == 200
    assert (await wl.alice.request("GET", f"/api/fulfillment/v1/{VMS}/{first['id']}")).status_code == 404
    assert await wl.allocations("compute_instance", first["id"]) == []
    counted = await wl.get("subnets", subnet["id"])
    assert counted["status"]["available_addresses"] == subnet["status"]["available_addresses"] - 1

    third = await wl.create(VMS, vm("third"))  # the released address is reused, lowest first
    assert [a[1] for a in await wl.allocations("compute_instance", third["id"])] == ["10.0.0.2"]


async def test_networks_without_a_kubernetes_manager_take_no_virtual_machines(wl: Workloads) -> None:
    metal = await wl.create("network_classes", {"metadata": {"name": "metal"}, "title": "Bare metal only",
                                                "fabric_manager": "sim-fabric"}, private=True)
    await wl.set_state("network_classes", metal["id"])
    vn = await wl.create("virtual_networks", {"metadata": {"name": "metal"},
                                              "spec": {"ipv4_cidr": "10.9.0.0/16", "network_class": "metal"}})
    await wl.set_state("virtual_networks", vn["id"])
    await wl.subnet("metal", vn["id"], "10.9.1.0/24")
    response = await wl.post(VMS, vm("vm", compute_network_attachments=[{"subnet": "metal"}]))
    assert failure(response) == ("FAILED_PRECONDITION", "ComputeInstances are not supported in this deployment: "
                                                        "NetworkClass 'metal' has no Kubernetes network manager")
    kind = registry.get("bare_metal_instance")
    server = await wl.create(kind.collection, {"metadata": {"name": "bm"}, "spec": {
        "host_type": "bm-standard", "network_attachments": [{"subnet": "metal"}]}})
    assert server["spec"]["network_attachments"][0]["interface"] == "ens1f0"
