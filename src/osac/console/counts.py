"""Cluster counts per state and per stage: the overview's cards and the provider admin's table per
tenant.

A cluster's stage is its STAGE cell as the CLI prints it (``status.clusters.cells.stage_cell``):
the PROGRESSING reason (``WorkersJoining``), ``Stalled (<stage>)``, ``StageUnknown``, or ``-``
when nothing is in progress; a READY cluster with nothing in progress counts as ``Ready``, the
last step of the stage track. The stages of both tracks are always listed (0 included); the
other cells follow when some cluster has them.

The clusters are never read: the service layer counts them per tenant, state, ``status.stage``
and PROGRESSING status and reason in one query (``osac.services.clusters.stage_counts``), and the
cell rule is applied once per group.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from osac.console.labels import CLUSTER_STATES
from osac.services.clusters.stage_counts import StageInputs
from osac.status.clusters import cells
from osac.status.clusters.terms import (
    CONTROL_PLANE_STARTING,
    DESTROYING_CLOUD_RESOURCES,
    DESTROYING_CONTROL_PLANE,
    PREPARING_INFRASTRUCTURE,
    PROGRESSING,
    SCALING,
    STAGE_UNKNOWN,
    STALLED,
    STATE_READY,
    WORKERS_JOINING,
)
from osac.status.conditions.views import TRUE, ConditionView

READY_STAGE = "Ready"
#: The stages always counted, in track order: provisioning, Ready (and Scaling), teardown.
STAGES = (PREPARING_INFRASTRUCTURE, CONTROL_PLANE_STARTING, WORKERS_JOINING, READY_STAGE, SCALING,
          DESTROYING_CLOUD_RESOURCES, DESTROYING_CONTROL_PLANE)
ALL_TENANTS = "All tenants"


def stage_of(group: StageInputs) -> str:
    """The stage the clusters of ``group`` count under: the CLI's STAGE cell, or ``Ready``."""
    progress = ConditionView(PROGRESSING, group.progressing_status, group.progressing_reason)
    cell = cells.stage_cell([progress], group.stage)
    if cell == cells.MISSING and group.state == STATE_READY:
        return READY_STAGE
    return cell


def attention(groups: Iterable[StageInputs]) -> dict[str, int]:
    """Clusters stalled, degraded and with their stage unknown: what the admin lists' filters
    (``this.status.conditions.exists(c, c.type == 1 && c.reason == 'Stalled')``, DEGRADED TRUE,
    reason ``StageUnknown``) match, counted from the same groups."""
    found = {"Stalled": 0, "Degraded": 0, "Stage unknown": 0}
    for group in groups:
        if group.progressing_reason == STALLED:
            found["Stalled"] += group.count
        if group.progressing_reason == STAGE_UNKNOWN:
            found["Stage unknown"] += group.count
        if group.degraded_status == TRUE:
            found["Degraded"] += group.count
    return found


def per_state(groups: Iterable[StageInputs]) -> dict[int, int]:
    """Clusters per state number."""
    found: Counter[int] = Counter()
    for group in groups:
        found[group.state] += group.count
    return dict(found)


def state_text(number: int) -> str:
    known = CLUSTER_STATES.get(number)
    return known.text if known is not None else ("-" if number == 0 else str(number))


def stage_columns(groups: Iterable[StageInputs]) -> tuple[str, ...]:
    """Every fixed stage, then the other cells some cluster has (``Stalled (…)``, ``StageUnknown``,
    ``-``), sorted."""
    seen = {stage_of(g) for g in groups if g.count}
    return STAGES + tuple(sorted(seen - set(STAGES)))


def state_columns(groups: Iterable[StageInputs]) -> tuple[str, ...]:
    """The five state labels, then any state number this version does not know."""
    known = tuple(label.text for label in CLUSTER_STATES.values())
    seen = {state_text(g.state) for g in groups if g.count}
    return known + tuple(sorted(seen - set(known)))


@dataclass(frozen=True)
class CountRow:
    tenant: str
    total: int
    by_state: tuple[tuple[str, int], ...]
    by_stage: tuple[tuple[str, int], ...]


def count_row(tenant: str, groups: Sequence[StageInputs], states: Sequence[str], stages: Sequence[str]) -> CountRow:
    per_state: Counter[str] = Counter()
    per_stage: Counter[str] = Counter()
    for group in groups:
        per_state[state_text(group.state)] += group.count
        per_stage[stage_of(group)] += group.count
    return CountRow(tenant, sum(g.count for g in groups), tuple((s, per_state.get(s, 0)) for s in states),
                    tuple((s, per_stage.get(s, 0)) for s in stages))


def count_rows(groups: Sequence[StageInputs]) -> tuple[tuple[str, ...], tuple[str, ...], tuple[CountRow, ...]]:
    """The columns and the rows of the admin table: all tenants first, then each tenant by name."""
    states, stages = state_columns(groups), stage_columns(groups)
    by_tenant: dict[str, list[StageInputs]] = {}
    for group in groups:
        by_tenant.setdefault(group.tenant, []).append(group)
    rows = [count_row(ALL_TENANTS, groups, states, stages)]
    rows += [count_row(tenant, by_tenant[tenant], states, stages) for tenant in sorted(by_tenant)]
    return states, stages, tuple(rows)
