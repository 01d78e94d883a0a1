"""Alembic environment of the simulator's chain: its own tables and its own version table."""

from __future__ import annotations

from alembic import context
from sqlalchemy import engine_from_config, pool
from sqlalchemy.engine import Connection

from osac.providers.simulator.clusters import schema as clusters_schema  # noqa: F401  (HostedClusters, NodePools)
from osac.providers.simulator.compute import schema as compute_schema  # noqa: F401  (VMs and host inventory)
from osac.providers.simulator.runtime.schema import VERSION_TABLE, metadata

config = context.config


def include_name(name: str | None, type_: str, _parent_names: object) -> bool:
    """Only this chain's tables: the service's chain owns every other table of the database."""
    return type_ != "table" or name in metadata.tables


def run_migrations_online() -> None:
    engine = engine_from_config(
        config.get_section(config.config_ini_section) or {},
        prefix="sqlalchemy.",
        poolclass=pool.NullPool,
    )
    with engine.connect() as connection:
        _run(connection)
    engine.dispose()


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=metadata,
        version_table=VERSION_TABLE,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
        include_name=include_name,
    )
    with context.begin_transaction():
        context.run_migrations()


run_migrations_online()
