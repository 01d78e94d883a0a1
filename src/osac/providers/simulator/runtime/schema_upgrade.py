"""Bring the simulator's tables to their newest revision, where the simulator is configured.

The ``sim_*`` tables have a chain of their own (``osac/providers/simulator/migrations``, version
table ``sim_alembic_version``), so a deployment whose providers are all real has none of them.
Before the chain existed, the service's revisions 0003, 0005, 0006 and 0007 created these tables;
a database from then has them but no ``sim_alembic_version``, and is stamped at the simulator
revision matching the service revision it reached, then upgraded from there.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from sqlalchemy import create_engine, inspect, text

from osac.providers.simulator.runtime.schema import VERSION_TABLE
from osac.store.engine import alembic_config, sync_url

MIGRATIONS = Path(__file__).resolve().parents[1] / "migrations"

#: The service revision that last created simulator tables -> the simulator revision holding them.
_LEGACY = (("0007", "s0004"), ("0006", "s0003"), ("0005", "s0002"), ("0003", "s0001"))


def legacy_revision(service_revision: str | None) -> str | None:
    """The simulator revision a database at ``service_revision`` of the old single chain holds."""
    if service_revision is None or not service_revision.isdigit():
        return None
    for since, simulator_revision in _LEGACY:
        if int(service_revision) >= int(since):
            return simulator_revision
    return None


def upgrade_simulator(url: str) -> None:
    """Stamp a database from the single-chain days, then upgrade the chain (synchronous)."""
    from alembic import command

    config = alembic_config(url, MIGRATIONS)
    engine = create_engine(sync_url(url))
    try:
        with engine.connect() as connection:
            tables = set(inspect(connection).get_table_names())
            service_revision = (
                connection.execute(text("SELECT version_num FROM alembic_version")).scalar()
                if VERSION_TABLE not in tables and "sim_faults" in tables and "alembic_version" in tables
                else None
            )
    finally:
        engine.dispose()
    stamp = legacy_revision(service_revision)
    if stamp is not None:
        command.stamp(config, stamp)
    command.upgrade(config, "head")


async def upgrade_simulator_async(url: str) -> None:
    await asyncio.to_thread(upgrade_simulator, url)
