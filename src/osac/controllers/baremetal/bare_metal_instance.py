"""BareMetalInstance: assign a whole host, put its ports on the tenant's subnets, deploy the OS,
discover the leased addresses, then keep its power as the spec asks; tear it all down on delete
(compute.md §3, §4; networking.md §7.4, §8, §10).

One pass, level-triggered:

1. Add the controller finalizer before the first provider call.
2. Not deleting: with the tenant READY (or a host already assigned), advance the gate record
   (``GateRunner``: gates 1–4 of compute.md §3.2); otherwise the instance follows its tenant. A
   failed gate waits for a private Signal or an Update, which the service answers by resetting
   that gate (earlier gates are kept).
3. Every gate complete: re-apply changed security groups to the ports, and converge power with
   the run strategy and ``restart_trigger`` (``PowerControl``).
4. Deleting: ``Teardown`` (auto-provisioned external access first, which the instance follows
   until it is archived, then power off, wipe, ports back on parking, host released).
5. Observe the host, derive the status and write it, with the gate record, the host and the
   lifecycle events, in one transaction under the version lock. A conflict re-derives from the
   fresh object; a gate record changed meanwhile (Signal, Update) re-runs the whole pass. The
   write that ends the teardown also releases the addresses and drops the finalizer, which
   archives the instance.
6. Requeue at the earliest of: the gate's retry or poll, the derivation's deadline, the host's
   ``next_change_at``, and a one-minute refresh while a host is assigned. Host change notices
   (``follow_host_notices``) wake the instance that owns the host sooner.

What the instance waits for from other reconcilers it follows (``dependents``, one ``Waiters``
index): its tenant while that is not READY and no host is assigned, its auto-provisioned children
while its teardown waits for them. Each pass says what it waits for after reading it; a pass that
names something new looks again at once, since a change committed between the read and the
registration was not routed to it. The periodic look while waiting (``SafetyNets.wait``) is only a
safety net.

All timing reads the injected clock; nothing sleeps.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any

from google.protobuf.message import Message

from osac.api.private.v1.bare_metal_instance_type_pb2 import BareMetalInstance
from osac.controllers.baremetal.inputs import KIND, InstanceInputs, mutable_spec_hash, read_inputs
from osac.controllers.baremetal.memory import InstanceMemory
from osac.controllers.baremetal.power import PowerControl
from osac.controllers.baremetal.provisioning import GateProgress, GateRunner
from osac.controllers.baremetal.settings import BareMetalSettings
from osac.controllers.baremetal.teardown import Teardown, TeardownProgress, forget_teardown
from osac.controllers.networking import topology
from osac.controllers.networking.metrics import CLEANUP_FAILURES
from osac.controllers.networking.provisioning import NetworkingContext
from osac.controllers.runtime.manager import ControllerManager, ObjectKey, Result, TransientError
from osac.controllers.runtime.objects import (
    CONTROLLER_FINALIZER,
    ObjectReconciler,
    copy,
    is_deleting,
    remove_finalizer,
)
from osac.controllers.runtime.waiters import Awaited, Waiters
from osac.controllers.workloads import metrics
from osac.controllers.workloads.owning_tenant import MISSING_TENANT_POLL
from osac.controllers.workloads.passes import (
    earliest_requeue,
    ensure_controller_finalizer,
    follow_provider,
    record_status,
    until,
    write_retrying,
)
from osac.model.shape import as_kind
from osac.providers.baremetal import BareMetalProvider, HostObservation
from osac.providers.interfaces import ChangeNotice, FabricManager, ProviderError, TerminalProviderError
from osac.services.core.catalog import Services
from osac.services.workloads import addresses
from osac.services.workloads.network_attachments import AUTO_CLEANUP_FINALIZER
from osac.status.baremetal import derivation
from osac.status.baremetal.gates import INVENTORY_ASSIGNED, NETWORKING_CONFIGURED, ProvisioningSteps
from osac.status.baremetal.metal3 import HostReading, read_host
from osac.status.baremetal.proto import apply_view_to_status, view_from_status
from osac.status.baremetal.views import RUNNING, STOPPED, STOPPING
from osac.store.objects import Tx

#: A host change nobody announces (a hardware fault) shows within this while a host is assigned.
REFRESH = timedelta(seconds=60)
#: Population gauges are recomputed this often by the process holding the controller lease.
GAUGE_INTERVAL = timedelta(seconds=15)


@dataclass
class BareMetalControllerContext:
    """What the bare-metal reconciler needs besides the services."""

    provider: BareMetalProvider
    networking: NetworkingContext
    settings: BareMetalSettings = field(default_factory=BareMetalSettings)


@dataclass(frozen=True)
class PassOutcome:
    """What one pass found and did, for the derivation and the status write."""

    steps: ProvisioningSteps
    host_name: str = ""
    host: dict[str, Any] | None = None
    readable: bool = True
    leases: dict[str, str | None] = field(default_factory=dict)
    restart: derivation.BareMetalRestart = field(default_factory=derivation.BareMetalRestart)
    applied_spec_hash: str = ""
    configuration_error: str = ""
    teardown: TeardownProgress | None = None


class BareMetalInstanceReconciler(ObjectReconciler):
    kind = KIND

    def __init__(self, services: Services, context: BareMetalControllerContext) -> None:
        super().__init__(services)
        self.context = context
        self.provider = context.provider
        self.settings = context.settings
        clock = services.store.clock
        self.gates = GateRunner(context.provider, context.settings, clock, self._fabric)
        self.power = PowerControl(context.provider, clock)
        self.teardown = Teardown(services, context.provider, clock, self._fabric,
                                 context.networking.cleanup_retry)
        self._memory: dict[str, InstanceMemory] = {}
        #: Host name -> the instance holding it, for change notices (filled by every pass).
        self._owners: dict[str, str] = {}
        #: What each instance (in this process) waits for: its tenant, its children.
        self.waiters = Waiters()

    def dependents(self, kind: str, object_id: str) -> tuple[str, ...]:
        """The instances waiting for the object that changed."""
        return self.waiters.dependents(kind, object_id)

    # -- notices ----------------------------------------------------------------------------------

    def instance_of(self, host_name: str) -> str | None:
        """The instance that holds ``host_name``, as far as this process has seen."""
        return self._owners.get(host_name)

    # -- the pass ---------------------------------------------------------------------------------

    async def reconcile(self, key: ObjectKey) -> Result:
        async with self.store.read() as tx:
            instance = await self.load(tx, key.id)
            inputs = None if instance is None else await read_inputs(tx, as_kind(instance, BareMetalInstance))
        if inputs is None:
            self._forget(key.id)
            return Result()
        memory = self._memory.setdefault(key.id, InstanceMemory())
        if is_deleting(inputs.instance):
            return await self._delete(inputs, memory)
        if CONTROLLER_FINALIZER not in inputs.instance.metadata.finalizers:
            written = await ensure_controller_finalizer(self, key.id)
            if written is None or is_deleting(written):
                return Result(requeue_after=timedelta(0))
            inputs = replace(inputs, instance=as_kind(written, BareMetalInstance))
        return await self._provision(inputs, memory)

    async def _provision(self, inputs: InstanceInputs, memory: InstanceMemory) -> Result:
        previous = view_from_status(inputs.instance.status)
        steps = previous.provisioning_steps
        progress = GateProgress(steps)
        hints: list[timedelta | None] = []
        awaited: tuple[Awaited, ...] = ()
        if steps.failed is None and (inputs.tenant.ready or steps.step(INVENTORY_ASSIGNED).is_completed):
            progress = await self.gates.run(inputs, steps, memory, previous.host)
            hints.append(progress.requeue_after)
        elif steps.failed is None:
            awaited = inputs.owning_tenant.awaited
            hints.append(self.context.networking.safety_nets.wait if awaited else MISSING_TENANT_POLL)
        host_name = progress.host_name or previous.host
        observation = await self._observe(inputs.id, host_name)
        reading = _reading(observation)
        restart = derivation.BareMetalRestart()
        applied, configuration_error = "", ""
        if progress.steps.are_complete and reading is not None:
            applied, configuration_error, retry = await self._apply_configuration(inputs, memory, host_name)
            spec = inputs.instance.spec
            power = await self.power.converge(host_name, spec.restart_trigger, spec.run_strategy, previous, reading,
                                              memory)
            restart = power.restart
            hints += [retry, power.requeue_after]
            if power.acted:
                observation = await self._observe(inputs.id, host_name)
        outcome = PassOutcome(
            steps=progress.steps,
            host_name=host_name,
            host=observation.host if observation is not None else None,
            readable=observation is None or observation.readable,
            leases=dict(progress.leases),
            restart=restart,
            applied_spec_hash=applied,
            configuration_error=configuration_error,
        )
        result = await self._write(inputs, memory, steps, outcome)
        if result is not None:
            hints.append(result.requeue_after)
        if observation is not None:
            hints.append(until(observation.next_change_at, self.store.clock.now()))
        if host_name and progress.steps.failed is None:
            hints.append(REFRESH)
        if self.waiters.wait(inputs.id, awaited):  # new: it may have changed before it was followed
            return Result(requeue_after=timedelta(0))
        return Result(requeue_after=earliest_requeue(*hints))

    async def _apply_configuration(
        self, inputs: InstanceInputs, memory: InstanceMemory, host_name: str
    ) -> tuple[str, str, timedelta | None]:
        """Security groups changed by an Update, re-bound to the ports (a repeated
        ``create_network_attachment``). Returns the spec hash now applied (empty while not), a
        terminal error, and when to retry a transient one."""
        spec_hash = inputs.spec_hash
        failure = memory.configuration_failure
        if failure is not None and failure[0] == spec_hash:
            return "", failure[1], None
        now = self.store.clock.now()
        if not memory.is_due("configuration", now):
            return "", "", memory.retry_at["configuration"] - now
        host = await self.gates.host_record(inputs, memory, host_name)
        try:
            for port in inputs.ports:
                await self.gates.bind_port(inputs, memory, host, port)
        except ProviderError as error:
            if isinstance(error, TerminalProviderError):
                memory.configuration_failure = (spec_hash, error.message)
                return "", error.message, None
            delay = self.context.networking.provider_retry.delay(memory.failures.failed("configuration"))
            memory.wait_until("configuration", now + delay)
            return "", "", delay
        memory.configuration_failure = None
        memory.succeeded("configuration")
        memory.applied_spec_hash = spec_hash
        return spec_hash, "", None

    # -- deletion ---------------------------------------------------------------------------------

    async def _delete(self, inputs: InstanceInputs, memory: InstanceMemory) -> Result:
        if inputs.instance.status.state == self._state("DELETE_FAILED"):
            self.waiters.forget(inputs.id)
            return Result()  # waits for Delete again or Signal
        progress = await self.teardown.run(inputs, memory)
        previous = view_from_status(inputs.instance.status)
        if progress.has_given_up:
            forget_teardown(memory)
            CLEANUP_FAILURES.labels(KIND).inc()
        host, readable = progress.host, True
        if host is None and previous.host and not progress.is_done:
            observation = await self._observe(inputs.id, previous.host)
            host, readable = (observation.host, observation.readable) if observation is not None else (None, True)
        outcome = PassOutcome(steps=previous.provisioning_steps, host_name=previous.host, host=host,
                              readable=readable, teardown=progress)
        written = await self._write(inputs, memory, previous.provisioning_steps, outcome)
        if written is not None and written.archived:
            self._forget(inputs.id)
            return Result()
        if self.waiters.wait(inputs.id, progress.awaited):  # new: look again at once
            return Result(requeue_after=timedelta(0))
        return Result(requeue_after=earliest_requeue(progress.requeue_after,
                                                     self.context.networking.safety_nets.wait if progress.awaited else None))

    # -- status -----------------------------------------------------------------------------------

    async def _write(
        self, inputs: InstanceInputs, memory: InstanceMemory, base: ProvisioningSteps, outcome: PassOutcome
    ) -> _Written | None:
        """Derive from the stored object as it is now and write it under the version lock."""

        async def derive_and_store(tx: Tx) -> _Written | None:
            return await self._derive_and_store(tx, inputs, memory, base, outcome)

        written = await write_retrying(self.store, derive_and_store, "bare-metal status write")
        if written is not None:
            self._observe_metrics(written, memory)
        return written

    async def _derive_and_store(
        self, tx: Tx, inputs: InstanceInputs, memory: InstanceMemory, base: ProvisioningSteps, outcome: PassOutcome
    ) -> _Written | None:
        loaded = await self.load(tx, inputs.id)
        if loaded is None:
            return None
        stored = as_kind(loaded, BareMetalInstance)
        previous = view_from_status(stored.status)
        teardown = outcome.teardown
        if teardown is None and previous.provisioning_steps != base:
            raise TransientError("the gate record changed meanwhile (Signal or Update); looking again",
                                 delay=timedelta(0))
        steps = previous.provisioning_steps if teardown is not None else outcome.steps
        spec = stored.spec
        now = tx.clock.now()
        context = derivation.BareMetalContext(
            tenant=inputs.tenant,
            readable=outcome.readable,
            deletion_requested=is_deleting(stored),
            run_strategy=spec.run_strategy,
            restart_trigger=spec.restart_trigger,
            restart=outcome.restart,
            restart_timeout=self.settings.restart_timeout,
            spec_hash=mutable_spec_hash(stored),
            applied_spec_hash=outcome.applied_spec_hash or memory.applied_spec_hash,
            configuration_error=outcome.configuration_error,
            host_name=outcome.host_name,
            attachments=inputs.attachments,
            cleanup_leftovers=teardown.leftovers if teardown is not None else (),
            cleanup_gave_up=teardown is not None and teardown.has_given_up,
        )
        result = derivation.derive_baremetal_instance_status(
            outcome.host, steps, outcome.leases, previous, now, context
        )
        desired = as_kind(copy(stored), BareMetalInstance)
        apply_view_to_status(result.status, desired.status)
        if teardown is not None and teardown.is_auto_cleaned:
            remove_finalizer(desired, AUTO_CLEANUP_FINALIZER)
        if teardown is not None and teardown.is_done:
            remove_finalizer(desired)
            if not desired.metadata.finalizers:
                await addresses.release_attachment_addresses(tx, KIND, inputs.id)
        await record_status(self, tx, desired, stored, result.events)
        archived = await tx.get(self.descriptor, inputs.id) is None
        return _Written(previous, result.status, result.requeue_after, archived, now)

    def _observe_metrics(self, written: _Written, memory: InstanceMemory) -> None:
        before, after = written.previous, written.status
        for step in after.provisioning_steps:
            if before.provisioning_steps.step(step.gate).is_completed or not step.is_completed:
                continue
            if step.started_at is not None and step.finished_at is not None:
                metrics.BAREMETAL_GATE_DURATION.labels(step.gate).observe(
                    max(0.0, (step.finished_at - step.started_at).total_seconds()))
        networking = after.provisioning_steps.step(NETWORKING_CONFIGURED)
        if networking.status != before.provisioning_steps.step(NETWORKING_CONFIGURED).status:
            if networking.is_completed:
                metrics.BAREMETAL_NETWORK_CONFIGURATION.labels(metrics.NETWORK_CONFIGURATION_SUCCESS).inc()
            elif networking.is_failed:
                metrics.BAREMETAL_NETWORK_CONFIGURATION.labels(metrics.NETWORK_CONFIGURATION_FAILURE).inc()
        if after.state in (STOPPED, STOPPING):
            memory.awaiting_first_run = False
        if memory.awaiting_first_run and after.state == RUNNING:
            memory.awaiting_first_run = False
            assigned = after.provisioning_steps.step(INVENTORY_ASSIGNED).finished_at
            if assigned is not None:
                metrics.BAREMETAL_PROVISIONING_DURATION.observe(
                    max(0.0, (written.at - assigned).total_seconds()))

    # -- helpers ----------------------------------------------------------------------------------

    async def _observe(self, instance_id: str, host_name: str) -> HostObservation | None:
        if not host_name:
            return None
        self._owners[host_name] = instance_id
        return await self.provider.observe_host(host_name)

    async def _fabric(self, vn_id: str) -> FabricManager:
        async with self.store.read(snapshot=False) as tx:
            return await topology.fabric_for_vn(tx, self.context.networking.managers, vn_id)

    def _state(self, name: str) -> int:
        value = self.descriptor.state_value(name)
        assert value is not None
        return value

    def _forget(self, instance_id: str) -> None:
        self.waiters.forget(instance_id)
        self._memory.pop(instance_id, None)
        for host in [h for h, owner in self._owners.items() if owner == instance_id]:
            del self._owners[host]


@dataclass(frozen=True)
class _Written:
    previous: derivation.BareMetalInstanceStatusView
    status: derivation.BareMetalInstanceStatusView
    requeue_after: timedelta | None
    archived: bool
    at: datetime


def _reading(observation: HostObservation | None) -> HostReading | None:
    if observation is None or not observation.readable or observation.host is None:
        return None
    return read_host(observation.host)


# -- wiring (called by ``setup.start_controllers``) ------------------------------------------------


def follow_host_notices(application: Any, manager: ControllerManager, reconciler: BareMetalInstanceReconciler) -> None:
    """Wake the owning instance on every host change notice, and keep the population gauges
    fresh while this process holds the controller lease. ``application`` is the server's
    ``Application`` (typed loosely: controllers sit below the server layer)."""

    def on_notice(notice: ChangeNotice) -> None:
        instance_id = reconciler.instance_of(notice.key)
        if instance_id is not None:
            manager.enqueue(ObjectKey(KIND, instance_id))

    async def refresh(instances: list[Message]) -> None:
        metrics.refresh_baremetal_gauges(instances, await reconciler.provider.list_hosts())

    follow_provider(application, manager, reconciler.provider, on_notice, KIND, refresh, GAUGE_INTERVAL)
