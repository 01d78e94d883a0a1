"""What the STAGE cell of every visible cluster is computed from, counted per tenant, in one query.

The STAGE cell (``osac.status.clusters.cells.stage_cell``, cluster-status.md §14) reads only the
PROGRESSING condition's status and reason and ``status.stage``; the console's stage counts also
read the state (a READY cluster with nothing in progress is at the track's last step), and its
attention counts the PROGRESSING reason (Stalled, StageUnknown) and the DEGRADED condition's
status. Grouping the clusters by those values in the database counts every cluster without
reading any, and the caller applies the cell rule once per group, so the counts are those of the
CLI's rule. A status holds one condition of each type (``stamp_conditions``), so "the first
PROGRESSING condition" is "the PROGRESSING condition".
"""

from __future__ import annotations

from dataclasses import dataclass

from osac.filters import Encoding
from osac.services.core.context import Caller
from osac.services.core.generic import KindService
from osac.status.clusters.terms import DEGRADED, PROGRESSING
from osac.store.grouping import ElementField, JsonField, TableColumn

_KEYS = (
    TableColumn("tenant"),
    JsonField(("status", "state"), Encoding.NUMBER),
    JsonField(("status", "stage"), Encoding.TEXT),
    ElementField(("status", "conditions"), ("type",), PROGRESSING, ("status",), Encoding.NUMBER),
    ElementField(("status", "conditions"), ("type",), PROGRESSING, ("reason",), Encoding.TEXT),
    ElementField(("status", "conditions"), ("type",), DEGRADED, ("status",), Encoding.NUMBER),
)


@dataclass(frozen=True)
class StageInputs:
    """Clusters of one tenant with the same state, stage and PROGRESSING status and reason (0 and
    "" where absent: for the STAGE cell a missing PROGRESSING condition and one with neither
    status nor reason are the same)."""

    tenant: str
    state: int
    stage: str
    progressing_status: int
    progressing_reason: str
    #: The DEGRADED condition's status (0 where absent).
    degraded_status: int
    count: int


@dataclass(frozen=True)
class StageCounts:
    groups: list[StageInputs]
    #: The revision read before counting (where a live page resumes).
    revision: int


async def stage_inputs(clusters: KindService, caller: Caller) -> StageCounts:
    """The groups of the clusters ``caller`` may list (``clusters`` is the cluster service).

    :raises PermissionDenied: the caller may not list clusters."""
    grouped = await clusters.count_grouped(caller, _KEYS)
    merged: dict[tuple[str, int, str, int, str, int], int] = {}
    for (tenant, state, stage, status, reason, degraded), count in grouped.counts.items():
        key = (tenant, int(state or 0), stage or "", int(status or 0), reason or "", int(degraded or 0))
        merged[key] = merged.get(key, 0) + count
    return StageCounts([StageInputs(*key, count) for key, count in sorted(merged.items())], grouped.revision)
