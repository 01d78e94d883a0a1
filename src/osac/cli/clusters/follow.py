"""Following one object's changes on the Watch stream, with an optional deadline.

``describe -w`` re-renders on every change and ``wait`` checks every change against its goal;
both start from a List snapshot and resume the stream from its revision, so no change between
the first read and the stream is missed. A gRPC stream has no "next message within N seconds",
so a reader thread drains the stream into a queue and the caller waits on the queue with the
time left; closing the connection (the command's ``with`` block) ends the reader. When the
server ends the stream because the reader fell behind (RESOURCE_EXHAUSTED) or the resume point
aged out of retention (OUT_OF_RANGE), the object is read again and the stream resumed from the
new snapshot: the caller sees the current object, never a gap.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta

from google.protobuf.message import Message

from osac.cli.connection.client import KindClient, watch_events
from osac.cli.errors import ApiError, CliError
from osac.cli.objects.kinds import ids_filter
from osac.cli.objects.watching import kind_event_filter
from osac.model.kinds import Kind

#: ``EventType`` number of the last event of an object (api.md §7.3).
OBJECT_DELETED = 3
#: Stream endings after which the object is read again and the stream resumed.
RESYNC_CODES = frozenset({"RESOURCE_EXHAUSTED", "OUT_OF_RANGE"})
#: How often a waiting caller wakes up to notice Ctrl-C.
POLL_SECONDS = 0.5


class FollowTimeout(CliError):
    """The deadline passed before the caller was satisfied."""


@dataclass(frozen=True)
class Snapshot:
    """The object as first read (None: it does not exist) and the revision to resume from."""

    obj: Message | None
    revision: int


def snapshot(client: KindClient, object_id: str) -> Snapshot:
    """The object ``object_id`` and the revision of the read, in one List snapshot."""
    listing = client.list(ids_filter([object_id]))
    return Snapshot(listing.items[0] if listing.items else None, listing.revision)


def changes(
    client: KindClient, object_id: str, after_revision: int, timeout: timedelta | None = None
) -> Iterator[Message | None]:
    """The object each time it changes after ``after_revision``; ``None`` once it is deleted,
    which ends the iteration.

    :raises FollowTimeout: ``timeout`` passed (counted from the first call) with no change left.
    :raises ApiError: the stream failed for another reason.
    """
    deadline = None if timeout is None else time.monotonic() + timeout.total_seconds()
    inbox: queue.Queue[Message | None | ApiError] = queue.Queue()
    reader = threading.Thread(
        target=_read_stream, args=(client, object_id, after_revision, inbox), name="osac-follow", daemon=True
    )
    reader.start()
    while True:
        item = _next(inbox, deadline, timeout)
        if isinstance(item, ApiError):
            raise item
        yield item
        if item is None:
            return


def _next(
    inbox: queue.Queue[Message | None | ApiError], deadline: float | None, timeout: timedelta | None
) -> Message | None | ApiError:
    while True:
        wait = POLL_SECONDS if deadline is None else min(POLL_SECONDS, deadline - time.monotonic())
        if wait <= 0:
            raise FollowTimeout(f"timed out after {timeout}")
        try:
            return inbox.get(timeout=wait)
        except queue.Empty:
            continue


def _read_stream(
    client: KindClient, object_id: str, after_revision: int, inbox: queue.Queue[Message | None | ApiError]
) -> None:
    kind: Kind = client.kind
    expression = kind_event_filter(kind, None, [object_id])
    revision = after_revision
    while True:
        try:
            for event in watch_events(client.connection, expression, revision):
                revision = event.revision
                if event.type == OBJECT_DELETED:
                    inbox.put(None)
                    return
                inbox.put(getattr(event, kind.name))
            inbox.put(ApiError("UNAVAILABLE", "the server ended the watch stream"))
            return
        except ApiError as error:
            if error.code not in RESYNC_CODES:
                inbox.put(error)
                return
            try:
                fresh = snapshot(client, object_id)
            except ApiError as failure:
                inbox.put(failure)
                return
            except CliError:
                return
            inbox.put(fresh.obj)
            if fresh.obj is None:
                return
            revision = fresh.revision
        except CliError:
            return
