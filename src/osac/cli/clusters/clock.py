"""The moment the cluster views measure ages from (``describe`` of a cluster, ``events``).

Ages are relative ("41m ago"), so the same object prints differently from one minute to the
next. ``OSAC_NOW`` (an RFC 3339 time, e.g. ``2026-03-04T10:43:00Z``) fixes that moment, which
makes the views reproducible: golden-file tests set it, and so can a person comparing two
outputs. Unset, it is the system clock. This is the only place that reads the variable.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime

from osac.cli.errors import CliError

NOW_VARIABLE = "OSAC_NOW"


def reference_now() -> datetime:
    """``OSAC_NOW`` if set, else the current time; timezone-aware UTC.

    :raises CliError: ``OSAC_NOW`` is set but is not an RFC 3339 time with a zone.
    """
    text = os.environ.get(NOW_VARIABLE, "").strip()
    if not text:
        return datetime.now(UTC)
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        moment = None
    if moment is None or moment.tzinfo is None:
        raise CliError(f"{NOW_VARIABLE}='{text}' is not a time; use RFC 3339, e.g. 2026-03-04T10:43:00Z")
    return moment.astimezone(UTC)
