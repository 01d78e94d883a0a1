"""Tables of the simulated HyperShift (simulator.md §6), on the store's shared MetaData.

Only ``cluster_store.py`` reads or writes them. A cluster's plan is its row, its NodePool rows and
its step rows; the row's ``version`` is bumped by every write (optimistic lock) and numbers the
steps as they happen (the cursor of change notices).

``sim_clusters``             one HostedCluster: the applied spec (the pull secret only as a
                             digest), the times of the API calls that created and deleted it,
                             ``gone_at`` once nothing of it exists, ``next_due_at`` (the next step
                             that waits only for time) and ``is_waiting`` (a step waits for a
                             port or a fault) so the scheduler finds work with one query.
``sim_cluster_node_pools``   the last applied spec of each NodePool.
``sim_cluster_steps``        the plan: every step with its due time, what happened when, and
                             the fault holding it, if any.
"""

from __future__ import annotations

from sqlalchemy import Boolean, Column, DateTime, Index, Integer, PrimaryKeyConstraint, String, Table

from osac.providers.simulator.runtime.schema import FAULT_LENGTH, SIM_ID_LENGTH, metadata
from osac.store.schema import JSONData

#: HostedCluster / NodePool names (Kubernetes object names).
NAME_LENGTH = 253
#: Node-set keys (map keys of ``spec.node_sets``).
KEY_LENGTH = 63
STATE_LENGTH = 16
#: Step kinds (``cluster_world.py``), e.g. ``teardown_cloud_resources_destroyed``.
STEP_KIND_LENGTH = 48

sim_clusters = Table(
    "sim_clusters",
    metadata,
    Column("cluster_id", String(SIM_ID_LENGTH), nullable=False),
    Column("name", String(NAME_LENGTH), nullable=False),
    Column("spec", JSONData, nullable=False),
    Column("version", Integer, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("deleted_at", DateTime(timezone=True), nullable=True),
    Column("gone_at", DateTime(timezone=True), nullable=True),
    Column("next_due_at", DateTime(timezone=True), nullable=True),
    Column("is_waiting", Boolean, nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
    PrimaryKeyConstraint("cluster_id"),
    Index(None, "next_due_at"),
    Index(None, "updated_at"),
)

sim_cluster_node_pools = Table(
    "sim_cluster_node_pools",
    metadata,
    Column("cluster_id", String(SIM_ID_LENGTH), nullable=False),
    Column("node_set_key", String(KEY_LENGTH), nullable=False),
    Column("name", String(NAME_LENGTH), nullable=False),
    Column("spec", JSONData, nullable=False),
    Column("applied_at", DateTime(timezone=True), nullable=False),
    Column("deleted_at", DateTime(timezone=True), nullable=True),
    PrimaryKeyConstraint("cluster_id", "node_set_key"),
)

sim_cluster_steps = Table(
    "sim_cluster_steps",
    metadata,
    Column("cluster_id", String(SIM_ID_LENGTH), nullable=False),
    Column("seq", Integer, nullable=False),
    Column("kind", String(STEP_KIND_LENGTH), nullable=False),
    Column("node_set_key", String(KEY_LENGTH), nullable=False),
    Column("ordinal", Integer, nullable=False),
    Column("state", String(STATE_LENGTH), nullable=False),
    #: NULL while the step waits for a gate (a node's port).
    Column("due_at", DateTime(timezone=True), nullable=True),
    Column("done_at", DateTime(timezone=True), nullable=True),
    Column("cause_seq", Integer, nullable=True),
    Column("payload", JSONData, nullable=False),
    #: The fault kind and record holding the step ("" when none).
    Column("held_by", String(FAULT_LENGTH), nullable=False),
    Column("held_fault", String(SIM_ID_LENGTH), nullable=False),
    #: The cluster version at which the step happened (0 until then).
    Column("version", Integer, nullable=False),
    PrimaryKeyConstraint("cluster_id", "seq"),
    Index(None, "cluster_id", "version"),
)

TABLES = (sim_clusters, sim_cluster_node_pools, sim_cluster_steps)
