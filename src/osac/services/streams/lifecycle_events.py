"""LifecycleEvents.List/Get (api.md §7.4): read-only, with the tenancy of the object."""

from __future__ import annotations

from google.protobuf.message import Message
from sqlalchemy import ColumnElement, func, select

from osac import filters
from osac.model import protos
from osac.services.core import access
from osac.services.core.context import Caller
from osac.services.core.errors import InvalidArgument, NotFound
from osac.services.core.generic import Page, page_bounds
from osac.store import schema
from osac.store.codec import from_storage
from osac.store.objects import Store

KIND = "lifecycle_event"


class LifecycleEventsService:
    def __init__(self, store: Store) -> None:
        self.store = store

    def message_class(self, private: bool) -> type[Message]:
        return protos.message_class(f"{protos.PRIVATE if private else protos.PUBLIC}.LifecycleEvent")

    def _tenancy(self, caller: Caller) -> list[ColumnElement[bool]]:
        visible = caller.subject.visible_tenants
        table = schema.lifecycle_events
        return [] if visible is None else [table.c.tenant.in_(sorted(visible))]

    async def list(
        self,
        caller: Caller,
        *,
        offset: int | None = None,
        limit: int | None = None,
        filter: str | None = None,
        order: str | None = None,
    ) -> Page:
        access.authorize(caller, KIND, access.policy.Method.LIST)
        if order:
            raise InvalidArgument("order: ordering is not supported for lifecycle events; they are listed oldest first")
        offset, limit = page_bounds(offset, limit)
        table = schema.lifecycle_events
        cls = self.message_class(caller.private)
        conditions = self._tenancy(caller)
        async with self.store.read() as tx:
            if filter and filter.strip():
                root = filters.ObjectRoot(protos.descriptor_of(cls), table.c.data)
                try:
                    conditions.append(filters.compile_filter(filter, root, dialect=tx.dialect, now=tx.clock.now()))
                except filters.FilterError as error:
                    raise InvalidArgument(str(error)) from error
            total = int((await tx.conn.execute(select(func.count()).select_from(table).where(*conditions))).scalar_one())
            rows = await tx.conn.execute(
                select(table.c.data).where(*conditions).order_by(table.c.id).offset(offset).limit(limit)
            )
            items = [from_storage(row[0], cls) for row in rows]
            revision = await tx.revision()
        return Page(items, total, revision)

    async def get(self, caller: Caller, event_id: str) -> Message:
        access.authorize(caller, KIND, access.policy.Method.GET)
        table = schema.lifecycle_events
        cls = self.message_class(caller.private)
        async with self.store.read(snapshot=False) as tx:
            row = (
                await tx.conn.execute(select(table.c.data).where(table.c.id == event_id, *self._tenancy(caller)))
            ).first()
        if row is None:
            raise NotFound(f"LifecycleEvent '{event_id}' not found")
        return from_storage(row[0], cls)
