"""Simulated HyperShift: index the clusters by ``updated_at``, so the change scheduler reads only
the clusters changed since its last pass (declared in ``osac/providers/simulator/clusters/schema.py``).

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-30
"""

from __future__ import annotations

from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add the index (the table is small next to the store's: built in place)."""
    op.create_index("ix_sim_clusters_updated_at", "sim_clusters", ["updated_at"])


def downgrade() -> None:
    op.drop_index("ix_sim_clusters_updated_at", table_name="sim_clusters")
