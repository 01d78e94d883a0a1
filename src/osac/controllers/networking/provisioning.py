"""The shared shape of every networking reconciler (networking.md §3.2, §10.2, §11.1).

A subclass says what "ready" needs (``waiting_for``), how to program the fabric (``apply``),
how to undo it (``teardown``) and what to release once the object is gone (``released``); this
base does the rest, the same way for every kind:

- ``apply`` and ``teardown`` look up what they need in a read snapshot and return the provider
  call, which runs after the snapshot is closed: a slow fabric never holds a database
  connection (with many objects provisioning at once it would empty the reader pool, and every
  read of the service would wait);
- the finalizer is added before the first external effect and removed last (archiving the
  object in the transaction that records the confirmed teardown);
- transient provider errors keep the state, set ``retrying (attempt n): <error>`` and retry with
  backoff (1 s doubling, cap 60 s) up to the retry limit, then FAILED (DELETE_FAILED when
  deleting) with a Warning event; terminal errors fail at once;
- FAILED and DELETE_FAILED objects wait for a Signal or a new Delete, which move them back to
  PENDING / DELETING (``Behaviour.on_signal``): the reconciler never retries them by itself;
- a pass's own writes (the finalizer, the status it reached) queue no second pass: each pass
  sets its own next run (``own_writes``);
- an object being provisioned follows the objects it waits for (``awaited``; the reconciler's
  ``dependents``): their changes queue it at once, so waiting costs no polling and its periodic
  look (``SafetyNets.wait``) is only a safety net.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, timedelta
from typing import TYPE_CHECKING, Generic, TypeVar

from google.protobuf.message import Message

from osac.controllers.networking.metrics import CLEANUP_FAILURES, READY_SECONDS
from osac.controllers.runtime.manager import ObjectKey, OwnWrites, Result, TransientError
from osac.controllers.runtime.objects import (
    CONTROLLER_FINALIZER,
    ObjectReconciler,
    add_finalizer,
    copy,
    is_deleting,
    remove_finalizer,
)
from osac.controllers.runtime.retry import Attempts, RetryPolicy
from osac.controllers.runtime.safety_nets import SafetyNets
from osac.controllers.runtime.waiters import Awaited, Waiters
from osac.model.shape import as_kind, id_of, metadata_of, status_of
from osac.providers.interfaces import ProviderError, TerminalProviderError
from osac.services.core.catalog import Services
from osac.store import lifecycle
from osac.store.objects import Tx, object_label

if TYPE_CHECKING:
    from osac.providers.registry import ManagerRegistry

#: A provider call prepared from a read snapshot (``apply``, ``teardown``); it runs once the
#: snapshot is closed.
ProviderCall = Callable[[], Awaitable[object]]

log = logging.getLogger(__name__)

M = TypeVar("M", bound=Message)

DEFAULT_RETRY_LIMIT = 10
BACKOFF_BASE_SECONDS = 1.0
BACKOFF_CAP_SECONDS = 60.0


@dataclass(frozen=True)
class NetworkingContext:
    """What the networking reconcilers share: the managers and the retry policies."""

    managers: ManagerRegistry
    retry_limit: int = DEFAULT_RETRY_LIMIT
    cleanup_retry_limit: int = DEFAULT_RETRY_LIMIT
    #: First retry delay; doubles per attempt up to ``BACKOFF_CAP_SECONDS``.
    backoff_base_seconds: float = BACKOFF_BASE_SECONDS
    #: The periodic looks of every reconciler that waits for another object.
    safety_nets: SafetyNets = SafetyNets()

    def __post_init__(self) -> None:
        if not self.backoff_base_seconds > 0:
            raise ValueError(
                f"networking.retry_backoff_seconds must be above 0, got {self.backoff_base_seconds}"
            )

    @property
    def provider_retry(self) -> RetryPolicy:
        """Failed provider calls while provisioning; FAILED at ``retry_limit``."""
        return self._policy(self.retry_limit)

    @property
    def cleanup_retry(self) -> RetryPolicy:
        """Failed teardown steps; DELETE_FAILED (or given up) at ``cleanup_retry_limit``."""
        return self._policy(self.cleanup_retry_limit)

    def _policy(self, limit: int) -> RetryPolicy:
        cap = timedelta(seconds=BACKOFF_CAP_SECONDS)
        return RetryPolicy(base=min(cap, timedelta(seconds=self.backoff_base_seconds)), cap=cap, limit=limit)


class Waiting(Exception):
    """A dependency is not ready yet; the message says which (it becomes ``status.message``)."""


class ProvisioningReconciler(ObjectReconciler, Generic[M]):
    """Base of the reconcilers that drive a fabric object to READY and back to nothing. ``M`` is
    the kind's generated class (``message_class``): what ``load`` and ``write`` return and what
    the hooks receive."""

    #: The kind's generated class (``Subnet``, ...).
    message_class: type[M]

    #: The state that means "provisioned" (ExternalIP: ``ALLOCATED``).
    ready_state = "READY"

    def __init__(self, services: Services, networking: NetworkingContext) -> None:
        super().__init__(services)
        self.networking = networking
        #: Every pass sets its own next run (a requeue while waiting, a retry's delay, nothing
        #: once settled): the changes of its own writes queue nothing.
        self.own_writes = OwnWrites()
        self._attempts: Attempts[tuple[str, str]] = Attempts()
        #: What the objects being provisioned wait for, from this process's passes.
        self.waiters = Waiters()
        CLEANUP_FAILURES.labels(self.kind)  # exported from zero, so the first failure is an increase

    def dependents(self, kind: str, object_id: str) -> tuple[str, ...]:
        """The objects being provisioned that await the object that changed (``awaited``)."""
        return self.waiters.dependents(kind, object_id)

    async def load(self, tx: Tx, object_id: str) -> M | None:
        """The stored object as the kind's class (being deleted or not), or None once archived."""
        obj = await super().load(tx, object_id)
        return None if obj is None else as_kind(obj, self.message_class)

    async def write(self, tx: Tx, desired: Message, stored: Message) -> M:
        return as_kind(await super().write(tx, desired, stored), self.message_class)

    # -- hooks -------------------------------------------------------------------------------

    def awaited(self, obj: M) -> tuple[Awaited, ...]:
        """The objects (kind name, id) ``waiting_for`` looks at: their changes queue ``obj``."""
        return ()

    def is_following(self, obj: M) -> bool:
        """Whether ``obj`` follows its ``awaited`` objects now: while it is being provisioned."""
        state = status_of(obj).state
        return not is_deleting(obj) and state not in (self.state(self.ready_state), self.state("FAILED"))

    async def waiting_for(self, tx: Tx, obj: M) -> str | None:
        """Why the object cannot be provisioned yet (a message), or None."""
        return None

    async def apply(self, tx: Tx, obj: M) -> ProviderCall | None:
        """Look up, in ``tx`` (a read snapshot), what programming the fabric needs, and return
        the call that does it (idempotent). The call runs once the snapshot is closed: no
        database connection is held while a provider works. None: nothing to program."""
        return None

    async def provisioned(self, tx: Tx, desired: M) -> None:
        """Adjust ``desired`` (and related objects, in ``tx``) once ``apply`` succeeded."""

    async def teardown(self, tx: Tx, obj: M) -> ProviderCall | None:
        """Like ``apply``, the call that undoes the fabric effects (idempotent; deleting the
        unknown succeeds)."""
        return None

    async def released(self, tx: Tx, obj: M) -> None:
        """In the transaction that archives ``obj``: release addresses and claims."""

    def observed(self, object_id: str, obj: M | None) -> None:
        """The object as a pass loads it (None once archived), before anything else: gauges that
        describe it follow it here. Each change of the object queues a pass."""

    def became_ready(self, obj: M, seconds: float) -> None:
        """After the commit that made ``obj`` READY (ALLOCATED), ``seconds`` after its creation."""
        READY_SECONDS.labels(self.kind).observe(seconds)

    # -- the loop ----------------------------------------------------------------------------

    def state(self, name: str) -> int:
        value = self.descriptor.state_value(name)
        assert value is not None, f"{self.descriptor.message} has no state {name}"
        return value

    async def reconcile(self, key: ObjectKey) -> Result:
        async with self.store.read(snapshot=False) as tx:
            obj = await self.load(tx, key.id)
        return await self.settle(key.id, obj)

    async def settle(self, object_id: str, obj: M | None) -> Result:
        """The pass over ``obj`` as just loaded (None: archived): a subclass that reads the
        object itself, with what it needs beside it, hands it on here instead of reading it again."""
        self.observed(object_id, obj)
        self.follow(object_id, obj)
        if obj is None:
            self._forget(object_id)
            return Result()
        if is_deleting(obj):
            return await self._delete(obj)
        return await self._provision(obj)

    async def _provision(self, obj: M) -> Result:
        state = status_of(obj).state
        if state in (self.state(self.ready_state), self.state("FAILED")):
            return Result()
        if CONTROLLER_FINALIZER not in metadata_of(obj).finalizers:
            async with self.store.write() as tx:  # before the first external effect
                stored = await self.load(tx, id_of(obj))
                if stored is None or is_deleting(stored):
                    return Result()
                desired = copy(stored)
                add_finalizer(desired)
                obj = await self.write(tx, desired, stored)
        try:
            async with self.store.read() as tx:
                waiting = await self.waiting_for(tx, obj)
                call = await self.apply(tx, obj) if waiting is None else None
            if call is not None:
                await self._call("apply", obj, call())
        except ProviderError as error:
            return await self._failed(obj, error, phase="provision")
        async with self.store.write() as tx:
            stored = await self.load(tx, id_of(obj))
            if stored is None or is_deleting(stored) or metadata_of(stored).version != metadata_of(obj).version:
                raise TransientError("object changed while provisioning; looking again", delay=timedelta(0))
            desired = as_kind(copy(stored), self.message_class)
            if waiting is not None:
                status_of(desired).message = waiting
                await self.write(tx, desired, stored)
                return Result(requeue_after=self.networking.safety_nets.wait)
            status_of(desired).state = self.state(self.ready_state)
            status_of(desired).message = ""
            await self.provisioned(tx, desired)
            # What it follows once READY, before the writes commit: a change they make to what it
            # followed while provisioning (an attachment's ExternalIP) is not routed back to it.
            self.follow(id_of(obj), desired)
            written = await self.write(tx, desired, stored)
            created = metadata_of(stored).creation_timestamp.ToDatetime(tzinfo=UTC)
            seconds = max(0.0, (tx.clock.now() - created).total_seconds())
            tx.after_commit(lambda: self.became_ready(written, seconds))
        self._forget(id_of(obj), "provision")
        return Result()

    async def _delete(self, obj: M) -> Result:
        if CONTROLLER_FINALIZER not in metadata_of(obj).finalizers:
            return Result()  # never provisioned (or not ours to tear down)
        if status_of(obj).state == self.state("DELETE_FAILED"):
            return Result()  # waits for Delete or Signal
        try:
            async with self.store.read() as tx:
                call = await self.teardown(tx, obj)
            if call is not None:
                await self._call("teardown", obj, call())
        except ProviderError as error:
            return await self._failed(obj, error, phase="teardown")
        async with self.store.write() as tx:
            stored = await self.load(tx, id_of(obj))
            if stored is None:
                return Result()
            desired = copy(stored)
            remove_finalizer(desired)
            if not metadata_of(desired).finalizers:
                await self.released(tx, stored)
            await self.write(tx, desired, stored)
        self._forget(id_of(obj))
        return Result()

    async def _failed(self, obj: Message, error: ProviderError, phase: str) -> Result:
        """Record a provider error: a retry message, or the failed state past the limit."""
        object_id: str = id_of(obj)
        attempt = self._attempts.failed((object_id, phase))
        policy = self.networking.cleanup_retry if phase == "teardown" else self.networking.provider_retry
        terminal = isinstance(error, TerminalProviderError) or policy.is_exhausted(attempt)
        async with self.store.write() as tx:
            stored = await self.load(tx, object_id)
            if stored is None:
                return Result()
            desired = copy(stored)
            status = status_of(desired)
            if terminal:
                status.state = self.state("DELETE_FAILED" if phase == "teardown" else "FAILED")
                status.message = error.message if phase == "provision" else f"teardown failed: {error.message}"
                await self.write(tx, desired, stored)
                if phase == "teardown":
                    tx.after_commit(CLEANUP_FAILURES.labels(self.kind).inc)
                    await lifecycle.record(tx, self.descriptor, desired, lifecycle.WARNING, "DeleteFailed",
                                           f"{object_label(self.descriptor, desired)}: {status.message}")
            else:
                status.message = f"retrying (attempt {attempt}): {error.message}"
                await self.write(tx, desired, stored)
        if terminal:
            self._forget(object_id, phase)
            return Result()
        raise TransientError(status.message, delay=policy.delay(attempt))

    async def _call(self, operation: str, obj: Message, call: Awaitable[object]) -> None:
        """Run one provider step, logging one record per call (§12); the managers time each of
        their own calls (``topology``)."""
        started = time.perf_counter()
        result = "ok"
        try:
            await call
        except TerminalProviderError:
            result = "terminal"
            raise
        except ProviderError:
            result = "transient"
            raise
        finally:
            seconds = time.perf_counter() - started
            log.info("provider call %s.%s %s: %s in %.3fs", self.kind, operation, id_of(obj), result, seconds,
                     extra={"event": "ProviderCall", "kind": self.kind, "operation": operation,
                            "object_id": id_of(obj), "result": result, "tenant": metadata_of(obj).tenant})

    def follow(self, object_id: str, obj: M | None) -> None:
        """Follow what ``obj`` awaits (nothing once it is archived or settled). Called before
        ``waiting_for`` reads the awaited objects, so a change committed after that read queues
        the object again."""
        if obj is not None and self.is_following(obj):
            self.waiters.wait(object_id, self.awaited(obj))
        else:
            self.waiters.forget(object_id)

    def _forget(self, object_id: str, phase: str | None = None) -> None:
        self._attempts.forget(lambda key: key[0] == object_id and (phase is None or key[1] == phase))

