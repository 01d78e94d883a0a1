"""BareMetalInstance API semantics (api.md §11.9; networking.md §6.4, §7.4): the host type, the
attachment rules against its interfaces, defaults stored, addresses reserved and released."""

from __future__ import annotations

from typing import Any

from tests.workloads.conftest import BMS, Workloads, failure

PATH = "spec.network_attachments"


def server(name: str, attachments: list[dict[str, Any]] | None = None, host_type: str = "bm-standard") -> dict[str, Any]:
    spec: dict[str, Any] = {"host_type": host_type}
    if attachments is not None:
        spec["network_attachments"] = attachments
    return {"metadata": {"name": name}, "spec": spec}


async def test_omitted_attachments_get_the_defaults_and_the_first_fabric_interface(wl: Workloads) -> None:
    subnet, sg = wl.defaults["subnets"], wl.defaults["security_groups"]
    [host_type] = await wl.items("host_types", "this.metadata.name == 'bm-standard'")
    created = await wl.create(BMS, server("bm"))
    assert created["spec"] == {
        "host_type": host_type["id"],
        "run_strategy": "BARE_METAL_INSTANCE_RUN_STRATEGY_ALWAYS",
        "network_attachments": [{"subnet": subnet["id"], "security_groups": [sg["id"]], "interface": "ens1f0",
                                 "primary": True}],
    }
    status = created["status"]
    assert status["state"] == "BARE_METAL_INSTANCE_STATE_PROVISIONING"
    assert [(c["type"].removeprefix("BARE_METAL_INSTANCE_CONDITION_TYPE_"), c["status"], c["reason"])
            for c in status["conditions"]] == [
        ("PROVISIONED", "CONDITION_STATUS_FALSE", "Initialized"),
        ("CONFIGURATION_APPLIED", "CONDITION_STATUS_FALSE", "ApplyingConfiguration"),
        ("READY", "CONDITION_STATUS_FALSE", "Provisioning"),
        ("RESTART_IN_PROGRESS", "CONDITION_STATUS_FALSE", "AsExpected"),
        ("RESTART_FAILED", "CONDITION_STATUS_FALSE", "AsExpected"),
        ("RESTART_REQUIRED", "CONDITION_STATUS_FALSE", "AsExpected"),
    ]
    assert "state_transition_time" in status
    assert await wl.get(BMS, created["id"]) == created
    assert await wl.events(created["id"]) == [("NetworkAttachmentsPopulated", "NORMAL")]
    assert await wl.allocations("bare_metal_instance", created["id"]) == [(subnet["id"], "10.0.0.2", "attachment", 0)]


