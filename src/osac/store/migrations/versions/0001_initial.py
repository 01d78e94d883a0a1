"""Initial schema: outbox, revision counter, leases, lifecycle events, and the live and archive
table of every kind known at this revision.

Revision ID: 0001
Revises:
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision: str = "0001"
down_revision: str | None = None
branch_labels = None
depends_on = None

JSONData = sa.JSON().with_variant(JSONB(), "postgresql")

#: Frozen copy of the kinds' table names at this revision (later kinds add their own migration).
KIND_TABLES = (
    "tenants", "network_classes", "virtual_networks", "subnets", "security_groups",
    "external_ip_pools", "external_ips", "external_ip_attachments", "nat_gateways", "host_types",
    "cluster_templates", "clusters", "compute_instance_templates", "instance_types",
    "compute_instances", "baremetal_instances", "hubs",
)


def _object_columns() -> list[sa.Column]:
    return [
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("name", sa.String(63), nullable=True),
        sa.Column("tenant", sa.String(63), nullable=False),
        sa.Column("creation_timestamp", sa.DateTime(timezone=True), nullable=False),
        sa.Column("deletion_timestamp", sa.DateTime(timezone=True), nullable=True),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("data", JSONData, nullable=False),
    ]


def upgrade() -> None:
    """Create every table."""
    op.create_table(
        "revision_counter",
        sa.Column("id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("value", sa.BigInteger(), nullable=False),
        sa.Column("pruned_through", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_revision_counter"),
    )
    op.execute("INSERT INTO revision_counter (id, value, pruned_through) VALUES (1, 0, 0)")
    op.create_table(
        "events",
        sa.Column("revision", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("type", sa.SmallInteger(), nullable=False),
        sa.Column("kind", sa.String(64), nullable=False),
        sa.Column("object_id", sa.String(36), nullable=False),
        sa.Column("tenant", sa.String(63), nullable=False),
        sa.Column("timestamp", sa.DateTime(timezone=True), nullable=False),
        sa.Column("data", JSONData, nullable=False),
        sa.PrimaryKeyConstraint("revision", name="pk_events"),
    )
    op.create_index("ix_events_timestamp", "events", ["timestamp"])
    op.create_table(
        "leases",
        sa.Column("name", sa.String(128), nullable=False),
        sa.Column("holder", sa.String(128), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("name", name="pk_leases"),
    )
    op.create_table(
        "lifecycle_events",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("object_type", sa.String(64), nullable=False),
        sa.Column("object_id", sa.String(36), nullable=False),
        sa.Column("tenant", sa.String(63), nullable=False),
        sa.Column("timestamp", sa.DateTime(timezone=True), nullable=False),
        sa.Column("data", JSONData, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_lifecycle_events"),
    )
    op.create_index("ix_lifecycle_events_object_id", "lifecycle_events", ["object_id"])
    op.create_index("ix_lifecycle_events_timestamp", "lifecycle_events", ["timestamp"])
    for table in KIND_TABLES:
        op.create_table(
            table,
            *_object_columns(),
            sa.PrimaryKeyConstraint("id", name=f"pk_{table}"),
            sa.UniqueConstraint("tenant", "name", name=f"uq_{table}_tenant_name"),
        )
        op.create_index(f"ix_{table}_tenant_id", table, ["tenant", "id"])
        op.create_table(
            f"archived_{table}",
            *_object_columns(),
            sa.Column("archived_at", sa.DateTime(timezone=True), nullable=False),
            sa.PrimaryKeyConstraint("id", name=f"pk_archived_{table}"),
        )


def downgrade() -> None:
    for table in reversed(KIND_TABLES):
        op.drop_table(f"archived_{table}")
        op.drop_table(table)
    for table in ("lifecycle_events", "leases", "events", "revision_counter"):
        op.drop_table(table)
