"""Fixtures of the store's tests."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest

from osac.clock import FakeClock
from osac.store.engine import create_engines
from osac.store.objects import Store

#: The store's clock in these tests.
STORE_NOW = datetime(2026, 1, 1, tzinfo=UTC)


@pytest.fixture
async def store(db_url: str) -> AsyncIterator[Store]:
    """A `Store` over this test's own database (current schema, no rows) on a fake clock."""
    store = Store(create_engines(db_url), FakeClock(STORE_NOW))
    try:
        yield store
    finally:
        await store.engines.dispose()
