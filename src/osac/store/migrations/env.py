"""Alembic environment of the service's chain: its own tables only (the simulator's tables have
a chain of their own, ``osac/providers/simulator/migrations``). Runs synchronously."""

from __future__ import annotations

from alembic import context
from sqlalchemy import engine_from_config, pool
from sqlalchemy.engine import Connection

from osac.ipam import schema as ipam_schema  # noqa: F401  (registers the IPAM tables on the MetaData)
from osac.store import claims as claims_schema  # noqa: F401  (the networking uniqueness claims)
from osac.store import labels as labels_schema  # noqa: F401  (the label index kept by triggers)
from osac.store import tables  # noqa: F401  (registers every kind's tables on the MetaData)
from osac.store.schema import metadata

config = context.config

#: Tables of the simulator's own chain (its version table included): not this chain's to create,
#: drop or check.
SIMULATOR_TABLES = "sim_"


def include_name(name: str | None, type_: str, _parent_names: object) -> bool:
    return not (type_ == "table" and name is not None and name.startswith(SIMULATOR_TABLES))


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


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
        include_name=include_name,
    )
    with context.begin_transaction():
        context.run_migrations()


run_migrations_online()
