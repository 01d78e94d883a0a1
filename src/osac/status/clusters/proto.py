"""Conversion between ``ClusterStatusView`` and a ``ClusterStatus`` message.

Works on the private message (the stored one) and on the public one alike: the fields the view
owns have the same names in both. Enum fields are copied as numbers, so a value a newer version
wrote survives a read-modify-write by this one (§19). Fields the view does not own (``hub``,
``kubeconfig_secret``, ``password_secret``) are never touched, and a timestamp whose value did
not change keeps its stored nanoseconds, which a ``datetime`` cannot hold.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from google.protobuf.message import Message

from osac.status.clusters.views import ClusterStatusView, NodeSetStatusView
from osac.status.conditions.views import ConditionView

_NODE_SET_NUMBERS = ("size", "desired_replicas", "current_replicas", "ready_replicas", "state")
_NODE_SET_TEXTS = ("host_type", "fabric_interface")


def view_from_status(status: Message) -> ClusterStatusView:
    """The derivation's view of a stored (private) or public ``ClusterStatus``."""
    message: Any = status
    conditions = tuple(
        ConditionView(
            type=int(entry.type), status=int(entry.status), reason=entry.reason, message=entry.message,
            last_transition_time=_time(entry, "last_transition_time"),
        )
        for entry in message.conditions
    )
    node_sets = {
        key: NodeSetStatusView(
            host_type=entry.host_type, size=int(entry.size), desired_replicas=int(entry.desired_replicas),
            current_replicas=int(entry.current_replicas), ready_replicas=int(entry.ready_replicas),
            state=int(entry.state), fabric_interface=entry.fabric_interface,
            first_ready_time=_time(entry, "first_ready_time"),
        )
        for key, entry in message.node_sets.items()
    }
    return ClusterStatusView(
        state=int(message.state),
        state_transition_time=_time(message, "state_transition_time"),
        stage=message.stage,
        stage_entered_at=_time(message, "stage_entered_at"),
        stage_threshold=message.stage_threshold.ToTimedelta() if message.HasField("stage_threshold") else None,
        conditions=conditions,
        node_sets=node_sets,
        api_url=message.api_url,
        console_url=message.console_url,
        api_endpoint=message.api_endpoint,
        ingress_endpoint=message.ingress_endpoint,
    )


def apply_view_to_status(view: ClusterStatusView, status: Message) -> None:
    """Write the view's fields into ``status`` in place, leaving every other field as it is."""
    message: Any = status
    message.state = view.state
    _set_time(message, "state_transition_time", view.state_transition_time)
    message.stage = view.stage
    _set_time(message, "stage_entered_at", view.stage_entered_at)
    if view.stage_threshold is None:
        message.ClearField("stage_threshold")
    else:
        message.stage_threshold.FromTimedelta(view.stage_threshold)
    message.api_url = view.api_url
    message.console_url = view.console_url
    message.api_endpoint = view.api_endpoint
    message.ingress_endpoint = view.ingress_endpoint
    _apply_conditions(view, message)
    _apply_node_sets(view, message)


def _apply_conditions(view: ClusterStatusView, message: Any) -> None:
    stored: dict[int, Any] = {}
    for entry in message.conditions:
        if int(entry.type) not in stored:
            copy = type(entry)()
            copy.CopyFrom(entry)
            stored[int(entry.type)] = copy
    del message.conditions[:]
    for condition in view.conditions:
        entry = message.conditions.add()
        before = stored.get(condition.type)
        if before is not None and before.HasField("last_transition_time"):
            entry.last_transition_time.CopyFrom(before.last_transition_time)
        entry.type = condition.type
        entry.status = condition.status
        entry.reason = condition.reason
        entry.message = condition.message
        _set_time(entry, "last_transition_time", condition.last_transition_time)


def _apply_node_sets(view: ClusterStatusView, message: Any) -> None:
    for key in [key for key in message.node_sets if key not in view.node_sets]:
        del message.node_sets[key]
    for key, node_set in view.node_sets.items():
        entry = message.node_sets[key]
        for name in _NODE_SET_NUMBERS + _NODE_SET_TEXTS:
            setattr(entry, name, getattr(node_set, name))
        _set_time(entry, "first_ready_time", node_set.first_ready_time)


def _time(message: Any, field: str) -> datetime | None:
    if not message.HasField(field):
        return None
    value: datetime = getattr(message, field).ToDatetime(tzinfo=UTC)
    return value


def _set_time(message: Any, field: str, value: datetime | None) -> None:
    if value is None:
        message.ClearField(field)
    elif _time(message, field) != value:
        getattr(message, field).FromDatetime(value)
