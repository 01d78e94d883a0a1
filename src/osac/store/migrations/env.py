"""Alembic environment: migrations run synchronously against the configured URL."""

from __future__ import annotations

from alembic import context
from sqlalchemy import engine_from_config, pool

from osac.ipam import schema as ipam_schema  # noqa: F401  (registers the IPAM tables on the MetaData)
from osac.providers.simulator.clusters import schema as simulated_clusters  # noqa: F401  (HostedClusters, NodePools)
from osac.providers.simulator.compute import schema  # noqa: F401  (the simulated VMs and host inventory)
from osac.providers.simulator.runtime import schema as simulator_schema  # noqa: F401  (the simulator's sim_* tables)
from osac.store import claims as claims_schema  # noqa: F401  (the networking uniqueness claims)
from osac.store import tables  # noqa: F401  (registers every kind's tables on the MetaData)
from osac.store.schema import metadata

config = context.config


def run_migrations_online() -> None:
    connectable = config.attributes.get("connection")
    if connectable is not None:
        _run(connectable)
        return
    engine = engine_from_config(
        config.get_section(config.config_ini_section) or {},
        prefix="sqlalchemy.",
        poolclass=pool.NullPool,
    )
    with engine.connect() as connection:
        _run(connection)
    engine.dispose()


def _run(connection) -> None:  # type: ignore[no-untyped-def]
    context.configure(
        connection=connection,
        target_metadata=metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


run_migrations_online()
