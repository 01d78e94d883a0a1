"""Kept so that a database migrated before the simulator had a chain of its own stays at a known
revision: what this revision created (simulator tables) is now the simulator's revision s0004
(``osac/providers/simulator/migrations``), applied only where the simulator is configured.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01
"""

from __future__ import annotations

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Nothing: the service's own tables do not change here."""


def downgrade() -> None:
    """Nothing."""
