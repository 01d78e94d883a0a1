"""The derivation side of compute.md §6 scenarios 1, 2, 3, 6 and 7, driven through the timeline
the simulator produces (simulator.md §3.2)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from osac.status.compute.derivation import TenantReadiness
from osac.status.compute.views import (
    CONFIGURATION_APPLIED,
    DELETE_FAILED,
    DELETING,
    FAILED,
    PAUSED,
    PROVISIONED,
    READY,
    RESTART_REQUIRED,
    RUNNING,
    STARTING,
    STOPPED,
    STOPPING,
)
from tests.support.compute_status import ADDRESS, DONE, T0, Instance, cond, context, dvs, vm, vmi

S = timedelta(seconds=1)


def test_scenario_1_happy_path() -> None:
    """Given a 40 GiB boot disk and 2 disks, when the simulator provisions and boots the VM,
    then PROVISIONED walks its four reasons, the state goes STARTING -> RUNNING, the IP appears
    and each event fires once, even though every step is reconciled twice."""
    ci = Instance(ctx=context(applied_spec_hash=""))
    steps: list[dict[str, Any]] = [
        dict(at=0 * S),                                                       # created, nothing applied
        dict(at=1 * S, applied_spec_hash="h1"),                               # apply issued
        dict(machine=vm("Provisioning"), volumes=dvs("Pending", "Pending", "Pending"), at=5 * S),
        dict(machine=vm("Provisioning"), volumes=dvs("Succeeded", "ImportInProgress", "ImportInProgress"), at=60 * S),
        dict(machine=vm("Starting"), volumes=dvs(*DONE), at=120 * S),
        dict(machine=vm("Running"), instance=vmi(140 * S, addresses={}), volumes=dvs(*DONE), at=140 * S),
        dict(machine=vm("Running"), instance=vmi(140 * S), volumes=dvs(*DONE), at=145 * S),
    ]
    for step in steps:
        ci.observe(**step)
        ci.observe(**{k: v for k, v in step.items() if k in ("machine", "instance", "volumes")})  # a resync

    assert ci.reasons(PROVISIONED) == ["Initialized", "WaitingForVM", "ProvisioningStorage", "InfrastructureReady"]
    storage = next(r for r in ci.history if cond(r.status, PROVISIONED).reason == "ProvisioningStorage")
    assert cond(storage.status, PROVISIONED).message == "Creating DataVolumes for boot disk (40GiB) and 2 additional disk(s)"
    assert ci.states() == [STARTING, RUNNING]
    assert ci.status.internal_ip_address == ADDRESS
    assert ci.events == ["ProvisioningStorage", "InfrastructureReady", "Ready"]
    assert cond(ci.status, READY).is_true and cond(ci.status, CONFIGURATION_APPLIED).is_true

    previous_state, previous_time = 0, None
    for result in ci.history:
        if result.status.state != previous_state:
            assert result.status.state_transition_time != previous_time
        else:
            assert result.status.state_transition_time == previous_time
        previous_state, previous_time = result.status.state, result.status.state_transition_time
    running_since = next(r for r in ci.history if r.status.state == RUNNING)
    assert ci.status.state_transition_time == running_since.status.state_transition_time == T0 + 140 * S


def test_scenario_2_tenant_not_ready() -> None:
    """Given a tenant still PENDING, the instance reports why and announces it once; when the
    tenant turns READY provisioning proceeds."""
    ci = Instance(ctx=context(tenant=TenantReadiness("acme", False, "PENDING"), applied_spec_hash=""))
    for minute in range(3):
        ci.observe(at=timedelta(minutes=minute))
    provisioned = cond(ci.status, PROVISIONED)
    assert (provisioned.reason, provisioned.message) == ("TenantNotReady", "Tenant 'acme' is not ready (phase: PENDING)")
    assert ci.status.state == STARTING
    assert ci.events == ["TenantNotReady"]

    ci.observe(at=timedelta(minutes=4), tenant=TenantReadiness("acme", True, "READY"), applied_spec_hash="h1")
    assert cond(ci.status, PROVISIONED).reason == "WaitingForVM"
    assert ci.events == ["TenantNotReady"]


def test_scenario_3_run_strategy() -> None:
    """Halted: STOPPING then STOPPED, CONFIGURATION_APPLIED FALSE until the VM carries the strategy;
    Always again: RUNNING."""
    ci = Instance()
    ci.observe(vm("Running"), vmi(), dvs(*DONE))
    assert ci.status.state == RUNNING and cond(ci.status, CONFIGURATION_APPLIED).is_true

    ci.observe(vm("Running"), vmi(), dvs(*DONE), at=60 * S, run_strategy="Halted", spec_hash="h2")
    assert cond(ci.status, CONFIGURATION_APPLIED).reason == "ApplyingConfiguration"
    ci.observe(vm("Stopping", run_strategy="Halted"), vmi(), dvs(*DONE), at=61 * S, applied_spec_hash="h2")
    assert ci.status.state == STOPPING
    assert cond(ci.status, CONFIGURATION_APPLIED).is_true
    ci.observe(vm("Stopped", run_strategy="Halted"), None, dvs(*DONE), at=71 * S)
    assert ci.status.state == STOPPED
    assert ci.status.internal_ip_address == ""

    ci.observe(vm("Stopped", run_strategy="Halted"), None, dvs(*DONE), at=90 * S, run_strategy="Always", spec_hash="h3")
    assert ci.status.state == STOPPED and not cond(ci.status, CONFIGURATION_APPLIED).is_true
    ci.observe(vm("Starting"), None, dvs(*DONE), at=91 * S, applied_spec_hash="h3")
    ci.observe(vm("Running"), vmi(111 * S), dvs(*DONE), at=111 * S)
    assert ci.status.state == RUNNING and cond(ci.status, CONFIGURATION_APPLIED).is_true
    assert ci.states() == [RUNNING, STOPPING, STOPPED, STARTING, RUNNING]


def test_scenario_6_vm_error_pause_and_restart_required() -> None:
    ci = Instance()
    ci.observe(vm("ErrorUnschedulable"), None, dvs(*DONE))
    assert ci.status.state == FAILED
    assert cond(ci.status, READY).reason == "ErrorUnschedulable"
    ci.observe(vm("Running"), vmi(), dvs(*DONE), at=60 * S)
    assert ci.status.state == RUNNING

    ci.observe(vm("Paused", ready=False), vmi(paused=True), dvs(*DONE), at=120 * S)
    assert ci.status.state == PAUSED
    ci.observe(vm("Running"), vmi(), dvs(*DONE), at=180 * S)
    assert ci.status.state == RUNNING

    required = {"type": "RestartRequired", "status": "True", "reason": "RestartRequired", "message": "memory changed"}
    ci.observe(vm("Running", conditions=[required]), vmi(), dvs(*DONE), at=240 * S)
    condition = cond(ci.status, RESTART_REQUIRED)
    assert (condition.status, condition.reason, condition.message) == (1, "RestartRequired", "memory changed")
    assert ci.status.state == RUNNING
    ci.observe(vm("Running"), vmi(), dvs(*DONE), at=300 * S)
    assert cond(ci.status, RESTART_REQUIRED).reason == "AsExpected"
    assert ci.states() == [FAILED, RUNNING, PAUSED, RUNNING]
    # READY is FALSE while paused, so resuming announces readiness again.
    assert ci.events == ["InfrastructureReady", "Ready", "Ready"]


def test_scenario_7_deletion_states() -> None:
    """DELETING while the VM goes away; DELETE_FAILED naming the leftover once cleanup gives up;
    Delete again resumes DELETING."""
    ci = Instance()
    ci.observe(vm("Running"), vmi(), dvs(*DONE))
    ci.observe(vm("Running", deleting=True), vmi(), dvs(*DONE), at=10 * S, deletion_requested=True)
    assert ci.status.state == DELETING
    assert ci.status.state_transition_time == T0 + 10 * S
    ci.observe(None, None, [], at=20 * S)
    assert ci.status.state == DELETING
    assert cond(ci.status, READY).reason == "VirtualMachineNotFound"
    assert cond(ci.status, PROVISIONED).is_true

    leftover = "ExternalIP 'auto-0192' (release_external_ip failed)"
    result = ci.observe(None, None, [], at=60 * S, cleanup_gave_up=True, cleanup_leftovers=(leftover,))
    assert ci.status.state == DELETE_FAILED
    assert [(e.type, e.reason) for e in result.events] == [(2, "DeleteFailed")]
    assert leftover in result.events[0].message
    ci.observe(None, None, [], at=70 * S)
    assert ci.events.count("DeleteFailed") == 1

    ci.observe(None, None, [], at=80 * S, cleanup_gave_up=False, cleanup_leftovers=())
    assert ci.status.state == DELETING
    assert ci.states() == [RUNNING, DELETING, DELETE_FAILED, DELETING]
