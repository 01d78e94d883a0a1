"""The IPAM tables (networking.md §5.4), on the store's shared MetaData (named constraints).

Addresses are IPv4 addresses as integers (``BigInteger``: 0 … 2³²−1 does not fit a signed 32-bit
column), so that "lowest first" is an index order and a range is two numbers.

``ip_ranges``       one row per allocatable range: a subnet's workload range, its VIP range, one
                    per CIDR of an external pool. ``next_unused`` is the lowest address never
                    handed out; ``allocated_count`` the number allocated now. The row is the lock
                    every allocation and release of the range takes, and its counters change in
                    the same transaction, so ``size = allocated + available`` always holds.
                    Invariant: the addresses ``first … next_unused − 1`` are each either in
                    ``ip_allocations`` or in ``ip_free``; ``next_unused … last`` are in neither.
``ip_free``         addresses released below ``next_unused``; the primary key orders them, so
                    the lowest one is one index probe.
``ip_allocations``  who holds which address. The primary key ``(scope, address)`` is the UNIQUE
                    constraint that makes a double allocation impossible, whatever the code
                    does; ``(owner_type, owner_id, purpose, ordinal)`` makes an owner's request
                    idempotent.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Column,
    Index,
    Integer,
    PrimaryKeyConstraint,
    String,
    Table,
    UniqueConstraint,
)

from osac.store.schema import ID_LENGTH, metadata

#: ``workload``, ``vip`` or ``external``.
KIND_LENGTH = 16
#: A subnet id, or ``external``.
SCOPE_LENGTH = ID_LENGTH
#: Owner types are kind names (``compute_instance``); owner ids object ids, with room to spare.
OWNER_TYPE_LENGTH = 64
OWNER_ID_LENGTH = 64
#: ``nic:<attachment>``, ``node:<node set>``, ``vip:api`` and the like.
PURPOSE_LENGTH = 128

ip_ranges = Table(
    "ip_ranges",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("scope", String(SCOPE_LENGTH), nullable=False),
    Column("kind", String(KIND_LENGTH), nullable=False),
    Column("parent", String(ID_LENGTH), nullable=False),
    Column("first", BigInteger, nullable=False),
    Column("last", BigInteger, nullable=False),
    Column("next_unused", BigInteger, nullable=False),
    Column("allocated_count", BigInteger, nullable=False),
    Column("size", BigInteger, nullable=False),
    # Two ranges of one space never start at the same address (pools of the external space
    # included); overlap beyond that is prevented by the services' CIDR checks (§5.5).
    UniqueConstraint("scope", "first"),
    Index(None, "scope", "kind"),
    Index(None, "parent"),
)

ip_free = Table(
    "ip_free",
    metadata,
    Column("range_id", Integer, nullable=False),
    Column("address", BigInteger, nullable=False),
    PrimaryKeyConstraint("range_id", "address"),
)

ip_allocations = Table(
    "ip_allocations",
    metadata,
    Column("scope", String(SCOPE_LENGTH), nullable=False),
    Column("address", BigInteger, nullable=False),
    Column("range_id", Integer, nullable=False),
    Column("kind", String(KIND_LENGTH), nullable=False),
    Column("parent", String(ID_LENGTH), nullable=False),
    Column("owner_type", String(OWNER_TYPE_LENGTH), nullable=False),
    Column("owner_id", String(OWNER_ID_LENGTH), nullable=False),
    Column("purpose", String(PURPOSE_LENGTH), nullable=False),
    Column("ordinal", Integer, nullable=False),
    PrimaryKeyConstraint("scope", "address"),
    # Its index also serves the lookups by (owner_type, owner_id) (its leading columns), so a
    # separate index on those two would only slow every allocation down.
    UniqueConstraint("owner_type", "owner_id", "purpose", "ordinal"),
    # ``drop_ranges`` asks whether a range still has allocations.
    Index(None, "range_id"),
)
