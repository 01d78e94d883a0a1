"""Simulator state: the simulated network fabric, the simulated k8s network manager's overlays,
and the fault records (simulator.md §3.4, §5, §6; declared in ``osac/providers/simulator/runtime/schema.py``).

Revision ID: s0001
Revises: (none: the first revision of the simulator chain)
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision: str = "s0001"
down_revision: str | None = None
branch_labels = None
depends_on = None

JSONData = sa.JSON().with_variant(JSONB(), "postgresql")

#: Frozen copies of the column sizes at this revision.
ID = 128
HOST = 255
INTERFACE = 63
ADDRESS = 64
MAC = 32
KIND = 32
FAULT = 64


def _when(name: str, nullable: bool = False) -> sa.Column:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def upgrade() -> None:
    """Create the ``sim_*`` tables (all empty)."""
    op.create_table(
        "sim_fabric_networks",
        sa.Column("vn_id", sa.String(ID), nullable=False),
        sa.Column("cidrs", JSONData, nullable=False),
        sa.Column("backend_ref", sa.String(ID * 2), nullable=False),
        _when("created_at"),
        sa.PrimaryKeyConstraint("vn_id", name="pk_sim_fabric_networks"),
    )
    op.create_table(
        "sim_fabric_segments",
        sa.Column("segment_id", sa.String(ID), nullable=False),
        sa.Column("kind", sa.String(KIND), nullable=False),
        sa.Column("vn_id", sa.String(ID), nullable=True),
        sa.Column("cidr", sa.String(ADDRESS), nullable=True),
        sa.Column("ipv6_cidr", sa.String(ADDRESS), nullable=True),
        sa.Column("gateway", sa.String(ADDRESS), nullable=True),
        sa.Column("dhcp_first", sa.String(ADDRESS), nullable=True),
        sa.Column("dhcp_last", sa.String(ADDRESS), nullable=True),
        sa.Column("vip_first", sa.String(ADDRESS), nullable=True),
        sa.Column("vip_last", sa.String(ADDRESS), nullable=True),
        _when("created_at"),
        sa.PrimaryKeyConstraint("segment_id", name="pk_sim_fabric_segments"),
    )
    op.create_index("ix_sim_fabric_segments_vn_id", "sim_fabric_segments", ["vn_id"])
    op.create_table(
        "sim_fabric_ports",
        sa.Column("host_name", sa.String(HOST), nullable=False),
        sa.Column("interface", sa.String(INTERFACE), nullable=False),
        sa.Column("segment_id", sa.String(ID), nullable=False),
        sa.Column("vn_id", sa.String(ID), nullable=True),
        sa.Column("home_segment", sa.String(ID), nullable=True),
        sa.Column("mac", sa.String(MAC), nullable=True),
        sa.Column("security_group_ids", JSONData, nullable=False),
        sa.Column("target_kind", sa.String(KIND), nullable=True),
        _when("updated_at"),
        sa.PrimaryKeyConstraint("host_name", "interface", name="pk_sim_fabric_ports"),
    )
    op.create_index("ix_sim_fabric_ports_segment_id", "sim_fabric_ports", ["segment_id"])
    op.create_index("ix_sim_fabric_ports_vn_id", "sim_fabric_ports", ["vn_id"])
    op.create_table(
        "sim_fabric_security_groups",
        sa.Column("sg_id", sa.String(ID), nullable=False),
        sa.Column("vn_id", sa.String(ID), nullable=False),
        sa.Column("ingress", JSONData, nullable=False),
        sa.Column("egress", JSONData, nullable=False),
        _when("updated_at"),
        sa.PrimaryKeyConstraint("sg_id", name="pk_sim_fabric_security_groups"),
    )
    op.create_index("ix_sim_fabric_security_groups_vn_id", "sim_fabric_security_groups", ["vn_id"])
    op.create_table(
        "sim_fabric_reservations",
        sa.Column("subnet_id", sa.String(ID), nullable=False),
        sa.Column("mac", sa.String(MAC), nullable=False),
        sa.Column("address", sa.String(ADDRESS), nullable=False),
        sa.Column("host_name", sa.String(HOST), nullable=False),
        sa.Column("interface", sa.String(INTERFACE), nullable=False),
        sa.PrimaryKeyConstraint("subnet_id", "mac", name="pk_sim_fabric_reservations"),
        sa.UniqueConstraint("subnet_id", "address", name="uq_sim_fabric_reservations_subnet_id_address"),
    )
    op.create_index(
        "ix_sim_fabric_reservations_host_name_interface",
        "sim_fabric_reservations",
        ["host_name", "interface"],
    )
    op.create_table(
        "sim_fabric_leases",
        sa.Column("subnet_id", sa.String(ID), nullable=False),
        sa.Column("mac", sa.String(MAC), nullable=False),
        sa.Column("address", sa.String(ADDRESS), nullable=False),
        sa.Column("host_name", sa.String(HOST), nullable=False),
        sa.Column("interface", sa.String(INTERFACE), nullable=False),
        _when("granted_at"),
        sa.PrimaryKeyConstraint("subnet_id", "mac", name="pk_sim_fabric_leases"),
    )
    op.create_table(
        "sim_fabric_external_ips",
        sa.Column("eip_id", sa.String(ID), nullable=False),
        sa.Column("pool_id", sa.String(ID), nullable=False),
        sa.Column("address", sa.String(ADDRESS), nullable=False),
        _when("announced_at"),
        sa.PrimaryKeyConstraint("eip_id", name="pk_sim_fabric_external_ips"),
        sa.UniqueConstraint("address", name="uq_sim_fabric_external_ips_address"),
    )
    op.create_table(
        "sim_fabric_dnat",
        sa.Column("attachment_id", sa.String(ID), nullable=False),
        sa.Column("external_address", sa.String(ADDRESS), nullable=False),
        sa.Column("vn_id", sa.String(ID), nullable=False),
        sa.Column("internal_address", sa.String(ADDRESS), nullable=False),
        _when("updated_at"),
        sa.PrimaryKeyConstraint("attachment_id", name="pk_sim_fabric_dnat"),
        sa.UniqueConstraint("external_address", name="uq_sim_fabric_dnat_external_address"),
    )
    op.create_index("ix_sim_fabric_dnat_vn_id", "sim_fabric_dnat", ["vn_id"])
    op.create_table(
        "sim_fabric_snat",
        sa.Column("natgw_id", sa.String(ID), nullable=False),
        sa.Column("vn_id", sa.String(ID), nullable=False),
        sa.Column("external_address", sa.String(ADDRESS), nullable=False),
        _when("created_at"),
        sa.PrimaryKeyConstraint("natgw_id", name="pk_sim_fabric_snat"),
        sa.UniqueConstraint("vn_id", name="uq_sim_fabric_snat_vn_id"),
    )
    op.create_table(
        "sim_k8s_overlays",
        sa.Column("subnet_id", sa.String(ID), nullable=False),
        sa.Column("segment", sa.String(ID), nullable=False),
        sa.Column("manager", sa.String(ID), nullable=False),
        _when("created_at"),
        sa.PrimaryKeyConstraint("subnet_id", name="pk_sim_k8s_overlays"),
    )
    op.create_table(
        "sim_faults",
        sa.Column("id", sa.String(ID), nullable=False),
        sa.Column("target_kind", sa.String(KIND), nullable=False),
        sa.Column("target_id", sa.String(HOST), nullable=False),
        sa.Column("fault", sa.String(FAULT), nullable=False),
        sa.Column("params", JSONData, nullable=False),
        sa.Column("remaining", sa.Integer(), nullable=False),
        _when("expires_at", nullable=True),
        _when("created_at"),
        sa.PrimaryKeyConstraint("id", name="pk_sim_faults"),
    )
    op.create_index("ix_sim_faults_fault_target_kind", "sim_faults", ["fault", "target_kind"])


def downgrade() -> None:
    for table in (
        "sim_faults",
        "sim_k8s_overlays",
        "sim_fabric_snat",
        "sim_fabric_dnat",
        "sim_fabric_external_ips",
        "sim_fabric_leases",
        "sim_fabric_reservations",
        "sim_fabric_security_groups",
        "sim_fabric_ports",
        "sim_fabric_segments",
        "sim_fabric_networks",
    ):
        op.drop_table(table)
