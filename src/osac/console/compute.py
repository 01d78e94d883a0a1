"""What the compute pages show (VMs and bare-metal instances), computed from their messages and ``now``.

The messages are typed as the public classes, which the private ones (a provider admin's reads)
extend: every field read here has the same name in both.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from osac.api.private.v1.bare_metal_instance_type_pb2 import (
    BARE_METAL_INSTANCE_RUN_STRATEGY_ALWAYS,
    BARE_METAL_INSTANCE_RUN_STRATEGY_HALTED,
)
from osac.api.public.v1.bare_metal_instance_type_pb2 import BareMetalInstance
from osac.api.public.v1.compute_instance_type_pb2 import ComputeInstance
from osac.console.clusters import ConditionRow, Moment, condition_rows
from osac.console.labels import BARE_METAL_STATES, COMPUTE_STATES, Label, state_label

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
    interface: str = ""


@dataclass(frozen=True)
class VmDetail:
    row: VmRow
    run_strategy: str
    state_since: Moment | None
    last_restarted: Moment | None
    nics: tuple[NicRow, ...]
    conditions: tuple[ConditionRow, ...]


def vm_row(vm: ComputeInstance, now: datetime, templates: dict[str, str] | None = None) -> VmRow:
    meta = vm.metadata
    status = vm.status
    return VmRow(
        id=vm.id,
        name=meta.name,
        tenant=meta.tenant,
        version=meta.version,
        state=state_label(COMPUTE_STATES, status.state),
        template=(templates or {}).get(vm.spec.template, vm.spec.template) or "-",
        internal_ip=status.internal_ip_address or "-",
        external_ip=status.external_ip_address or "-",
        created=Moment.of(meta.creation_timestamp if meta.HasField("creation_timestamp") else None, now),
    )


def vm_detail(vm: ComputeInstance, now: datetime, subnet_names: dict[str, str], templates: dict[str, str]) -> VmDetail:
    status = vm.status
    return VmDetail(
        row=vm_row(vm, now, templates),
        run_strategy=vm.spec.run_strategy or RUNNING,
        state_since=Moment.of(status.state_transition_time if status.HasField("state_transition_time") else None, now),
        last_restarted=Moment.of(status.last_restarted_at if status.HasField("last_restarted_at") else None, now),
        nics=tuple(
            NicRow(subnet_names.get(nic.subnet, nic.subnet) or "-", nic.ip_address or "-", nic.primary)
            for nic in status.compute_network_attachment_statuses
        ),
        conditions=condition_rows(status.conditions, now),
    )


#: spec.run_strategy of a bare-metal instance (an enum): ALWAYS keeps the host on, HALTED off.
BARE_METAL_POWER = {0: "Always", 1: "Always", 2: "Halted"}
BARE_METAL_RUNNING = BARE_METAL_INSTANCE_RUN_STRATEGY_ALWAYS  # 1
BARE_METAL_HALTED = BARE_METAL_INSTANCE_RUN_STRATEGY_HALTED  # 2


@dataclass(frozen=True)
class BareMetalRow:
    id: str
    name: str
    tenant: str
    version: int
    state: Label
    host_type: str
    addresses: str
    created: Moment | None


@dataclass(frozen=True)
class BareMetalDetail:
    row: BareMetalRow
    run_strategy: str
    host: str
    state_since: Moment | None
    nics: tuple[NicRow, ...]
    conditions: tuple[ConditionRow, ...]


def bare_metal_row(bmi: BareMetalInstance, now: datetime, host_types: dict[str, str]) -> BareMetalRow:
    meta = bmi.metadata
    status = bmi.status
    host_type = bmi.spec.host_type
    return BareMetalRow(
        id=bmi.id,
        name=meta.name,
        tenant=meta.tenant,
        version=meta.version,
        state=state_label(BARE_METAL_STATES, status.state),
        host_type=host_types.get(host_type, host_type) or "-",
        addresses=", ".join(a.ip_address for a in status.network_attachment_statuses if a.ip_address) or "-",
        created=Moment.of(meta.creation_timestamp if meta.HasField("creation_timestamp") else None, now),
    )


def bare_metal_detail(bmi: BareMetalInstance, now: datetime, subnet_names: dict[str, str],
                      host_types: dict[str, str]) -> BareMetalDetail:
    status = bmi.status
    return BareMetalDetail(
        row=bare_metal_row(bmi, now, host_types),
        run_strategy=BARE_METAL_POWER.get(bmi.spec.run_strategy, str(bmi.spec.run_strategy)),
        host=getattr(status, "host", "") or "-",
        state_since=Moment.of(status.state_transition_time if status.HasField("state_transition_time") else None, now),
        nics=tuple(
            NicRow(subnet_names.get(nic.subnet, nic.subnet) or "-", nic.ip_address or "-", nic.primary,
                   nic.interface or "-")
            for nic in status.network_attachment_statuses
        ),
        conditions=condition_rows(status.conditions, now),
    )
