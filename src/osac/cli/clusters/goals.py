"""What ``osac wait --for`` can wait for, how long by default, and how many events ``osac events``
shows: the values its options need, kept apart so that building the command line loads no API
types."""

from __future__ import annotations

from datetime import timedelta
from enum import StrEnum

DEFAULT_TIMEOUT = timedelta(minutes=30)
#: How many events ``osac events`` shows unless told otherwise.
DEFAULT_EVENT_LIMIT = 50


class Goal(StrEnum):
    READY = "ready"
    RUNNING = "running"  # the same goal as ``ready``: the kind's usable state
    DELETED = "deleted"
