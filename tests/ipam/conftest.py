"""IPAM test fixtures: a migrated store on SQLite and PostgreSQL (``db_url``) and helpers that
lay out subnets and pools the way the networking services do."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest

from osac.clock import FakeClock
from osac.ipam import allocator
from osac.ipam.layout import SubnetLayout, subnet_layout
from osac.store.engine import create_engines, migrate
from osac.store.objects import Store
from tests.conftest import PG_AVAILABLE

START = datetime(2026, 1, 1, tzinfo=UTC)


@pytest.fixture
async def store(db_url: str) -> AsyncIterator[Store]:
    """A store on a freshly migrated database (both engines, through ``db_url``)."""
    await asyncio.to_thread(migrate, db_url)
    engines = create_engines(db_url)
    try:
        yield Store(engines, FakeClock(START))
    finally:
        await engines.dispose()


def new_id() -> str:
    return str(uuid.uuid4())


async def add_subnet(store: Store, cidr: str = "10.0.1.0/24", vip_prefix_length: int = 28) -> tuple[str, SubnetLayout]:
    """A subnet's ranges, committed; returns its id and layout."""
    subnet_id = new_id()
    layout = subnet_layout(cidr, vip_prefix_length)
    async with store.write() as tx:
        await allocator.add_subnet_ranges(tx, subnet_id, layout)
    return subnet_id, layout


async def add_pool(store: Store, *cidrs: str) -> str:
    pool_id = new_id()
    async with store.write() as tx:
        await allocator.add_pool_ranges(tx, pool_id, cidrs)
    return pool_id


@pytest.fixture
async def pg_store(request: pytest.FixtureRequest) -> AsyncIterator[Store]:
    """A store on a new PostgreSQL database, for behaviour only PostgreSQL has (row locks
    between concurrent writers, query plans from statistics never gathered)."""
    if not PG_AVAILABLE:
        pytest.skip("PostgreSQL not reachable")
    url = request.getfixturevalue("new_pg_database")
    await asyncio.to_thread(migrate, url)
    engines = create_engines(url)
    try:
        yield Store(engines, FakeClock(START))
    finally:
        await engines.dispose()
