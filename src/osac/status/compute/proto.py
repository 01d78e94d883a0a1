"""``ComputeInstanceStatusView`` to and from the private ``ComputeInstanceStatus`` message.

The view owns every status field except ``hub`` (set once by the service); writing a view into a
message leaves ``hub`` and any field a newer version added untouched, and keeps unknown enum
numbers as they are.
"""

from __future__ import annotations

from typing import Any

from osac.api.private.v1 import compute_instance_type_pb2 as pb
from osac.status.compute.views import ComputeInstanceStatusView, ComputeNetworkAttachmentStatusView
from osac.status.conditions.messages import (
    read_conditions,
    read_time,
    write_conditions,
    write_repeated,
    write_time,
)


def view_from_status(message: pb.ComputeInstanceStatus) -> ComputeInstanceStatusView:
    return ComputeInstanceStatusView(
        state=int(message.state),
        conditions=read_conditions(message.conditions),
        internal_ip_address=message.internal_ip_address,
        last_restarted_at=read_time(message, "last_restarted_at"),
        external_ip_address=message.external_ip_address,
        state_transition_time=read_time(message, "state_transition_time"),
        compute_network_attachment_statuses=tuple(
            ComputeNetworkAttachmentStatusView(subnet=entry.subnet, ip_address=entry.ip_address, primary=entry.primary)
            for entry in message.compute_network_attachment_statuses
        ),
    )


def apply_view_to_status(view: ComputeInstanceStatusView, message: pb.ComputeInstanceStatus) -> None:
    """Write ``view`` into ``message`` in place."""
    message.state = view.state  # type: ignore[assignment]
    write_conditions(message.conditions, view.conditions)
    message.internal_ip_address = view.internal_ip_address
    write_time(message, "last_restarted_at", view.last_restarted_at)
    message.external_ip_address = view.external_ip_address
    write_time(message, "state_transition_time", view.state_transition_time)
    write_repeated(message.compute_network_attachment_statuses, view.compute_network_attachment_statuses, _fill)


def _fill(entry: Any, view: ComputeNetworkAttachmentStatusView) -> None:
    entry.subnet = view.subnet
    entry.ip_address = view.ip_address
    entry.primary = view.primary
