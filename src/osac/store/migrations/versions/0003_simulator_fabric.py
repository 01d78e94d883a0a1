"""Kept so that a database migrated before the simulator had a chain of its own stays at a known
revision: what this revision created (simulator tables) is now the simulator's revision s0001
(``osac/providers/simulator/migrations``), applied only where the simulator is configured.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from __future__ import annotations

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Nothing: the service's own tables do not change here."""


def downgrade() -> None:
    """Nothing."""
