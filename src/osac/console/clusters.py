"""What the cluster pages show, computed from a cluster message (public or private) and ``now``.

Only the CLI's rules are applied: the STAGE and HEALTH cells (``status.clusters.cells``) and the
describe view's stage line and health breakdown (``status.clusters.summary``). The messages are
typed as the public classes, which the private ones (a provider admin's reads) extend: every
field read here has the same name in both.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TypeAlias

from google.protobuf.message import Message
from google.protobuf.timestamp_pb2 import Timestamp

from osac.api.private.v1.tenant_type_pb2 import TenantCondition as PrivateTenantCondition
from osac.api.public.v1.bare_metal_instance_type_pb2 import BareMetalInstanceCondition
from osac.api.public.v1.cluster_type_pb2 import Cluster, ClusterCondition, ClusterStatus
from osac.api.public.v1.compute_instance_type_pb2 import ComputeInstanceCondition
from osac.api.public.v1.external_ip_attachment_type_pb2 import ExternalIPAttachment
from osac.api.public.v1.tenant_type_pb2 import TenantCondition
from osac.console.labels import CLUSTER_STATES, NODE_SET_STATES, Label, health_label, stage_label, state_label
from osac.status.clusters import cells, summary
from osac.status.clusters.terms import PROGRESSING, STAGE_UNKNOWN, STALLED

PROVISIONING_TRACK = ("PreparingInfrastructure", "ControlPlaneStarting", "WorkersJoining", "Ready")
TEARDOWN_TRACK = ("DestroyingCloudResources", "DestroyingControlPlane", "Deleted")
DELETING_STATES = (4, 5)

#: A condition of the kinds whose status has conditions (the tenants of the provider admin's
#: catalogue are read through the private API).
Condition: TypeAlias = (ClusterCondition | ComputeInstanceCondition | BareMetalInstanceCondition
                        | TenantCondition | PrivateTenantCondition)


@dataclass(frozen=True)
class Moment:
    """A time as the page shows it: the age, and the exact time (UTC; the browser shows its own zone)."""

    iso: str
    age: str

    @classmethod
    def of(cls, stamp: Timestamp | None, now: datetime) -> Moment | None:
        if stamp is None or (stamp.seconds == 0 and stamp.nanos == 0):
            return None
        moment = stamp.ToDatetime(tzinfo=UTC)
        return cls(moment.strftime("%Y-%m-%dT%H:%M:%SZ"), summary.age(now - moment) + " ago")


@dataclass(frozen=True)
class ClusterRow:
    id: str
    name: str
    tenant: str
    version: int
    state: Label
    stage: Label
    health: Label
    api_url: str
    created: Moment | None


@dataclass(frozen=True)
class Step:
    name: str
    position: str  # done, current, pending


@dataclass(frozen=True)
class NodeSetRow:
    key: str
    host_type: str
    size: str
    desired: str
    current: str
    ready: str
    state: Label


@dataclass(frozen=True)
class ConditionRow:
    type: str
    status: str
    reason: str
    since: Moment | None
    message: str


def _field(message: Message, name: str) -> Timestamp | None:
    return getattr(message, name) if message.HasField(name) else None


def cluster_row(cluster: Cluster, now: datetime) -> ClusterRow:
    status = cluster.status
    meta = cluster.metadata
    return ClusterRow(
        id=cluster.id,
        name=meta.name,
        tenant=meta.tenant,
        version=meta.version,
        state=state_label(CLUSTER_STATES, status.state),
        stage=stage_label(cells.stage_cell(status)),
        health=health_label(cells.health_cell(status)),
        api_url=status.api_url or "-",
        created=Moment.of(_field(meta, "creation_timestamp"), now),
    )


def track(status: ClusterStatus) -> tuple[Step, ...]:
    """The stage track with the current stage: provisioning, or teardown once deleting."""
    deleting = status.state in DELETING_STATES
    stages = TEARDOWN_TRACK if deleting else PROVISIONING_TRACK
    stage = status.stage
    is_ready = not deleting and status.state == 2 and stage in ("", "Scaling")
    current = "Ready" if is_ready else stage
    if current not in stages:
        return tuple(Step(name, "pending") for name in stages)
    index = stages.index(current)
    return tuple(
        Step(name, "done" if i < index else "current" if i == index else "pending") for i, name in enumerate(stages)
    )


@dataclass(frozen=True)
class ClusterDetail:
    row: ClusterRow
    catalog_item: str
    state_since: Moment | None
    stage_line: str
    stage: str
    stage_age: str
    threshold: str
    is_stalled: bool
    is_stage_unknown: bool
    progressing_message: str
    track: tuple[Step, ...]
    control_plane: str
    workers: str
    degraded_message: str
    console_url: str
    api_endpoint: str
    ingress_endpoint: str
    node_sets: tuple[NodeSetRow, ...]
    conditions: tuple[ConditionRow, ...]
    node_set_keys: tuple[str, ...]


def cluster_detail(cluster: Cluster, now: datetime, host_types: dict[str, str]) -> ClusterDetail:
    status = cluster.status
    progressing = summary.condition_of(status, PROGRESSING)
    reason = progressing.reason if progressing is not None else ""
    threshold = summary.current_threshold(status)
    entered = Moment.of(_field(status, "stage_entered_at"), now)
    return ClusterDetail(
        row=cluster_row(cluster, now),
        catalog_item=cluster.spec.catalog_item or "-",
        state_since=Moment.of(_field(status, "state_transition_time"), now),
        stage_line=summary.stage_text(status, now),
        stage=status.stage or "-",
        stage_age=entered.age.removesuffix(" ago") if entered and status.stage else "-",
        threshold=summary.duration_text(threshold) if threshold is not None else "-",
        is_stalled=reason == STALLED,
        is_stage_unknown=reason == STAGE_UNKNOWN,
        progressing_message=progressing.message if progressing is not None else "",
        track=track(status),
        control_plane=summary.control_plane_text(status),
        workers=summary.workers_text(status),
        degraded_message=summary.degraded_message(status),
        console_url=status.console_url or "-",
        api_endpoint=status.api_endpoint or "-",
        ingress_endpoint=status.ingress_endpoint or "-",
        node_sets=node_set_rows(cluster, host_types),
        conditions=condition_rows(status.conditions, now),
        node_set_keys=tuple(sorted(cluster.spec.node_sets)),
    )


def node_set_rows(cluster: Cluster, host_types: dict[str, str]) -> tuple[NodeSetRow, ...]:
    """As ``osac describe cluster``: every key of the spec or the status, sizes from the spec."""
    rows = []
    for view in summary.node_set_views(cluster):
        key, host_type, size, seen = view.key, view.host_type, view.size, view.observed
        rows.append(NodeSetRow(
            key=key,
            host_type=host_types.get(host_type, host_type) or "-",
            size="-" if size is None else str(size),
            desired="-" if seen is None else str(seen.desired_replicas),
            current="-" if seen is None else str(seen.current_replicas),
            ready="-" if seen is None else str(seen.ready_replicas),
            state=state_label(NODE_SET_STATES, seen.state) if seen is not None else state_label(NODE_SET_STATES, 0),
        ))
    return tuple(rows)


def condition_type_name(item: Condition) -> str:
    """``ControlPlaneAvailable`` for CLUSTER_CONDITION_TYPE_CONTROL_PLANE_AVAILABLE (as the CLI
    prints it); an unknown number raw."""
    enum = item.DESCRIPTOR.fields_by_name["type"].enum_type
    number = item.type
    value = enum.values_by_number.get(number) if enum is not None else None
    if enum is None or value is None:
        return str(number)
    names = [v.name for v in enum.values]
    prefix = os.path.commonprefix(names)
    prefix = prefix[: prefix.rfind("_") + 1]
    return "".join(word.capitalize() for word in value.name[len(prefix):].split("_"))


def condition_rows(conditions: Sequence[Condition], now: datetime) -> tuple[ConditionRow, ...]:
    return tuple(
        ConditionRow(
            type=condition_type_name(item),
            status=summary.status_text(item.status),
            reason=item.reason or "-",
            since=Moment.of(_field(item, "last_transition_time"), now),
            message=item.message,
        )
        for item in conditions
    )


#: ``spec.target_endpoint`` of an external IP attachment: the cluster endpoints it can reach.
ENDPOINTS = ((1, "External API"), (2, "External Ingress"))
ATTACHMENT_READY = 2
ATTACHMENT_STATES = {1: "PENDING", 2: "READY", 3: "FAILED", 4: "DELETING", 5: "DELETE_FAILED"}


def external_addresses(attachments: Sequence[ExternalIPAttachment]) -> tuple[tuple[str, str], ...]:
    """As ``osac describe cluster``'s External API / External Ingress: the addresses of the
    cluster's READY external IP attachments per endpoint; attachments not READY yet show their
    state, ``(PENDING)``; ``-``: none."""
    shown = []
    for number, term in ENDPOINTS:
        mine = [a for a in attachments if a.spec.target_endpoint == number]
        ready = [a.status.external_ip_address for a in mine
                 if a.status.state == ATTACHMENT_READY and a.status.external_ip_address]
        if ready:
            shown.append((term, ", ".join(ready)))
        elif mine:
            shown.append((term, ", ".join(f"({ATTACHMENT_STATES.get(a.status.state, str(a.status.state))})"
                                          for a in mine)))
        else:
            shown.append((term, "-"))
    return tuple(shown)
