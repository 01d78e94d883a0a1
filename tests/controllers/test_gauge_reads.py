"""The population gauges read their objects in pages by id, each in its own read transaction:
every live object once, whatever the page size."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from osac.clock import FakeClock
from osac.controllers.workloads import passes
from osac.model import registry
from osac.store.engine import create_engines
from osac.store.objects import Store

VN = registry.get("virtual_network")


@pytest.mark.parametrize("count", [0, 6, 21, 23], ids=lambda count: f"{count}-objects")
async def test_every_live_object_is_read_once_in_pages(db_url: str, monkeypatch: pytest.MonkeyPatch,
                                                       count: int) -> None:
    monkeypatch.setattr(passes, "GAUGE_PAGE", 7)  # 21: the last page is full, then an empty one
    store = Store(create_engines(db_url), FakeClock(datetime(2026, 1, 1, tzinfo=UTC)))
    try:
        async with store.write() as tx:
            for index in range(count):
                network = VN.private_class()(id=f"vn-{index:03d}")
                network.metadata.name = f"net{index}"
                network.metadata.tenant = "acme"
                network.metadata.version = 1
                network.metadata.creation_timestamp.FromDatetime(datetime(2026, 1, 1, tzinfo=UTC))
                await tx.insert(VN, network)
        found = await passes._all_objects(store, "virtual_network")
        assert [obj.id for obj in found] == [f"vn-{index:03d}" for index in range(count)]
    finally:
        await store.engines.dispose()
