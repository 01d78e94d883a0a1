"""Cluster counts per state and per stage: the overview's cards and the provider admin's table per
tenant.

A cluster's stage is its STAGE cell as the CLI prints it (``status.clusters.cells.stage_cell``):
the PROGRESSING reason (``WorkersJoining``), ``Stalled (<stage>)``, ``StageUnknown``, or ``-``
when nothing is in progress; a READY cluster with nothing in progress counts as ``Ready``, the
last step of the stage track. The stages of both tracks are always listed (0 included); the
other cells follow when some cluster has them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from google.protobuf.message import Message

from osac.console.labels import CLUSTER_STATES
from osac.status.clusters import cells
from osac.status.clusters.terms import (
    CONTROL_PLANE_STARTING,
    DESTROYING_CLOUD_RESOURCES,
    DESTROYING_CONTROL_PLANE,
    PREPARING_INFRASTRUCTURE,
    SCALING,
    STATE_READY,
    WORKERS_JOINING,
)

READY_STAGE = "Ready"
#: The stages always counted, in track order: provisioning, Ready (and Scaling), teardown.
STAGES = (PREPARING_INFRASTRUCTURE, CONTROL_PLANE_STARTING, WORKERS_JOINING, READY_STAGE, SCALING,
          DESTROYING_CLOUD_RESOURCES, DESTROYING_CONTROL_PLANE)
ALL_TENANTS = "All tenants"


def stage_of(cluster: Message) -> str:
    status = cluster.status  # type: ignore[attr-defined]
    cell = cells.stage_cell(status)
    if cell == cells.MISSING and status.state == STATE_READY:
        return READY_STAGE
    return cell


def state_text(number: int) -> str:
    known = CLUSTER_STATES.get(number)
    return known.text if known is not None else ("-" if number == 0 else str(number))


def stage_columns(clusters: Sequence[Message]) -> tuple[str, ...]:
    """Every fixed stage, then the other cells some cluster has (``Stalled (…)``, ``StageUnknown``,
    ``-``), sorted."""
    seen = {stage_of(c) for c in clusters}
    return STAGES + tuple(sorted(seen - set(STAGES)))


def state_columns(clusters: Sequence[Message]) -> tuple[str, ...]:
    """The five state labels, then any state number this version does not know."""
    known = tuple(label.text for label in CLUSTER_STATES.values())
    seen = {state_text(c.status.state) for c in clusters}  # type: ignore[attr-defined]
    return known + tuple(sorted(seen - set(known)))


@dataclass(frozen=True)
class CountRow:
    tenant: str
    total: int
    by_state: tuple[tuple[str, int], ...]
    by_stage: tuple[tuple[str, int], ...]


def count_row(tenant: str, clusters: Sequence[Message], states: Sequence[str], stages: Sequence[str]) -> CountRow:
    per_state = Counter(state_text(c.status.state) for c in clusters)  # type: ignore[attr-defined]
    per_stage = Counter(stage_of(c) for c in clusters)
    return CountRow(tenant, len(clusters), tuple((s, per_state.get(s, 0)) for s in states),
                    tuple((s, per_stage.get(s, 0)) for s in stages))


def count_rows(clusters: Sequence[Message]) -> tuple[tuple[str, ...], tuple[str, ...], tuple[CountRow, ...]]:
    """The columns and the rows of the admin table: all tenants first, then each tenant by name."""
    states, stages = state_columns(clusters), stage_columns(clusters)
    by_tenant: dict[str, list[Message]] = {}
    for cluster in clusters:
        by_tenant.setdefault(cluster.metadata.tenant, []).append(cluster)  # type: ignore[attr-defined]
    rows = [count_row(ALL_TENANTS, clusters, states, stages)]
    rows += [count_row(tenant, by_tenant[tenant], states, stages) for tenant in sorted(by_tenant)]
    return states, stages, tuple(rows)
