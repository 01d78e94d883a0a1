"""Status of a ComputeInstance derived from KubeVirt observations (compute.md §2).

``derive_compute_instance_status`` is the only writer of ``state``, ``state_transition_time``
and the conditions. It is pure (the clock arrives as ``now``), total (a malformed dict counts as
an unreadable observation) and reaches a fixpoint: feeding its status back as ``previous`` with
the same inputs returns the same status and no events. Events are guarded by a diff of the
previous and the new status, so replays and resyncs never repeat them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from osac.status.compute.kubevirt import (
    ERROR_STATUSES,
    PAUSED_STATUS,
    RUNNING_STATUS,
    RUNNING_STATUSES,
    STARTING_STATUSES,
    STOPPED_STATUS,
    STOPPING_STATUSES,
    ComputeObservation,
    VirtualMachineInstanceReading,
    VirtualMachineReading,
    read_compute_observation,
)
from osac.status.compute.restart import (
    RESTART_REQUIRES_RUNNING,
    RestartConditions,
    derive_restart,
    is_restart_running,
    needs_restart,
    restart_request_refusal,
)
from osac.status.compute.views import (
    CONFIGURATION_APPLIED,
    DEFAULT_RESTART_TIMEOUT,
    DELETE_FAILED,
    DELETING,
    FAILED,
    PAUSED,
    PRINTABLE_STATUS_UNKNOWN,
    PROVISIONED,
    PROVISIONING_STORAGE,
    READY,
    RECONCILIATION_FAILED,
    RESTART_FAILED,
    RESTART_IN_PROGRESS,
    RESTART_REQUIRED,
    RUN_STRATEGY_ALWAYS,
    RUN_STRATEGY_HALTED,
    RUNNING,
    STARTING,
    STOPPED,
    STOPPING,
    VIRTUAL_MACHINE_NOT_FOUND,
    WAITING_FOR_VM,
    WAITING_FOR_VM_MESSAGE,
    ComputeAttachment,
    ComputeContext,
    ComputeDerivation,
    ComputeInstanceStatusView,
    ComputeNetworkAttachmentStatusView,
    ComputeRestart,
    ProviderFailure,
)
from osac.status.conditions.views import (
    FALSE,
    NORMAL,
    TRUE,
    WARNING,
    ConditionView,
    LifecycleEventView,
    condition,
    stamp_conditions,
)
from osac.status.workloads.shared import (
    APPLYING_CONFIGURATION,
    AS_EXPECTED,
    CONFIGURATION_FAILED,
    EVENT_DELETE_FAILED,
    EVENT_READY,
    EVENT_RESTART_FAILED,
    INFRASTRUCTURE_READY,
    INFRASTRUCTURE_READY_MESSAGE,
    INITIALIZED,
    TENANT_NOT_READY,
    TenantReadiness,
    delete_failed_message,
    is_true,
    reason_of,
    stamped_transition_time,
    tenant_not_ready_message,
    turned_true,
)
from osac.status.workloads.shared import CONFIGURATION_APPLIED as CONFIGURATION_APPLIED_REASON

__all__ = [
    "DEFAULT_RESTART_TIMEOUT",
    "RESTART_REQUIRES_RUNNING",
    "ComputeAttachment",
    "ComputeContext",
    "ComputeDerivation",
    "ComputeInstanceStatusView",
    "ComputeNetworkAttachmentStatusView",
    "ComputeRestart",
    "ProviderFailure",
    "TenantReadiness",
    "derive_compute_instance_status",
    "interface_name",
    "is_restart_running",
    "needs_restart",
    "recorded_failure_message",
    "restart_request_refusal",
]

#: Conditions in the order a derived status lists them (unknown types follow, unchanged).
_CONDITION_ORDER = (CONFIGURATION_APPLIED, READY, RESTART_IN_PROGRESS, RESTART_FAILED, PROVISIONED, RESTART_REQUIRED)
#: PROVISIONED reasons whose arrival is announced by an event (compute.md §2.7).
_ANNOUNCED_PROVISIONED_REASONS = frozenset({TENANT_NOT_READY, PROVISIONING_STORAGE, INFRASTRUCTURE_READY})


def derive_compute_instance_status(
    virtual_machine: Mapping[str, Any] | None,
    virtual_machine_instance: Mapping[str, Any] | None,
    data_volumes: Sequence[Mapping[str, Any]],
    previous: ComputeInstanceStatusView,
    now: datetime,
    context: ComputeContext,
) -> ComputeDerivation:
    """The status for one reconcile; see the module docstring for the guarantees.

    ``virtual_machine`` None means the VM was not found; ``context.readable`` False means the
    provider could not be read at all."""
    observation = (
        read_compute_observation(virtual_machine, virtual_machine_instance, data_volumes) if context.readable else None
    )
    machine = None if observation is None else observation.virtual_machine
    restart: RestartConditions | None = None
    if context.deletion_requested or (machine is not None and machine.deletion_requested):
        status = _deleting(previous, observation, now, context)
    elif observation is None:
        status = _unreadable(previous, now, context)
    else:
        restart, status = _observed(previous, observation, now, context)
    deadline = None if restart is None else restart.deadline
    return ComputeDerivation(
        status=status,
        events=_events(previous, status, context),
        requeue_after=None if deadline is None else deadline - now,
    )


def interface_name(index: int) -> str:
    """The VM interface of the attachment at ``index`` (networking.md §7.2)."""
    return f"nic-{index}"


def recorded_failure_message(status: ComputeInstanceStatusView) -> str | None:
    """The terminal provider error a status already records, or None.

    A terminal failure is latched until deletion (compute.md §2.4 row 3): the reconciler uses
    this to stop calling the provider, and the derivation keeps FAILED even when the reconciler
    no longer passes the failure."""
    for condition_type, reason in ((PROVISIONED, RECONCILIATION_FAILED), (CONFIGURATION_APPLIED, CONFIGURATION_FAILED)):
        found = condition(status.conditions, condition_type)
        if found is not None and not found.is_true and found.reason == reason:
            return found.message
    return None


# -- the three situations ----------------------------------------------------------------------


def _deleting(
    previous: ComputeInstanceStatusView, observation: ComputeObservation | None, now: datetime, context: ComputeContext
) -> ComputeInstanceStatusView:
    """Row 1: teardown. Nothing is provisioned or restarted any more, so conditions keep their
    last values except READY, which still follows the VM while it goes away."""
    state = DELETE_FAILED if context.cleanup_gave_up else DELETING
    desired = {c.type: c for c in previous.conditions if c.type in _CONDITION_ORDER}
    attachments = previous.compute_network_attachment_statuses
    internal_ip = previous.internal_ip_address
    if observation is not None:
        desired[READY] = _ready(observation.virtual_machine)
        attachments = _attachment_statuses(observation.virtual_machine_instance, context.attachments)
        internal_ip = _primary_address(attachments)
    return ComputeInstanceStatusView(
        state=state,
        conditions=_stamped(previous, desired, now),
        internal_ip_address=internal_ip,
        last_restarted_at=previous.last_restarted_at,
        external_ip_address=_external_ip(previous, context),
        state_transition_time=stamped_transition_time(previous.state, previous.state_transition_time, state, now),
        compute_network_attachment_statuses=attachments,
    )


def _unreadable(previous: ComputeInstanceStatusView, now: datetime, context: ComputeContext) -> ComputeInstanceStatusView:
    """Row 2: nothing is known, so nothing changes (a first status still gets a state)."""
    state = previous.state or STARTING
    return ComputeInstanceStatusView(
        state=state,
        conditions=previous.conditions,
        internal_ip_address=previous.internal_ip_address,
        last_restarted_at=previous.last_restarted_at,
        external_ip_address=_external_ip(previous, context),
        state_transition_time=stamped_transition_time(previous.state, previous.state_transition_time, state, now),
        compute_network_attachment_statuses=previous.compute_network_attachment_statuses,
    )


def _observed(
    previous: ComputeInstanceStatusView, observation: ComputeObservation, now: datetime, context: ComputeContext
) -> tuple[RestartConditions, ComputeInstanceStatusView]:
    machine = observation.virtual_machine
    instance = observation.virtual_machine_instance
    failure = context.terminal_failure.message if context.terminal_failure is not None else None
    if failure is None:
        failure = recorded_failure_message(previous)
    ready = _ready(machine)
    restart = derive_restart(previous, observation, ready.is_true, context.restart, context.restart_timeout, now)
    desired = {
        CONFIGURATION_APPLIED: _configuration_applied(machine, failure, context),
        READY: ready,
        RESTART_IN_PROGRESS: restart.in_progress,
        RESTART_FAILED: restart.failed,
        PROVISIONED: _provisioned(previous, observation, failure, context),
        RESTART_REQUIRED: _restart_required(machine),
    }
    state = _state(previous, machine, instance, failure, restart.failed.is_true)
    attachments = _attachment_statuses(instance, context.attachments)
    status = ComputeInstanceStatusView(
        state=state,
        conditions=_stamped(previous, desired, now),
        internal_ip_address=_primary_address(attachments),
        last_restarted_at=restart.last_restarted_at,
        external_ip_address=_external_ip(previous, context),
        state_transition_time=stamped_transition_time(previous.state, previous.state_transition_time, state, now),
        compute_network_attachment_statuses=attachments,
    )
    return restart, status


# -- state (compute.md §2.4 rows 3 to 12) --------------------------------------------------------


def _state(
    previous: ComputeInstanceStatusView,
    machine: VirtualMachineReading | None,
    instance: VirtualMachineInstanceReading | None,
    failure: str | None,
    has_restart_failed: bool,
) -> int:
    if failure is not None:
        return FAILED
    printable = None if machine is None else machine.printable_status
    if has_restart_failed and printable != RUNNING_STATUS:
        return FAILED
    if printable is None:
        return STARTING
    if printable in STARTING_STATUSES:
        return STARTING
    if printable == PAUSED_STATUS or (printable == RUNNING_STATUS and instance is not None and instance.is_paused):
        return PAUSED
    if printable in RUNNING_STATUSES:
        return RUNNING
    if printable in STOPPING_STATUSES:
        return STOPPING
    if printable == STOPPED_STATUS:
        return STOPPED
    if printable in ERROR_STATUSES:
        return FAILED
    return previous.state or STARTING


# -- conditions (compute.md §2.2, §2.3) ------------------------------------------------------------


def _ready(machine: VirtualMachineReading | None) -> ConditionView:
    if machine is None:
        return ConditionView(READY, FALSE, VIRTUAL_MACHINE_NOT_FOUND, "VirtualMachine not found")
    if machine.ready:
        return ConditionView(READY, TRUE, AS_EXPECTED)
    detail = machine.conditions.get("Ready")
    return ConditionView(
        READY,
        FALSE,
        machine.printable_status or PRINTABLE_STATUS_UNKNOWN,
        "" if detail is None else detail.message,
    )


def _provisioned(
    previous: ComputeInstanceStatusView, observation: ComputeObservation, failure: str | None, context: ComputeContext
) -> ConditionView:
    """Sticky once TRUE: later failures show in the state and CONFIGURATION_APPLIED instead."""
    before = condition(previous.conditions, PROVISIONED)
    if before is not None and before.is_true:
        return ConditionView(PROVISIONED, TRUE, before.reason, before.message)
    if failure is not None:
        return ConditionView(PROVISIONED, FALSE, RECONCILIATION_FAILED, failure)
    if observation.virtual_machine is None:
        if not context.tenant.ready:
            return ConditionView(PROVISIONED, FALSE, TENANT_NOT_READY, tenant_not_ready_message(context.tenant))
        if context.applied_spec_hash:
            return ConditionView(PROVISIONED, FALSE, WAITING_FOR_VM, WAITING_FOR_VM_MESSAGE)
        return ConditionView(PROVISIONED, FALSE, INITIALIZED)
    volumes = observation.data_volumes
    expected = 1 + max(context.additional_disks, 0)
    if len(volumes) >= expected and all(volume.has_succeeded for volume in volumes):
        return ConditionView(PROVISIONED, TRUE, INFRASTRUCTURE_READY, INFRASTRUCTURE_READY_MESSAGE)
    return ConditionView(PROVISIONED, FALSE, PROVISIONING_STORAGE, storage_message(context))


def storage_message(context: ComputeContext) -> str:
    """The ProvisioningStorage message of compute.md §2.3."""
    message = f"Creating DataVolumes for boot disk ({context.boot_disk_gib}GiB)"
    if context.additional_disks > 0:
        message += f" and {context.additional_disks} additional disk(s)"
    return message


def _configuration_applied(
    machine: VirtualMachineReading | None, failure: str | None, context: ComputeContext
) -> ConditionView:
    """TRUE once the provider accepted the current spec and the VM runs the requested strategy."""
    if failure is not None:
        return ConditionView(CONFIGURATION_APPLIED, FALSE, CONFIGURATION_FAILED, failure)
    if not context.applied_spec_hash or context.applied_spec_hash != context.spec_hash:
        return ConditionView(
            CONFIGURATION_APPLIED, FALSE, APPLYING_CONFIGURATION, "waiting for the provider to apply the current spec"
        )
    if machine is None:
        return ConditionView(CONFIGURATION_APPLIED, FALSE, APPLYING_CONFIGURATION, "VirtualMachine not yet created")
    wanted = _run_strategy(context.run_strategy)
    if machine.run_strategy != wanted:
        return ConditionView(
            CONFIGURATION_APPLIED,
            FALSE,
            APPLYING_CONFIGURATION,
            f"waiting for run strategy {wanted} (VirtualMachine has {machine.run_strategy or 'none'})",
        )
    return ConditionView(CONFIGURATION_APPLIED, TRUE, CONFIGURATION_APPLIED_REASON)


def _run_strategy(value: str) -> str:
    """An unset ``spec.run_strategy`` means ``Always``; the service rejects anything else."""
    return RUN_STRATEGY_HALTED if value == RUN_STRATEGY_HALTED else RUN_STRATEGY_ALWAYS


def _restart_required(machine: VirtualMachineReading | None) -> ConditionView:
    required = None if machine is None else machine.conditions.get("RestartRequired")
    if required is None or not required.is_true:
        return ConditionView(RESTART_REQUIRED, FALSE, AS_EXPECTED)
    return ConditionView(RESTART_REQUIRED, TRUE, required.reason or "RestartRequired", required.message)


def _stamped(
    previous: ComputeInstanceStatusView, desired: Mapping[int, ConditionView], now: datetime
) -> tuple[ConditionView, ...]:
    ordered = [desired[kind] for kind in _CONDITION_ORDER if kind in desired]
    return stamp_conditions(previous.conditions, ordered, now)


# -- addresses (networking.md §7.2) -----------------------------------------------------------------


def _attachment_statuses(
    instance: VirtualMachineInstanceReading | None, attachments: Sequence[ComputeAttachment]
) -> tuple[ComputeNetworkAttachmentStatusView, ...]:
    """One entry per attachment in spec order; the address appears once the VM reports the
    interface up with the address reserved for it."""
    interfaces = {} if instance is None else {item.name: item for item in instance.interfaces}
    statuses = []
    for index, attachment in enumerate(attachments):
        reported = interfaces.get(interface_name(index))
        address = ""
        if reported is not None:
            if attachment.address:
                address = attachment.address if attachment.address in reported.addresses else ""
            elif reported.addresses:
                address = reported.addresses[0]
        statuses.append(
            ComputeNetworkAttachmentStatusView(subnet=attachment.subnet, ip_address=address, primary=attachment.primary)
        )
    return tuple(statuses)


def _primary_address(statuses: Sequence[ComputeNetworkAttachmentStatusView]) -> str:
    """A lone attachment is primary even if stored without the flag."""
    primary = next((s for s in statuses if s.primary), statuses[0] if len(statuses) == 1 else None)
    return "" if primary is None else primary.ip_address


def _external_ip(previous: ComputeInstanceStatusView, context: ComputeContext) -> str:
    return previous.external_ip_address if context.external_ip_address is None else context.external_ip_address


# -- events (compute.md §2.7) ------------------------------------------------------------------------


def _events(
    previous: ComputeInstanceStatusView, status: ComputeInstanceStatusView, context: ComputeContext
) -> tuple[LifecycleEventView, ...]:
    events: list[LifecycleEventView] = []
    provisioned = condition(status.conditions, PROVISIONED)
    if (
        provisioned is not None
        and provisioned.reason in _ANNOUNCED_PROVISIONED_REASONS
        and provisioned.reason != reason_of(previous.conditions, PROVISIONED)
    ):
        events.append(LifecycleEventView(NORMAL, provisioned.reason, provisioned.message))
    if _is_reachable(status) and not _is_reachable(previous):
        events.append(
            LifecycleEventView(NORMAL, EVENT_READY, f"VirtualMachine is ready at {status.internal_ip_address}")
        )
    if turned_true(previous.conditions, status.conditions, RESTART_FAILED):
        failed = condition(status.conditions, RESTART_FAILED)
        events.append(LifecycleEventView(WARNING, EVENT_RESTART_FAILED, "" if failed is None else failed.message))
    if status.state == DELETE_FAILED and previous.state != DELETE_FAILED:
        events.append(LifecycleEventView(WARNING, EVENT_DELETE_FAILED, delete_failed_message(context.cleanup_leftovers)))
    return tuple(events)


def _is_reachable(status: ComputeInstanceStatusView) -> bool:
    """The ``Ready`` event's guard: READY TRUE and the primary address known."""
    return is_true(status.conditions, READY) and bool(status.internal_ip_address)

