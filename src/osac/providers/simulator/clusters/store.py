"""The simulated HyperShift's repository: every read and write of the ``sim_cluster*`` tables, and
the one read of the fabric's port map a node needs (is my port on the cluster's segment?).

Writes are optimistic: a plan is read, changed by a pure function and saved with ``UPDATE ...
WHERE version = <read version>`` first in the transaction; a writer that lost the race (another
process, or the scheduler and a reader of this one) gets ``False`` and starts over from a fresh
read. Reads of a plan see one snapshot (REPEATABLE READ on PostgreSQL, a deferred transaction in
WAL mode on SQLite).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Collection, Mapping
from contextlib import asynccontextmanager
from dataclasses import asdict
from datetime import datetime
from types import MappingProxyType
from typing import Any

from sqlalchemy import and_, bindparam, delete, insert, or_, select, update
from sqlalchemy.engine import Row
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from osac.clock import Clock
from osac.providers.clusters import HostedClusterSpec, NodePoolSpec
from osac.providers.simulator.clusters.nodes import VIRTUAL_NODE_PREFIX, PortState
from osac.providers.simulator.clusters.plan import ClusterPlan, PoolRecord
from osac.providers.simulator.clusters.schema import sim_cluster_node_pools, sim_cluster_steps, sim_clusters
from osac.providers.simulator.clusters.world import DONE, Step
from osac.providers.simulator.runtime.schema import sim_fabric_ports
from osac.providers.simulator.runtime.times import from_db, to_db


class _Conflict(Exception):
    """The plan changed since it was read; the transaction is rolled back."""


class ClusterStore:
    """The cluster tables of one database. Give it the writer engine (and optionally a reader)."""

    def __init__(self, engine: AsyncEngine, clock: Clock, *, reader: AsyncEngine | None = None) -> None:
        self._engine = engine
        self._reader = reader or engine
        self._clock = clock
        #: The last plan loaded per cluster. A plan's pools and steps change only with its
        #: ``version`` (a save is ``UPDATE ... WHERE version = <read version>`` with a new version,
        #: in the same transaction), so a load whose row has the kept version needs neither of
        #: their queries, nor their parsing.
        self._plans: dict[str, ClusterPlan] = {}

    # -- plans -------------------------------------------------------------------------------------

    @asynccontextmanager
    async def reading(self) -> AsyncIterator[AsyncConnection]:
        """One read transaction (a snapshot on PostgreSQL) for several of the queries below,
        which each take it as ``conn`` (without one, each opens its own)."""
        async with self._reader.connect() as conn:
            if conn.dialect.name == "postgresql":
                conn = await conn.execution_options(isolation_level="REPEATABLE READ")
            async with conn.begin():
                yield conn

    async def load(self, cluster_id: str, conn: AsyncConnection | None = None) -> ClusterPlan | None:
        if conn is None:
            async with self.reading() as conn:
                return await self.load(cluster_id, conn)
        row = (await conn.execute(_PLAN_ROW, {"cluster_id": cluster_id})).first()
        if row is None:
            self._plans.pop(cluster_id, None)
            return None
        # The plan kept from the last load of this version is handed out again, shared: a plan is
        # frozen and its mappings (pools, step payloads) are read-only views, so no caller can
        # change what the next one loads (a copy per load cost a millisecond per pass).
        kept = self._plans.get(cluster_id)
        if kept is not None and kept.version == row.version:
            return kept
        pools = (await conn.execute(
            select(sim_cluster_node_pools).where(sim_cluster_node_pools.c.cluster_id == cluster_id))).all()
        steps = (await conn.execute(
            select(sim_cluster_steps).where(sim_cluster_steps.c.cluster_id == cluster_id)
            .order_by(sim_cluster_steps.c.seq))).all()
        plan = self._plans[cluster_id] = ClusterPlan(
            cluster_id=row.cluster_id,
            spec=_cluster_spec(row.spec),
            created_at=from_db(row.created_at),
            version=row.version,
            pools=MappingProxyType({p.node_set_key: _pool(p) for p in pools}),
            steps=tuple(_step(s) for s in steps),
            deleted_at=_when(row.deleted_at),
            gone_at=_when(row.gone_at),
        )
        return plan

    async def save(self, before: ClusterPlan | None, after: ClusterPlan) -> bool:
        """Store ``after`` if the stored plan is still ``before``; False if it is not."""
        try:
            async with self._engine.begin() as conn:
                await self._save_row(conn, before, after)
                await self._save_pools(conn, before, after)
                await self._save_steps(conn, before, after)
        except (_Conflict, IntegrityError):
            return False
        return True

    async def _save_row(self, conn: AsyncConnection, before: ClusterPlan | None, after: ClusterPlan) -> None:
        next_due = after.next_due_at
        values = {
            "name": after.spec.name,
            "spec": _spec_document(after.spec),
            "version": after.version,
            "created_at": to_db(after.created_at),
            "deleted_at": _db(after.deleted_at),
            "gone_at": _db(after.gone_at),
            "next_due_at": _db(next_due),
            "is_waiting": after.is_waiting,
            "updated_at": to_db(self._clock.now()),
        }
        if before is None:
            await conn.execute(insert(sim_clusters).values(cluster_id=after.cluster_id, **values))
            return
        result = await conn.execute(
            update(sim_clusters)
            .where(sim_clusters.c.cluster_id == after.cluster_id, sim_clusters.c.version == before.version)
            .values(**values))
        if not result.rowcount:
            raise _Conflict()

    async def _save_pools(self, conn: AsyncConnection, before: ClusterPlan | None, after: ClusterPlan) -> None:
        old = dict(before.pools) if before else {}
        table = sim_cluster_node_pools
        for key in old.keys() - after.pools.keys():
            await conn.execute(delete(table).where(table.c.cluster_id == after.cluster_id, table.c.node_set_key == key))
        for key, record in after.pools.items():
            if old.get(key) == record:
                continue
            values = {
                "name": record.name,
                "spec": _spec_document(record.spec),
                "applied_at": to_db(record.applied_at),
                "deleted_at": _db(record.deleted_at),
            }
            if key in old:
                await conn.execute(update(table).where(
                    table.c.cluster_id == after.cluster_id, table.c.node_set_key == key).values(**values))
            else:
                await conn.execute(insert(table).values(cluster_id=after.cluster_id, node_set_key=key, **values))

    async def _save_steps(self, conn: AsyncConnection, before: ClusterPlan | None, after: ClusterPlan) -> None:
        old = {s.seq: s for s in before.steps} if before else {}
        new = {s.seq: s for s in after.steps}
        table = sim_cluster_steps
        gone = [seq for seq in old if seq not in new]
        if gone:
            await conn.execute(delete(table).where(table.c.cluster_id == after.cluster_id, table.c.seq.in_(gone)))
        inserts = [_step_row(after.cluster_id, s) for seq, s in new.items() if seq not in old]
        if inserts:
            await conn.execute(insert(table), inserts)
        for seq, step in new.items():
            if seq in old and old[seq] != step:
                row = _step_row(after.cluster_id, step)
                await conn.execute(update(table).where(table.c.cluster_id == after.cluster_id, table.c.seq == seq)
                                   .values(**{k: v for k, v in row.items() if k not in ("cluster_id", "seq")}))

    # -- the scheduler's queries -------------------------------------------------------------------

    async def due(self, now: datetime) -> list[str]:
        """Clusters with a step due by ``now`` or a step waiting for a port or a fault."""
        query = (
            select(sim_clusters.c.cluster_id)
            .where(sim_clusters.c.gone_at.is_(None),
                   or_(sim_clusters.c.next_due_at <= to_db(now), sim_clusters.c.is_waiting))
            .order_by(sim_clusters.c.next_due_at, sim_clusters.c.cluster_id)
        )
        async with self._reader.connect() as conn:
            return list((await conn.execute(query)).scalars())

    async def next_due_at(self, after: datetime | None = None) -> datetime | None:
        """The earliest due time of a step of a cluster that is not gone (only those after
        ``after``, when given)."""
        query = select(sim_clusters.c.next_due_at).where(
            sim_clusters.c.gone_at.is_(None), sim_clusters.c.next_due_at.is_not(None))
        if after is not None:
            query = query.where(sim_clusters.c.next_due_at > to_db(after))
        async with self._reader.connect() as conn:
            value = (await conn.execute(query.order_by(sim_clusters.c.next_due_at).limit(1))).scalar()
        return _when(value)

    async def versions(self, changed_since: datetime | None = None) -> dict[str, int]:
        """Each cluster's version; only of the clusters whose row changed at or after
        ``changed_since``, when given (through the ``updated_at`` index)."""
        query = select(sim_clusters.c.cluster_id, sim_clusters.c.version)
        if changed_since is not None:
            query = query.where(sim_clusters.c.updated_at >= to_db(changed_since))
        async with self._reader.connect() as conn:
            return {row.cluster_id: row.version for row in await conn.execute(query)}

    async def happened_since(
        self, seen: Mapping[str, int], changed_since: datetime | None = None
    ) -> tuple[list[tuple[str, int, datetime]], dict[str, int]]:
        """Steps that happened after the versions in ``seen``, as ``(cluster id, version, done_at)``
        in the order they happened, and the versions to remember next time.

        ``changed_since``: look only at the clusters whose row changed at or after it (each
        save stamps ``updated_at``); the versions remembered are then ``seen`` updated with
        theirs. Without it every cluster is looked at and only existing ones are remembered."""
        versions = await self.versions(changed_since)
        changed = [cid for cid, version in versions.items() if version > seen.get(cid, 0)]
        happened: list[tuple[str, int, datetime]] = []
        if changed:
            table = sim_cluster_steps
            conditions = [and_(table.c.cluster_id == cid, table.c.version > seen.get(cid, 0)) for cid in changed]
            async with self._reader.connect() as conn:
                rows = await conn.execute(
                    select(table.c.cluster_id, table.c.version, table.c.done_at)
                    .where(table.c.state == DONE, or_(*conditions)))
                happened = [(r.cluster_id, r.version, from_db(r.done_at)) for r in rows]
        # every step up to a row's version was committed with it, so the steps read above are
        # all of them; a step committed after ``versions()`` was read only raises the cursor
        latest = dict(versions) if changed_since is None else {**seen, **versions}
        for cid, version, _ in happened:
            latest[cid] = max(latest[cid], version)
        happened.sort(key=lambda item: (item[2], item[0], item[1]))
        return happened, latest

    async def purge(self, gone_before: datetime) -> int:
        """Forget clusters gone before ``gone_before``; how many."""
        async with self._engine.begin() as conn:
            ids = list((await conn.execute(
                select(sim_clusters.c.cluster_id).where(sim_clusters.c.gone_at < to_db(gone_before)))).scalars())
            if ids:
                for table in (sim_cluster_steps, sim_cluster_node_pools, sim_clusters):
                    await conn.execute(delete(table).where(table.c.cluster_id.in_(ids)))
        for cluster_id in ids:
            self._plans.pop(cluster_id, None)
        return len(ids)

    # -- the fabric's port map ----------------------------------------------------------------------

    async def ports(self, cluster_id: str, hosts: Collection[str],
                    conn: AsyncConnection | None = None) -> dict[tuple[str, str], PortState]:
        """The ports of the cluster's virtual nodes and of the given bare-metal hosts."""
        if conn is None:
            async with self.reading() as conn:
                return await self.ports(cluster_id, hosts, conn)
        params: dict[str, Any] = {"pattern": _starting_with(f"{VIRTUAL_NODE_PREFIX}{cluster_id}/")}
        if hosts:
            params["hosts"] = sorted(hosts)
        rows = await conn.execute(_PORTS_AND_HOSTS if hosts else _PORTS, params)
        return {(r.host_name, r.interface): PortState(r.segment_id, r.mac, from_db(r.updated_at)) for r in rows}


