"""Every condition reason of compute.md §2.2 and §2.3, with the exact PROVISIONED messages."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from osac.status.compute.derivation import (
    ComputeAttachment,
    ComputeInstanceStatusView,
    ProviderFailure,
    TenantReadiness,
    derive_compute_instance_status,
)
from osac.status.compute.views import (
    CONFIGURATION_APPLIED,
    PROVISIONED,
    READY,
    RESTART_REQUIRED,
    RUNNING,
    STARTING,
)
from osac.status.conditions.views import FALSE, TRUE, ConditionView
from tests.support.compute_status import ADDRESS, DONE, SECOND_ADDRESS, T0, cond, context, dvs, vm, vmi

NOW = T0 + timedelta(minutes=5)
RESTART_REQUIRED_CONDITION = {"type": "RestartRequired", "status": "True", "reason": "NonLiveUpdate",
                              "message": "a restart is required to apply the new CPU count"}

#: (id, condition type, inputs, expected (status, reason, message); message None = not checked)
CASES: list[tuple[str, int, dict[str, Any], tuple[int, str, str | None]]] = [
    # PROVISIONED (§2.3)
    ("provisioned-initialized", PROVISIONED, {"vm": None, "ctx": {"applied_spec_hash": ""}},
     (FALSE, "Initialized", "")),
    ("provisioned-tenant-not-ready", PROVISIONED,
     {"vm": None, "ctx": {"tenant": TenantReadiness("acme", False, "PENDING"), "applied_spec_hash": ""}},
     (FALSE, "TenantNotReady", "Tenant 'acme' is not ready (phase: PENDING)")),
    ("provisioned-waiting-for-vm", PROVISIONED, {"vm": None},
     (FALSE, "WaitingForVM", "VirtualMachine not yet created, waiting for provisioning")),
    ("provisioned-storage-with-disks", PROVISIONED,
     {"vm": vm("Provisioning"), "dvs": dvs("Succeeded", "ImportInProgress", "ImportScheduled")},
     (FALSE, "ProvisioningStorage", "Creating DataVolumes for boot disk (40GiB) and 2 additional disk(s)")),
    ("provisioned-storage-boot-only", PROVISIONED,
     {"vm": vm("Provisioning"), "dvs": dvs("ImportInProgress"), "ctx": {"boot_disk_gib": 20, "additional_disks": 0}},
     (FALSE, "ProvisioningStorage", "Creating DataVolumes for boot disk (20GiB)")),
    ("provisioned-storage-dv-missing", PROVISIONED, {"vm": vm("Provisioning"), "dvs": dvs("Succeeded", "Succeeded")},
     (FALSE, "ProvisioningStorage", None)),
    ("provisioned-infrastructure-ready", PROVISIONED, {},
     (TRUE, "InfrastructureReady", "All infrastructure resources provisioned successfully")),
    ("provisioned-reconciliation-failed", PROVISIONED,
     {"vm": None, "ctx": {"terminal_failure": ProviderFailure("InvalidImage", "image 'quay.io/x' not found")}},
     (FALSE, "ReconciliationFailed", "image 'quay.io/x' not found")),
    # CONFIGURATION_APPLIED
    ("configuration-applied", CONFIGURATION_APPLIED, {}, (TRUE, "ConfigurationApplied", "")),
    ("configuration-hash-differs", CONFIGURATION_APPLIED, {"ctx": {"spec_hash": "h2"}},
     (FALSE, "ApplyingConfiguration", None)),
    ("configuration-never-applied", CONFIGURATION_APPLIED, {"ctx": {"applied_spec_hash": ""}},
     (FALSE, "ApplyingConfiguration", None)),
    ("configuration-run-strategy-pending", CONFIGURATION_APPLIED, {"ctx": {"run_strategy": "Halted"}},
     (FALSE, "ApplyingConfiguration", "waiting for run strategy Halted (VirtualMachine has Always)")),
    ("configuration-vm-absent", CONFIGURATION_APPLIED, {"vm": None}, (FALSE, "ApplyingConfiguration", None)),
    ("configuration-failed", CONFIGURATION_APPLIED,
     {"ctx": {"terminal_failure": ProviderFailure("Invalid", "spec rejected by KubeVirt")}},
     (FALSE, "ConfigurationFailed", "spec rejected by KubeVirt")),
    # READY
    ("ready-as-expected", READY, {}, (TRUE, "AsExpected", "")),
    ("ready-printable-status", READY, {"vm": vm("Stopped"), "vmi": None}, (FALSE, "Stopped", None)),
    ("ready-printable-status-starting", READY, {"vm": vm("Starting"), "vmi": None}, (FALSE, "Starting", None)),
    ("ready-vm-not-found", READY, {"vm": None, "vmi": None}, (FALSE, "VirtualMachineNotFound", None)),
    ("ready-no-printable-status", READY, {"vm": vm(None, ready=False), "vmi": None}, (FALSE, "Unknown", None)),
    # RESTART_REQUIRED
    ("restart-required-mirrored", RESTART_REQUIRED, {"vm": vm("Running", conditions=[RESTART_REQUIRED_CONDITION])},
     (TRUE, "NonLiveUpdate", "a restart is required to apply the new CPU count")),
    ("restart-required-absent", RESTART_REQUIRED, {}, (FALSE, "AsExpected", "")),
    ("restart-required-false", RESTART_REQUIRED,
     {"vm": vm("Running", conditions=[{**RESTART_REQUIRED_CONDITION, "status": "False"}])}, (FALSE, "AsExpected", "")),
]


@pytest.mark.parametrize(("condition_type", "case", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_condition_reason(condition_type: int, case: dict[str, Any], expected: tuple[int, str, str | None]) -> None:
    result = derive_compute_instance_status(
        case.get("vm", vm("Running")), case.get("vmi", vmi()), case.get("dvs", dvs(*DONE)),
        ComputeInstanceStatusView(state=STARTING), NOW, context(**case.get("ctx", {})),
    )
    found = cond(result.status, condition_type)
    status, reason, message = expected
    assert (found.status, found.reason) == (status, reason)
    if message is not None:
        assert found.message == message


def test_provisioned_is_sticky_once_true() -> None:
    ready = derive_compute_instance_status(vm("Running"), vmi(), dvs(*DONE), ComputeInstanceStatusView(), T0, context())
    assert cond(ready.status, PROVISIONED).is_true
    gone = derive_compute_instance_status(None, None, [], ready.status, NOW, context(tenant=TenantReadiness("acme", False, "PENDING")))
    provisioned = cond(gone.status, PROVISIONED)
    assert (provisioned.status, provisioned.reason, provisioned.last_transition_time) == (TRUE, "InfrastructureReady", T0)


def test_condition_time_changes_only_when_the_status_flips() -> None:
    first = derive_compute_instance_status(vm("Provisioning"), None, dvs("Pending"), ComputeInstanceStatusView(), T0, context())
    later = derive_compute_instance_status(vm("Starting"), None, dvs("Pending"), first.status, NOW, context())
    assert cond(later.status, READY).reason == "Starting"
    assert cond(later.status, READY).last_transition_time == T0


def test_conditions_are_listed_in_type_order_with_unknown_types_kept() -> None:
    unknown = ConditionView(42, TRUE, "FromTheFuture", "written by a newer version", T0)
    result = derive_compute_instance_status(
        vm("Running"), vmi(), dvs(*DONE), ComputeInstanceStatusView(state=RUNNING, conditions=(unknown,)), NOW, context()
    )
    assert [c.type for c in result.status.conditions] == [1, 2, 3, 4, 5, 6, 42]
    assert result.status.conditions[-1] == unknown


def test_attachment_statuses_follow_spec_order_and_reserved_addresses() -> None:
    attachments = (
        ComputeAttachment(subnet="subnet-b", primary=False, address=SECOND_ADDRESS),
        ComputeAttachment(subnet="subnet-a", primary=True, address=ADDRESS),
    )
    result = derive_compute_instance_status(
        vm("Running"), vmi(addresses={"nic-0": SECOND_ADDRESS, "nic-1": ADDRESS}), dvs(*DONE),
        ComputeInstanceStatusView(), NOW, context(attachments=attachments),
    )
    statuses = [(s.subnet, s.ip_address, s.primary) for s in result.status.compute_network_attachment_statuses]
    assert statuses == [("subnet-b", SECOND_ADDRESS, False), ("subnet-a", ADDRESS, True)]
    assert result.status.internal_ip_address == ADDRESS


@pytest.mark.parametrize("addresses", [{}, {"nic-0": "10.9.9.9"}, {"nic-1": ADDRESS}],
                         ids=["not-reported", "other-address", "other-interface"])
def test_address_appears_only_when_the_reserved_one_is_reported(addresses: dict[str, str]) -> None:
    result = derive_compute_instance_status(
        vm("Running"), vmi(addresses=addresses), dvs(*DONE), ComputeInstanceStatusView(), NOW, context()
    )
    assert result.status.internal_ip_address == ""
    assert result.status.compute_network_attachment_statuses[0].ip_address == ""


def test_external_ip_address_is_passed_through() -> None:
    before = ComputeInstanceStatusView(state=RUNNING, external_ip_address="198.51.100.7")
    kept = derive_compute_instance_status(vm("Running"), vmi(), dvs(*DONE), before, NOW, context())
    assert kept.status.external_ip_address == "198.51.100.7"
    replaced = derive_compute_instance_status(
        vm("Running"), vmi(), dvs(*DONE), before, NOW, context(external_ip_address="")
    )
    assert replaced.status.external_ip_address == ""


def test_run_strategy_unset_means_always() -> None:
    result = derive_compute_instance_status(vm("Running"), vmi(), dvs(*DONE), ComputeInstanceStatusView(), NOW, context(run_strategy=""))
    assert cond(result.status, CONFIGURATION_APPLIED).is_true
    assert result.status.state == RUNNING
