"""The gate record (compute.md §3.2) and the lease check that decides gate 4."""

from __future__ import annotations

from datetime import timedelta

import pytest

from osac.status.baremetal.derivation import (
    BareMetalAttachment,
    ProvisioningStep,
    ProvisioningSteps,
    check_leases,
)
from osac.status.baremetal.gates import (
    ADDRESS_MISMATCH,
    GATES,
    INVENTORY_ASSIGNED,
    IP_DISCOVERY_COMPLETE,
    IP_DISCOVERY_TIMEOUT,
    NETWORKING_CONFIGURATION_FAILED,
    NETWORKING_CONFIGURED,
    PROVISIONING_COMPLETE,
    PROVISIONING_FAILED,
    STEP_COMPLETED,
    STEP_FAILED,
    STEP_PENDING,
    STEP_RUNNING,
)
from tests.support.baremetal_status import T0, completed

S = timedelta(seconds=1)


def test_a_new_record_has_four_pending_gates_in_order() -> None:
    steps = ProvisioningSteps()
    assert [s.gate for s in steps] == list(GATES) == [
        "InventoryAssigned", "NetworkingConfigured", "ProvisioningComplete", "IPDiscoveryComplete"]
    assert all(s.status == STEP_PENDING for s in steps)
    assert steps.current == ProvisioningStep(INVENTORY_ASSIGNED)
    assert not steps.are_complete and steps.failed is None


def test_gates_complete_in_order_and_never_rerun() -> None:
    steps = ProvisioningSteps().start(INVENTORY_ASSIGNED, T0).complete(INVENTORY_ASSIGNED, T0 + S, "bm-std-007")
    assert steps.current is not None and steps.current.gate == NETWORKING_CONFIGURED
    assert steps.start(INVENTORY_ASSIGNED, T0 + 9 * S) == steps
    assert steps.step(INVENTORY_ASSIGNED).finished_at == T0 + S
    assert steps.complete(INVENTORY_ASSIGNED, T0 + 5 * S) == steps
    assert steps.fail(INVENTORY_ASSIGNED, T0 + 5 * S, PROVISIONING_FAILED, "late error") == steps


def test_start_is_idempotent_and_attempts_count() -> None:
    steps = completed(1).start(NETWORKING_CONFIGURED, T0)
    steps = steps.attempt(NETWORKING_CONFIGURED, "switch busy").start(NETWORKING_CONFIGURED, T0 + 5 * S)
    steps = steps.attempt(NETWORKING_CONFIGURED, "switch busy again")
    step = steps.step(NETWORKING_CONFIGURED)
    assert (step.status, step.started_at, step.attempts, step.message) == (STEP_RUNNING, T0, 2, "switch busy again")


@pytest.mark.parametrize(
    ("gate", "reason"),
    [(NETWORKING_CONFIGURED, NETWORKING_CONFIGURATION_FAILED), (PROVISIONING_COMPLETE, PROVISIONING_FAILED),
     (IP_DISCOVERY_COMPLETE, IP_DISCOVERY_TIMEOUT), (IP_DISCOVERY_COMPLETE, ADDRESS_MISMATCH)],
    ids=["gate-2", "gate-3", "gate-4-timeout", "gate-4-mismatch"],
)
def test_a_failure_keeps_its_reason_and_detail(gate: str, reason: str) -> None:
    steps = completed(GATES.index(gate)).start(gate, T0).fail(gate, T0 + S, reason, "what went wrong")
    failed = steps.failed
    assert failed is not None and failed.gate == gate and failed.status == STEP_FAILED
    assert (failed.failure_reason, failed.detail, failed.finished_at) == (reason, "what went wrong", T0 + S)


def test_a_gate_refuses_a_reason_it_cannot_fail_with() -> None:
    with pytest.raises(ValueError, match="cannot fail with reason"):
        completed(1).fail(NETWORKING_CONFIGURED, T0, IP_DISCOVERY_TIMEOUT, "wrong")


def test_a_failure_message_without_a_reason_reads_as_the_gates_default() -> None:
    step = ProvisioningStep(IP_DISCOVERY_COMPLETE, STEP_FAILED, message="written by hand: no lease")
    assert (step.failure_reason, step.detail) == (IP_DISCOVERY_TIMEOUT, "written by hand: no lease")


def test_rerun_resets_only_the_failed_gate() -> None:
    steps = completed(1).start(NETWORKING_CONFIGURED, T0).attempt(NETWORKING_CONFIGURED, "e")
    steps = steps.fail(NETWORKING_CONFIGURED, T0 + 2 * S, NETWORKING_CONFIGURATION_FAILED, "budget exhausted")
    rerun = steps.rerun_failed()
    assert rerun.step(INVENTORY_ASSIGNED) == steps.step(INVENTORY_ASSIGNED)
    assert rerun.step(NETWORKING_CONFIGURED) == ProvisioningStep(NETWORKING_CONFIGURED)
    assert rerun.failed is None
    assert completed(2).rerun_failed() == completed(2)


def test_unknown_gates_are_kept_after_the_known_ones() -> None:
    future = ProvisioningStep("FirmwareChecked", STEP_COMPLETED, 1, T0, T0, "")
    steps = ProvisioningSteps((future, ProvisioningStep(NETWORKING_CONFIGURED))).normalised()
    assert [s.gate for s in steps] == [*GATES, "FirmwareChecked"]
    assert steps.complete(INVENTORY_ASSIGNED, T0).steps[-1] == future


def test_lease_check() -> None:
    attachments = (BareMetalAttachment("ens1f0", "a", True, "10.0.2.17"), BareMetalAttachment("ens2f0", "b", False, "10.0.3.17"))
    waiting = check_leases(attachments, {"ens1f0": "10.0.2.17", "ens2f0": None})
    assert (waiting.is_complete, waiting.missing, waiting.mismatched) == (False, ("ens2f0",), ())
    assert waiting.missing_message == "no DHCP lease yet for interface(s) ens2f0"
    wrong = check_leases(attachments, {"ens1f0": "10.0.2.99", "ens2f0": "10.0.3.17"})
    assert wrong.mismatch_message == "interface ens1f0 leased 10.0.2.99, reserved 10.0.2.17"
    assert check_leases(attachments, {"ens1f0": "10.0.2.17", "ens2f0": "10.0.3.17"}).is_complete
