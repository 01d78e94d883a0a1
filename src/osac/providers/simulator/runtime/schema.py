"""The simulator's own tables (simulator.md §6), on a MetaData of their own.

Only the simulator's repositories (``fabric_store.py``, ``overlay_store.py``, ``faults.py``)
read or write them; the service never does, and the simulator never touches the service's
tables. There are no foreign keys: the fabric is told about objects in the service's order, and
deletes must succeed in any order (deleting the unknown is success). They have a migration chain
of their own (``osac/providers/simulator/migrations``, version table ``sim_alembic_version``),
applied only where the simulator is configured, so a deployment with real providers has no
``sim_*`` table.

``sim_fabric_networks``         one isolated routing domain per VirtualNetwork.
``sim_fabric_segments``         one L2 segment per Subnet (``kind`` ``subnet``), plus the two
                                special segments ``parking`` and ``provisioning`` (no VN).
``sim_fabric_ports``            the switch-port map ``(host, interface) -> segment``; the primary
                                key makes a port live in exactly one segment. ``home_segment`` is
                                where ``delete_network_attachment`` puts a physical port back
                                (``parking`` / ``provisioning``); NULL for a virtual port, which
                                is removed instead.
``sim_fabric_security_groups``  the full rule sets per SG (JSON lists of rules).
``sim_fabric_reservations``     DHCP static reservations ``(subnet, mac) -> address``; an address
                                is reserved at most once per subnet.
``sim_fabric_leases``           leases granted from those reservations.
``sim_fabric_external_ips``     announced external addresses (one row per address).
``sim_fabric_dnat``             1:1 DNAT ``external -> (vn, internal)``.
``sim_fabric_snat``             SNAT per VN (at most one per VN).
``sim_k8s_overlays``            subnets bridged into the VM / hosted-control-plane platform.
``sim_faults``                  the persisted fault records of simulator.md §5.
"""

from __future__ import annotations

from sqlalchemy import (
    Column,
    DateTime,
    Index,
    Integer,
    MetaData,
    PrimaryKeyConstraint,
    String,
    Table,
    UniqueConstraint,
)

from osac.store.schema import NAMING_CONVENTION, JSONData

#: Every ``sim_*`` table, apart from the service's MetaData (same constraint names).
metadata = MetaData(naming_convention=NAMING_CONVENTION)
#: The simulator chain's own Alembic version table.
VERSION_TABLE = "sim_alembic_version"

#: Object ids are UUID text; the simulator accepts any id up to this length.
SIM_ID_LENGTH = 128
#: Port host names: bare-metal host names, ``ci/<id>``, ``node/<cluster>/<key>/<ordinal>``.
HOST_LENGTH = 255
INTERFACE_LENGTH = 63
#: Long enough for an IPv6 address or CIDR in text form.
ADDRESS_LENGTH = 64
MAC_LENGTH = 32
KIND_LENGTH = 32
FAULT_LENGTH = 64

