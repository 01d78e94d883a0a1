"""Typed readings of the KubeVirt dicts a compute provider returns (simulator.md §3.2).

The derivation must be total: a provider (or a newer KubeVirt) may hand back anything. Parsing
into frozen values up front keeps every shape check in one place, and a dict that does not have
the documented shape yields None, which the derivation treats as an unreadable observation
instead of guessing (compute.md §1).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from osac.status.conditions import readers
from osac.status.conditions.views import conditions_by_type

#: ``status.printableStatus`` values grouped by the state rows of compute.md §2.4.
STARTING_STATUSES = frozenset({"Provisioning", "WaitingForVolumeBinding", "WaitingForReceiver", "Starting", ""})
PAUSED_STATUS = "Paused"
RUNNING_STATUS = "Running"
RUNNING_STATUSES = frozenset({RUNNING_STATUS, "Migrating"})
STOPPING_STATUSES = frozenset({"Stopping", "Terminating"})
STOPPED_STATUS = "Stopped"
ERROR_STATUSES = frozenset(
    {
        "ErrorUnschedulable",
        "ErrImagePull",
        "ImagePullBackOff",
        "ErrorPvcNotFound",
        "ErrorDataVolumeNotFound",
        "DataVolumeError",
        "CrashLoopBackOff",
    }
)


@dataclass(frozen=True)
class KubeCondition:
    """One Kubernetes-style condition; ``status`` is the text ``True``/``False``/``Unknown``."""

    type: str
    status: str
    reason: str
    message: str

    @property
    def is_true(self) -> bool:
        return self.status == "True"


@dataclass(frozen=True)
class VirtualMachineReading:
    deletion_requested: bool
    run_strategy: str
    printable_status: str
    ready: bool
    conditions: Mapping[str, KubeCondition]


@dataclass(frozen=True)
class InterfaceReading:
    """A VMI interface; ``addresses`` holds ``ipAddress`` followed by ``ipAddresses``."""

    name: str
    addresses: tuple[str, ...]


@dataclass(frozen=True)
class VirtualMachineInstanceReading:
    uid: str
    created_at: datetime | None
    phase: str
    conditions: Mapping[str, KubeCondition]
    interfaces: tuple[InterfaceReading, ...]

    @property
    def is_paused(self) -> bool:
        paused = self.conditions.get("Paused")
        return paused is not None and paused.is_true


@dataclass(frozen=True)
class DataVolumeReading:
    name: str
    phase: str

    @property
    def has_succeeded(self) -> bool:
        return self.phase == "Succeeded"


@dataclass(frozen=True)
class ComputeObservation:
    """The three provider objects of one instance; ``virtual_machine`` None = not found."""

    virtual_machine: VirtualMachineReading | None
    virtual_machine_instance: VirtualMachineInstanceReading | None
    data_volumes: tuple[DataVolumeReading, ...]


def read_compute_observation(
    virtual_machine: Any, virtual_machine_instance: Any, data_volumes: Any
) -> ComputeObservation | None:
    """The observation as typed values, or None when any part is malformed."""
    try:
        return ComputeObservation(
            virtual_machine=None if virtual_machine is None else _virtual_machine(virtual_machine),
            virtual_machine_instance=(
                None if virtual_machine_instance is None else _virtual_machine_instance(virtual_machine_instance)
            ),
            data_volumes=_data_volumes(data_volumes),
        )
    except readers.Malformed:
        return None


def _virtual_machine(value: Any) -> VirtualMachineReading:
    obj = readers.document(value)
    metadata = readers.section(obj.get("metadata"))
    spec = readers.section(obj.get("spec"))
    status = readers.section(obj.get("status"))
    return VirtualMachineReading(
        deletion_requested=readers.optional_time(metadata.get("deletionTimestamp")) is not None,
        run_strategy=readers.text(spec.get("runStrategy")),
        printable_status=readers.text(status.get("printableStatus")),
        ready=readers.flag(status.get("ready")),
        conditions=_conditions(status.get("conditions")),
    )


def _virtual_machine_instance(value: Any) -> VirtualMachineInstanceReading:
    obj = readers.document(value)
    metadata = readers.section(obj.get("metadata"))
    status = readers.section(obj.get("status"))
    return VirtualMachineInstanceReading(
        uid=readers.text(metadata.get("uid")),
        created_at=readers.optional_time(metadata.get("creationTimestamp")),
        phase=readers.text(status.get("phase")),
        conditions=_conditions(status.get("conditions")),
        interfaces=tuple(_interface(item) for item in readers.entries(status.get("interfaces"))),
    )


def _interface(value: Any) -> InterfaceReading:
    item = readers.document(value)
    addresses: list[str] = []
    first = readers.text(item.get("ipAddress"))
    if first:
        addresses.append(first)
    addresses.extend(readers.text(address) for address in readers.entries(item.get("ipAddresses")))
    return InterfaceReading(name=readers.text(item.get("name")), addresses=tuple(a for a in addresses if a))


def _data_volumes(value: Any) -> tuple[DataVolumeReading, ...]:
    if isinstance(value, str | bytes) or not isinstance(value, Sequence):
        raise readers.Malformed
    readings: list[DataVolumeReading] = []
    for item in value:
        obj = readers.document(item)
        metadata = readers.section(obj.get("metadata"))
        status = readers.section(obj.get("status"))
        readings.append(DataVolumeReading(name=readers.text(metadata.get("name")), phase=readers.text(status.get("phase"))))
    return tuple(readings)


def _conditions(value: Any) -> Mapping[str, KubeCondition]:
    by_type = conditions_by_type(value)
    if by_type is None:
        raise readers.Malformed
    return {
        kind: KubeCondition(
            type=kind,
            status=readers.text(item.get("status")),
            reason=readers.text(item.get("reason")),
            message=readers.text(item.get("message")),
        )
        for kind, item in by_type.items()
    }
