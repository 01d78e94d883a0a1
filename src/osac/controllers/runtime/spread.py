"""Periodic looks spread evenly over their period, one fixed slot per key.

A key's slot is a fixed phase within the period, taken from a hash of its id (the same in
every process and after a restart), so N keys with period P come due at N/P per second, evenly,
whenever each last ran: the passes of a fleet that was created (or became READY) in one burst
do not come due again in one burst every period.
"""

from __future__ import annotations

import hashlib
from datetime import datetime, timedelta


def phase(object_id: str, period: timedelta) -> timedelta:
    """The key's offset within ``period``: between 0 and ``period``, uniform over ids."""
    digest = hashlib.blake2b(object_id.encode(), digest_size=8).digest()
    return period * (int.from_bytes(digest, "big") / 2**64)


def until_slot(object_id: str, now: datetime, period: timedelta) -> timedelta:
    """From ``now`` to the key's next slot (``phase`` + k × ``period`` since the epoch), in
    (0, ``period``]: a pass at its slot schedules the next one a whole period later."""
    seconds = period.total_seconds()
    wait = (phase(object_id, period).total_seconds() - now.timestamp()) % seconds
    return timedelta(seconds=wait if wait > 0 else seconds)
