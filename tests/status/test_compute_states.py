"""The state table of compute.md §2.4: every row, first match wins."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from typing import Any

import pytest

from osac.status.compute.derivation import (
    ComputeInstanceStatusView,
    ProviderFailure,
    derive_compute_instance_status,
)
from osac.status.compute.views import (
    DELETE_FAILED,
    DELETING,
    FAILED,
    PAUSED,
    PROVISIONED,
    RESTART_FAILED,
    RUNNING,
    STARTING,
    STOPPED,
    STOPPING,
)
from osac.status.conditions.views import FALSE, TRUE, ConditionView
from tests.support.compute_status import DONE, T0, context, dvs, vm, vmi

NOW = T0 + timedelta(minutes=30)
FAILED_RESTART = ConditionView(RESTART_FAILED, TRUE, "RestartFailed", "restart timed out", T0)


def previous(state: int = RUNNING, *conditions: ConditionView) -> ComputeInstanceStatusView:
    return ComputeInstanceStatusView(state=state, conditions=conditions, state_transition_time=T0)


ROWS: list[tuple[str, dict[str, Any], int]] = [
    # 1: deletion
    ("1-instance-deletion", {"ctx": {"deletion_requested": True}}, DELETING),
    ("1-vm-deletion-timestamp", {"vm": vm("Running", deleting=True)}, DELETING),
    ("1-cleanup-gave-up", {"ctx": {"deletion_requested": True, "cleanup_gave_up": True}}, DELETE_FAILED),
    ("1-before-unreadable", {"ctx": {"deletion_requested": True, "readable": False}}, DELETING),
    ("1-before-terminal-failure",
     {"ctx": {"deletion_requested": True, "terminal_failure": ProviderFailure("Quota", "quota exceeded")}}, DELETING),
    # 2: unreadable keeps the previous state
    ("2-provider-unreadable", {"ctx": {"readable": False}, "previous": previous(STOPPED)}, STOPPED),
    ("2-malformed-vm", {"vm": {"status": {"printableStatus": 7}}, "previous": previous(PAUSED)}, PAUSED),
    ("2-malformed-vmi", {"vmi": {"status": {"interfaces": "nic-0"}}, "previous": previous(STOPPING)}, STOPPING),
    ("2-malformed-dv", {"dvs": ["Succeeded"], "previous": previous(STOPPED)}, STOPPED),
    ("2-first-status-is-starting", {"ctx": {"readable": False}, "previous": ComputeInstanceStatusView()}, STARTING),
    ("2-before-terminal-failure",
     {"ctx": {"readable": False, "terminal_failure": ProviderFailure("Quota", "quota exceeded")}}, RUNNING),
    # 3: terminal provider error, latched
    ("3-terminal-failure", {"ctx": {"terminal_failure": ProviderFailure("Quota", "quota exceeded")}}, FAILED),
    ("3-latched-without-context",
     {"previous": previous(FAILED, ConditionView(PROVISIONED, FALSE, "ReconciliationFailed", "quota exceeded", T0))},
     FAILED),
    # 4: failed restart while the VM does not run
    ("4-restart-failed-vm-stopped", {"vm": vm("Stopped"), "previous": previous(STOPPED, FAILED_RESTART)}, FAILED),
    ("4-restart-failed-vm-absent", {"vm": None, "previous": previous(STARTING, FAILED_RESTART)}, FAILED),
    ("4-restart-failed-but-running", {"previous": previous(FAILED, FAILED_RESTART)}, RUNNING),
    # 5: no VM yet
    ("5-vm-absent", {"vm": None, "vmi": None, "dvs": []}, STARTING),
    # 6: booting
    *[(f"6-{p or 'empty'}", {"vm": vm(p), "vmi": None}, STARTING)
      for p in ("Provisioning", "WaitingForVolumeBinding", "WaitingForReceiver", "Starting", "")],
    ("6-no-printable-status", {"vm": vm(None), "vmi": None}, STARTING),
    # 7: paused
    ("7-paused", {"vm": vm("Paused", ready=False), "vmi": vmi(paused=True)}, PAUSED),
    ("7-running-vmi-paused", {"vm": vm("Running"), "vmi": vmi(paused=True)}, PAUSED),
    # 8: running
    ("8-running", {}, RUNNING),
    ("8-migrating", {"vm": vm("Migrating", ready=True)}, RUNNING),
    # 9: stopping
    ("9-stopping", {"vm": vm("Stopping")}, STOPPING),
    ("9-terminating", {"vm": vm("Terminating")}, STOPPING),
    # 10: stopped
    ("10-stopped", {"vm": vm("Stopped"), "vmi": None}, STOPPED),
    # 11: KubeVirt errors
    *[(f"11-{p}", {"vm": vm(p), "vmi": None}, FAILED)
      for p in ("ErrorUnschedulable", "ErrImagePull", "ImagePullBackOff", "ErrorPvcNotFound",
                "ErrorDataVolumeNotFound", "DataVolumeError", "CrashLoopBackOff")],
    # 12: unknown printable status keeps the previous state
    ("12-unknown", {"vm": vm("Unknown"), "previous": previous(STOPPED)}, STOPPED),
    ("12-unrecognised", {"vm": vm("SomethingNewer"), "previous": previous(PAUSED)}, PAUSED),
    ("12-first-status-is-starting", {"vm": vm("Unknown"), "previous": ComputeInstanceStatusView()}, STARTING),
]


@pytest.mark.parametrize(("case", "expected"), [(case, expected) for _, case, expected in ROWS],
                         ids=[name for name, _, _ in ROWS])
def test_state_row(case: dict[str, Any], expected: int) -> None:
    result = derive_compute_instance_status(
        case.get("vm", vm("Running")),
        case.get("vmi", vmi()),
        case.get("dvs", dvs(*DONE)),
        case.get("previous", previous(RUNNING)),
        NOW,
        context(**case.get("ctx", {})),
    )
    assert result.status.state == expected


def test_kubevirt_error_is_not_latched() -> None:
    failed = derive_compute_instance_status(vm("ErrorUnschedulable"), None, dvs(*DONE), previous(STARTING), NOW, context())
    assert failed.status.state == FAILED
    recovered = derive_compute_instance_status(vm("Running"), vmi(), dvs(*DONE), failed.status, NOW, context())
    assert recovered.status.state == RUNNING


def test_terminal_failure_stays_failed_when_the_vm_recovers() -> None:
    failed = derive_compute_instance_status(
        vm("Running"), vmi(), dvs(*DONE), previous(RUNNING), NOW,
        context(terminal_failure=ProviderFailure("Quota", "quota exceeded")),
    )
    assert failed.status.state == FAILED
    later = derive_compute_instance_status(vm("Running"), vmi(), dvs(*DONE), failed.status, NOW + timedelta(hours=1), context())
    assert later.status.state == FAILED


def test_unreadable_keeps_every_condition_and_address() -> None:
    before = derive_compute_instance_status(vm("Running"), vmi(), dvs(*DONE), ComputeInstanceStatusView(), T0, context())
    after = derive_compute_instance_status(None, None, [], before.status, NOW, context(readable=False))
    assert after.status == before.status
    assert after.events == ()


@pytest.mark.parametrize("changed", [True, False], ids=["state-changes", "state-stays"])
def test_state_transition_time_is_stamped_exactly_on_state_changes(changed: bool) -> None:
    start = previous(STOPPED if changed else RUNNING)
    result = derive_compute_instance_status(vm("Running"), vmi(), dvs(*DONE), start, NOW, context())
    assert result.status.state == RUNNING
    assert result.status.state_transition_time == (NOW if changed else T0)


def test_unknown_previous_state_number_survives_an_unknown_printable_status() -> None:
    result = derive_compute_instance_status(vm("Unknown"), None, dvs(*DONE), replace(previous(), state=42), NOW, context())
    assert result.status.state == 42