async def test_attachments_are_checked_against_the_host_type(wl: Workloads) -> None:
    default_vn = wl.defaults["virtual_networks"]
    await wl.subnet("app", default_vn["id"], "10.0.16.0/24")
    await wl.subnet("db", default_vn["id"], "10.0.17.0/24")
    await wl.subnet("pending", default_vn["id"], "10.0.18.0/24", ready=False)
    other_vn = await wl.network("other", "10.1.0.0/16")
    await wl.subnet("other", other_vn["id"], "10.1.1.0/24")
    await wl.security_group("other-sg", other_vn["id"])
    for name, interfaces in (
        ("no-fabric", [{"name": "bmc0", "role": "lifecycle"}, {"name": "san0", "role": "storage"}]),
        ("empty", []),
    ):
        await wl.create("host_types", {"metadata": {"name": name}, "title": name, "interfaces": interfaces}, private=True)
    one, two = {"subnet": "default"}, {"subnet": "app"}
    cases: list[tuple[str, dict[str, Any], tuple[str, str]]] = [
        ("no host type", {"metadata": {"name": "bad"}, "spec": {}},
         ("INVALID_ARGUMENT", "spec.host_type: required; name a bare-metal HostType (e.g. bm-standard)")),
        ("unknown host type", server("bad", host_type="nope"), ("INVALID_ARGUMENT", "spec.host_type: HostType 'nope' not found")),
        ("virtual host type", server("bad", host_type="vm-standard"),
         ("INVALID_ARGUMENT", "spec.host_type: host type 'vm-standard' is not a bare-metal host type (it has no "
                              "interface with role 'lifecycle')")),
        ("host type without interfaces", server("bad", host_type="empty"),
         ("INVALID_ARGUMENT", "spec.host_type: host type 'empty' has no interfaces; a bare-metal host type lists its interfaces")),
        ("unknown interface", server("bad", [{**one, "interface": "eth9"}]),
         ("INVALID_ARGUMENT", f"{PATH}[0].interface: interface 'eth9' does not exist on host type 'bm-standard'; "
                              "its attachable interfaces are ens1f0, ens1f1, ens2f0")),
        ("lifecycle interface", server("bad", [{**one, "interface": "eno1"}]),
         ("INVALID_ARGUMENT", f"{PATH}[0].interface: interface 'eno1' of host type 'bm-standard' has role 'lifecycle' "
                              "(PXE/BMC) and cannot be attached")),
        ("interface twice", server("bad", [{**one, "interface": "ens1f0", "primary": True}, {**two, "interface": "ens1f0"}]),
         ("INVALID_ARGUMENT", f"{PATH}[1].interface: interface 'ens1f0' is already attached by {PATH}[0]")),
        ("two without interfaces", server("bad", [{**one, "primary": True}, two]),
         ("INVALID_ARGUMENT", f"{PATH}[0].interface: required when there is more than one attachment; name one of "
                              "ens1f0, ens1f1, ens2f0")),
        ("too many", server("bad", [{"subnet": s, "interface": i} for s, i in
                                    (("default", "ens1f0"), ("app", "ens1f1"), ("db", "ens2f0"), ("other", "eno1"))]),
         ("INVALID_ARGUMENT", f"{PATH}[3]: host type 'bm-standard' has 3 attachable (non-lifecycle) interface(s), so at "
                              "most 3 attachment(s): ens1f0, ens1f1, ens2f0")),
        ("no primary of two", server("bad", [{**one, "interface": "ens1f0"}, {**two, "interface": "ens1f1"}]),
         ("INVALID_ARGUMENT", f"{PATH}: exactly one attachment must be primary (found 0)")),
        ("two primaries", server("bad", [{**one, "interface": "ens1f0", "primary": True},
                                         {**two, "interface": "ens1f1", "primary": True}]),
         ("INVALID_ARGUMENT", f"{PATH}: exactly one attachment must be primary (found 2)")),
        ("two networks", server("bad", [{**one, "interface": "ens1f0", "primary": True},
                                        {"subnet": "other", "interface": "ens1f1"}]),
         ("INVALID_ARGUMENT", f"{PATH}[1].subnet: Subnet 'other' is in VirtualNetwork 'other', not VirtualNetwork "
                              f"'default' like {PATH}[0]; a BareMetalInstance attaches to one VirtualNetwork")),
        ("group of another network", server("bad", [{**one, "security_groups": ["other-sg"]}]),
         ("INVALID_ARGUMENT", f"{PATH}[0].security_groups[0]: SecurityGroup 'other-sg' is not in VirtualNetwork 'default'")),
        ("pending subnet", server("bad", [{"subnet": "pending"}]),
         ("FAILED_PRECONDITION", "Subnet 'pending' is not READY (state SUBNET_STATE_PENDING)")),
        ("no fabric interface", server("bad", [one], host_type="no-fabric"),
         ("INVALID_ARGUMENT", f"{PATH}[0].interface: host type 'no-fabric' has no interface with role 'fabric'; "
                              "name an interface")),
        ("no fabric interface, defaults", server("bad", host_type="no-fabric"),
         ("INVALID_ARGUMENT", f"{PATH}[0].interface: host type 'no-fabric' has no interface with role 'fabric'; "
                              "name an interface")),
        ("unknown run strategy", {"metadata": {"name": "bad"}, "spec": {"host_type": "bm-standard", "run_strategy": 9}},
         ("INVALID_ARGUMENT", "spec.run_strategy: 9 is not a run strategy; use BARE_METAL_INSTANCE_RUN_STRATEGY_ALWAYS or "
                              "BARE_METAL_INSTANCE_RUN_STRATEGY_HALTED")),
    ]
    revision = await wl.revision()
    for case, body, expected in cases:
        assert failure(await wl.post(BMS, body)) == expected, case
    assert await wl.revision() == revision
    assert await wl.items(BMS) == []

    # A named storage port and a second fabric port, the second primary.
    made = await wl.create(BMS, server("bm", [{**one, "interface": "ens2f0"}, {**two, "interface": "ens1f1", "primary": True}]))
    attachments = made["spec"]["network_attachments"]
    assert [(a["interface"], a.get("primary", False)) for a in attachments] == [("ens2f0", False), ("ens1f1", True)]
    assert [(a[1], a[3]) for a in await wl.allocations("bare_metal_instance", made["id"])] == [
        ("10.0.0.2", 0), ("10.0.16.2", 1)]
    named = await wl.create(BMS, server("single", [{**two, "interface": "ens1f1"}]))  # a lone attachment is primary
    assert named["spec"]["network_attachments"] == [{
        "subnet": attachments[1]["subnet"], "security_groups": [wl.defaults["security_groups"]["id"]],
        "interface": "ens1f1", "primary": True}]


async def test_updates_keep_interfaces_and_release_at_archive(wl: Workloads) -> None:
    default_vn = wl.defaults["virtual_networks"]
    await wl.subnet("app", default_vn["id"], "10.0.16.0/24")
    web = await wl.security_group("web", default_vn["id"])
    made = await wl.create(BMS, server("bm", [{"subnet": "default", "interface": "ens1f0", "primary": True},
                                              {"subnet": "app", "interface": "ens1f1"}]))
    current = made["spec"]["network_attachments"]
    cases: list[tuple[str, list[dict[str, Any]], tuple[str, str]]] = [
        ("interface changed", [current[0], {**current[1], "interface": "ens2f0"}],
         ("INVALID_ARGUMENT", f"{PATH}[1].interface is immutable")),
        ("subnet changed", [{**current[0], "subnet": current[1]["subnet"]}, current[1]],
         ("INVALID_ARGUMENT", f"{PATH}[0].subnet is immutable")),
        ("attachment removed", current[:1],
         ("INVALID_ARGUMENT", f"{PATH}: network attachments cannot be added or removed; recreate the BareMetalInstance")),
    ]
    for case, attachments, expected in cases:
        response = await wl.patch(BMS, made["id"], {"spec": {"network_attachments": attachments}}, PATH)
        assert failure(response) == expected, case

    regrouped = [{**current[0], "security_groups": ["web"]}, {k: v for k, v in current[1].items() if k != "interface"}]
    changed = await wl.patch(BMS, made["id"], {"spec": {"network_attachments": regrouped}}, PATH)
    assert changed.status_code == 200, changed.text
    assert changed.json()["spec"]["network_attachments"] == [{**current[0], "security_groups": [web["id"]]}, current[1]]
    assert changed.json()["status"] == made["status"]

    subnets = {a["subnet"]: await wl.get("subnets", a["subnet"]) for a in current}
    assert (await wl.delete(BMS, made["id"])).status_code == 200
    assert await wl.allocations("bare_metal_instance", made["id"]) == []
    for subnet_id, before in subnets.items():
        after = await wl.get("subnets", subnet_id)
        assert after["status"]["available_addresses"] == before["status"]["available_addresses"] + 1
