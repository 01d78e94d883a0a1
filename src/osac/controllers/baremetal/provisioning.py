"""The gated provisioning of a bare-metal instance (compute.md §3.2; networking.md §7.4).

``GateRunner.run`` advances the gate record of one instance as far as it can in one pass: it runs
the first incomplete gate and, when that one completes, goes on to the next. A gate that must wait
(no free host, a fabric error to retry, an OS still deploying, a lease not granted yet) returns
the record with its progress and when to look again; nothing here sleeps.

Gate by gate, with the retry contract of each:

1. ``InventoryAssigned``: ``assign_free_host`` (atomic, the same host again for the same owner).
   No free host: ``WaitingForHost``, retried after ``host_wait`` (30 s doubling to 5 min),
   forever; the gate never fails for lack of hosts.
2. ``NetworkingConfigured``: ``create_network_attachment`` per attachment, in spec order, with
   the host port's MAC and the address reserved at Create: the port leaves parking for the subnet
   segment with its DHCP reservation. Transient errors are retried after ``networking_retry``
   (2 s doubling to 30 s); attachment *k* (0-based) must be active ``(k + 1) × 2 min`` after the
   gate started, so every interface gets its 2 minutes and the record alone (no clock of this
   process) decides. Past that, or on a terminal error: FAILED ``NetworkingConfigurationFailed``.
3. ``ProvisioningComplete``: ``provision_host`` (idempotent for the same image), done once the
   host reports ``provisioned``. Each failed call is an attempt; the third (``provisioning_attempts``)
   or a terminal error: FAILED ``ProvisioningFailed``.
4. ``IPDiscoveryComplete``: ``query_dhcp_lease`` per attachment, every ``lease_poll_interval``
   (sooner when the host announces a change), until every lease equals its reservation. Another
   address: FAILED ``AddressMismatch`` at once; still missing ``ip_discovery_timeout`` (5 min)
   after the gate started: FAILED ``IPDiscoveryTimeout``.

Step times come from the clock at each transition, so the record shows the gates strictly in
order: a gate starts at or after the moment the previous one finished.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

from osac.clock import Clock
from osac.controllers.baremetal.inputs import InstanceInputs, Port
from osac.controllers.baremetal.memory import InstanceMemory
from osac.controllers.baremetal.settings import BareMetalSettings
from osac.controllers.runtime.retry import RetryPolicy
from osac.controllers.workloads import metrics
from osac.providers.baremetal import OWNER_BARE_METAL_INSTANCE, BareMetalProvider, HostRecord
from osac.providers.interfaces import (
    FabricManager,
    NetworkAttachmentSpec,
    ProviderError,
    TerminalProviderError,
)
from osac.status.baremetal.derivation import ProvisioningSteps, check_leases
from osac.status.baremetal.gates import (
    ADDRESS_MISMATCH,
    INVENTORY_ASSIGNED,
    IP_DISCOVERY_COMPLETE,
    IP_DISCOVERY_TIMEOUT,
    NETWORKING_CONFIGURATION_FAILED,
    NETWORKING_CONFIGURED,
    PROVISIONING_COMPLETE,
    PROVISIONING_FAILED,
)
from osac.status.baremetal.metal3 import read_host
from osac.status.workloads.shared import duration_text

#: ``target_kind`` of bare-metal ports on the fabric (networking.md §11).
TARGET_KIND = "baremetal_instance"

#: The fabric manager of a VirtualNetwork (by id), per its NetworkClass.
FabricSource = Callable[[str], Awaitable[FabricManager]]


@dataclass(frozen=True)
class GateProgress:
    """The gate record after one pass, and what the pass learnt on the way."""

    steps: ProvisioningSteps
    #: When to look again; None when only an outside change can move the record.
    requeue_after: timedelta | None = None
    #: Leases queried by gate 4 in this pass (interface -> address, None: no lease).
    leases: Mapping[str, str | None] = field(default_factory=dict)
    #: The host gate 1 assigned in this pass.
    host_name: str = ""


class GateRunner:
    """Runs the gates of compute.md §3.2 against the bare-metal provider and the fabric."""

    def __init__(self, provider: BareMetalProvider, settings: BareMetalSettings, clock: Clock,
                 fabric: FabricSource) -> None:
        self.provider = provider
        self.settings = settings
        self.clock = clock
        self.fabric = fabric

    async def run(
        self, inputs: InstanceInputs, steps: ProvisioningSteps, memory: InstanceMemory, host_name: str
    ) -> GateProgress:
        """Advance from the first incomplete gate; a failed gate is left as it is (it re-runs
        only after a Signal or an Update reset it)."""
        progress = GateProgress(steps)
        while True:
            current = progress.steps.current
            if current is None or current.is_failed:
                return progress
            gate = current.gate
            if gate == INVENTORY_ASSIGNED:
                step = await self._assign(inputs, progress.steps, memory)
            elif gate == NETWORKING_CONFIGURED:
                step = await self._configure_networking(inputs, progress.steps, memory, host_name)
            elif gate == PROVISIONING_COMPLETE:
                step = await self._provision(inputs, progress.steps, memory, host_name)
            elif gate == IP_DISCOVERY_COMPLETE:
                step = await self._discover_addresses(inputs, progress.steps, memory, host_name)
            else:
                return progress  # a gate of a newer version: not ours to run
            host_name = step.host_name or host_name
            progress = replace(step, host_name=step.host_name or progress.host_name,
                               leases={**progress.leases, **step.leases})
            if not progress.steps.step(gate).is_completed:
                return progress

    # -- gate 1 -----------------------------------------------------------------------------------

    async def _assign(self, inputs: InstanceInputs, steps: ProvisioningSteps, memory: InstanceMemory) -> GateProgress:
        gate = INVENTORY_ASSIGNED
        now = self.clock.now()
        steps = steps.start(gate, now)
        waiting = self._not_due(memory, gate, now)
        if waiting is not None:
            return GateProgress(steps, waiting)
        try:
            host = await self.provider.assign_free_host(inputs.host_type, OWNER_BARE_METAL_INSTANCE, inputs.id)
        except TerminalProviderError as error:
            return GateProgress(steps.fail(gate, self.clock.now(), PROVISIONING_FAILED, error.message))
        except ProviderError as error:
            return self._retry(steps, memory, gate, f"host assignment failed: {error.message}",
                               self.settings.host_wait)
        if host is None:
            return self._retry(steps, memory, gate, f"no free host of type {inputs.host_type}",
                               self.settings.host_wait)
        memory.succeeded(gate)
        memory.host = host
        return GateProgress(steps.complete(gate, self.clock.now()), host_name=host.name)

    # -- gate 2 -----------------------------------------------------------------------------------

    async def _configure_networking(
        self, inputs: InstanceInputs, steps: ProvisioningSteps, memory: InstanceMemory, host_name: str
    ) -> GateProgress:
        gate = NETWORKING_CONFIGURED
        steps = steps.start(gate, self.clock.now())
        waiting = self._not_due(memory, gate, self.clock.now())
        if waiting is not None:
            return GateProgress(steps, waiting)
        started = steps.step(gate).started_at or self.clock.now()
        host = await self.host_record(inputs, memory, host_name)
        for position, port in enumerate(inputs.ports):
            try:
                await self.bind_port(inputs, memory, host, port)
            except TerminalProviderError as error:
                return self._networking_failed(steps, f"interface {port.interface}: {error.message}")
            except ProviderError as error:
                now = self.clock.now()
                deadline = started + self.settings.networking_budget_per_interface * (position + 1)
                if now >= deadline:
                    budget = duration_text(self.settings.networking_budget_per_interface)
                    return self._networking_failed(
                        steps, f"interface {port.interface}: {error.message} (still failing after its {budget})")
                attempts = steps.step(gate).attempts + 1
                return self._retry(steps, memory, gate,
                                   f"interface {port.interface}: retrying (attempt {attempts}): {error.message}",
                                   self.settings.networking_retry, not_after=deadline)
        memory.succeeded(gate)
        return GateProgress(steps.complete(gate, self.clock.now()))

    def _networking_failed(self, steps: ProvisioningSteps, detail: str) -> GateProgress:
        return GateProgress(steps.fail(NETWORKING_CONFIGURED, self.clock.now(), NETWORKING_CONFIGURATION_FAILED, detail))

    async def bind_port(self, inputs: InstanceInputs, memory: InstanceMemory, host: HostRecord | None,
                        port: Port) -> bool:
        """Put the host port on its subnet with its reservation and SGs, unless this process
        already did exactly that; returns whether the fabric was called.

        :raises TerminalProviderError: no host, no such interface, no reserved address, or the
            fabric's own terminal errors.
        :raises TransientProviderError: the fabric's transient errors.
        """
        if memory.attached.get(port.interface) == port.binding:
            return False
        if host is None:
            raise TerminalProviderError("HostNotFound", "the assigned host is no longer in the inventory")
        interface = host.interface(port.interface)
        if interface is None:
            raise TerminalProviderError("InterfaceNotFound", f"host {host.name} has no interface {port.interface}")
        if not port.binding.address:
            raise TerminalProviderError("AddressNotReserved", f"no address is reserved for attachment {port.index}")
        memory.attach_started.setdefault(port.interface, self.clock.now())
        fabric = await self.fabric(inputs.virtual_network)
        await fabric.create_network_attachment(NetworkAttachmentSpec(
            host_name=host.name,
            interface=port.interface,
            mac=interface.mac,
            subnet_id=port.binding.subnet,
            address=port.binding.address,
            security_group_ids=port.binding.security_groups,
            target_kind=TARGET_KIND,
        ))
        memory.attached[port.interface] = port.binding
        began = memory.attach_started.pop(port.interface, None)
        if began is not None:
            metrics.BAREMETAL_INTERFACE_ATTACH_DURATION.labels(inputs.host_type).observe(
                max(0.0, (self.clock.now() - began).total_seconds()))
        return True

    # -- gate 3 -----------------------------------------------------------------------------------

    async def _provision(
        self, inputs: InstanceInputs, steps: ProvisioningSteps, memory: InstanceMemory, host_name: str
    ) -> GateProgress:
        gate = PROVISIONING_COMPLETE
        steps = steps.start(gate, self.clock.now())
        waiting = self._not_due(memory, gate, self.clock.now())
        if waiting is not None:
            return GateProgress(steps, waiting)
        spec = inputs.instance.spec
        image = spec.image.source_ref or self.settings.default_image
        try:
            await self.provider.provision_host(host_name, image, spec.user_data, spec.ssh_public_key)
        except TerminalProviderError as error:
            return GateProgress(steps.fail(gate, self.clock.now(), PROVISIONING_FAILED, error.message))
        except ProviderError as error:
            attempts = steps.step(gate).attempts + 1
            if attempts >= self.settings.provisioning_attempts:
                return GateProgress(steps.fail(gate, self.clock.now(), PROVISIONING_FAILED,
                                               f"{error.message} (failed {attempts} times)"))
            return self._retry(steps, memory, gate, f"attempt {attempts} failed: {error.message}",
                               self.settings.provisioning_retry)
        memory.succeeded(gate)
        observation = await self.provider.observe_host(host_name)
        reading = read_host(observation.host) if observation.readable and observation.host is not None else None
        if reading is not None and reading.is_provisioned:
            return GateProgress(steps.complete(gate, self.clock.now()))
        return GateProgress(steps, self._until(observation.next_change_at, self.settings.lease_poll_interval))

    # -- gate 4 -----------------------------------------------------------------------------------

    async def _discover_addresses(
        self, inputs: InstanceInputs, steps: ProvisioningSteps, memory: InstanceMemory, host_name: str
    ) -> GateProgress:
        gate = IP_DISCOVERY_COMPLETE
        steps = steps.start(gate, self.clock.now())
        started = steps.step(gate).started_at or self.clock.now()
        host = await self.host_record(inputs, memory, host_name)
        leases, errors = await self.query_leases(inputs, host)
        check = check_leases(inputs.attachments, leases)
        now = self.clock.now()
        if check.mismatched:
            return GateProgress(steps.fail(gate, now, ADDRESS_MISMATCH, check.mismatch_message), leases=leases)
        if check.is_complete:
            memory.awaiting_first_run = True
            return GateProgress(steps.complete(gate, now), leases=leases)
        waiting = "; ".join([check.missing_message, *errors])
        deadline = started + self.settings.ip_discovery_timeout
        if now >= deadline:
            detail = f"{waiting} within {duration_text(self.settings.ip_discovery_timeout)}"
            return GateProgress(steps.fail(gate, now, IP_DISCOVERY_TIMEOUT, detail), leases=leases)
        observation = await self.provider.observe_host(host_name)
        poll = min(self.settings.lease_poll_interval, deadline - now)
        return GateProgress(steps.start(gate, now, waiting), self._until(observation.next_change_at, poll),
                            leases=leases)

    async def query_leases(
        self, inputs: InstanceInputs, host: HostRecord | None
    ) -> tuple[dict[str, str | None], list[str]]:
        """The lease of every attachment (None: none yet) and the errors of failed queries, which
        count as no lease: the gate's timeout bounds them."""
        leases: dict[str, str | None] = {port.interface: None for port in inputs.ports}
        errors: list[str] = []
        try:
            fabric = await self.fabric(inputs.virtual_network)
        except ProviderError as error:
            return leases, [error.message]
        for port in inputs.ports:
            interface = host.interface(port.interface) if host is not None else None
            if interface is None:
                leases[port.interface] = None
                errors.append(f"interface {port.interface} is not on the assigned host")
                continue
            try:
                lease = await fabric.query_dhcp_lease(port.binding.subnet, interface.mac)
            except ProviderError as error:
                leases[port.interface] = None
                errors.append(f"interface {port.interface}: {error.message}")
                continue
            leases[port.interface] = lease.address if lease is not None else None
        return leases, errors

    # -- shared -----------------------------------------------------------------------------------

    async def host_record(self, inputs: InstanceInputs, memory: InstanceMemory, host_name: str) -> HostRecord | None:
        """The assigned host's inventory record (interfaces and MACs), remembered once read."""
        if memory.host is not None and memory.host.name == host_name:
            return memory.host
        memory.host = next((h for h in await self.provider.list_hosts(inputs.host_type) if h.name == host_name), None)
        return memory.host

    def _retry(
        self,
        steps: ProvisioningSteps,
        memory: InstanceMemory,
        gate: str,
        message: str,
        retry: RetryPolicy,
        not_after: datetime | None = None,
    ) -> GateProgress:
        """Count one more attempt (in the status) and wait the policy's delay (never past ``not_after``)."""
        steps = steps.attempt(gate, message)
        now = self.clock.now()
        due = now + retry.delay(steps.step(gate).attempts)
        if not_after is not None:
            due = min(due, not_after)
        memory.wait_until(gate, due)
        return GateProgress(steps, max(timedelta(0), due - now))

    @staticmethod
    def _not_due(memory: InstanceMemory, gate: str, now: datetime) -> timedelta | None:
        """The wait left before a retry of ``gate``; None when it may run now."""
        if memory.is_due(gate, now):
            return None
        return memory.retry_at[gate] - now

    def _until(self, next_change_at: datetime | None, poll: timedelta) -> timedelta:
        now = self.clock.now()
        if next_change_at is None:
            return poll
        return max(timedelta(0), min(poll, next_change_at - now))
