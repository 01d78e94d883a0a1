"""The simulated KubeVirt's repository: ``sim_virtual_machines`` and the VMs' plans.

A change runs in one write transaction that first locks the VM's row (``FOR UPDATE`` on
PostgreSQL; SQLite has a single writer), so two calls for one VM are planned one after the other
from each other's outcome. Two first creates of one VM race on the primary key (or two new VMs
on the ordinal); the loser is re-run and finds the winner's row.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, TypeVar

from sqlalchemy import bindparam, delete, func, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from osac.providers.simulator.compute.plan import KIND, VolumePlan, spec_from_json
from osac.providers.simulator.compute.schema import sim_virtual_machines
from osac.providers.simulator.compute.shapes import VirtualMachineRecord
from osac.providers.simulator.runtime import plan_steps
from osac.providers.simulator.runtime.plan_steps import Step
from osac.providers.simulator.runtime.times import from_db, to_db
from osac.store import direct

T = TypeVar("T")

#: How long a fully deleted VM's row and plan are kept (its observation is "not found" either way).
GONE_RETENTION = timedelta(hours=1)
#: One VM's row (built once: ``store/direct.py``).
_BY_INSTANCE = select(sim_virtual_machines).where(sim_virtual_machines.c.instance_id == bindparam("instance_id"))
#: The same, its row locked: a change's first statement (its ``BEGIN`` goes with it).
_BY_INSTANCE_FOR_UPDATE = _BY_INSTANCE.with_for_update()


@dataclass(frozen=True)
class StoredVirtualMachine:
    """A row with its counters, as a change sees it."""

    record: VirtualMachineRecord
    spec_json: Mapping[str, Any]
    incarnations: int
    commands: int
    gone_at: datetime | None


class VirtualMachineStore:
    def __init__(self, engine: AsyncEngine, *, reader: AsyncEngine | None = None) -> None:
        self._engine = engine
        self._reader = reader or engine

    async def instance_ids(self) -> list[str]:
        """The instances that have a simulated VM."""
        async with self._reader.connect() as conn:
            return list((await conn.execute(select(sim_virtual_machines.c.instance_id))).scalars())

    async def read(self, instance_id: str) -> tuple[StoredVirtualMachine | None, list[Step]]:
        async with self._reader.connect() as conn:
            row = (await direct.execute(conn, _BY_INSTANCE, {"instance_id": instance_id}, named=True)).first()
            steps = await plan_steps.load(conn, KIND, instance_id) if row is not None else []
        return (None if row is None else _stored(row)), steps

    async def change(
        self,
        instance_id: str,
        work: Callable[[AsyncConnection, StoredVirtualMachine | None, list[Step]], Awaitable[T]],
    ) -> T:
        """Run ``work`` with the VM's row locked and its plan loaded, in one transaction."""

        async def locked(conn: AsyncConnection) -> T:
            row = (await direct.execute(conn, _BY_INSTANCE_FOR_UPDATE, {"instance_id": instance_id}, named=True)).first()
            steps = await plan_steps.load(conn, KIND, instance_id) if row is not None else []
            return await work(conn, None if row is None else _stored(row), steps)

        return await plan_steps.write_retrying(self._engine, locked)

    @staticmethod
    async def next_ordinal(conn: AsyncConnection) -> int:
        highest = (await conn.execute(select(func.max(sim_virtual_machines.c.ordinal)))).scalar()
        return int(highest or 0) + 1

    @staticmethod
    async def insert(conn: AsyncConnection, instance_id: str, ordinal: int, spec: Mapping[str, Any],
                     volumes: list[VolumePlan], now: datetime, incarnations: int) -> None:
        await conn.execute(insert(sim_virtual_machines).values(
            instance_id=instance_id, ordinal=ordinal, spec=dict(spec), volumes=[v.to_json() for v in volumes],
            created_at=to_db(now), generation=1, incarnations=incarnations, commands=1, spec_changed_at=None,
            gone_at=None))

    @staticmethod
    async def update(conn: AsyncConnection, instance_id: str, **values: Any) -> None:
        for name in ("created_at", "spec_changed_at", "gone_at"):
            if values.get(name) is not None:
                values[name] = to_db(values[name])
        await conn.execute(
            update(sim_virtual_machines).where(sim_virtual_machines.c.instance_id == instance_id).values(**values))

    @staticmethod
    async def purge_gone(conn: AsyncConnection, now: datetime) -> None:
        """Forget VMs whose teardown ended more than ``GONE_RETENTION`` ago."""
        threshold = to_db(now - GONE_RETENTION)
        gone = list((await conn.execute(
            select(sim_virtual_machines.c.instance_id).where(sim_virtual_machines.c.gone_at < threshold)
        )).scalars())
        if gone:
            await plan_steps.forget(conn, KIND, gone)
            await conn.execute(delete(sim_virtual_machines).where(sim_virtual_machines.c.instance_id.in_(gone)))


def _stored(row: Any) -> StoredVirtualMachine:
    """A VM from its row (SQLAlchemy's or the direct path's named row: columns as attributes)."""
    return StoredVirtualMachine(
        record=VirtualMachineRecord(
            instance_id=row.instance_id,
            ordinal=row.ordinal,
            spec=spec_from_json(row.spec),
            volumes=tuple(VolumePlan.from_json(v) for v in row.volumes),
            created_at=from_db(row.created_at),
            generation=row.generation,
            spec_changed_at=None if row.spec_changed_at is None else from_db(row.spec_changed_at),
        ),
        spec_json=dict(row.spec),
        incarnations=row.incarnations,
        commands=row.commands,
        gone_at=None if row.gone_at is None else from_db(row.gone_at),
    )
