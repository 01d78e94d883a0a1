"""The STAGE and HEALTH cells of ``osac get clusters`` (cluster-status.md §14).

Both rules live in ``osac.status.clusters.cells``, shared with the web UI and checked against one
golden table; this module only fits them to the table machinery: the ``tables.py`` columns
point at the whole ``status`` message with the formatters named here, which ``main`` adds to
``render.FORMATTERS``. A status the rules cannot read prints ``-`` rather than breaking the
listing.
"""

from __future__ import annotations

from typing import Any

from google.protobuf.descriptor import FieldDescriptor, OneofDescriptor
from google.protobuf.message import Message

from osac.cli.render import EMPTY, TEXT, CellContext, Formatter
from osac.cli.tables import Column
from osac.status.clusters import cells


def stage_cell(status: Message) -> str:
    """``StageUnknown``, ``Stalled (<stage>)``, PROGRESSING's reason, or ``-``."""
    return cells.stage_cell(status)


def health_cell(status: Message) -> str:
    """``Healthy``, ``Unknown``, or AVAILABLE's reason (raw when unrecognised)."""
    return cells.health_cell(status)


def format_stage(
    value: Any, field: FieldDescriptor | OneofDescriptor, context: CellContext, column: Column = TEXT
) -> str:
    return stage_cell(value) if isinstance(value, Message) else EMPTY


def format_health(
    value: Any, field: FieldDescriptor | OneofDescriptor, context: CellContext, column: Column = TEXT
) -> str:
    return health_cell(value) if isinstance(value, Message) else EMPTY


CLUSTER_FORMATTERS: dict[str, Formatter] = {
    "cluster_stage": format_stage,
    "cluster_health": format_health,
}
