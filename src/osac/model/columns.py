"""The columns of a kind's list (``osac get``), as data the descriptor carries.

A column is a header, a field path and the name of a formatter of the CLI's
``render.FORMATTERS`` (``text`` when omitted). A ``ref`` column shows the referenced object's
name, or with ``show`` another of its fields (a NAT gateway's EXTERNAL IP is the address of its
external IP). ``api`` keeps a column to one API, so one list of columns serves both.
"""

from __future__ import annotations

from dataclasses import dataclass

PUBLIC = "public"
PRIVATE = "private"


@dataclass(frozen=True)
class Column:
    header: str
    path: str
    format: str = "text"
    #: For ``ref`` columns: the field of the referenced object to show (default its name).
    show: str = "metadata.name"
    #: Only in the table of this API (``public`` or ``private``); both when None.
    api: str | None = None
    #: Placed right after STATE (a reason explaining the state, a cluster's stage and health).
    after_state: bool = False
