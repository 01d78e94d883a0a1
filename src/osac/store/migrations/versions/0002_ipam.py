"""IP address management: address ranges, their free lists and the allocations
(networking.md §5.4; declared in ``osac/ipam/schema.py``).

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create ``ip_ranges``, ``ip_free`` and ``ip_allocations`` (all empty: ranges are added
    when subnets and pools are created)."""
    op.create_table(
        "ip_ranges",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("scope", sa.String(36), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("parent", sa.String(36), nullable=False),
        sa.Column("first", sa.BigInteger(), nullable=False),
        sa.Column("last", sa.BigInteger(), nullable=False),
        sa.Column("next_unused", sa.BigInteger(), nullable=False),
        sa.Column("allocated_count", sa.BigInteger(), nullable=False),
        sa.Column("size", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_ip_ranges"),
        sa.UniqueConstraint("scope", "first", name="uq_ip_ranges_scope_first"),
    )
    op.create_index("ix_ip_ranges_scope_kind", "ip_ranges", ["scope", "kind"])
    op.create_index("ix_ip_ranges_parent", "ip_ranges", ["parent"])
    op.create_table(
        "ip_free",
        sa.Column("range_id", sa.Integer(), nullable=False),
        sa.Column("address", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("range_id", "address", name="pk_ip_free"),
    )
    op.create_table(
        "ip_allocations",
        sa.Column("scope", sa.String(36), nullable=False),
        sa.Column("address", sa.BigInteger(), nullable=False),
        sa.Column("range_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("parent", sa.String(36), nullable=False),
        sa.Column("owner_type", sa.String(64), nullable=False),
        sa.Column("owner_id", sa.String(64), nullable=False),
        sa.Column("purpose", sa.String(128), nullable=False),
        sa.Column("ordinal", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("scope", "address", name="pk_ip_allocations"),
        sa.UniqueConstraint(
            "owner_type", "owner_id", "purpose", "ordinal", name="uq_ip_allocations_owner_type_owner_id_purpose_ordinal"
        ),
    )
    op.create_index("ix_ip_allocations_range_id", "ip_allocations", ["range_id"])


def downgrade() -> None:
    op.drop_table("ip_allocations")
    op.drop_table("ip_free")
    op.drop_table("ip_ranges")
