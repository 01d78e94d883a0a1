"""Fixtures of the store's tests."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime

import pytest
from google.protobuf.message import Message

from osac.clock import FakeClock
from osac.model import registry
from osac.store.engine import create_engines
from osac.store.objects import Store

#: The store's clock in these tests.
STORE_NOW = datetime(2026, 1, 1, tzinfo=UTC)
VN = registry.get("virtual_network")


@asynccontextmanager
async def store_over(url: str) -> AsyncIterator[Store]:
    store = Store(create_engines(url), FakeClock(STORE_NOW))
    try:
        yield store
    finally:
        await store.engines.dispose()


@pytest.fixture
async def store(db_url: str) -> AsyncIterator[Store]:
    """A `Store` over this test's own database (current schema, no rows) on a fake clock."""
    async with store_over(db_url) as store:
        yield store


@pytest.fixture
async def pg_store(pg_database: str) -> AsyncIterator[Store]:
    """The same on PostgreSQL only (tests of what only PostgreSQL does)."""
    async with store_over(pg_database) as store:
        yield store


def network(name: str) -> Message:
    """VirtualNetwork ``vn-<name>`` named ``name`` in tenant ``acme``, at version 1."""
    message = VN.private_class()(id=f"vn-{name}")
    message.metadata.name = name
    message.metadata.tenant = "acme"
    message.metadata.version = 1
    message.metadata.creation_timestamp.FromDatetime(STORE_NOW)
    return message
