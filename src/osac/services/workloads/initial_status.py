"""The status a new ComputeInstance or BareMetalInstance is stored with (compute.md §2, §3).

Both kinds' status is written only by their pure derivations. The Create transaction stores what
the first derivation yields for an instance nothing has been observed of yet, so the CREATED
event already carries every managed condition (api.md §2.7: "managed types present from
creation") and ``state_transition_time`` is stamped with the creation. Each kind has one small
function here, the single place to switch to calling its derivation instead.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from osac.api.private.v1 import bare_metal_instance_type_pb2 as bare_metal
from osac.api.private.v1 import compute_instance_type_pb2 as compute
from osac.api.private.v1 import condition_status_type_pb2 as conditions

#: Reason of the restart and reboot conditions while nothing is wrong.
AS_EXPECTED = "AsExpected"
#: PROVISIONED reason of a just-created instance (compute.md §2.3, §3.1).
INITIALIZED = "Initialized"
APPLYING_CONFIGURATION = "ApplyingConfiguration"
#: READY reasons before anything exists: no VM yet (compute.md §2.2), host not provisioned (§3.1).
VIRTUAL_MACHINE_NOT_FOUND = "VirtualMachineNotFound"
PROVISIONING = "Provisioning"

#: (type, reason, message) in the order the derivations list them, with their messages, so the
#: first reconcile changes nothing it does not observe.
_COMPUTE_CONDITIONS = (
    (compute.COMPUTE_INSTANCE_CONDITION_TYPE_CONFIGURATION_APPLIED, APPLYING_CONFIGURATION,
     "waiting for the provider to apply the current spec"),
    (compute.COMPUTE_INSTANCE_CONDITION_TYPE_READY, VIRTUAL_MACHINE_NOT_FOUND, "VirtualMachine not found"),
    (compute.COMPUTE_INSTANCE_CONDITION_TYPE_RESTART_IN_PROGRESS, AS_EXPECTED, ""),
    (compute.COMPUTE_INSTANCE_CONDITION_TYPE_RESTART_FAILED, AS_EXPECTED, ""),
    (compute.COMPUTE_INSTANCE_CONDITION_TYPE_PROVISIONED, INITIALIZED, ""),
    (compute.COMPUTE_INSTANCE_CONDITION_TYPE_RESTART_REQUIRED, AS_EXPECTED, ""),
)
_BARE_METAL_CONDITIONS = (
    (bare_metal.BARE_METAL_INSTANCE_CONDITION_TYPE_PROVISIONED, INITIALIZED, ""),
    (bare_metal.BARE_METAL_INSTANCE_CONDITION_TYPE_CONFIGURATION_APPLIED, APPLYING_CONFIGURATION,
     "waiting for provisioning to complete"),
    (bare_metal.BARE_METAL_INSTANCE_CONDITION_TYPE_READY, PROVISIONING, "no host assigned yet"),
    (bare_metal.BARE_METAL_INSTANCE_CONDITION_TYPE_RESTART_IN_PROGRESS, AS_EXPECTED, ""),
    (bare_metal.BARE_METAL_INSTANCE_CONDITION_TYPE_RESTART_FAILED, AS_EXPECTED, ""),
    (bare_metal.BARE_METAL_INSTANCE_CONDITION_TYPE_RESTART_REQUIRED, AS_EXPECTED, ""),
)


def initial_compute_instance_status(now: datetime) -> compute.ComputeInstanceStatus:
    """STARTING with every condition FALSE: CONFIGURATION_APPLIED ``ApplyingConfiguration``, READY
    ``VirtualMachineNotFound``, PROVISIONED ``Initialized``, the restart ones ``AsExpected``."""
    status = compute.ComputeInstanceStatus(state=compute.COMPUTE_INSTANCE_STATE_STARTING)
    status.state_transition_time.FromDatetime(now)
    _add_conditions(status, _COMPUTE_CONDITIONS, now)
    return status


def initial_bare_metal_instance_status(now: datetime, restart_trigger: int) -> bare_metal.BareMetalInstanceStatus:
    """PROVISIONING with every condition FALSE: PROVISIONED ``Initialized``, CONFIGURATION_APPLIED
    ``ApplyingConfiguration``, READY ``Provisioning``, the restart ones ``AsExpected``.

    ``status.restart_trigger`` starts at the spec's value: a new host has nothing to power-cycle,
    so only a later increment requests a reboot (compute.md §3.3)."""
    status = bare_metal.BareMetalInstanceStatus(
        state=bare_metal.BARE_METAL_INSTANCE_STATE_PROVISIONING, restart_trigger=restart_trigger
    )
    status.state_transition_time.FromDatetime(now)
    _add_conditions(status, _BARE_METAL_CONDITIONS, now)
    return status


def _add_conditions(status: Any, table: tuple[tuple[int, str, str], ...], now: datetime) -> None:
    for condition_type, reason, message in table:
        condition = status.conditions.add(
            type=condition_type, status=conditions.CONDITION_STATUS_FALSE, reason=reason, message=message
        )
        condition.last_transition_time.FromDatetime(now)
