"""The web console's sign-in state ``console_sign_ins`` (sessions, one-time codes, pending
OpenID Connect sign-ins), shared by every API process of a deployment.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "console_sign_ins",
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("key_hash", sa.String(64), nullable=False),
        sa.Column("data", sa.JSON().with_variant(JSONB(), "postgresql"), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("kind", "key_hash", name="pk_console_sign_ins"),
    )
    op.create_index("ix_console_sign_ins_kind_expires_at", "console_sign_ins", ["kind", "expires_at"])


def downgrade() -> None:
    op.drop_index("ix_console_sign_ins_kind_expires_at", "console_sign_ins")
    op.drop_table("console_sign_ins")
