"""The change stream (api.md §7): Watch with filter and resume, public and private views."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import TypeVar, overload

from google.protobuf.message import Message
from sqlalchemy import ColumnElement

from osac import filters
from osac.api.private.v1 import event_type_pb2 as private_event
from osac.api.public.v1 import event_type_pb2 as public_event
from osac.auth.subject import SYSTEM_TENANT
from osac.model import protos, registry
from osac.model.convert import convert
from osac.services.core import access
from osac.services.core.context import Caller
from osac.services.core.errors import InvalidArgument, OutOfRange, ResourceExhausted, Unavailable
from osac.store import outbox, schema
from osac.store.errors import RevisionExpired
from osac.store.objects import EVENT_SIGNALED, Store
from osac.store.recent import RecentEvents
from osac.store.wakeup import Wakeup

#: Events one stream may fall behind the newest revision before it is ended (api.md §7.2).
DEFAULT_BUFFER = 10_000
#: How long a reader waits for a wake-up before looking anyway (other SQLite processes).
POLL_INTERVAL = 1.0
#: Events read per outbox query of one stream.
BATCH = 500
#: ... and at most about this many bytes of event JSON per read of one stream (issue #16;
#: measured with bench/watch_memory.py, docs/watch.md).
BATCH_BYTES = 1024 * 1024


#: The Event class of the API called (the private one is a superset of the public one).
EventClass = type[private_event.Event] | type[public_event.Event]

#: What a stream sends for one event (the gRPC response's bytes, the REST stream's line).
Sent = TypeVar("Sent")


@dataclass(frozen=True)
class WatchOptions:
    buffer: int = DEFAULT_BUFFER
    poll_interval: float = POLL_INTERVAL


class EventsService:
    """Builds Event messages from the outbox for one caller."""

    def __init__(self, store: Store, wakeup: Wakeup, options: WatchOptions | None = None) -> None:
        self.store = store
        self.wakeup = wakeup
        self.options = options or WatchOptions()
        self.recent = RecentEvents(store, wakeup, poll_interval=self.options.poll_interval)

    def event_class(self, private: bool) -> EventClass:
        return private_event.Event if private else public_event.Event

    def _root(self, private: bool) -> filters.EventRoot:
        table = schema.events
        return filters.EventRoot(
            protos.descriptor_of(self.event_class(private)), table.c.type, table.c.kind, table.c.data,
            hidden_fields=registry.WRITE_ONLY_FIELDS,
        )

    def _conditions(self, caller: Caller, expression: str, dialect: str) -> list[ColumnElement[bool]]:
        table = schema.events
        conditions: list[ColumnElement[bool]] = []
        if not caller.private:
            visible = caller.subject.visible_tenants
            if visible is not None:
                conditions.append(table.c.tenant.in_(sorted(visible)))
            conditions.append(table.c.tenant != SYSTEM_TENANT)
            conditions.append(table.c.type != EVENT_SIGNALED)
            hidden = [kind.name for kind in registry.KINDS if not kind.has_public_api]
            conditions.append(table.c.kind.not_in(hidden))
        if expression and expression.strip():
            root = self._root(caller.private)
            try:
                conditions.append(
                    filters.compile_filter(expression, root, dialect=dialect, now=self.store.clock.now())
                )
            except filters.FilterError as error:
                raise InvalidArgument(str(error)) from error
        return conditions

    @overload
    async def watch(self, caller: Caller, expression: str = "", after_revision: int = 0) -> AsyncIterator[Message]:
        ...

    @overload
    async def watch(
        self, caller: Caller, expression: str, after_revision: int, encode: Callable[[Message], Sent]
    ) -> AsyncIterator[Sent]:
        ...

    async def watch(
        self, caller: Caller, expression: str = "", after_revision: int = 0,
        encode: Callable[[Message], object] | None = None,
    ) -> AsyncIterator[object]:
        """Check the request (raising at once on a bad filter, an expired revision, a caller
        without access), then return the stream: the replay after ``after_revision`` (0: live
        only) followed by live events, each as ``encode`` makes it of the Event message. An event
        in the shared window is encoded once per API and ``encode`` for every stream that sends
        it, so ``encode`` must be one function kept by its caller, not one made per stream."""
        access.authorize(caller, "event", access.policy.Method.WATCH)
        if after_revision < 0:
            raise InvalidArgument(f"after_revision: must be >= 0, got {after_revision}")
        conditions = self._conditions(caller, expression, self.store.dialect)
        async with self.store.read() as tx:
            live_from = await tx.revision()
            if after_revision > live_from:
                raise OutOfRange(
                    f"after_revision: {after_revision} is beyond the newest revision {live_from}; resume "
                    "from a revision a List or an event returned, or 0 for live changes only"
                )
            if after_revision:
                try:
                    await outbox.check_retained(tx, after_revision)
                except RevisionExpired as error:
                    raise OutOfRange(str(error)) from error
        cursor = after_revision if after_revision else live_from
        kinds: frozenset[str] | None = None
        if expression and expression.strip():
            kinds = filters.payload_kinds(expression, self._root(caller.private))
            if kinds is None:
                return self._follow(caller, conditions, cursor, live_from, encode)
        return self._fan_out(caller, conditions, cursor, live_from, kinds, encode)

    async def _fan_out(
        self, caller: Caller, conditions: list[ColumnElement[bool]], cursor: int, live_from: int,
        kinds: frozenset[str] | None, encode: Callable[[Message], object] | None,
    ) -> AsyncIterator[object]:
        """Streams without a filter, or whose filter only chooses payload kinds
        (``has(event.cluster)``): served from the shared window (one outbox read per commit for
        all of them), with visibility and kinds applied in memory; a replay older than the window
        reads the outbox itself first, with the same conditions in SQL."""
        event_class = self.event_class(caller.private)
        visible = self._visibility(caller, kinds)
        recent = self.recent
        private = caller.private

        def event_of(stored: outbox.StoredEvent) -> Message:
            return self._event(event_class, stored, private)

        def sent_of(stored: outbox.StoredEvent) -> object:
            assert encode is not None
            return encode(recent.decoded(stored, private, event_of))

        # Made once per stream: what the window keeps per event is the Event of this shape, and
        # beside it what ``encode`` made of that Event.
        form, build = (private, event_of) if encode is None else ((private, encode), sent_of)

        while True:
            await recent.refresh()
            if not recent.covers(cursor):
                async with self.store.read() as tx:
                    batch, more = await outbox.replay_batch(
                        tx, cursor, *conditions, limit=BATCH, max_bytes=BATCH_BYTES
                    )
                    newest = await tx.revision()
                for stored in batch:
                    yield recent.decoded(stored, form, build)
                    cursor = stored.revision
                if not more:
                    cursor = max(cursor, newest)
                continue
            upto, batch = recent.cursor, recent.after(cursor)  # one consistent view (no await between)
            for stored in batch:
                if visible(stored):
                    yield recent.decoded(stored, form, build)
                cursor = stored.revision
            cursor = max(cursor, upto)
            if recent.cursor - cursor > self.options.buffer and cursor >= live_from:
                raise ResourceExhausted(f"watch consumer is too slow; resume from revision {cursor}")
            await self._wait(cursor)

    def _visibility(self, caller: Caller, kinds: frozenset[str] | None = None) -> Callable[[outbox.StoredEvent], bool]:
        """The in-memory twin of the conditions of ``_conditions``: tenancy, and the payload
        kinds of a filter that only chooses those (``filters.payload_kinds``)."""
        if caller.private:
            return (lambda stored: True) if kinds is None else (lambda stored: stored.kind in kinds)
        tenants = caller.subject.visible_tenants
        hidden = {kind.name for kind in registry.KINDS if not kind.has_public_api}

        def visible(stored: outbox.StoredEvent) -> bool:
            return (
                (tenants is None or stored.tenant in tenants)
                and stored.tenant != SYSTEM_TENANT
                and stored.type != EVENT_SIGNALED
                and stored.kind not in hidden
                and (kinds is None or stored.kind in kinds)
            )

        return visible

    async def _follow(
        self, caller: Caller, conditions: list[ColumnElement[bool]], cursor: int, live_from: int,
        encode: Callable[[Message], object] | None,
    ) -> AsyncIterator[object]:
        event_class = self.event_class(caller.private)
        while True:
            async with self.store.read() as tx:
                batch, more = await outbox.replay_batch(tx, cursor, *conditions, limit=BATCH, max_bytes=BATCH_BYTES)
                newest = await tx.revision()
            for stored in batch:
                event = self._event(event_class, stored, caller.private)
                yield event if encode is None else encode(event)
                cursor = stored.revision
            if not more:
                # Everything matching up to ``newest`` (same snapshot) was delivered: skip ahead
                # and sleep until a newer commit, instead of asking again for nothing.
                cursor = max(cursor, newest)
                await self._wait(cursor)
            elif cursor >= live_from and newest - cursor > self.options.buffer:
                raise ResourceExhausted(f"watch consumer is too slow; resume from revision {cursor}")

    async def _wait(self, cursor: int) -> None:
        """Sleep until a commit after ``cursor``. A stream is endless, so when the server stops
        it ends here with UNAVAILABLE (the client resumes elsewhere or after the restart from
        its last revision, without loss) rather than holding the drain to its full grace.

        :raises Unavailable: the server is stopping.
        """
        if not self.wakeup.is_closed:
            await self.wakeup.wait(cursor, self.options.poll_interval)
        if self.wakeup.is_closed:
            raise Unavailable(f"the server is stopping; resume the watch from revision {cursor}")

    def _event(self, event_class: EventClass, stored: outbox.StoredEvent, private: bool) -> Message:
        kind = registry.get(stored.kind)
        # Watch payloads show what Get shows: write-only fields (a cluster's pull secret) masked.
        obj = kind.mask_write_only(self.store.decoded.parse(stored.data, kind.private_class()))
        if not private:
            obj = convert(obj, kind.public_class())
        # The enum is given by name (the constructor's typed form); both APIs name the same values.
        event_type = private_event.EventType.Name(stored.type)
        event = event_class(id=str(stored.revision), type=event_type, revision=stored.revision)
        getattr(event, kind.name).CopyFrom(obj)
        return event

