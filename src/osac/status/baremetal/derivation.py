"""Status of a BareMetalInstance derived from its host, its gate record and its DHCP leases
(compute.md §3).

``derive_baremetal_instance_status`` is the only writer of ``state``, ``state_transition_time``,
the conditions and the attachment statuses; it copies the gate record the reconciler passes in
into ``provisioning_steps`` so one status write stores both, and diffs that record against the
stored one to emit each gate's event once. Pure, total (a malformed host dict is an unreadable
observation) and reaching a fixpoint, like the compute derivation.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from osac.status.baremetal.addresses import (
    LeaseCheck,
    attachment_statuses,
    check_leases,
    primary_address,
)
from osac.status.baremetal.gates import (
    INVENTORY_ASSIGNED,
    IP_DISCOVERY_COMPLETE,
    NETWORKING_CONFIGURED,
    PROVISIONING_COMPLETE,
    RUNNING_MESSAGES,
    RUNNING_REASONS,
    STEP_PENDING,
    ProvisioningStep,
    ProvisioningSteps,
)
from osac.status.baremetal.metal3 import HostReading, read_host
from osac.status.baremetal.restart import (
    PowerCycleConditions,
    derive_power_cycle,
    is_power_cycle_running,
    needs_power_cycle,
)
from osac.status.baremetal.views import (
    CONFIGURATION_APPLIED,
    DEFAULT_RESTART_TIMEOUT,
    DELETE_FAILED,
    DELETING,
    EVENT_HOST_ASSIGNED,
    EVENT_IP_ADDRESS_DISCOVERED,
    EVENT_NETWORKING_CONFIGURATION_FAILED,
    EVENT_NETWORKING_CONFIGURED,
    EVENT_PROVISIONING_COMPLETE,
    EVENT_PROVISIONING_FAILED,
    FAILED,
    PROVISIONED,
    PROVISIONING,
    READY,
    READY_HOST_ERROR,
    READY_POWERED_OFF,
    READY_PROVISIONING,
    READY_UNREADABLE,
    RESTART_FAILED,
    RESTART_IN_PROGRESS,
    RESTART_REQUIRED,
    RUN_STRATEGY_HALTED,
    RUNNING,
    STARTING,
    STOPPED,
    STOPPING,
    BareMetalAttachment,
    BareMetalContext,
    BareMetalDerivation,
    BareMetalInstanceStatusView,
    BareMetalNetworkAttachmentStatusView,
    BareMetalRestart,
)
from osac.status.conditions.views import (
    FALSE,
    NORMAL,
    TRUE,
    WARNING,
    ConditionView,
    LifecycleEventView,
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
    stamped_transition_time,
    tenant_not_ready_message,
    turned_true,
)
from osac.status.workloads.shared import CONFIGURATION_APPLIED as CONFIGURATION_APPLIED_REASON

__all__ = [
    "DEFAULT_RESTART_TIMEOUT",
    "BareMetalAttachment",
    "BareMetalContext",
    "BareMetalDerivation",
    "BareMetalInstanceStatusView",
    "BareMetalNetworkAttachmentStatusView",
    "BareMetalRestart",
    "LeaseCheck",
    "ProvisioningStep",
    "ProvisioningSteps",
    "TenantReadiness",
    "check_leases",
    "derive_baremetal_instance_status",
    "is_power_cycle_running",
    "needs_power_cycle",
]

_CONDITION_ORDER = (PROVISIONED, CONFIGURATION_APPLIED, READY, RESTART_IN_PROGRESS, RESTART_FAILED, RESTART_REQUIRED)
#: Gates whose completion is announced, with the event reason.
_COMPLETION_EVENTS = (
    (INVENTORY_ASSIGNED, EVENT_HOST_ASSIGNED),
    (NETWORKING_CONFIGURED, EVENT_NETWORKING_CONFIGURED),
    (PROVISIONING_COMPLETE, EVENT_PROVISIONING_COMPLETE),
    (IP_DISCOVERY_COMPLETE, EVENT_IP_ADDRESS_DISCOVERED),
)


def derive_baremetal_instance_status(
    host: Mapping[str, Any] | None,
    steps: ProvisioningSteps,
    leases: Mapping[str, str | None],
    previous: BareMetalInstanceStatusView,
    now: datetime,
    context: BareMetalContext,
) -> BareMetalDerivation:
    """The status for one reconcile.

    ``host`` is the assigned host's BareMetalHost dict (None before gate 1 or when not found);
    ``steps`` the gate record after this reconcile's gate work; ``leases`` the DHCP leases
    queried in this reconcile, by interface."""
    steps = steps.normalised()
    reading = None if host is None else read_host(host)
    is_readable = context.readable and (host is None or reading is not None)
    attachments = attachment_statuses(context.attachments, leases, previous.network_attachment_statuses)
    cycle: PowerCycleConditions | None = None
    if context.deletion_requested:
        state = DELETE_FAILED if context.cleanup_gave_up else DELETING
        desired = _kept(previous)
        if is_readable:
            desired[READY] = _ready(reading, steps, primary_address(attachments))
        restart_trigger = previous.restart_trigger
    elif not is_readable:
        state = previous.state or PROVISIONING
        desired = _kept(previous)
        desired[READY] = ConditionView(READY, FALSE, READY_UNREADABLE, "the bare-metal host could not be read")
        restart_trigger = previous.restart_trigger
    else:
        ready = _ready(reading, steps, primary_address(attachments))
        cycle = derive_power_cycle(previous, reading, ready.is_true, context, now)
        desired = {
            PROVISIONED: _provisioned(steps, context.tenant),
            CONFIGURATION_APPLIED: _configuration_applied(reading, steps, cycle, context),
            READY: ready,
            RESTART_IN_PROGRESS: cycle.in_progress,
            RESTART_FAILED: cycle.failed,
            RESTART_REQUIRED: _restart_required(context),
        }
        state = _state(reading, steps, ready.is_true, _is_failed_by_restart(previous, cycle, ready.is_true), context)
        restart_trigger = cycle.restart_trigger
    status = BareMetalInstanceStatusView(
        state=state,
        conditions=stamp_conditions(
            previous.conditions, [desired[kind] for kind in _CONDITION_ORDER if kind in desired], now
        ),
        restart_trigger=restart_trigger,
        network_attachment_statuses=attachments,
        state_transition_time=stamped_transition_time(previous.state, previous.state_transition_time, state, now),
        host=context.host_name or previous.host,
        provisioning_steps=steps,
    )
    deadline = None if cycle is None else cycle.deadline
    return BareMetalDerivation(
        status=status,
        events=_events(previous, status, context),
        requeue_after=None if deadline is None else deadline - now,
    )


def _kept(previous: BareMetalInstanceStatusView) -> dict[int, ConditionView]:
    return {c.type: c for c in previous.conditions if c.type in _CONDITION_ORDER}


# -- state (compute.md §3.3, first match after deletion and unreadable) ---------------------------------


def _is_failed_by_restart(previous: BareMetalInstanceStatusView, cycle: PowerCycleConditions, is_ready: bool) -> bool:
    """A failed power cycle leaves the instance FAILED until it runs again (compute.md §3.3, §6
    scenario 14): while the host is not READY; and when the cycle failed with the host still up
    (its power calls failed), until a later cycle succeeds. A host seen not READY and then READY
    again after the failure runs again."""
    if not cycle.failed.is_true:
        return False
    if not is_ready:
        return True
    if not is_true(previous.conditions, READY):
        return False  # it came back: running again
    return previous.state == FAILED or not is_true(previous.conditions, RESTART_FAILED)


def _state(
    host: HostReading | None, steps: ProvisioningSteps, is_ready: bool, is_failed_by_restart: bool,
    context: BareMetalContext,
) -> int:
    if steps.failed is not None or is_failed_by_restart:
        return FAILED
    if not steps.are_complete:
        return PROVISIONING
    if context.run_strategy == RUN_STRATEGY_HALTED:
        return STOPPING if host is not None and host.powered_on else STOPPED
    return RUNNING if is_ready else STARTING


# -- conditions (compute.md §3.1) -------------------------------------------------------------------------


def _provisioned(steps: ProvisioningSteps, tenant: TenantReadiness) -> ConditionView:
    current = steps.current
    if current is None:
        return ConditionView(PROVISIONED, TRUE, INFRASTRUCTURE_READY, INFRASTRUCTURE_READY_MESSAGE)
    if current.is_failed:
        return ConditionView(PROVISIONED, FALSE, current.failure_reason, current.detail)
    if current.gate == INVENTORY_ASSIGNED:
        if not tenant.ready:
            return ConditionView(PROVISIONED, FALSE, TENANT_NOT_READY, tenant_not_ready_message(tenant))
        if current.status == STEP_PENDING:
            return ConditionView(PROVISIONED, FALSE, INITIALIZED)
    return ConditionView(
        PROVISIONED, FALSE, RUNNING_REASONS[current.gate], current.message or RUNNING_MESSAGES[current.gate]
    )


def _ready(host: HostReading | None, steps: ProvisioningSteps, primary_ip: str) -> ConditionView:
    """Powered on, deployed by every gate, healthy, and the primary address known."""
    if host is None:
        return ConditionView(READY, FALSE, READY_PROVISIONING, "no host assigned yet")
    if host.has_error:
        detail = host.error_message or host.error_type or f"operational status '{host.operational_status}'"
        return ConditionView(READY, FALSE, READY_HOST_ERROR, detail)
    if not host.is_provisioned:
        return ConditionView(READY, FALSE, READY_PROVISIONING, f"host provisioning state is '{host.provisioning_state}'")
    current = steps.current
    if current is not None:
        return ConditionView(READY, FALSE, READY_PROVISIONING, f"waiting for gate {current.gate}")
    if not host.powered_on:
        return ConditionView(READY, FALSE, READY_POWERED_OFF, "host is powered off")
    if not host.is_healthy:
        return ConditionView(READY, FALSE, READY_HOST_ERROR, f"operational status '{host.operational_status}'")
    if not primary_ip:
        return ConditionView(READY, FALSE, READY_PROVISIONING, "primary address not known yet")
    return ConditionView(READY, TRUE, AS_EXPECTED)


def _configuration_applied(
    host: HostReading | None, steps: ProvisioningSteps, cycle: PowerCycleConditions, context: BareMetalContext
) -> ConditionView:
    """Security groups and the run strategy, applied once provisioning made them meaningful; a
    power cycle in progress is not a run-strategy mismatch."""
    if context.configuration_error:
        return ConditionView(CONFIGURATION_APPLIED, FALSE, CONFIGURATION_FAILED, context.configuration_error)
    if not steps.are_complete:
        return ConditionView(CONFIGURATION_APPLIED, FALSE, APPLYING_CONFIGURATION, "waiting for provisioning to complete")
    if not context.applied_spec_hash or context.applied_spec_hash != context.spec_hash:
        return ConditionView(
            CONFIGURATION_APPLIED, FALSE, APPLYING_CONFIGURATION, "waiting for the provider to apply the current spec"
        )
    wants_power = context.run_strategy != RUN_STRATEGY_HALTED
    has_power = host is not None and host.powered_on
    if not cycle.in_progress.is_true and wants_power != has_power:
        wanted = "on" if wants_power else "off"
        return ConditionView(CONFIGURATION_APPLIED, FALSE, APPLYING_CONFIGURATION, f"waiting for the host to power {wanted}")
    return ConditionView(CONFIGURATION_APPLIED, TRUE, CONFIGURATION_APPLIED_REASON)


def _restart_required(context: BareMetalContext) -> ConditionView:
    if context.restart_required_reason:
        return ConditionView(RESTART_REQUIRED, TRUE, context.restart_required_reason, context.restart_required_message)
    return ConditionView(RESTART_REQUIRED, FALSE, AS_EXPECTED)


# -- events (compute.md §3.5) --------------------------------------------------------------------------------


def _events(
    previous: BareMetalInstanceStatusView, status: BareMetalInstanceStatusView, context: BareMetalContext
) -> tuple[LifecycleEventView, ...]:
    before = previous.provisioning_steps.normalised()
    after = status.provisioning_steps
    events: list[LifecycleEventView] = []
    for gate, reason in _COMPLETION_EVENTS:
        if after.step(gate).is_completed and not before.step(gate).is_completed:
            events.append(LifecycleEventView(NORMAL, reason, _completion_message(gate, status, context)))
    networking = after.step(NETWORKING_CONFIGURED)
    if networking.is_failed and not before.step(NETWORKING_CONFIGURED).is_failed:
        events.append(LifecycleEventView(WARNING, EVENT_NETWORKING_CONFIGURATION_FAILED, networking.detail))
    if turned_true(previous.conditions, status.conditions, READY):
        events.append(LifecycleEventView(NORMAL, EVENT_READY, f"host is ready at {primary_address(status.network_attachment_statuses)}"))
    failed_gate = after.failed
    if (
        status.state == FAILED
        and previous.state != FAILED
        and failed_gate is not None
        and failed_gate.gate != NETWORKING_CONFIGURED
    ):
        events.append(
            LifecycleEventView(WARNING, EVENT_PROVISIONING_FAILED, f"{failed_gate.failure_reason}: {failed_gate.detail}")
        )
    if turned_true(previous.conditions, status.conditions, RESTART_FAILED):
        failed = next((c for c in status.conditions if c.type == RESTART_FAILED), None)
        events.append(LifecycleEventView(WARNING, EVENT_RESTART_FAILED, "" if failed is None else failed.message))
    if status.state == DELETE_FAILED and previous.state != DELETE_FAILED:
        events.append(LifecycleEventView(WARNING, EVENT_DELETE_FAILED, delete_failed_message(context.cleanup_leftovers)))
    return tuple(events)


def _completion_message(gate: str, status: BareMetalInstanceStatusView, context: BareMetalContext) -> str:
    """Event messages are public: the host's name stays in the private status only."""
    if gate == INVENTORY_ASSIGNED:
        return "a bare-metal host was assigned"
    if gate == NETWORKING_CONFIGURED:
        return f"{len(context.attachments)} network attachment(s) configured"
    if gate == PROVISIONING_COMPLETE:
        return "operating system provisioned"
    return f"primary address {primary_address(status.network_attachment_statuses)}"