sim_fabric_networks = Table(
    "sim_fabric_networks",
    metadata,
    Column("vn_id", String(SIM_ID_LENGTH), nullable=False),
    Column("cidrs", JSONData, nullable=False),
    Column("backend_ref", String(SIM_ID_LENGTH * 2), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    PrimaryKeyConstraint("vn_id"),
)

sim_fabric_segments = Table(
    "sim_fabric_segments",
    metadata,
    Column("segment_id", String(SIM_ID_LENGTH), nullable=False),
    Column("kind", String(KIND_LENGTH), nullable=False),
    Column("vn_id", String(SIM_ID_LENGTH), nullable=True),
    Column("cidr", String(ADDRESS_LENGTH), nullable=True),
    Column("ipv6_cidr", String(ADDRESS_LENGTH), nullable=True),
    Column("gateway", String(ADDRESS_LENGTH), nullable=True),
    Column("dhcp_first", String(ADDRESS_LENGTH), nullable=True),
    Column("dhcp_last", String(ADDRESS_LENGTH), nullable=True),
    Column("vip_first", String(ADDRESS_LENGTH), nullable=True),
    Column("vip_last", String(ADDRESS_LENGTH), nullable=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    PrimaryKeyConstraint("segment_id"),
    Index(None, "vn_id"),
)

sim_fabric_ports = Table(
    "sim_fabric_ports",
    metadata,
    Column("host_name", String(HOST_LENGTH), nullable=False),
    Column("interface", String(INTERFACE_LENGTH), nullable=False),
    Column("segment_id", String(SIM_ID_LENGTH), nullable=False),
    Column("vn_id", String(SIM_ID_LENGTH), nullable=True),
    Column("home_segment", String(SIM_ID_LENGTH), nullable=True),
    Column("mac", String(MAC_LENGTH), nullable=True),
    Column("security_group_ids", JSONData, nullable=False),
    Column("target_kind", String(KIND_LENGTH), nullable=True),
    Column("updated_at", DateTime(timezone=True), nullable=False),
    PrimaryKeyConstraint("host_name", "interface"),
    Index(None, "segment_id"),
    Index(None, "vn_id"),
)

sim_fabric_security_groups = Table(
    "sim_fabric_security_groups",
    metadata,
    Column("sg_id", String(SIM_ID_LENGTH), nullable=False),
    Column("vn_id", String(SIM_ID_LENGTH), nullable=False),
    Column("ingress", JSONData, nullable=False),
    Column("egress", JSONData, nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
    PrimaryKeyConstraint("sg_id"),
    Index(None, "vn_id"),
)

sim_fabric_reservations = Table(
    "sim_fabric_reservations",
    metadata,
    Column("subnet_id", String(SIM_ID_LENGTH), nullable=False),
    Column("mac", String(MAC_LENGTH), nullable=False),
    Column("address", String(ADDRESS_LENGTH), nullable=False),
    Column("host_name", String(HOST_LENGTH), nullable=False),
    Column("interface", String(INTERFACE_LENGTH), nullable=False),
    PrimaryKeyConstraint("subnet_id", "mac"),
    UniqueConstraint("subnet_id", "address"),
    Index(None, "host_name", "interface"),
)

sim_fabric_leases = Table(
    "sim_fabric_leases",
    metadata,
    Column("subnet_id", String(SIM_ID_LENGTH), nullable=False),
    Column("mac", String(MAC_LENGTH), nullable=False),
    Column("address", String(ADDRESS_LENGTH), nullable=False),
    Column("host_name", String(HOST_LENGTH), nullable=False),
    Column("interface", String(INTERFACE_LENGTH), nullable=False),
    Column("granted_at", DateTime(timezone=True), nullable=False),
    PrimaryKeyConstraint("subnet_id", "mac"),
)

sim_fabric_external_ips = Table(
    "sim_fabric_external_ips",
    metadata,
    Column("eip_id", String(SIM_ID_LENGTH), nullable=False),
    Column("pool_id", String(SIM_ID_LENGTH), nullable=False),
    Column("address", String(ADDRESS_LENGTH), nullable=False),
    Column("announced_at", DateTime(timezone=True), nullable=False),
    PrimaryKeyConstraint("eip_id"),
    UniqueConstraint("address"),
)

sim_fabric_dnat = Table(
    "sim_fabric_dnat",
    metadata,
    Column("attachment_id", String(SIM_ID_LENGTH), nullable=False),
    Column("external_address", String(ADDRESS_LENGTH), nullable=False),
    Column("vn_id", String(SIM_ID_LENGTH), nullable=False),
    Column("internal_address", String(ADDRESS_LENGTH), nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
    PrimaryKeyConstraint("attachment_id"),
    UniqueConstraint("external_address"),
    Index(None, "vn_id"),
)

sim_fabric_snat = Table(
    "sim_fabric_snat",
    metadata,
    Column("natgw_id", String(SIM_ID_LENGTH), nullable=False),
    Column("vn_id", String(SIM_ID_LENGTH), nullable=False),
    Column("external_address", String(ADDRESS_LENGTH), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    PrimaryKeyConstraint("natgw_id"),
    UniqueConstraint("vn_id"),
)

sim_k8s_overlays = Table(
    "sim_k8s_overlays",
    metadata,
    Column("subnet_id", String(SIM_ID_LENGTH), nullable=False),
    Column("segment", String(SIM_ID_LENGTH), nullable=False),
    Column("manager", String(SIM_ID_LENGTH), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    PrimaryKeyConstraint("subnet_id"),
)

sim_faults = Table(
    "sim_faults",
    metadata,
    Column("id", String(SIM_ID_LENGTH), nullable=False),
    Column("target_kind", String(KIND_LENGTH), nullable=False),
    Column("target_id", String(HOST_LENGTH), nullable=False),
    Column("fault", String(FAULT_LENGTH), nullable=False),
    Column("params", JSONData, nullable=False),
    #: Remaining applications of an "N times" fault; 0 = not counted (until deleted).
    Column("remaining", Integer, nullable=False),
    Column("expires_at", DateTime(timezone=True), nullable=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    PrimaryKeyConstraint("id"),
    Index(None, "fault", "target_kind"),
)

TABLES = (
    sim_fabric_networks,
    sim_fabric_segments,
    sim_fabric_ports,
    sim_fabric_security_groups,
    sim_fabric_reservations,
    sim_fabric_leases,
    sim_fabric_external_ips,
    sim_fabric_dnat,
    sim_fabric_snat,
    sim_k8s_overlays,
    sim_faults,
)
