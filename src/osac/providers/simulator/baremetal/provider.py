"""``SimulatedBareMetal``: the built-in ``BareMetalProvider`` and its host inventory
(simulator.md §3.3, §5, §6; compute.md §4).

The inventory lives in ``sim_hosts`` (``host_store``): loaded at server start from
``simulator.inventory.hosts`` with the interfaces of each entry's HostType object (the server
reads those and passes them in; this module never reads the service's tables), grown and shrunk
through the admin API. Each host's ports are cabled into the fabric's port map: ``lifecycle``
ports on the provisioning segment, all others on parking.

A host held by a cluster's node set shows the power and provisioning of the simulated agent
running on it (``clusters.agents``); a host held by a BareMetalInstance, or free, its own plan.

Power and provisioning calls plan steps (``host_plan``), reading the clock once they hold the
host's row lock; observations render the plan at the clock's time (``host_shapes``), together
with the fabric's reservations for the host's ports.

Faults (target kind ``host``, target id = the host name or ``*``):

``unreadable``      observations are ``readable=False``; the plan goes on underneath
``provision_fail``  ``provision_host`` raises (``reason``, ``terminal``, ``times``)
``teardown_fail``   the next deprovisioning halts in ``deprovisioning``; while it holds, every
                    later ``deprovision_host`` raises (``terminal``); once cleared, the next call
                    finishes the wipe from that time
``restart_fail``    ``reboot_host`` powers the host off and it stays down
``power_fail``      ``set_power`` and ``reboot_host`` raise ``PowerManagementError`` (``times``)
``host_broken``     ``operationalStatus`` ``error`` with an ``errorType``
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import asdict
from datetime import datetime
from typing import Any, overload

from sqlalchemy.ext.asyncio import AsyncConnection

from osac.providers.baremetal import OWNER_CLUSTER, HostObservation, HostRecord, HostRequest, cluster_of_owner
from osac.providers.interfaces import ChangeNotice, TerminalProviderError, TransientProviderError
from osac.providers.simulator.baremetal import shapes
from osac.providers.simulator.baremetal.inventory import (
    InterfaceList,
    InventoryError,
    bmc_address,
    cable,
    check_host_type,
    host_name,
)
from osac.providers.simulator.baremetal.plan import (
    DEPROVISIONING,
    KIND,
    PROVISIONED,
    PROVISIONING,
    HostPlanned,
    HostPlanner,
    HostState,
    is_halted,
    pending_state,
    state_of,
)
from osac.providers.simulator.baremetal.store import HostInUse, NewHost, StoredHost, UnknownHost
from osac.providers.simulator.runtime import change_feed, object_faults, plan_steps
from osac.providers.simulator.runtime.context import SimulatorRuntime
from osac.providers.simulator.runtime.faults import ANY
from osac.providers.simulator.runtime.plan_steps import Step
from osac.providers.simulator.runtime.settings import PREFIX_PATTERN, ComputeSettings, InventoryEntry
from osac.providers.simulator.runtime.step_timing import StepTiming
from osac.providers.simulator.runtime.times import iso

#: At most this many hosts per ``add_hosts`` call.
MAX_ADDED = 1000


class SimulatedBareMetal:
    """The simulated bare-metal provider; all simulated providers share ``runtime``."""

    def __init__(self, runtime: SimulatorRuntime, settings: ComputeSettings | None = None) -> None:
        self.runtime = runtime
        self.settings = settings or ComputeSettings()
        self.store = runtime.host_store
        self._wakeup = change_feed.Wakeup()
        runtime.follow_faults(KIND, self._fault_changed)

    @property
    def timing(self) -> StepTiming:
        return StepTiming(self.runtime.speed, self.runtime.seed, self.settings.jitter)

    # -- the inventory --------------------------------------------------------------------------

    async def load_inventory(self, host_types: Mapping[str, InterfaceList]) -> list[str]:
        """Create the configured hosts that do not exist yet and cable every configured host's
        ports; the names created. ``host_types`` maps each HostType name to its interfaces
        ``[(name, role)]`` in order.

        :raises InventoryError: an entry names a host type that does not exist or is not bare
            metal (the message names the entry), or a MAC collides.
        """
        hosts: list[NewHost] = []
        for index, entry in enumerate(self.settings.inventory):
            try:
                interfaces = check_host_type(entry.host_type, host_types.get(entry.host_type))
            except InventoryError as error:
                raise InventoryError(f"simulator.inventory.hosts[{index}] ({entry.prefix}): {error}") from None
            hosts += self._new_hosts(entry, 1, interfaces)
        added = await self.store.add(hosts)
        await self._cable_all([host.name for host in hosts])
        return added

    def configured_by(self, host_type: str) -> list[str]:
        return [f"simulator.inventory.hosts[{index}] ({entry.prefix})"
                for index, entry in enumerate(self.settings.inventory) if entry.host_type == host_type]

    async def add_hosts(self, prefix: str, host_type: str, count: int, interfaces: InterfaceList | None
                        ) -> list[HostRecord]:
        """Add ``count`` hosts ``<prefix>-<nnn>``, numbered on from the highest existing one.

        :raises InventoryError: a bad prefix or count, or a host type that is unknown
            (``interfaces`` None) or not bare metal.
        """
        if not PREFIX_PATTERN.match(prefix):
            raise InventoryError(f"prefix '{prefix}' is not a lowercase name of letters, digits and '-' "
                                 "(at most 50 characters)")
        if not 1 <= count <= MAX_ADDED:
            raise InventoryError(f"count must be from 1 to {MAX_ADDED}, got {count}")
        checked = check_host_type(host_type, interfaces)
        first = await self.store.highest_number(prefix) + 1
        hosts = self._new_hosts(InventoryEntry(prefix, host_type, count), first, checked)
        added = await self.store.add(hosts)
        await self._cable_all(added)
        return await self._records(added)

    async def remove_host(self, name: str) -> None:
        """Remove a free host and uncable its ports.

        :raises UnknownHost: no such host.
        :raises HostInUse: the host has an owner.
        :raises TransientProviderError: ``InUse``, a port is still attached to a subnet.
        """
        found = await self.store.host(name)
        if found is None:
            raise UnknownHost(name)
        if found[0].owner is not None:
            raise HostInUse(name, found[0].owner)
        await self.runtime.fabric_store.remove_host_ports(name)
        await self.store.remove(name)

    # -- the contract ---------------------------------------------------------------------------

    async def list_hosts(self, host_type: str | None = None) -> list[HostRecord]:
        found = await self.store.hosts(host_type=host_type or None)
        broken = await self._broken_targets()
        clusters = {cluster for host, _ in found if host.owner is not None
                    and (cluster := cluster_of_owner(host.owner)) is not None}
        agents = await self.runtime.clusters.agent_hosts(clusters)
        now = self.runtime.clock.now()
        return [
            shapes.record(host, steps, now, ANY in broken or host.name in broken,
                          agents.get(host.name) if host.owner is not None and host.owner.kind == OWNER_CLUSTER else None)
            for host, steps in found
        ]

    @overload
    async def assign_free_host(self, request: str, owner_kind: str, owner_id: str) -> HostRecord | None: ...

    @overload
    async def assign_free_host(self, request: Sequence[HostRequest]) -> list[list[HostRecord]] | None: ...

    async def assign_free_host(
        self, request: str | Sequence[HostRequest], owner_kind: str = "", owner_id: str = ""
    ) -> HostRecord | list[list[HostRecord]] | None:
        single = isinstance(request, str)
        requests = [HostRequest(request, 1, owner_kind, owner_id)] if isinstance(request, str) else list(request)
        for index, item in enumerate(requests):
            where = "" if single else f"request {index}: "
            if not item.owner_id or not item.owner_kind:
                raise TerminalProviderError("InvalidSpec", f"{where}owner_kind and owner_id are required")
            if not item.host_type:
                raise TerminalProviderError("InvalidSpec", f"{where}host_type is required")
            if item.count < 0:
                raise TerminalProviderError("InvalidSpec", f"{where}count must not be negative, got {item.count}")
        assigned = await self.store.assign(requests)
        if assigned is None:
            return None
        records = {r.name: r for r in await self._records([name for names in assigned for name in names])}
        per_request = [[records[name] for name in names] for names in assigned]
        return per_request[0][0] if single else per_request

    async def release_host(self, host_name: str, owner_id: str) -> None:
        await self.store.release(host_name, owner_id)

    async def provision_host(self, host_name: str, image: str, user_data: str, ssh_public_key: str) -> None:
        if not image:
            raise TerminalProviderError("InvalidSpec", f"host {host_name}: an image is required to provision")
        await object_faults.raise_if_failing(
            self.runtime.faults, "provision_fail", KIND, host_name, f"provisioning of host {host_name}")

        async def work(conn: AsyncConnection, host: StoredHost, steps: list[Step]) -> bool:
            now = self.runtime.clock.now()
            state = state_of(plan_steps.current(steps, now))
            pending = plan_steps.future(steps, now)
            final = pending_state(pending) or state
            if state.provisioning == DEPROVISIONING:
                raise TransientProviderError(
                    "HostBusy", f"host {host_name} is deprovisioning; provision it once it is available")
            if state.provisioning in (PROVISIONING, PROVISIONED) or final.provisioning in (PROVISIONING, PROVISIONED):
                if (host.image, host.user_data, host.ssh_public_key) == (image, user_data, ssh_public_key):
                    return False
                raise TerminalProviderError(
                    "HostProvisioned",
                    f"host {host_name} is provisioned with image {host.image}; deprovision it first")
            planned = self._planner(host, now).provision(state)
            await self._write(conn, host, steps, now, planned, image=image, user_data=user_data,
                              ssh_public_key=ssh_public_key)
            return True

        await self._change(host_name, work)

    async def deprovision_host(self, host_name: str) -> None:
        fault = await object_faults.first_for(self.runtime.faults, "teardown_fail", KIND, host_name)

        async def work(conn: AsyncConnection, host: StoredHost, steps: list[Step]) -> bool:
            now = self.runtime.clock.now()
            state = state_of(plan_steps.current(steps, now))
            pending = plan_steps.future(steps, now)
            planner = self._planner(host, now)
            if state.provisioning == DEPROVISIONING:
                if not is_halted(state, pending):
                    return False
                if fault is not None:
                    raise object_faults.provider_error(
                        fault, f"deprovisioning of host {host_name} is stuck", default_reason="TeardownFailed")
                await self._write(conn, host, steps, now, planner.finish_deprovision())
                return True
            planned = planner.deprovision(state, halt=fault is not None)
            if not planned.changed and host.image is None:
                return False
            await self._write(conn, host, steps, now, planned, image=None, user_data=None, ssh_public_key=None)
            return planned.changed

        await self._change(host_name, work)

    async def set_power(self, host_name: str, on: bool) -> None:
        await self._power_faults(host_name, "power on" if on else "power off")

        async def work(conn: AsyncConnection, host: StoredHost, steps: list[Step]) -> bool:
            now = self.runtime.clock.now()
            state = self._idle_state(host_name, steps, now)
            planned = self._planner(host, now).power(state, plan_steps.future(steps, now), on=on)
            await self._write(conn, host, steps, now, planned)
            return planned.changed

        await self._change(host_name, work)

    async def reboot_host(self, host_name: str) -> None:
        await self._power_faults(host_name, "reboot")
        fail = await object_faults.first_for(self.runtime.faults, "restart_fail", KIND, host_name) is not None

        async def work(conn: AsyncConnection, host: StoredHost, steps: list[Step]) -> bool:
            now = self.runtime.clock.now()
            state = self._idle_state(host_name, steps, now)
            planned = self._planner(host, now).reboot(state, plan_steps.future(steps, now), fail=fail)
            await self._write(conn, host, steps, now, planned)
            return planned.changed

        await self._change(host_name, work)

    async def observe_host(self, host_name: str) -> HostObservation:
        found = await self.store.host(host_name)
        now = self.runtime.clock.now()
        steps = found[1] if found is not None else []
        next_change = plan_steps.next_change_at(steps, now)
        found_faults = await object_faults.first_of_each(self.runtime.faults, ("unreadable", "host_broken"), KIND,
                                                         host_name)
        unreadable = found_faults.get("unreadable")
        if unreadable is not None:
            return HostObservation(readable=False, error=f"simulated: host {host_name} cannot be read "
                                   f"(fault {unreadable.id})", observed_at=now, next_change_at=next_change)
        if found is None:
            return HostObservation(readable=True, error="", observed_at=now)
        broken = found_faults.get("host_broken")
        message = None if broken is None else f"simulated hardware fault on host {host_name} (fault {broken.id})"
        addresses = await self.runtime.fabric_store.host_addresses(host_name)
        host = shapes.render(found[0], steps, now, addresses, message)
        return HostObservation(readable=True, error="", observed_at=now, host=host, next_change_at=next_change)

    async def _fault_changed(self, target_id: str) -> None:
        """A fault aimed at host ``target_id`` (``*``: every host) was created or cleared: it
        alters the next observation, so each affected host gets a notice now."""
        names = [host.name for host, _ in await self.store.hosts()] if target_id == ANY else [target_id]
        self._wakeup.announce(names, self.runtime.clock.now())

    def subscribe(self, since: datetime | None = None) -> AsyncIterator[ChangeNotice]:
        return change_feed.follow(KIND, self.runtime.reader or self.runtime.engine, self.runtime.clock,
                                  self._wakeup, since, self.runtime.schedulers)

    # -- the admin API --------------------------------------------------------------------------

    async def observation_document(self, host_name: str) -> dict[str, Any]:
        """The observation as ``Simulator.GetObservation(kind="host")`` returns it."""
        observation = await self.observe_host(host_name)
        document = asdict(observation)
        document["observed_at"] = iso(observation.observed_at)
        document["next_change_at"] = iso(observation.next_change_at)
        return document

    # -- internals ------------------------------------------------------------------------------

    def _new_hosts(self, entry: InventoryEntry, first: int, interfaces: InterfaceList) -> list[NewHost]:
        names = [host_name(entry.prefix, number) for number in range(first, first + entry.count)]
        return [NewHost(name, entry.host_type, bmc_address(name), tuple(cable(self.runtime.seed, name, interfaces)))
                for name in names]

    async def _cable_all(self, names: Sequence[str]) -> None:
        await self.runtime.fabric_store.register_hosts_ports({
            host.name: [(port.name, port.role, port.mac) for port in host.interfaces]
            for host, _ in await self.store.hosts(names=names)})

    async def _records(self, names: Sequence[str]) -> list[HostRecord]:
        broken = await self._broken_targets()
        now = self.runtime.clock.now()
        return [shapes.record(host, steps, now, ANY in broken or host.name in broken)
                for host, steps in await self.store.hosts(names=names)]

    async def _broken_targets(self) -> set[str]:
        return {record.target_id for record in await self.runtime.faults.active(("host_broken",), (KIND,))}

    async def _power_faults(self, host_name: str, what: str) -> None:
        await object_faults.raise_if_failing(
            self.runtime.faults, "power_fail", KIND, host_name, f"{what} of host {host_name}",
            default_reason="PowerManagementError", terminal=False)

    def _planner(self, host: StoredHost, now: datetime) -> HostPlanner:
        return HostPlanner(now=now, timing=self.timing, name=host.name, command=host.commands)

    @staticmethod
    def _idle_state(host_name: str, steps: Sequence[Step], now: datetime) -> HostState:
        state = state_of(plan_steps.current(steps, now))
        if state.is_busy:
            raise TransientProviderError(
                "HostBusy", f"host {host_name} is {state.provisioning}; power changes wait until it is done")
        return state

    async def _change(
        self, host_name: str, work: Callable[[AsyncConnection, StoredHost, list[Step]], Awaitable[bool]]
    ) -> None:
        try:
            await self._wakeup.planned(self.runtime.clock.now(), self.store.change(host_name, work))
        except UnknownHost:
            raise TerminalProviderError("HostNotFound", f"host {host_name} is not in the inventory") from None

    async def _write(self, conn: AsyncConnection, host: StoredHost, steps: list[Step], now: datetime,
                     planned: HostPlanned, **values: Any) -> None:
        if planned.changed:
            await plan_steps.replan(conn, KIND, host.name, steps, now, planned.steps(), keep=planned.keeps)
            values["commands"] = host.commands + 1
        else:
            await plan_steps.prune(conn, KIND, host.name, steps, now)
        if values:
            await self.store.update(conn, host.name, **values)
