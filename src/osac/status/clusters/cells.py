"""The STAGE and HEALTH cells of cluster lists (cluster-status.md §14).

These two rules are all the CLI and the UI compute from a status; everything else they show is
the committed status as it is. Keeping them here, next to the derivation that writes the reasons
they read, gives both front ends one implementation and one golden table
(``tests/status/golden/cluster_cells.json``).

Each rule takes a ``ClusterStatusView``, a ``ClusterStatus`` message (private or public), the
status as proto JSON (enum names or numbers), or just its conditions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeAlias

from google.protobuf import json_format
from google.protobuf.message import Message

from osac.api.public.v1 import cluster_type_pb2
from osac.status.clusters.proto import view_from_status
from osac.status.clusters.terms import AVAILABLE, PROGRESSING, STAGE_UNKNOWN, STALLED
from osac.status.clusters.views import ClusterStatusView
from osac.status.conditions.views import ConditionView, condition

#: What a cell shows for a missing value.
MISSING = "-"

StatusLike: TypeAlias = ClusterStatusView | Message | Mapping[str, Any] | Sequence[ConditionView]


def stage_cell(status: StatusLike, stage: str = "") -> str:
    """``StageUnknown`` | ``Stalled (<stage>)`` | PROGRESSING's reason | ``-``.

    ``stage`` is only needed when ``status`` is a bare list of conditions.

    :raises ValueError: ``status`` is JSON that is not a ``ClusterStatus``."""
    conditions, stage = _conditions_and_stage(status, stage)
    progress = condition(conditions, PROGRESSING)
    if progress is None:
        return MISSING
    if progress.reason == STAGE_UNKNOWN:
        return STAGE_UNKNOWN
    if not progress.is_true:
        return MISSING
    if progress.reason == STALLED:
        return f"{STALLED} ({stage or MISSING})"
    return progress.reason or MISSING


def health_cell(status: StatusLike) -> str:
    """``Healthy`` | ``Unknown`` | AVAILABLE's reason, raw (§5.6 HEALTH column).

    :raises ValueError: ``status`` is JSON that is not a ``ClusterStatus``."""
    conditions, _ = _conditions_and_stage(status, "")
    rollup = condition(conditions, AVAILABLE)
    if rollup is None or rollup.reason == STAGE_UNKNOWN:
        return "Unknown"
    if rollup.is_true:
        return "Healthy"
    return rollup.reason or MISSING


def _conditions_and_stage(status: StatusLike, stage: str) -> tuple[Sequence[ConditionView], str]:
    if isinstance(status, ClusterStatusView):
        return status.conditions, status.stage
    if isinstance(status, Message):
        view = view_from_status(status)
        return view.conditions, view.stage
    if isinstance(status, Mapping):
        try:
            message = json_format.ParseDict(dict(status), cluster_type_pb2.ClusterStatus(), ignore_unknown_fields=True)
        except json_format.ParseError as error:
            raise ValueError(f"not a cluster status: {error}") from error
        view = view_from_status(message)
        return view.conditions, view.stage
    return status, stage
