"""Simulated HyperShift: hosted clusters, node pools and their plans (simulator.md §3.1, §6;
declared in ``osac/providers/simulator/clusters/schema.py``).

Revision ID: s0002
Revises: s0001
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision: str = "s0002"
down_revision: str | None = "s0001"
branch_labels = None
depends_on = None

JSONData = sa.JSON().with_variant(JSONB(), "postgresql")

#: Frozen copies of the column sizes at this revision.
ID = 128
NAME = 253
KEY = 63
STEP_KIND = 48
STATE = 16
FAULT = 64


def _when(name: str, nullable: bool = False) -> sa.Column:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def upgrade() -> None:
    """Create the ``sim_cluster*`` tables (all empty)."""
    op.create_table(
        "sim_clusters",
        sa.Column("cluster_id", sa.String(ID), nullable=False),
        sa.Column("name", sa.String(NAME), nullable=False),
        sa.Column("spec", JSONData, nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        _when("created_at"),
        _when("deleted_at", nullable=True),
        _when("gone_at", nullable=True),
        _when("next_due_at", nullable=True),
        sa.Column("is_waiting", sa.Boolean(), nullable=False),
        _when("updated_at"),
        sa.PrimaryKeyConstraint("cluster_id", name="pk_sim_clusters"),
    )
    op.create_index("ix_sim_clusters_next_due_at", "sim_clusters", ["next_due_at"])
    op.create_table(
        "sim_cluster_node_pools",
        sa.Column("cluster_id", sa.String(ID), nullable=False),
        sa.Column("node_set_key", sa.String(KEY), nullable=False),
        sa.Column("name", sa.String(NAME), nullable=False),
        sa.Column("spec", JSONData, nullable=False),
        _when("applied_at"),
        _when("deleted_at", nullable=True),
        sa.PrimaryKeyConstraint("cluster_id", "node_set_key", name="pk_sim_cluster_node_pools"),
    )
    op.create_table(
        "sim_cluster_steps",
        sa.Column("cluster_id", sa.String(ID), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(STEP_KIND), nullable=False),
        sa.Column("node_set_key", sa.String(KEY), nullable=False),
        sa.Column("ordinal", sa.Integer(), nullable=False),
        sa.Column("state", sa.String(STATE), nullable=False),
        _when("due_at", nullable=True),
        _when("done_at", nullable=True),
        sa.Column("cause_seq", sa.Integer(), nullable=True),
        sa.Column("payload", JSONData, nullable=False),
        sa.Column("held_by", sa.String(FAULT), nullable=False),
        sa.Column("held_fault", sa.String(ID), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("cluster_id", "seq", name="pk_sim_cluster_steps"),
    )
    op.create_index("ix_sim_cluster_steps_cluster_id_version", "sim_cluster_steps", ["cluster_id", "version"])


def downgrade() -> None:
    for table in ("sim_cluster_steps", "sim_cluster_node_pools", "sim_clusters"):
        op.drop_table(table)
