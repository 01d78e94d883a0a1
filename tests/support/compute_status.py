"""Builders of KubeVirt VM / VMI / DataVolume dicts shaped as the simulator emits them
(simulator.md §3.2), and a driver that feeds them to the compute derivation in sequence the way
the reconciler does (each result becomes the next ``previous``). Holds no tests."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any

from osac.status.compute.derivation import (
    ComputeAttachment,
    ComputeContext,
    ComputeDerivation,
    ComputeInstanceStatusView,
    TenantReadiness,
    derive_compute_instance_status,
)
from osac.status.conditions.views import ConditionView, condition

T0 = datetime(2026, 3, 4, 10, 0, tzinfo=UTC)
ADDRESS = "10.0.0.5"
SECOND_ADDRESS = "10.0.1.7"


def ts(at: timedelta) -> str:
    """``T0 + at`` as a Kubernetes timestamp."""
    return (T0 + at).isoformat().replace("+00:00", "Z")


def vm(
    printable: str | None = "Running",
    *,
    ready: bool | None = None,
    run_strategy: str = "Always",
    conditions: Sequence[Mapping[str, Any]] = (),
    deleting: bool = False,
) -> dict[str, Any]:
    """A VirtualMachine; ``ready`` defaults to True exactly when the VM is Running."""
    status: dict[str, Any] = {"ready": printable == "Running" if ready is None else ready}
    if printable is not None:
        status["printableStatus"] = printable
    if conditions:
        status["conditions"] = [dict(c) for c in conditions]
    metadata: dict[str, Any] = {"name": "ci-0192", "namespace": "osac"}
    if deleting:
        metadata["deletionTimestamp"] = ts(timedelta(hours=2))
    return {"metadata": metadata, "spec": {"runStrategy": run_strategy}, "status": status}


def vmi(
    created: timedelta = timedelta(minutes=1),
    *,
    phase: str = "Running",
    addresses: Mapping[str, str] | None = None,
    paused: bool = False,
    uid: str = "vmi-1",
) -> dict[str, Any]:
    """A VirtualMachineInstance created at ``T0 + created``; ``addresses`` maps interface -> IP
    (default: ``nic-0`` has ``ADDRESS``)."""
    interfaces = [
        {"name": name, "ipAddress": address, "mac": f"02:00:00:00:00:0{index}"}
        for index, (name, address) in enumerate((addresses if addresses is not None else {"nic-0": ADDRESS}).items())
    ]
    status: dict[str, Any] = {"phase": phase, "interfaces": interfaces}
    if paused:
        status["conditions"] = [{"type": "Paused", "status": "True", "reason": "PausedByUser", "message": ""}]
    return {"metadata": {"uid": uid, "creationTimestamp": ts(created)}, "status": status}


def dvs(*phases: str) -> list[dict[str, Any]]:
    return [
        {"metadata": {"name": f"dv-{index}"}, "status": {"phase": phase, "progress": "100.0%" if phase == "Succeeded" else "42.0%"}}
        for index, phase in enumerate(phases)
    ]


#: The three DataVolumes of the default context (boot + 2 additional disks), all imported.
DONE = ("Succeeded", "Succeeded", "Succeeded")


def context(**fields: Any) -> ComputeContext:
    """A ready tenant ``acme``, the current spec applied, 40 GiB boot + 2 disks, one primary NIC."""
    fields.setdefault("tenant", TenantReadiness("acme", True, "READY"))
    fields.setdefault("spec_hash", "h1")
    fields.setdefault("applied_spec_hash", "h1")
    fields.setdefault("boot_disk_gib", 40)
    fields.setdefault("additional_disks", 2)
    fields.setdefault("attachments", (ComputeAttachment(subnet="subnet-a", primary=True, address=ADDRESS),))
    return ComputeContext(**fields)


def cond(status: ComputeInstanceStatusView, condition_type: int) -> ConditionView:
    found = condition(status.conditions, condition_type)
    assert found is not None, f"condition {condition_type} missing"
    return found


@dataclass
class Instance:
    """One compute instance reconciled over time."""

    ctx: ComputeContext = field(default_factory=context)
    now: datetime = T0
    status: ComputeInstanceStatusView = field(default_factory=ComputeInstanceStatusView)
    history: list[ComputeDerivation] = field(default_factory=list)

    def observe(
        self,
        machine: Mapping[str, Any] | None = None,
        instance: Mapping[str, Any] | None = None,
        volumes: Sequence[Mapping[str, Any]] = (),
        *,
        at: timedelta | None = None,
        **context_changes: Any,
    ) -> ComputeDerivation:
        if at is not None:
            self.now = T0 + at
        if context_changes:
            self.ctx = replace(self.ctx, **context_changes)
        result = derive_compute_instance_status(machine, instance, list(volumes), self.status, self.now, self.ctx)
        self.status = result.status
        self.history.append(result)
        return result

    @property
    def events(self) -> list[str]:
        return [event.reason for result in self.history for event in result.events]

    def reasons(self, condition_type: int) -> list[str]:
        """The distinct successive reasons of one condition over the history."""
        seen: list[str] = []
        for result in self.history:
            reason = cond(result.status, condition_type).reason
            if not seen or seen[-1] != reason:
                seen.append(reason)
        return seen

    def states(self) -> list[int]:
        seen: list[int] = []
        for result in self.history:
            if not seen or seen[-1] != result.status.state:
                seen.append(result.status.state)
        return seen
