"""Migrate a test database as ``osac serve`` does with the simulator configured: the simulator's
chain, then the service's."""

from __future__ import annotations

import asyncio

from osac.providers.simulator.runtime.schema_upgrade import upgrade_simulator
from osac.store.engine import migrate


def migrate_with_simulator(url: str) -> None:
    upgrade_simulator(url)
    migrate(url)


async def migrate_with_simulator_async(url: str) -> None:
    await asyncio.to_thread(migrate_with_simulator, url)