# -- the hot statements, built once (store/statements.py says why) -------------------------------

_PLAN_ROW = select(sim_clusters).where(sim_clusters.c.cluster_id == bindparam("cluster_id"))
_PORT_COLUMNS = (sim_fabric_ports.c.host_name, sim_fabric_ports.c.interface, sim_fabric_ports.c.segment_id,
                 sim_fabric_ports.c.mac, sim_fabric_ports.c.updated_at)
_VIRTUAL_NODES = sim_fabric_ports.c.host_name.like(bindparam("pattern"), escape="/")
_PORTS = select(*_PORT_COLUMNS).where(_VIRTUAL_NODES)
_PORTS_AND_HOSTS = select(*_PORT_COLUMNS).where(
    or_(_VIRTUAL_NODES, sim_fabric_ports.c.host_name.in_(bindparam("hosts", expanding=True))))


def _starting_with(prefix: str) -> str:
    """The LIKE pattern (escape ``/``) of the strings that start with ``prefix``."""
    return prefix.replace("/", "//").replace("%", "/%").replace("_", "/_") + "%"


# -- rows <-> values ------------------------------------------------------------------------------


def _db(value: datetime | None) -> datetime | None:
    return None if value is None else to_db(value)


def _when(value: datetime | None) -> datetime | None:
    return None if value is None else from_db(value)


