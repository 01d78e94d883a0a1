"""Deleting a bare-metal instance (compute.md §3.4; networking.md §10).

One pass goes as far as it can, in this order, and reports what is left:

1. the auto-provisioned external access (attachments, then ExternalIPs; ``auto_cleanup``): until
   they are archived nothing else starts, and once they are the auto-cleanup finalizer may go;
   the instance follows them meanwhile (``awaited``), so each one's change (its archive) queues it;
2. per host the instance holds: power off, then ``deprovision_host`` (disk wipe), waiting until
   the host is ``available`` and off;
3. ``delete_network_attachment`` per attachment: the port back on parking, its DHCP reservation
   and lease gone;
4. ``release_host``: the host is free again.

The caller then releases the addresses and drops the controller finalizer in one transaction,
which archives the instance. Hosts are found by their owner in the inventory, not only by
``status.host``, so a host assigned just before a crash (before the status recorded it) is
returned too; a host that is no longer the instance's (released by an earlier pass) is not
touched again.

Each step retries with backoff (1 s doubling, cap 60 s) up to ``cleanup_retry_limit`` failed
attempts; a terminal error or the limit gives up with every leftover named, e.g.
``port bm-std-007/ens1f0 still on subnet 0192…: <error>``. An auto-provisioned child in
DELETE_FAILED gives up at once. Delete again or Signal resumes (the service moves the instance
back to DELETING and deletes such children again, ``workload_teardown``) with fresh budgets.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from osac.clock import Clock
from osac.controllers.baremetal.inputs import InstanceInputs, Port
from osac.controllers.baremetal.memory import InstanceMemory
from osac.controllers.baremetal.power import BUSY_STATES
from osac.controllers.baremetal.provisioning import FabricSource
from osac.controllers.runtime.objects import CONTROLLER_FINALIZER
from osac.controllers.runtime.retry import RetryPolicy
from osac.controllers.runtime.waiters import Awaited
from osac.controllers.workloads.auto_cleanup import clean_auto_provisioned
from osac.providers.baremetal import BareMetalProvider, HostRecord
from osac.providers.interfaces import ProviderError, TerminalProviderError
from osac.services.core.catalog import Services
from osac.services.workloads.network_attachments import AUTO_CLEANUP_FINALIZER
from osac.status.baremetal.metal3 import read_host

#: The provisioning state of a wiped host.
AVAILABLE = "available"
#: Waiting for the host without a hint from the provider.
HOST_POLL = timedelta(seconds=5)


@dataclass(frozen=True)
class TeardownProgress:
    #: Every step is confirmed: release the addresses and drop the controller finalizer.
    is_done: bool = False
    #: The auto-provisioned children are gone: the auto-cleanup finalizer may go.
    is_auto_cleaned: bool = False
    #: Still there (named for DELETE_FAILED).
    leftovers: tuple[str, ...] = ()
    has_given_up: bool = False
    requeue_after: timedelta | None = None
    #: The auto-provisioned children (kind name, id) step 1 waits for: their changes queue the
    #: instance.
    awaited: tuple[Awaited, ...] = ()
    #: The BareMetalHost last observed, for the READY condition while deleting.
    host: dict[str, Any] | None = None


class _Step(Exception):
    """A teardown step failed: ``leftovers`` are what it leaves behind."""

    def __init__(self, action: str, error: ProviderError, leftovers: Sequence[str]) -> None:
        super().__init__(error.message)
        self.action = action
        self.error = error
        self.leftovers = tuple(leftovers)


class Teardown:
    def __init__(
        self,
        services: Services,
        provider: BareMetalProvider,
        clock: Clock,
        fabric: FabricSource,
        retry: RetryPolicy,
    ) -> None:
        self.services = services
        self.provider = provider
        self.clock = clock
        self.fabric = fabric
        self.retry = retry

    async def run(self, inputs: InstanceInputs, memory: InstanceMemory) -> TeardownProgress:
        finalizers = list(inputs.instance.metadata.finalizers)
        is_auto_cleaned = AUTO_CLEANUP_FINALIZER not in finalizers
        if not is_auto_cleaned:
            cleanup = await clean_auto_provisioned(self.services, inputs.id)
            if cleanup.failed:
                return TeardownProgress(leftovers=cleanup.failed, has_given_up=True)
            if not cleanup.done:
                return TeardownProgress(leftovers=cleanup.pending, awaited=cleanup.children)
            is_auto_cleaned = True
        if CONTROLLER_FINALIZER not in finalizers:
            return TeardownProgress(is_done=True, is_auto_cleaned=True)  # nothing was ever provisioned
        now = self.clock.now()
        waits = [memory.retry_at[a] - now for a in memory.retry_at if a.startswith("teardown:")
                 and not memory.is_due(a, now)]
        if waits:
            return TeardownProgress(is_auto_cleaned=is_auto_cleaned, requeue_after=max(timedelta(0), min(waits)))
        try:
            return await self._infrastructure(inputs, memory, is_auto_cleaned)
        except _Step as step:
            return self._failed(step, memory, is_auto_cleaned)

    async def _infrastructure(
        self, inputs: InstanceInputs, memory: InstanceMemory, is_auto_cleaned: bool
    ) -> TeardownProgress:
        hosts = await self._owned_hosts(inputs)
        observed: dict[str, Any] | None = None
        for host in hosts:
            waiting, observed = await self._wipe(host, inputs)
            if waiting is not None:
                leftovers = (f"host {host.name} is being wiped", *_ports_left(host, inputs.ports))
                return TeardownProgress(is_auto_cleaned=is_auto_cleaned, leftovers=leftovers,
                                        requeue_after=waiting, host=observed)
        for host in hosts:
            await self._detach_ports(host, inputs)
            await self._release(host, inputs)
        memory.attached.clear()
        return TeardownProgress(is_done=True, is_auto_cleaned=is_auto_cleaned, host=observed)

    async def _owned_hosts(self, inputs: InstanceInputs) -> list[HostRecord]:
        try:
            hosts = await self.provider.list_hosts(inputs.host_type)
        except ProviderError as error:
            raise _Step("teardown:inventory", error, ("the host inventory could not be read",)) from None
        return [h for h in hosts if h.owner is not None and h.owner.id == inputs.id]

    async def _wipe(self, host: HostRecord, inputs: InstanceInputs) -> tuple[timedelta | None, dict[str, Any] | None]:
        """Power off and deprovision; the wait left, or None once the host is wiped and off."""
        observation = await self.provider.observe_host(host.name)
        reading = read_host(observation.host) if observation.readable and observation.host is not None else None
        if reading is not None and reading.provisioning_state == AVAILABLE and not reading.powered_on:
            return None, observation.host
        try:
            if reading is not None and reading.online and reading.provisioning_state not in BUSY_STATES:
                await self.provider.set_power(host.name, False)
            await self.provider.deprovision_host(host.name)
        except ProviderError as error:
            leftovers = (f"host {host.name} not wiped: {error.message}", *_ports_left(host, inputs.ports))
            raise _Step("teardown:deprovision", error, leftovers) from None
        after = await self.provider.observe_host(host.name)
        reading = read_host(after.host) if after.readable and after.host is not None else None
        if reading is not None and reading.provisioning_state == AVAILABLE and not reading.powered_on:
            return None, after.host
        now = self.clock.now()
        hint = HOST_POLL if after.next_change_at is None else max(timedelta(0), after.next_change_at - now)
        return min(hint, HOST_POLL), after.host

    async def _detach_ports(self, host: HostRecord, inputs: InstanceInputs) -> None:
        for position, port in enumerate(inputs.ports):
            try:
                fabric = await self.fabric(inputs.virtual_network)
                await fabric.delete_network_attachment(host.name, port.interface)
            except ProviderError as error:
                first = f"{_port_left(host, port)}: {error.message}"
                leftovers = (first, *_ports_left(host, inputs.ports[position + 1:]))
                raise _Step(f"teardown:port:{port.interface}", error, leftovers) from None

    async def _release(self, host: HostRecord, inputs: InstanceInputs) -> None:
        try:
            await self.provider.release_host(host.name, inputs.id)
        except ProviderError as error:
            raise _Step("teardown:release", error, (f"host {host.name} still assigned: {error.message}",)) from None

    def _failed(self, step: _Step, memory: InstanceMemory, is_auto_cleaned: bool) -> TeardownProgress:
        attempts = memory.failures.failed(step.action)
        if isinstance(step.error, TerminalProviderError) or self.retry.is_exhausted(attempts):
            return TeardownProgress(is_auto_cleaned=is_auto_cleaned, leftovers=step.leftovers, has_given_up=True)
        delay = self.retry.delay(attempts)
        memory.wait_until(step.action, self.clock.now() + delay)
        return TeardownProgress(is_auto_cleaned=is_auto_cleaned, leftovers=step.leftovers, requeue_after=delay)


def _port_left(host: HostRecord, port: Port) -> str:
    return f"port {port.label(host.name)} still on subnet {port.binding.subnet}"


def _ports_left(host: HostRecord, ports: Sequence[Port]) -> list[str]:
    return [_port_left(host, port) for port in ports]


def forget_teardown(memory: InstanceMemory) -> None:
    """A teardown gave up: the next one (Delete again, Signal) starts with fresh budgets."""
    memory.failures.forget(lambda action: action.startswith("teardown:"))
    for action in [a for a in memory.retry_at if a.startswith("teardown:")]:
        del memory.retry_at[action]
