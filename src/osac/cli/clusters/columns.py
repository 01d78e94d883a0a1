"""The STAGE and HEALTH cells of ``osac get clusters`` (cluster-status.md §14).

Both rules live in ``osac.status.clusters.cells``, shared with the web UI and checked against one
golden table; the ``tables.py`` columns point at the whole ``status`` message with the
``cluster_stage`` and ``cluster_health`` formatters of ``render.FORMATTERS``, and the cluster
views (``describe cluster``, ``wait``) take the cells from here. A status the rules cannot read
prints ``-`` rather than breaking the listing.
"""

from __future__ import annotations

from google.protobuf.message import Message

from osac.status.clusters import cells


def stage_cell(status: Message) -> str:
    """``StageUnknown``, ``Stalled (<stage>)``, PROGRESSING's reason, or ``-``."""
    return cells.stage_cell(status)


def health_cell(status: Message) -> str:
    """``Healthy``, ``Unknown``, or AVAILABLE's reason (raw when unrecognised)."""
    return cells.health_cell(status)