def _spec_document(spec: HostedClusterSpec | NodePoolSpec) -> dict[str, Any]:
    document = asdict(spec)
    return {k: list(v) if isinstance(v, tuple) else v for k, v in document.items()}


def _cluster_spec(document: Mapping[str, Any]) -> HostedClusterSpec:
    values = dict(document)
    values["labels"] = dict(values.get("labels") or {})
    return HostedClusterSpec(**values)


def _pool(row: Row[Any]) -> PoolRecord:
    document = dict(row.spec)
    spec = NodePoolSpec(
        host_type=document["host_type"],
        replicas=int(document["replicas"]),
        fabric_interface=document["fabric_interface"],
        node_addresses=tuple(document.get("node_addresses") or ()),
        hosts=tuple(document.get("hosts") or ()),
    )
    return PoolRecord(row.node_set_key, row.name, spec, from_db(row.applied_at), _when(row.deleted_at))


def _step(row: Row[Any]) -> Step:
    return Step(
        seq=row.seq,
        kind=row.kind,
        due_at=_when(row.due_at),
        node_set_key=row.node_set_key,
        ordinal=row.ordinal,
        state=row.state,
        done_at=_when(row.done_at),
        cause_seq=row.cause_seq,
        payload=MappingProxyType(dict(row.payload or {})),
        held_by=row.held_by,
        held_fault=row.held_fault,
        version=row.version,
    )


def _step_row(cluster_id: str, step: Step) -> dict[str, Any]:
    return {
        "cluster_id": cluster_id,
        "seq": step.seq,
        "kind": step.kind,
        "node_set_key": step.node_set_key,
        "ordinal": step.ordinal,
        "state": step.state,
        "due_at": _db(step.due_at),
        "done_at": _db(step.done_at),
        "cause_seq": step.cause_seq,
        "payload": dict(step.payload),
        "held_by": step.held_by,
        "held_fault": step.held_fault,
        "version": step.version,
    }
