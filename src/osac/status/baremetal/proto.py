"""``BareMetalInstanceStatusView`` to and from the private ``BareMetalInstanceStatus`` message.

The view owns every status field except ``hub`` (set once by the service); writing a view into a
message leaves ``hub`` and any field a newer version added untouched, and keeps unknown enum
numbers (state, condition types, step statuses) as they are.
"""

from __future__ import annotations

from typing import Any

from osac.api.private.v1 import bare_metal_instance_type_pb2 as pb
from osac.status.baremetal.gates import ProvisioningStep, ProvisioningSteps
from osac.status.baremetal.views import BareMetalInstanceStatusView, BareMetalNetworkAttachmentStatusView
from osac.status.conditions.messages import (
    read_conditions,
    read_time,
    write_conditions,
    write_repeated,
    write_time,
)


def view_from_status(message: pb.BareMetalInstanceStatus) -> BareMetalInstanceStatusView:
    return BareMetalInstanceStatusView(
        state=int(message.state),
        conditions=read_conditions(message.conditions),
        restart_trigger=message.restart_trigger,
        network_attachment_statuses=tuple(
            BareMetalNetworkAttachmentStatusView(
                interface=entry.interface, subnet=entry.subnet, ip_address=entry.ip_address, primary=entry.primary
            )
            for entry in message.network_attachment_statuses
        ),
        state_transition_time=read_time(message, "state_transition_time"),
        host=message.host,
        provisioning_steps=steps_from_messages(message.provisioning_steps),
    )


def steps_from_messages(entries: Any) -> ProvisioningSteps:
    """The stored gate record; an empty one (a new instance) reads as four PENDING gates."""
    return ProvisioningSteps(
        tuple(
            ProvisioningStep(
                gate=entry.gate,
                status=int(entry.status),
                attempts=entry.attempts,
                started_at=read_time(entry, "started_at"),
                finished_at=read_time(entry, "finished_at"),
                message=entry.message,
            )
            for entry in entries
        )
    ).normalised()


def apply_view_to_status(view: BareMetalInstanceStatusView, message: pb.BareMetalInstanceStatus) -> None:
    """Write ``view`` into ``message`` in place."""
    message.state = view.state  # type: ignore[assignment]
    write_conditions(message.conditions, view.conditions)
    message.restart_trigger = view.restart_trigger
    write_repeated(message.network_attachment_statuses, view.network_attachment_statuses, _fill_attachment)
    write_time(message, "state_transition_time", view.state_transition_time)
    message.host = view.host
    write_repeated(message.provisioning_steps, view.provisioning_steps.steps, _fill_step)


def _fill_attachment(entry: Any, view: BareMetalNetworkAttachmentStatusView) -> None:
    entry.interface = view.interface
    entry.subnet = view.subnet
    entry.ip_address = view.ip_address
    entry.primary = view.primary


def _fill_step(entry: Any, step: ProvisioningStep) -> None:
    entry.gate = step.gate
    entry.status = step.status
    entry.attempts = step.attempts
    write_time(entry, "started_at", step.started_at)
    write_time(entry, "finished_at", step.finished_at)
    entry.message = step.message
