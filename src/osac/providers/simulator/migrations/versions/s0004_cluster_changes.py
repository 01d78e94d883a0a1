"""Simulated HyperShift: index the clusters by ``updated_at``, so the change scheduler reads only
the clusters changed since its last pass (declared in ``osac/providers/simulator/clusters/schema.py``).

Revision ID: s0004
Revises: s0003
Create Date: 2026-11-30
"""

from __future__ import annotations

from alembic import op

revision: str = "s0004"
down_revision: str | None = "s0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add the index (the table is small next to the store's: built in place)."""
    op.create_index("ix_sim_clusters_updated_at", "sim_clusters", ["updated_at"])


def downgrade() -> None:
    op.drop_index("ix_sim_clusters_updated_at", table_name="sim_clusters")
