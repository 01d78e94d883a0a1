"""Uniqueness claims: one owner per (claim, key) (networking.md R7, R8; declared in
``osac/store/claims.py``).

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create ``claims`` (empty: claims are taken by the networking services)."""
    op.create_table(
        "claims",
        sa.Column("claim", sa.String(64), nullable=False),
        sa.Column("key", sa.String(160), nullable=False),
        sa.Column("owner_kind", sa.String(64), nullable=False),
        sa.Column("owner_id", sa.String(36), nullable=False),
        sa.PrimaryKeyConstraint("claim", "key", name="pk_claims"),
    )
    op.create_index("ix_claims_owner_kind_owner_id", "claims", ["owner_kind", "owner_id"])


def downgrade() -> None:
    op.drop_index("ix_claims_owner_kind_owner_id", table_name="claims")
    op.drop_table("claims")
