"""ComputeInstance: drive the virtual machine and the ports of its NICs, derive the status
(compute.md §2; networking.md §7.2, §8, §10).

One pass, level-triggered:

1. Deleting: ``ComputeTeardown.advance`` (auto-provisioned external access, then the VM, then the
   ports; ``compute_teardown``).
2. Otherwise, unless a terminal failure is already recorded: while the tenant is not READY
   nothing is called (``TenantNotReady``) and the instance follows the tenant. Else the
   controller finalizer is added (its own write)
   before the first provider call; then, comparing before acting:
   - the fabric port of every NIC (``create_network_attachment``, upsert; re-sent when its spec,
     e.g. the SG list, changes and once per process start);
   - ``apply_virtual_machine`` when the VM is absent or carries another spec hash
     (``compute_spec``): an existing VM keeps its run strategy in that call, a new one gets
     the requested one;
   - ``set_run_strategy`` when the VM runs another strategy than the spec asks;
   - ``restart_virtual_machine`` when ``needs_restart``; the pass that calls it passes the
     restart's start to the derivation with the observation made before the call (the VM as it
     was when the restart was requested) and looks again at once.
   A transient error is retried with backoff (the status still reflects the observation); a
   terminal one becomes the derivation's ``terminal_failure`` (FAILED, latched until deletion).
3. Observe, derive and write status + lifecycle events in one transaction under the version lock
   (a conflict re-derives from a fresh read). The write that follows a confirmed teardown
   releases the attachment addresses and drops the finalizer, which archives the instance.
4. Requeue at the earliest of the derivation's hint (restart deadline), the provider's
   ``next_change_at``, the teardown's poll while the VM goes away and the resync bound;
   provider change notices enqueue the key in between.

While the instance waits for what another reconciler produces, it follows it (``dependents``,
through one ``Waiters`` index): its tenant while that is not READY, the external IP attachments
targeting it that are not READY yet once it has an address (the attachment's READY gives it its
external address), and its auto-provisioned children while its teardown waits for them to go.
Each pass says what it waits for after reading it; a pass that names something new looks again
at once, since a change committed between the read and the registration was not routed to it
(except for an attachment while no address was stored: it turns READY only after reading the
address the pass then writes). The periodic look while waiting (``SafetyNets.wait``) is only a
safety net; a VM has a pass at least every ``SafetyNets.compute_resync``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from osac.api.private.v1.compute_instance_type_pb2 import ComputeInstance
from osac.controllers.clusters import metrics as cluster_metrics
from osac.controllers.compute import inputs
from osac.controllers.compute import spec as compute_spec
from osac.controllers.compute.teardown import ComputeTeardown, TeardownStep
from osac.controllers.networking import topology
from osac.controllers.networking.external_ip_attachment import target_address
from osac.controllers.networking.metrics import CLEANUP_FAILURES
from osac.controllers.networking.provisioning import NetworkingContext
from osac.controllers.runtime.manager import ObjectKey, OwnWrites, Result, TransientError
from osac.controllers.runtime.objects import (
    CONTROLLER_FINALIZER,
    ObjectReconciler,
    copy,
    is_deleting,
    remove_finalizer,
)
from osac.controllers.runtime.waiters import Awaited, Waiters
from osac.controllers.workloads import metrics as workload_metrics
from osac.controllers.workloads.owning_tenant import MISSING_TENANT_POLL, OwningTenant, read_owning_tenant
from osac.controllers.workloads.passes import (
    ChangeLag,
    ProviderRetries,
    derive_then_write,
    earliest_requeue,
    ensure_controller_finalizer,
    record_status,
    until,
)
from osac.model.shape import as_kind
from osac.providers.compute import RUN_ALWAYS, ComputeProvider, VirtualMachineObservation
from osac.providers.interfaces import NetworkAttachmentSpec, TerminalProviderError, TransientProviderError
from osac.services.core.catalog import Services
from osac.services.workloads import addresses
from osac.services.workloads.network_attachments import AUTO_CLEANUP_FINALIZER
from osac.status.compute import derivation
from osac.status.compute.proto import apply_view_to_status, view_from_status
from osac.status.compute.views import DELETE_FAILED, RUNNING
from osac.status.conditions.views import LifecycleEventView
from osac.status.workloads.shared import EVENT_READY
from osac.store import lifecycle
from osac.store.objects import Tx

log = logging.getLogger(__name__)

KIND = compute_spec.KIND
#: While teardown waits for the VM to go away (the provider's notices and ``next_change_at``
#: usually come first).
TEARDOWN_POLL = timedelta(seconds=1)


@dataclass
class ComputeControllerContext:
    """What the compute-instance reconciler needs besides the services."""

    provider: ComputeProvider
    networking: NetworkingContext
    restart_timeout: timedelta = derivation.DEFAULT_RESTART_TIMEOUT


@dataclass
class PassOutcome:
    """What one pass did and saw, as the status write needs it.

    ``observation`` None means no provider was read (nothing was ever provisioned, or a
    DELETE_FAILED instance waits): the derivation then sees no VM, or, with ``readable`` False,
    keeps what it knew."""

    observation: VirtualMachineObservation | None = None
    readable: bool = True
    applied_hash: str = ""
    failure: derivation.ProviderFailure | None = None
    restart_started_at: datetime | None = None
    restart_error: str = ""
    #: The tenant as the pass saw it when it held back for it (None: it did not).
    tenant: OwningTenant | None = None
    teardown: TeardownStep | None = None
    retry: TransientError | None = None
    has_acted: bool = False
    #: What the VM should be, as the pass read it to drive the provider, and the version of the
    #: instance it was read for: the status write reuses it while the instance is that version.
    desired: compute_spec.DesiredMachine | None = None
    desired_version: int = 0


@dataclass(frozen=True)
class WriteResult:
    """The result of the status write: the object as written (None once gone), the hints for the
    next pass (``is_following``: it follows another object; ``looks_again``: it follows one it did
    not follow before), and what the metrics observe once the write committed (``replaced`` is
    the stored object the write changed, None when nothing changed)."""

    instance: ComputeInstance | None
    requeue_after: timedelta | None = None
    is_following: bool = False
    looks_again: bool = False
    replaced: ComputeInstance | None = None
    is_first_running: bool = False
    at: datetime | None = None


@dataclass(frozen=True)
class _Derived:
    """What one derivation decided: the status to write over ``stored`` (None once archived),
    its events, whether the addresses go with the last finalizer, and the hints of the result."""

    stored: ComputeInstance | None
    updated: ComputeInstance | None = None
    events: tuple[LifecycleEventView, ...] = ()
    releases_addresses: bool = False
    requeue_after: timedelta | None = None
    is_following: bool = False
    looks_again: bool = False
    is_first_running: bool = False
    at: datetime | None = None


def _unchanged(derived: _Derived) -> WriteResult | None:
    """The result without a write when the derivation changes nothing stored."""
    if derived.stored is None:
        return WriteResult(None)
    if derived.updated == derived.stored and not derived.events and not derived.releases_addresses:
        return WriteResult(derived.stored, derived.requeue_after, derived.is_following, derived.looks_again,
                           at=derived.at)
    return None


class ComputeInstanceReconciler(ObjectReconciler):
    kind = KIND

    def __init__(self, services: Services, context: ComputeControllerContext) -> None:
        super().__init__(services)
        self.context = context
        self.provider = context.provider
        self.teardown = ComputeTeardown(services, context.provider, context.networking)
        self.retries = ProviderRetries("compute instance", context.networking.provider_retry)
        #: Ports this process created, by (instance id, interface): re-sent only when they change.
        self._ports: dict[tuple[str, str], NetworkAttachmentSpec] = {}
        #: Provider change notices not yet reflected in a committed status (the caller enqueues).
        self.changes = ChangeLag(KIND)
        #: Every pass sets its own next run: its own status write queues nothing.
        self.own_writes = OwnWrites()
        #: What each instance (in this process) waits for: tenant, attachments, children.
        self.waiters = Waiters()

    def dependents(self, kind: str, object_id: str) -> tuple[str, ...]:
        """The instances waiting for the object that changed. (An external IP attachment's change
        queues the instance it targets through the change feed: ``ExternalIPAttachmentReconciler
        .references``.)"""
        return self.waiters.dependents(kind, object_id)

    # -- the pass ---------------------------------------------------------------------------------

    async def reconcile(self, key: ObjectKey) -> Result:
        async with self.store.read(snapshot=False) as tx:
            loaded = await self.load(tx, key.id)
        if loaded is None:
            self._forget(key.id)
            return Result()
        instance = as_kind(loaded, ComputeInstance)
        if is_deleting(instance):
            outcome = await self._tear_down(instance)
        else:
            found = await self._provision(instance)
            if found is None:
                return Result()  # deleted meanwhile: that change runs the next pass
            outcome = found
        stored = await self._write(key.id, outcome)
        if outcome.retry is not None:
            raise outcome.retry
        if stored.instance is None:
            self.waiters.forget(key.id)
            return Result()
        if outcome.teardown is not None and outcome.teardown.has_given_up:
            return Result()
        return Result(requeue_after=self._requeue(stored, outcome))

    # -- provisioning -----------------------------------------------------------------------------

    async def _provision(self, instance: ComputeInstance) -> PassOutcome | None:
        instance_id = instance.id
        async with self.store.read(snapshot=False) as tx:
            tenant = await read_owning_tenant(tx, instance.metadata.tenant)
        previous = view_from_status(instance.status)
        has_finalizer = CONTROLLER_FINALIZER in instance.metadata.finalizers
        if derivation.recorded_failure_message(previous) is not None or not tenant.readiness.ready:
            # Latched failure, or a tenant not READY: nothing new is asked of the provider; what
            # exists already is still observed.
            outcome = PassOutcome(observation=await self._observe(instance_id) if has_finalizer else None)
            if not tenant.readiness.ready:
                outcome.tenant = tenant
            return outcome
        held = instance
        if CONTROLLER_FINALIZER not in instance.metadata.finalizers:
            written = await ensure_controller_finalizer(self, instance_id)
            if written is None or is_deleting(written):
                return None
            held = as_kind(written, ComputeInstance)
        outcome = PassOutcome()
        try:
            await self._drive(held, previous, outcome)
            self.retries.succeeded(instance_id)
        except TransientProviderError as error:
            outcome.retry = self.retries.failed(instance_id, error.message)
        except TerminalProviderError as error:
            log.warning("compute instance %s: terminal provider error %s: %s", instance_id, error.reason, error.message)
            outcome.failure = derivation.ProviderFailure(error.reason, error.message)
        if outcome.observation is None or outcome.has_acted:
            outcome.observation = await self._observe(instance_id)
        return outcome

    async def _drive(self, instance: ComputeInstance, previous: derivation.ComputeInstanceStatusView,
                     outcome: PassOutcome) -> None:
        """Ports, VM, run strategy, restart: each compared with what exists before it is asked for."""
        instance_id = instance.id
        async with self.store.read() as tx:
            desired = await compute_spec.desired_machine(tx, instance)
            outcome.desired, outcome.desired_version = desired, instance.metadata.version
            if desired.problem:
                raise TerminalProviderError("InvalidInstance", desired.problem)
            fabric = await topology.fabric_for_vn(tx, self.context.networking.managers, desired.virtual_network)
        for port in desired.ports:
            if self._ports.get((instance_id, port.interface)) != port:
                await fabric.create_network_attachment(port)
                self._ports[(instance_id, port.interface)] = port
        before = await self._observe(instance_id)
        outcome.observation = before
        if not before.readable:
            return  # act once the VM can be seen again
        machine = before.virtual_machine
        running = compute_spec.observed_run_strategy(machine)
        if machine is None or compute_spec.applied_spec_hash(machine) != desired.spec_hash:
            strategy = running if machine is not None and running else desired.run_strategy
            outcome.has_acted = True
            await self.provider.apply_virtual_machine(instance_id, desired.with_run_strategy(strategy))
            outcome.applied_hash = desired.spec_hash
            running = strategy
        if running != desired.run_strategy:
            outcome.has_acted = True
            await self.provider.set_run_strategy(instance_id, desired.run_strategy)
        requested = restart_requested_at(instance)
        # A restart meeting a Halted spec waits: the stop wins, the request is served once it runs.
        if desired.run_strategy == RUN_ALWAYS and derivation.needs_restart(requested, previous):
            if outcome.has_acted:  # what the calls above changed is seen before the restart begins
                outcome.observation = await self._observe(instance_id)
                outcome.has_acted = False
                if not outcome.observation.readable:
                    return
            # This pass reports the VM as it was when the restart was asked for (RestartRequested);
            # the next one, queued at once, sees it stopping (RestartInProgress; compute.md §2.5).
            started = self.store.clock.now()
            try:
                await self.provider.restart_virtual_machine(instance_id)
            except TerminalProviderError as error:
                outcome.restart_error = error.message
            outcome.restart_started_at = started

    async def _observe(self, instance_id: str) -> VirtualMachineObservation:
        observation = await self.provider.observe_virtual_machine(instance_id)
        if not observation.readable:
            cluster_metrics.OBSERVATION_ERRORS.labels("compute", KIND).inc()
        return observation

    # -- teardown -------------------------------------------------------------------------------

    async def _tear_down(self, instance: ComputeInstance) -> PassOutcome:
        step = await self.teardown.advance(instance)
        outcome = PassOutcome(observation=step.observation, teardown=step, retry=step.retry)
        if step.has_given_up and step.observation is None:
            outcome.readable = False  # nothing was looked at: keep what the status shows
        elif step.observation is None and CONTROLLER_FINALIZER in instance.metadata.finalizers:
            outcome.observation = await self._observe(instance.id)
        if step.is_complete or step.has_given_up:
            self._forget_ports(instance.id)
        return outcome

    # -- status ---------------------------------------------------------------------------------

    async def _write(self, instance_id: str, outcome: PassOutcome) -> WriteResult:
        """Derive from the stored object as it is now (a read snapshot) and write the result under
        the version lock; a concurrent change derives again."""
        result = await derive_then_write(
            self.store,
            lambda tx: self._derive(tx, instance_id, outcome),
            lambda tx, derived: self._store(tx, instance_id, derived),
            _unchanged,
            "compute instance status write",
        )
        if result.replaced is not None and result.instance is not None and result.at is not None:
            self._observe_change(result.replaced, result.instance, result.at, result.is_first_running)
        observed_at = outcome.observation.observed_at if outcome.observation is not None else None
        if observed_at is not None and result.instance is not None:
            if result.replaced is not None:
                self.changes.committed(instance_id, observed_at, self.store.clock.now())
            else:
                self.changes.unchanged(instance_id, observed_at)
        return result

    async def _derive(self, tx: Tx, instance_id: str, outcome: PassOutcome) -> _Derived:
        loaded = await self.load(tx, instance_id)
        if loaded is None:
            return _Derived(None)
        stored = as_kind(loaded, ComputeInstance)
        now = tx.clock.now()
        previous = view_from_status(stored.status)
        desired = outcome.desired
        if desired is None or outcome.desired_version != stored.metadata.version:
            desired = await compute_spec.desired_machine(tx, stored)
        external = await inputs.external_address(tx, instance_id)
        tenant = await read_owning_tenant(tx, stored.metadata.tenant)
        observation = outcome.observation
        step = outcome.teardown or TeardownStep()
        context = derivation.ComputeContext(
            tenant=tenant.readiness,
            readable=outcome.readable and (observation is None or observation.readable),
            deletion_requested=is_deleting(stored),
            spec_hash=desired.spec_hash,
            applied_spec_hash=outcome.applied_hash or compute_spec.applied_spec_hash(
                observation.virtual_machine if observation is not None else None),
            run_strategy=desired.run_strategy,
            terminal_failure=outcome.failure,
            restart=derivation.ComputeRestart(
                requested_at=restart_requested_at(stored),
                started_at=outcome.restart_started_at,
                error=outcome.restart_error,
            ),
            restart_timeout=self.context.restart_timeout,
            boot_disk_gib=compute_spec.boot_disk_gib(stored),
            additional_disks=compute_spec.additional_disk_count(stored),
            attachments=desired.attachments,
            cleanup_leftovers=step.leftovers,
            cleanup_gave_up=step.has_given_up,
            external_ip_address=external.address,
        )
        result = derivation.derive_compute_instance_status(
            observation.virtual_machine if observation is not None else None,
            observation.virtual_machine_instance if observation is not None else None,
            observation.data_volumes if observation is not None else [],
            previous,
            now,
            context,
        )
        updated = as_kind(copy(stored), ComputeInstance)
        apply_view_to_status(result.status, updated.status)
        if step.is_auto_cleaned:
            remove_finalizer(updated, AUTO_CLEANUP_FINALIZER)
        if step.is_complete:
            remove_finalizer(updated)
        is_first_running = (
            result.status.state == RUNNING and previous.state != RUNNING and not await _has_been_ready(tx, instance_id)
        )
        awaited = _awaited(stored, outcome, tenant, external, target_address(KIND, updated, endpoint=0))
        looks_again = self._follow(instance_id, awaited, has_stored_target=bool(target_address(KIND, stored, endpoint=0)))
        return _Derived(stored, updated, tuple(result.events), step.is_complete, result.requeue_after,
                        bool(awaited), looks_again, is_first_running, now)

    async def _store(self, tx: Tx, instance_id: str, derived: _Derived) -> WriteResult:
        assert derived.stored is not None and derived.updated is not None
        if derived.releases_addresses:
            await addresses.release_attachment_addresses(tx, KIND, instance_id)
        recorded = await record_status(self, tx, derived.updated, derived.stored, derived.events)
        written = as_kind(recorded, ComputeInstance)
        return WriteResult(written, derived.requeue_after, derived.is_following, derived.looks_again,
                           replaced=derived.stored if written is not derived.stored else None,
                           is_first_running=derived.is_first_running, at=derived.at)

    def _observe_change(
        self, before: ComputeInstance, after: ComputeInstance, now: datetime, is_first_running: bool
    ) -> None:
        """Metrics of one committed status change."""
        if is_first_running:
            created = after.metadata.creation_timestamp.ToDatetime(tzinfo=UTC)
            workload_metrics.COMPUTE_PROVISIONING_DURATION.observe(max(0.0, (now - created).total_seconds()))
        if after.status.state == DELETE_FAILED and before.status.state != DELETE_FAILED:
            CLEANUP_FAILURES.labels(KIND).inc()

    def _requeue(self, stored: WriteResult, outcome: PassOutcome) -> timedelta | None:
        if stored.looks_again or outcome.restart_started_at is not None:
            # What it follows may have changed before it followed it; a restart just began.
            return timedelta(0)
        observation = outcome.observation
        tenant = outcome.tenant
        nets = self.context.networking.safety_nets
        return earliest_requeue(
            nets.compute_resync,
            stored.requeue_after,
            until(observation.next_change_at, self.store.clock.now()) if observation is not None else None,
            MISSING_TENANT_POLL if tenant is not None and not tenant.id else None,
            TEARDOWN_POLL if outcome.teardown is not None and outcome.teardown.is_waiting else None,
            nets.wait if stored.is_following else None,
        )

    # -- helpers --------------------------------------------------------------------------------

    def _follow(self, instance_id: str, awaited: tuple[Awaited, ...], has_stored_target: bool) -> bool:
        """Follow ``awaited`` (nothing more when empty); returns whether the instance must look
        again at once: an object it did not follow before may have changed between this pass's
        read and now, unrouted to it. Not so for an attachment while the stored status has no
        address yet: it turns READY only after reading the address this pass is about to write."""
        followed = set(self.waiters.awaited_by(instance_id))
        self.waiters.wait(instance_id, awaited)
        return any(key not in followed and (has_stored_target or key[0] != "external_ip_attachment")
                   for key in awaited)

    def _forget_ports(self, instance_id: str) -> None:
        for key in [k for k in self._ports if k[0] == instance_id]:
            del self._ports[key]

    def _forget(self, instance_id: str) -> None:
        self.waiters.forget(instance_id)
        self.retries.succeeded(instance_id)
        self.changes.forget(instance_id)
        self._forget_ports(instance_id)
        self.teardown.forget(instance_id)


def _awaited(stored: ComputeInstance, outcome: PassOutcome, tenant: OwningTenant, external: inputs.ExternalAddress,
             address: str) -> tuple[Awaited, ...]:
    """What the instance waits for after this pass: the tenant while either of the pass's reads
    found it not READY, the pending attachments once the instance has an ``address`` to be
    DNAT'ed to (``external_ip_attachment.target_address``), the attachment whose address it
    publishes, the children its teardown waits for."""
    if is_deleting(stored):
        return outcome.teardown.awaited if outcome.teardown is not None else ()
    held_back = outcome.tenant.awaited if outcome.tenant is not None else ()
    attachments = (*(external.pending if address else ()), *((external.source,) if external.source else ()))
    return (*held_back, *tenant.awaited, *(("external_ip_attachment", a) for a in attachments))


def restart_requested_at(instance: ComputeInstance) -> datetime | None:
    spec = instance.spec
    return spec.restart_requested_at.ToDatetime(tzinfo=UTC) if spec.HasField("restart_requested_at") else None


async def _has_been_ready(tx: Tx, instance_id: str) -> bool:
    """Whether a ``Ready`` event was recorded for the instance: the first RUNNING precedes it
    (the address appears after the VM runs), every later one follows it."""
    return bool(await lifecycle.reasons(tx, instance_id, (EVENT_READY,)))
