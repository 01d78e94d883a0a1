"""Following a workload provider's change notices (simulator.md §2, cluster-status.md §17).

A notice carries no state: it only enqueues the object's key, so a burst of infrastructure
changes of one object costs one reconcile (queued keys merge). The notice's ``changed_at`` is
handed to the reconciler first, so it can measure how long the change took to reach a committed
status (``osac_status_propagation_seconds``). A failing subscription is logged and reopened; the
periodic resync bounds what a lost notice can cost.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from typing import Protocol

from osac.providers.interfaces import ChangeNotice
from osac.tasks import raise_if_cancelled

log = logging.getLogger(__name__)

#: Real seconds before reopening a subscription that failed.
REOPEN_DELAY = 1.0


class NoticeSource(Protocol):
    def subscribe(self) -> AsyncIterator[ChangeNotice]: ...


async def follow_notices(source: NoticeSource, on_notice: Callable[[ChangeNotice], None]) -> None:
    """Call ``on_notice`` for every notice of ``source`` until cancelled."""
    while True:
        try:
            async for notice in source.subscribe():
                on_notice(notice)
        except asyncio.CancelledError:
            raise
        except Exception as error:
            raise_if_cancelled(error)
            log.exception("provider change notices failed; subscribing again")
        await asyncio.sleep(REOPEN_DELAY)
