"""The simulated inventory's repository: ``sim_hosts``, ``sim_host_interfaces`` and host plans.

Ownership changes are single conditional statements, safe with concurrent callers on SQLite and
PostgreSQL alike: ``UPDATE ... SET owner WHERE name = :candidate AND owner_id IS NULL`` takes a
host only if it is still free when the row is written (on PostgreSQL a concurrent taker's row
lock makes the statement wait and re-check), so a host never gets two owners; a caller that lost
the race picks the next candidate. A multi-request assignment runs in one transaction that
rolls back unless every request is met, and takes hosts in one global order (host type, then
name), so two such transactions cannot deadlock.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy import and_, delete, insert, select, update
from sqlalchemy.engine import Row
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from osac.clock import Clock
from osac.providers.baremetal import HostInterface, HostOwner, HostRequest
from osac.providers.simulator.baremetal.inventory import InventoryError, host_number
from osac.providers.simulator.baremetal.plan import KIND, state_of
from osac.providers.simulator.compute.schema import sim_host_interfaces, sim_hosts
from osac.providers.simulator.runtime import plan_steps
from osac.providers.simulator.runtime.plan_steps import Step
from osac.providers.simulator.runtime.times import from_db, to_db

T = TypeVar("T")


@dataclass(frozen=True)
class NewHost:
    name: str
    host_type: str
    bmc: str
    interfaces: tuple[HostInterface, ...]


@dataclass(frozen=True)
class StoredHost:
    name: str
    host_type: str
    bmc: str
    interfaces: tuple[HostInterface, ...]
    owner: HostOwner | None
    image: str | None
    user_data: str | None
    ssh_public_key: str | None
    commands: int
    created_at: datetime


class UnknownHost(LookupError):
    def __init__(self, name: str) -> None:
        super().__init__(f"host '{name}' is not in the simulated inventory")
        self.name = name


class HostInUse(Exception):
    def __init__(self, name: str, owner: HostOwner) -> None:
        super().__init__(f"host '{name}' is assigned to {owner.kind} {owner.id}; only a free host can be removed")
        self.name = name
        self.owner = owner


@dataclass(frozen=True)
class LeaseGate:
    """Whether a port's host is an inventory host, and if so from when its OS has leases
    (None while no OS runs on it)."""

    inventory: bool
    ready_at: datetime | None = None


class _NotEnoughHosts(Exception):
    """Rolls back a multi-request assignment that cannot be met."""


class HostStore:
    """The inventory tables of one database. Give it the writer engine (and optionally a reader)."""

    def __init__(self, engine: AsyncEngine, clock: Clock, *, reader: AsyncEngine | None = None) -> None:
        self._engine = engine
        self._reader = reader or engine
        self._clock = clock

    # -- inventory ---------------------------------------------------------------------------------

    async def add(self, hosts: Sequence[NewHost]) -> list[str]:
        """Insert the hosts not in the inventory yet (by name); the names inserted.

        :raises InventoryError: a MAC that another port already has (change ``simulator.seed``).
        """

        async def work(conn: AsyncConnection) -> list[str]:
            names = [host.name for host in hosts]
            present = set((await conn.execute(select(sim_hosts.c.name).where(sim_hosts.c.name.in_(names)))).scalars())
            fresh = [host for host in hosts if host.name not in present]
            ports = {i.mac: f"{h.name}/{i.name}" for h in fresh for i in h.interfaces}
            if len(ports) != sum(len(h.interfaces) for h in fresh):
                raise InventoryError("two new ports would share a MAC address; change simulator.seed")
            taken = (await conn.execute(
                select(sim_host_interfaces).where(sim_host_interfaces.c.mac.in_(list(ports)))
            )).first()
            if taken is not None:
                raise InventoryError(
                    f"MAC {taken.mac} of port {ports[taken.mac]} is already used by port "
                    f"{taken.host_name}/{taken.interface}; change simulator.seed")
            now = to_db(self._clock.now())
            for host in fresh:
                await conn.execute(insert(sim_hosts).values(
                    name=host.name, host_type=host.host_type, bmc=host.bmc, owner_kind=None, owner_id=None,
                    assigned_at=None, image=None, user_data=None, ssh_public_key=None, commands=0, created_at=now))
                await conn.execute(insert(sim_host_interfaces), [
                    {"host_name": host.name, "interface": i.name, "position": position, "role": i.role, "mac": i.mac,
                     "switch": i.switch, "port": i.port}
                    for position, i in enumerate(host.interfaces)
                ])
            return [host.name for host in fresh]

        return await plan_steps.write_retrying(self._engine, work)

    async def highest_number(self, prefix: str) -> int:
        """The highest ``<nnn>`` among the hosts named ``<prefix>-<nnn>`` (0 when none)."""
        async with self._reader.connect() as conn:
            names = (await conn.execute(
                select(sim_hosts.c.name).where(sim_hosts.c.name.like(f"{prefix}-%")))).scalars().all()
        return max((n for n in (host_number(prefix, name) for name in names) if n is not None), default=0)

    async def hosts(self, host_type: str | None = None, names: Sequence[str] | None = None
                    ) -> list[tuple[StoredHost, list[Step]]]:
        """Hosts (of ``host_type``, or named) by name, each with its plan."""
        query = select(sim_hosts).order_by(sim_hosts.c.name)
        if host_type:
            query = query.where(sim_hosts.c.host_type == host_type)
        if names is not None:
            query = query.where(sim_hosts.c.name.in_(list(names)))
        async with self._reader.connect() as conn:
            rows = (await conn.execute(query)).all()
            keys = [row.name for row in rows]
            ports = await _interfaces(conn, keys)
            plans = await plan_steps.load_many(conn, KIND, keys)
        return [(_stored(row, ports.get(row.name, ())), plans[row.name]) for row in rows]

    async def host(self, name: str) -> tuple[StoredHost, list[Step]] | None:
        found = await self.hosts(names=[name])
        return found[0] if found else None

    async def remove(self, name: str) -> None:
        """Remove a free host (its ports stay on the fabric: the caller removes them).

        :raises UnknownHost: no such host.
        :raises HostInUse: it has an owner.
        """

        async def work(conn: AsyncConnection) -> None:
            removed = await conn.execute(delete(sim_hosts).where(sim_hosts.c.name == name,
                                                                 sim_hosts.c.owner_id.is_(None)))
            if not removed.rowcount:
                row = (await conn.execute(select(sim_hosts).where(sim_hosts.c.name == name))).first()
                if row is None:
                    raise UnknownHost(name)
                raise HostInUse(name, HostOwner(row.owner_kind or "", row.owner_id or ""))
            await conn.execute(delete(sim_host_interfaces).where(sim_host_interfaces.c.host_name == name))
            await plan_steps.forget(conn, KIND, [name])

        await plan_steps.write_retrying(self._engine, work)

    # -- ownership ---------------------------------------------------------------------------------

    async def assign(self, requests: Sequence[HostRequest]) -> list[list[str]] | None:
        """The host names per request (lowest first), or None (nothing assigned) when any
        request cannot be met. Hosts an owner already holds count towards its request."""
        order = sorted(range(len(requests)), key=lambda i: (requests[i].host_type, i))
        now = to_db(self._clock.now())

        async def work(conn: AsyncConnection) -> list[list[str]]:
            chosen: dict[int, list[str]] = {}
            for index in order:
                chosen[index] = await _claim(conn, requests[index], now)
            return [chosen[index] for index in range(len(requests))]

        try:
            return await plan_steps.write_retrying(self._engine, work)
        except _NotEnoughHosts:
            return None

    async def release(self, name: str, owner_id: str) -> bool:
        """Free the host if ``owner_id`` holds it; whether it did."""

        async def work(conn: AsyncConnection) -> bool:
            result = await conn.execute(
                update(sim_hosts).where(sim_hosts.c.name == name, sim_hosts.c.owner_id == owner_id)
                .values(owner_kind=None, owner_id=None, assigned_at=None))
            return bool(result.rowcount)

        return await plan_steps.write_retrying(self._engine, work)

    # -- plans -------------------------------------------------------------------------------------

    async def change(self, name: str, work: Callable[[AsyncConnection, StoredHost, list[Step]], Awaitable[T]]) -> T:
        """Run ``work`` with the host's row locked and its plan loaded, in one transaction.

        :raises UnknownHost: no such host.
        """

        async def locked(conn: AsyncConnection) -> T:
            row = (await conn.execute(select(sim_hosts).where(sim_hosts.c.name == name).with_for_update())).first()
            if row is None:
                raise UnknownHost(name)
            ports = await _interfaces(conn, [name])
            steps = await plan_steps.load(conn, KIND, name)
            return await work(conn, _stored(row, ports.get(name, ())), steps)

        return await plan_steps.write_retrying(self._engine, locked)

    @staticmethod
    async def update(conn: AsyncConnection, name: str, **values: Any) -> None:
        await conn.execute(update(sim_hosts).where(sim_hosts.c.name == name).values(**values))

    async def lease_gate(self, host_name: str) -> LeaseGate:
        """For the fabric's DHCP: whether ``host_name`` is an inventory host and when its
        running OS gets leases."""
        now = self._clock.now()
        async with self._reader.connect() as conn:
            exists = (await conn.execute(select(sim_hosts.c.name).where(sim_hosts.c.name == host_name))).first()
            if exists is None:
                return LeaseGate(inventory=False)
            steps = await plan_steps.load(conn, KIND, host_name)
        state = state_of(plan_steps.current(steps, now))
        return LeaseGate(inventory=True, ready_at=state.lease_at)


async def _claim(conn: AsyncConnection, request: HostRequest, now: datetime) -> list[str]:
    held = list((await conn.execute(
        select(sim_hosts.c.name)
        .where(sim_hosts.c.host_type == request.host_type, sim_hosts.c.owner_id == request.owner_id)
        .order_by(sim_hosts.c.name)
    )).scalars())
    chosen = held[: request.count]
    while len(chosen) < request.count:
        candidate = (await conn.execute(
            select(sim_hosts.c.name)
            .where(sim_hosts.c.host_type == request.host_type, sim_hosts.c.owner_id.is_(None))
            .order_by(sim_hosts.c.name).limit(1)
        )).scalar()
        if candidate is None:
            raise _NotEnoughHosts
        taken = await conn.execute(
            update(sim_hosts)
            .where(and_(sim_hosts.c.name == candidate, sim_hosts.c.owner_id.is_(None)))
            .values(owner_kind=request.owner_kind, owner_id=request.owner_id, assigned_at=now))
        if taken.rowcount:
            chosen.append(candidate)
    return sorted(chosen)


async def _interfaces(conn: AsyncConnection, names: Sequence[str]) -> dict[str, tuple[HostInterface, ...]]:
    found: dict[str, list[HostInterface]] = {}
    if not names:
        return {}
    rows = await conn.execute(
        select(sim_host_interfaces).where(sim_host_interfaces.c.host_name.in_(list(names)))
        .order_by(sim_host_interfaces.c.host_name, sim_host_interfaces.c.position))
    for row in rows:
        found.setdefault(row.host_name, []).append(
            HostInterface(name=row.interface, role=row.role, mac=row.mac, switch=row.switch, port=row.port))
    return {name: tuple(ports) for name, ports in found.items()}


def _stored(row: Row[Any], interfaces: tuple[HostInterface, ...]) -> StoredHost:
    owner = None if row.owner_id is None else HostOwner(row.owner_kind or "", row.owner_id)
    return StoredHost(
        name=row.name, host_type=row.host_type, bmc=row.bmc, interfaces=interfaces, owner=owner, image=row.image,
        user_data=row.user_data, ssh_public_key=row.ssh_public_key, commands=row.commands,
        created_at=from_db(row.created_at))
