"""Database schema: explicit Core tables on one MetaData with named constraints.

Every API kind gets a live table and an ``archived_<table>`` twin. The ``data`` column holds the
whole private object in storage JSON (see ``codec.py``); the other columns are derived from it at
write time so that uniqueness, tenancy and ordering are enforced and indexed by the database.
"""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    BigInteger,
    Column,
    DateTime,
    Index,
    Integer,
    MetaData,
    PrimaryKeyConstraint,
    SmallInteger,
    String,
    Table,
    UniqueConstraint,
)
from sqlalchemy.dialects.postgresql import JSONB

NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

metadata = MetaData(naming_convention=NAMING_CONVENTION)

#: JSON on SQLite, JSONB on PostgreSQL (indexable, and ``->``/``#>`` paths work the same way).
JSONData = JSON().with_variant(JSONB(), "postgresql")

#: Ids are canonical lowercase UUID text (36 characters).
ID_LENGTH = 36
#: RFC 1123 label length; also used for tenant names.
NAME_LENGTH = 63

#: One row (id = 1). ``value`` is the last assigned event revision; incrementing it inside the
#: writing transaction takes the row lock, so revisions are assigned in commit order.
#: ``pruned_through`` is the highest revision removed by retention.
revision_counter = Table(
    "revision_counter",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=False),
    Column("value", BigInteger, nullable=False),
    Column("pruned_through", BigInteger, nullable=False),
)

#: The outbox: one row per committed change of one object.
events = Table(
    "events",
    metadata,
    Column("revision", BigInteger, primary_key=True, autoincrement=False),
    Column("type", SmallInteger, nullable=False),
    Column("kind", String(64), nullable=False),
    Column("object_id", String(ID_LENGTH), nullable=False),
    Column("tenant", String(NAME_LENGTH), nullable=False),
    Column("timestamp", DateTime(timezone=True), nullable=False),
    Column("data", JSONData, nullable=False),
    Index(None, "timestamp"),
)

#: Controller leases: one holder per name (a kind, or a kind shard) until ``expires_at``.
leases = Table(
    "leases",
    metadata,
    Column("name", String(128), primary_key=True),
    Column("holder", String(128), nullable=False),
    Column("expires_at", DateTime(timezone=True), nullable=False),
)

#: The web console's sign-in state (``store/sign_ins.py``): sessions, one-time sign-in codes and
#: pending OpenID Connect sign-ins, by kind and the SHA-256 of their secret key, each until
#: ``expires_at``; in the database so that every API process of a deployment shares them.
console_sign_ins = Table(
    "console_sign_ins",
    metadata,
    Column("kind", String(16), nullable=False),
    Column("key_hash", String(64), nullable=False),
    Column("data", JSONData, nullable=False),
    Column("expires_at", DateTime(timezone=True), nullable=False),
    PrimaryKeyConstraint("kind", "key_hash"),
    Index(None, "kind", "expires_at"),
)

#: Named notices about objects (api.md §7.4); written by the service in the change's transaction.
lifecycle_events = Table(
    "lifecycle_events",
    metadata,
    Column("id", String(ID_LENGTH), primary_key=True),
    Column("object_type", String(64), nullable=False),
    Column("object_id", String(ID_LENGTH), nullable=False),
    Column("tenant", String(NAME_LENGTH), nullable=False),
    Column("timestamp", DateTime(timezone=True), nullable=False),
    Column("data", JSONData, nullable=False),
    Index(None, "object_id"),
    Index(None, "timestamp"),
)


def _object_columns() -> list[Column]:
    return [
        Column("id", String(ID_LENGTH), primary_key=True),
        Column("name", String(NAME_LENGTH), nullable=True),
        Column("tenant", String(NAME_LENGTH), nullable=False),
        Column("creation_timestamp", DateTime(timezone=True), nullable=False),
        Column("deletion_timestamp", DateTime(timezone=True), nullable=True),
        Column("version", Integer, nullable=False),
        Column("data", JSONData, nullable=False),
    ]


def object_table(table_name: str) -> Table:
    """The live table of one kind. Names are unique per tenant among live objects."""
    return Table(
        table_name,
        metadata,
        *_object_columns(),
        UniqueConstraint("tenant", "name"),
        Index(None, "tenant", "id"),
    )


def archive_table(table_name: str) -> Table:
    """Archived objects of one kind: kept for audit, never served."""
    return Table(
        f"archived_{table_name}",
        metadata,
        *_object_columns(),
        Column("archived_at", DateTime(timezone=True), nullable=False),
    )
