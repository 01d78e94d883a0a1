"""The gated provisioning of a bare-metal instance (compute.md §3.2) as an immutable record.

The reconciler runs the gates; this module holds what it records about them, one fixed entry per
gate (status, attempts, start, finish, message), stored in ``status.provisioning_steps``. Every
change returns a new value, so the reconciler computes the next record and the derivation diffs
it against the stored one to emit gate events exactly once. Completed gates never re-run: a
restarted service resumes at the first incomplete gate.

A failed gate keeps its failure reason as the first token of its message (``Reason: detail``),
because the stored step has no reason field and gate 4 can fail for two reasons.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from osac.api.private.v1 import bare_metal_instance_type_pb2 as pb

# -- gates, in order -----------------------------------------------------------------------------
INVENTORY_ASSIGNED = "InventoryAssigned"
NETWORKING_CONFIGURED = "NetworkingConfigured"
PROVISIONING_COMPLETE = "ProvisioningComplete"
IP_DISCOVERY_COMPLETE = "IPDiscoveryComplete"
GATES = (INVENTORY_ASSIGNED, NETWORKING_CONFIGURED, PROVISIONING_COMPLETE, IP_DISCOVERY_COMPLETE)

# -- the gates' limits (compute.md §3.2) --------------------------------------------------------------
#: No free host: retry with backoff from 30 s up to 5 min, forever.
HOST_WAIT_BACKOFF = (timedelta(seconds=30), timedelta(minutes=5))
#: Fabric errors are retried with backoff from 2 s up to 30 s, within 2 min per interface.
NETWORKING_RETRY_BACKOFF = (timedelta(seconds=2), timedelta(seconds=30))
NETWORKING_BUDGET_PER_INTERFACE = timedelta(minutes=2)
#: ``provision_host`` attempts before the gate fails.
PROVISIONING_ATTEMPTS = 3
#: DHCP leases are polled this often, and the gate fails when one is still missing after the timeout.
LEASE_POLL_INTERVAL = timedelta(seconds=5)
IP_DISCOVERY_TIMEOUT_AFTER = timedelta(minutes=5)

# -- BareMetalInstanceProvisioningStepStatus ----------------------------------------------------
STEP_PENDING: int = pb.BARE_METAL_INSTANCE_PROVISIONING_STEP_STATUS_PENDING
STEP_RUNNING: int = pb.BARE_METAL_INSTANCE_PROVISIONING_STEP_STATUS_RUNNING
STEP_COMPLETED: int = pb.BARE_METAL_INSTANCE_PROVISIONING_STEP_STATUS_COMPLETED
STEP_FAILED: int = pb.BARE_METAL_INSTANCE_PROVISIONING_STEP_STATUS_FAILED

# -- PROVISIONED reasons while a gate runs, and when one fails -------------------------------------
WAITING_FOR_HOST = "WaitingForHost"
CONFIGURING_NETWORK = "ConfiguringNetwork"
PROVISIONING_HOST = "ProvisioningHost"
DISCOVERING_IP = "DiscoveringIP"
NETWORKING_CONFIGURATION_FAILED = "NetworkingConfigurationFailed"
PROVISIONING_FAILED = "ProvisioningFailed"
IP_DISCOVERY_TIMEOUT = "IPDiscoveryTimeout"
ADDRESS_MISMATCH = "AddressMismatch"

#: The PROVISIONED reason while each gate is the first incomplete one.
RUNNING_REASONS: Mapping[str, str] = {
    INVENTORY_ASSIGNED: WAITING_FOR_HOST,
    NETWORKING_CONFIGURED: CONFIGURING_NETWORK,
    PROVISIONING_COMPLETE: PROVISIONING_HOST,
    IP_DISCOVERY_COMPLETE: DISCOVERING_IP,
}
#: Message of the running reason when the gate's own message is empty.
RUNNING_MESSAGES: Mapping[str, str] = {
    INVENTORY_ASSIGNED: "waiting for a free host",
    NETWORKING_CONFIGURED: "moving the host's ports to their subnets",
    PROVISIONING_COMPLETE: "provisioning the operating system",
    IP_DISCOVERY_COMPLETE: "waiting for the DHCP leases",
}
#: The failure reasons each gate may record; the first is used when the message names none.
#: Gate 1 never fails by itself (it waits for a free host forever); a terminal provider error
#: recorded on it reads as a provisioning failure.
FAILURE_REASONS: Mapping[str, tuple[str, ...]] = {
    INVENTORY_ASSIGNED: (PROVISIONING_FAILED,),
    NETWORKING_CONFIGURED: (NETWORKING_CONFIGURATION_FAILED,),
    PROVISIONING_COMPLETE: (PROVISIONING_FAILED,),
    IP_DISCOVERY_COMPLETE: (IP_DISCOVERY_TIMEOUT, ADDRESS_MISMATCH),
}


@dataclass(frozen=True)
class ProvisioningStep:
    """The record of one gate; ``status`` is a step-status number (open enum)."""

    gate: str
    status: int = STEP_PENDING
    attempts: int = 0
    started_at: datetime | None = None
    finished_at: datetime | None = None
    message: str = ""

    @property
    def is_completed(self) -> bool:
        return self.status == STEP_COMPLETED

    @property
    def is_failed(self) -> bool:
        return self.status == STEP_FAILED

    @property
    def failure_reason(self) -> str:
        """The reason a failed gate recorded, or its default one."""
        allowed = FAILURE_REASONS.get(self.gate, (PROVISIONING_FAILED,))
        token, separator, _ = self.message.partition(":")
        return token if separator and token in allowed else allowed[0]

    @property
    def detail(self) -> str:
        """The message without a leading reason token."""
        token, separator, rest = self.message.partition(":")
        if separator and token in FAILURE_REASONS.get(self.gate, ()):
            return rest.strip()
        return self.message


@dataclass(frozen=True)
class ProvisioningSteps:
    """All gates in order. Entries for gates this version does not know are kept unchanged."""

    steps: tuple[ProvisioningStep, ...] = tuple(ProvisioningStep(gate) for gate in GATES)

    def __iter__(self) -> Iterator[ProvisioningStep]:
        return iter(self.steps)

    def normalised(self) -> ProvisioningSteps:
        """The four gates first, in order (missing ones PENDING), then unknown entries."""
        known = {step.gate: step for step in self.steps if step.gate in GATES}
        ordered = [known.get(gate, ProvisioningStep(gate)) for gate in GATES]
        ordered.extend(step for step in self.steps if step.gate not in GATES)
        return ProvisioningSteps(tuple(ordered))

    def step(self, gate: str) -> ProvisioningStep:
        return next((step for step in self.steps if step.gate == gate), ProvisioningStep(gate))

    @property
    def are_complete(self) -> bool:
        return all(self.step(gate).is_completed for gate in GATES)

    @property
    def current(self) -> ProvisioningStep | None:
        """The first gate not completed: the only one that may run. None when all are done."""
        return next((self.step(gate) for gate in GATES if not self.step(gate).is_completed), None)

    @property
    def failed(self) -> ProvisioningStep | None:
        current = self.current
        return current if current is not None and current.is_failed else None

    # -- the reconciler's transitions; each returns a new record -------------------------------

    def start(self, gate: str, now: datetime, message: str = "") -> ProvisioningSteps:
        """Mark ``gate`` RUNNING. Idempotent: a running gate keeps its start time, and a completed
        gate stays completed (completed gates never re-run)."""
        step = self.step(gate)
        if step.is_completed:
            return self
        if step.status == STEP_RUNNING:
            return self._with(replace(step, message=message or step.message))
        return self._with(replace(step, status=STEP_RUNNING, started_at=now, finished_at=None, message=message))

    def attempt(self, gate: str, message: str = "") -> ProvisioningSteps:
        """Count one more attempt of a running gate, keeping the last error as its message."""
        step = self.step(gate)
        return self._with(replace(step, attempts=step.attempts + 1, message=message))

    def complete(self, gate: str, now: datetime, message: str = "") -> ProvisioningSteps:
        step = self.step(gate)
        if step.is_completed:
            return self
        return self._with(replace(step, status=STEP_COMPLETED, finished_at=now, message=message))

    def fail(self, gate: str, now: datetime, reason: str, detail: str) -> ProvisioningSteps:
        """Record a terminal failure; ``reason`` must be one of the gate's ``FAILURE_REASONS``.
        A completed gate stays completed."""
        if reason not in FAILURE_REASONS.get(gate, ()):
            raise ValueError(f"gate {gate} cannot fail with reason {reason}")
        step = self.step(gate)
        if step.is_completed:
            return self
        return self._with(replace(step, status=STEP_FAILED, finished_at=now, message=f"{reason}: {detail}"))

    def rerun_failed(self) -> ProvisioningSteps:
        """On Signal or an Update: the failed gate becomes PENDING with its attempts reset;
        completed gates stay completed."""
        failed = self.failed
        if failed is None:
            return self
        return self._with(ProvisioningStep(failed.gate))

    def _with(self, changed: ProvisioningStep) -> ProvisioningSteps:
        steps = self.normalised().steps
        return ProvisioningSteps(tuple(changed if step.gate == changed.gate else step for step in steps))
