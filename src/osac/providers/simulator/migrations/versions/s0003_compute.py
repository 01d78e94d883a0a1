"""Simulated KubeVirt and bare-metal inventory: VMs, hosts and their plans (simulator.md §3.2, §3.3, §6;
compute.md §4; declared in ``osac/providers/simulator/compute/schema.py``).

Revision ID: s0003
Revises: s0002
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision: str = "s0003"
down_revision: str | None = "s0002"
branch_labels = None
depends_on = None

JSONData = sa.JSON().with_variant(JSONB(), "postgresql")

#: Frozen copies of the column sizes at this revision.
ID = 128
HOST = 255
INTERFACE = 63
MAC = 32
KIND = 32
HOST_TYPE = 63
ROLE = 32
OWNER = 255


def _when(name: str, nullable: bool = False) -> sa.Column:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def upgrade() -> None:
    """Create the VM, host and plan tables (all empty: the inventory is loaded at start-up)."""
    op.create_table(
        "sim_virtual_machines",
        sa.Column("instance_id", sa.String(ID), nullable=False),
        sa.Column("ordinal", sa.Integer(), nullable=False),
        sa.Column("spec", JSONData, nullable=False),
        sa.Column("volumes", JSONData, nullable=False),
        _when("created_at"),
        sa.Column("generation", sa.Integer(), nullable=False),
        sa.Column("incarnations", sa.Integer(), nullable=False),
        sa.Column("commands", sa.Integer(), nullable=False),
        _when("spec_changed_at", nullable=True),
        _when("gone_at", nullable=True),
        sa.PrimaryKeyConstraint("instance_id", name="pk_sim_virtual_machines"),
        sa.UniqueConstraint("ordinal", name="uq_sim_virtual_machines_ordinal"),
    )
    op.create_table(
        "sim_hosts",
        sa.Column("name", sa.String(HOST), nullable=False),
        sa.Column("host_type", sa.String(HOST_TYPE), nullable=False),
        sa.Column("bmc", sa.String(HOST + 32), nullable=False),
        sa.Column("owner_kind", sa.String(KIND), nullable=True),
        sa.Column("owner_id", sa.String(OWNER), nullable=True),
        _when("assigned_at", nullable=True),
        sa.Column("image", sa.Text(), nullable=True),
        sa.Column("user_data", sa.Text(), nullable=True),
        sa.Column("ssh_public_key", sa.Text(), nullable=True),
        sa.Column("commands", sa.Integer(), nullable=False),
        _when("created_at"),
        sa.PrimaryKeyConstraint("name", name="pk_sim_hosts"),
    )
    op.create_index("ix_sim_hosts_host_type_owner_id", "sim_hosts", ["host_type", "owner_id"])
    op.create_index("ix_sim_hosts_owner_id", "sim_hosts", ["owner_id"])
    op.create_table(
        "sim_host_interfaces",
        sa.Column("host_name", sa.String(HOST), nullable=False),
        sa.Column("interface", sa.String(INTERFACE), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("role", sa.String(ROLE), nullable=False),
        sa.Column("mac", sa.String(MAC), nullable=False),
        sa.Column("switch", sa.String(HOST), nullable=False),
        sa.Column("port", sa.String(HOST + INTERFACE + 1), nullable=False),
        sa.PrimaryKeyConstraint("host_name", "interface", name="pk_sim_host_interfaces"),
        sa.UniqueConstraint("mac", name="uq_sim_host_interfaces_mac"),
    )
    op.create_table(
        "sim_compute_steps",
        sa.Column("kind", sa.String(KIND), nullable=False),
        sa.Column("key", sa.String(HOST), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        _when("at"),
        sa.Column("state", JSONData, nullable=True),
        sa.PrimaryKeyConstraint("kind", "key", "seq", name="pk_sim_compute_steps"),
    )
    op.create_index("ix_sim_compute_steps_kind_at", "sim_compute_steps", ["kind", "at"])


def downgrade() -> None:
    op.drop_index("ix_sim_compute_steps_kind_at", table_name="sim_compute_steps")
    op.drop_table("sim_compute_steps")
    op.drop_table("sim_host_interfaces")
    op.drop_index("ix_sim_hosts_owner_id", table_name="sim_hosts")
    op.drop_index("ix_sim_hosts_host_type_owner_id", table_name="sim_hosts")
    op.drop_table("sim_hosts")
    op.drop_table("sim_virtual_machines")
