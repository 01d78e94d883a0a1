"""What the compute-instance (VM) pages show, computed from a compute instance message and ``now``."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from google.protobuf.message import Message

from osac.console.clusters import ConditionRow, Moment, condition_rows
from osac.console.labels import COMPUTE_STATES, Label, state_label

#: run_strategy values (compute_instance_type.proto): Always runs the VM, Halted stops it.
RUNNING = "Always"
HALTED = "Halted"


@dataclass(frozen=True)
class VmRow:
    id: str
    name: str
    tenant: str
    version: int
    state: Label
    template: str
    internal_ip: str
    external_ip: str
    created: Moment | None


@dataclass(frozen=True)
class NicRow:
    subnet: str
    address: str
    primary: bool


@dataclass(frozen=True)
class VmDetail:
    row: VmRow
    run_strategy: str
    state_since: Moment | None
    last_restarted: Moment | None
    nics: tuple[NicRow, ...]
    conditions: tuple[ConditionRow, ...]


def vm_row(vm: Message, now: datetime, templates: dict[str, str] | None = None) -> VmRow:
    meta = vm.metadata  # type: ignore[attr-defined]
    status = vm.status  # type: ignore[attr-defined]
    return VmRow(
        id=vm.id,  # type: ignore[attr-defined]
        name=meta.name,
        tenant=meta.tenant,
        version=meta.version,
        state=state_label(COMPUTE_STATES, status.state),
        template=(templates or {}).get(vm.spec.template, vm.spec.template) or "-",  # type: ignore[attr-defined]
        internal_ip=status.internal_ip_address or "-",
        external_ip=status.external_ip_address or "-",
        created=Moment.of(meta.creation_timestamp if meta.HasField("creation_timestamp") else None, now),
    )


def vm_detail(vm: Message, now: datetime, subnet_names: dict[str, str], templates: dict[str, str]) -> VmDetail:
    status = vm.status  # type: ignore[attr-defined]
    return VmDetail(
        row=vm_row(vm, now, templates),
        run_strategy=vm.spec.run_strategy or RUNNING,  # type: ignore[attr-defined]
        state_since=Moment.of(status.state_transition_time if status.HasField("state_transition_time") else None, now),
        last_restarted=Moment.of(status.last_restarted_at if status.HasField("last_restarted_at") else None, now),
        nics=tuple(
            NicRow(subnet_names.get(nic.subnet, nic.subnet) or "-", nic.ip_address or "-", nic.primary)
            for nic in status.compute_network_attachment_statuses
        ),
        conditions=condition_rows(status.conditions, now),
    )
