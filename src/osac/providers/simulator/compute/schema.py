"""Tables of the simulated KubeVirt and bare-metal inventory (simulator.md §6), on the store's
shared MetaData (migration ``0006``).

Only ``vm_store.py``, ``host_store.py`` and ``plan_steps.py`` read or write them.

``sim_virtual_machines``   one row per VM (key: the ComputeInstance id): the applied spec, the
                           DataVolume import schedule, and the creation ordinal that seeds the
                           VM's random stream (jitter, VMI uids) independently of its random id.
``sim_hosts``              the host inventory: type, owner, and what is deployed on the host.
``sim_host_interfaces``    the hosts' cabled ports in HostType order; a MAC exists once.
``sim_compute_steps``      the plans: every step of every VM (kind ``compute_instance``) and host
                           (kind ``host``) with its due time and the object's state from then on
                           (a NULL state is a change computed from the object's row, e.g. import
                           progress). Observations fold the steps due by now; the change feed
                           reads due times across objects through the ``at`` index.
"""

from __future__ import annotations

from sqlalchemy import (
    Column,
    DateTime,
    Index,
    Integer,
    PrimaryKeyConstraint,
    String,
    Table,
    Text,
    UniqueConstraint,
)

from osac.providers.simulator.runtime.schema import (
    HOST_LENGTH,
    INTERFACE_LENGTH,
    KIND_LENGTH,
    MAC_LENGTH,
    SIM_ID_LENGTH,
    metadata,
)
from osac.store.schema import JSONData

#: Host type names are API object names (RFC 1123 labels).
HOST_TYPE_LENGTH = 63
ROLE_LENGTH = 32
#: Owner ids: an object id, or ``<cluster id>/<node set key>`` for a node set.
OWNER_LENGTH = 255

sim_virtual_machines = Table(
    "sim_virtual_machines",
    metadata,
    Column("instance_id", String(SIM_ID_LENGTH), nullable=False),
    Column("ordinal", Integer, nullable=False),
    Column("spec", JSONData, nullable=False),
    #: ``[{name, size_gib, source, started_at, done_at}]``: one DataVolume per disk.
    Column("volumes", JSONData, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    #: Bumped by every spec change (``metadata.generation``).
    Column("generation", Integer, nullable=False),
    #: VirtualMachineInstances created so far: the next one's uid is derived from it.
    Column("incarnations", Integer, nullable=False),
    #: Calls that planned steps so far: each draws its jitter from its own index.
    Column("commands", Integer, nullable=False),
    #: When a change needing a reboot was applied (``RestartRequired`` transition time).
    Column("spec_changed_at", DateTime(timezone=True), nullable=True),
    #: When the planned teardown ends (VM, instance and volumes gone); NULL while it exists.
    Column("gone_at", DateTime(timezone=True), nullable=True),
    PrimaryKeyConstraint("instance_id"),
    UniqueConstraint("ordinal"),
)

sim_hosts = Table(
    "sim_hosts",
    metadata,
    Column("name", String(HOST_LENGTH), nullable=False),
    Column("host_type", String(HOST_TYPE_LENGTH), nullable=False),
    Column("bmc", String(HOST_LENGTH + 32), nullable=False),
    Column("owner_kind", String(KIND_LENGTH), nullable=True),
    Column("owner_id", String(OWNER_LENGTH), nullable=True),
    Column("assigned_at", DateTime(timezone=True), nullable=True),
    #: What ``provision_host`` deployed (NULL when nothing is).
    Column("image", Text, nullable=True),
    Column("user_data", Text, nullable=True),
    Column("ssh_public_key", Text, nullable=True),
    Column("commands", Integer, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    PrimaryKeyConstraint("name"),
    Index(None, "host_type", "owner_id"),
    Index(None, "owner_id"),
)

sim_host_interfaces = Table(
    "sim_host_interfaces",
    metadata,
    Column("host_name", String(HOST_LENGTH), nullable=False),
    Column("interface", String(INTERFACE_LENGTH), nullable=False),
    Column("position", Integer, nullable=False),
    Column("role", String(ROLE_LENGTH), nullable=False),
    Column("mac", String(MAC_LENGTH), nullable=False),
    Column("switch", String(HOST_LENGTH), nullable=False),
    Column("port", String(HOST_LENGTH + INTERFACE_LENGTH + 1), nullable=False),
    PrimaryKeyConstraint("host_name", "interface"),
    UniqueConstraint("mac"),
)

sim_compute_steps = Table(
    "sim_compute_steps",
    metadata,
    Column("kind", String(KIND_LENGTH), nullable=False),
    Column("key", String(HOST_LENGTH), nullable=False),
    Column("seq", Integer, nullable=False),
    Column("at", DateTime(timezone=True), nullable=False),
    Column("state", JSONData, nullable=True),
    PrimaryKeyConstraint("kind", "key", "seq"),
    Index(None, "kind", "at"),
)

TABLES = (sim_virtual_machines, sim_hosts, sim_host_interfaces, sim_compute_steps)
