"""The simulated k8s network manager's repository: the ``sim_k8s_overlays`` table."""

from __future__ import annotations

from typing import Any

from sqlalchemy import delete, insert, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine

from osac.clock import Clock
from osac.providers.interfaces import TerminalProviderError
from osac.providers.simulator.runtime.schema import sim_k8s_overlays
from osac.providers.simulator.runtime.times import iso, to_db


class OverlayStore:
    """Subnets bridged into the VM / hosted-control-plane platform. Give it the writer engine."""

    def __init__(self, engine: AsyncEngine, clock: Clock) -> None:
        self._engine = engine
        self._clock = clock

    async def create(self, manager: str, subnet_id: str, segment: str) -> None:
        """Record the overlay once; the same call again changes nothing.

        :raises TerminalProviderError: the subnet is bridged already with another segment or by
            another manager (``ImmutableFieldChanged``)."""
        try:
            stored = await self._insert_or_get(manager, subnet_id, segment)
        except IntegrityError:  # a concurrent first create won; compare with its row
            stored = await self._insert_or_get(manager, subnet_id, segment)
        if stored is None:
            return
        for name, value, given in (("segment", stored[0], segment), ("manager", stored[1], manager)):
            if value != given:
                raise TerminalProviderError(
                    "ImmutableFieldChanged",
                    f"the overlay of subnet {subnet_id} exists with {name} '{value}'; it cannot change to "
                    f"'{given}' (delete and recreate it)")

    async def _insert_or_get(self, manager: str, subnet_id: str, segment: str) -> tuple[str, str] | None:
        """The stored (segment, manager), or None after inserting the overlay."""
        async with self._engine.begin() as conn:
            row = (await conn.execute(
                select(sim_k8s_overlays).where(sim_k8s_overlays.c.subnet_id == subnet_id).with_for_update()
            )).first()
            if row is not None:
                return (row.segment, row.manager)
            await conn.execute(insert(sim_k8s_overlays).values(
                subnet_id=subnet_id, segment=segment, manager=manager, created_at=to_db(self._clock.now())))
            return None

    async def delete(self, subnet_id: str) -> None:
        async with self._engine.begin() as conn:
            await conn.execute(delete(sim_k8s_overlays).where(sim_k8s_overlays.c.subnet_id == subnet_id))

    async def get(self, subnet_id: str) -> dict[str, Any] | None:
        async with self._engine.connect() as conn:
            row = (await conn.execute(
                select(sim_k8s_overlays).where(sim_k8s_overlays.c.subnet_id == subnet_id))).first()
        if row is None:
            return None
        return {"subnet_id": row.subnet_id, "segment": row.segment, "manager": row.manager,
                "created_at": iso(row.created_at)}
