"""Reads of the service layer as the signed-in caller, shaped as the API returns them.

A provider admin reads through the private API (every tenant, as ``--private`` does); anyone
else through the public API, whose messages are what ``osac`` and REST show them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from google.protobuf.message import Message

from osac.console.deps import ConsoleDeps
from osac.console.tables import READ_PAGE
from osac.model import registry
from osac.model.convert import convert
from osac.model.shape import metadata_of
from osac.services.clusters.stage_counts import StageCounts, stage_inputs
from osac.services.core.context import Caller
from osac.services.core.errors import ServiceError


@dataclass(frozen=True)
class Listing:
    items: list[Message]
    total: int
    revision: int


class Reads:
    def __init__(self, deps: ConsoleDeps, caller: Caller) -> None:
        self.deps = deps
        self.caller = caller

    def _shape(self, kind_name: str, obj: Message) -> Message:
        kind = registry.get(kind_name)
        return convert(obj, kind.message_class(self.caller.private))

    async def page(self, kind_name: str, *, offset: int = 0, limit: int = 100, filter: str = "",
                   order: str = "") -> Listing:
        """One page of the List, sorted by the API's ``order`` (creation when blank)."""
        page = await self.deps.services[kind_name].list(self.caller, offset=offset, limit=limit, filter=filter or None,
                                                        order=order or None)
        return Listing([self._shape(kind_name, item) for item in page.items], page.total, page.revision)

    async def all(self, kind_name: str, filter: str = "") -> Listing:
        """Every matching object, in pages of ``READ_PAGE``."""
        first = await self.page(kind_name, limit=READ_PAGE, filter=filter)
        items = list(first.items)
        while len(items) < first.total:
            more = await self.page(kind_name, offset=len(items), limit=READ_PAGE, filter=filter)
            if not more.items:
                break
            items += more.items
        return Listing(items, first.total, first.revision)

    async def counts_by_state(self, kind_name: str) -> dict[int, int]:
        """Visible objects of the kind per state number, in one query."""
        return await self.deps.services[kind_name].count_by_state(self.caller)

    async def stage_counts(self) -> StageCounts:
        """The visible clusters grouped by what their STAGE cell is computed from (one query)."""
        return await stage_inputs(self.deps.services["cluster"], self.caller)

    async def get(self, kind_name: str, object_id: str) -> Message:
        return self._shape(kind_name, await self.deps.services[kind_name].get(self.caller, object_id))

    async def names(self, kind_name: str, ids: Iterable[str]) -> dict[str, str]:
        """Names of the objects ``ids`` name that the caller may see (others keep their id)."""
        found: dict[str, str] = {}
        for object_id in sorted(set(ids) - {""}):
            try:
                found[object_id] = metadata_of(await self.get(kind_name, object_id)).name
            except ServiceError:
                continue
        return found

    async def events(self, filter: str = "", newest: int = 10) -> Listing:
        """The newest lifecycle events (newest first) and the revision read before them."""
        service = self.deps.lifecycle_events
        head = await service.list(self.caller, limit=1, filter=filter or None)
        offset = max(0, head.total - newest)
        page = await service.list(self.caller, offset=offset, limit=newest, filter=filter or None)
        return Listing(list(reversed(page.items)), page.total, head.revision)
