"""The Tenant reconciler: the DEFAULT_NETWORKING_READY condition and tenant state
(networking.md §6.2), and the teardown of the defaults when the tenant is deleted (§10.4).

The condition is evaluated until it first becomes TRUE; then it and READY stay (later trouble
shows on the objects themselves). A failure reason makes the tenant FAILED; when the failed
default recovers the tenant goes READY.

Metrics (§13): the time from the tenant's creation to the condition's TRUE ``Ready`` is observed
once (the condition is not evaluated again), and each turn of the condition to FALSE with a
failure reason is counted once, not on every pass that finds it so.

Until then, and while its defaults are torn down, the tenant follows its default objects
(``dependents``): each of their changes (READY, FAILED, recovered, archived) queues it at once,
and its periodic look (``SafetyNets.tenant_recheck``) is only a safety net.
"""

from __future__ import annotations

from datetime import UTC, timedelta

from google.protobuf.message import Message

from osac.api.private.v1.condition_status_type_pb2 import ConditionStatus
from osac.api.private.v1.tenant_type_pb2 import (
    TENANT_CONDITION_TYPE_DEFAULT_NETWORKING_READY,
    TENANT_STATE_FAILED,
    TENANT_STATE_PENDING,
    TENANT_STATE_READY,
    Tenant,
)
from osac.controllers.networking import topology
from osac.controllers.networking.metrics import DEFAULT_NETWORKING_FAILURES, DEFAULT_NETWORKING_SECONDS
from osac.controllers.runtime.conditions import FALSE, TRUE, find_condition, set_condition
from osac.controllers.runtime.manager import ObjectKey, Result
from osac.controllers.runtime.objects import (
    ObjectReconciler,
    add_finalizer,
    copy,
    is_deleting,
    remove_finalizer,
)
from osac.controllers.runtime.safety_nets import SafetyNets
from osac.controllers.runtime.waiters import Waiters
from osac.model import registry
from osac.model.shape import as_kind, id_of, metadata_of, status_of
from osac.services.core.catalog import Services
from osac.services.core.context import Caller
from osac.services.tenancy.default_networking import CREATED_REASON, DEFAULT_LABEL
from osac.store import lifecycle
from osac.store.objects import Tx

DEFAULT_NETWORKING_READY = TENANT_CONDITION_TYPE_DEFAULT_NETWORKING_READY
PENDING, READY, FAILED = TENANT_STATE_PENDING, TENANT_STATE_READY, TENANT_STATE_FAILED
NOT_CONFIGURED = "no tenant defaults are configured; no default networking was created"

#: (kind, failure reason) in the order of §6.2; the NAT ExternalIP's failure is the gateway's.
DEFAULTS = (
    ("virtual_network", "VirtualNetworkProvisioningFailed"),
    ("subnet", "SubnetProvisioningFailed"),
    ("security_group", "SecurityGroupProvisioningFailed"),
    ("external_ip", "NATGatewayProvisioningFailed"),
    ("nat_gateway", "NATGatewayProvisioningFailed"),
)
#: The failure reasons of DEFAULT_NETWORKING_READY, each counted in
#: ``osac_default_networking_failures_total{reason}``.
DEFAULT_NETWORKING_FAILURE_REASONS = frozenset(reason for _, reason in DEFAULTS)
#: Teardown order of a tenant holding only defaults (§10.4).
TEARDOWN = ("nat_gateway", "external_ip", "security_group", "subnet", "virtual_network")


async def default_objects(tx: Tx, tenant: str) -> dict[str, list[Message]]:
    found: dict[str, list[Message]] = {}
    for kind_name in TEARDOWN:
        kind = registry.get(kind_name)
        objects = await tx.find(kind, tenants=frozenset({tenant}))
        found[kind_name] = [o for o in objects if metadata_of(o).labels.get(DEFAULT_LABEL) == "true"]
    return found


async def defaults_were_created(tx: Tx, tenant_id: str) -> bool:
    return bool(await lifecycle.reasons(tx, tenant_id, (CREATED_REASON,)))


def evaluate(objects: dict[str, list[Message]], created: bool) -> tuple[ConditionStatus, str, str]:
    """(condition status, reason, message) of DEFAULT_NETWORKING_READY (§6.2 table)."""
    if not created and not any(objects.values()):
        return TRUE, "DefaultsNotConfigured", NOT_CONFIGURED
    waiting = []
    for kind_name, reason in DEFAULTS:
        kind = registry.get(kind_name)
        for obj in objects[kind_name]:
            label = f"{kind.message} '{metadata_of(obj).name}'"
            if status_of(obj).state == kind.state_value("FAILED"):
                culprit = "NATGateway 'default'" if kind_name == "external_ip" else label
                return FALSE, reason, f"{culprit} failed to provision: {status_of(obj).message}"
            ready = kind.state_value("ALLOCATED" if kind_name == "external_ip" else "READY")
            if status_of(obj).state != ready:
                waiting.append(f"{label} ({topology.state_name(kind_name, obj)})")
    if waiting:
        return FALSE, "Provisioning", "waiting for " + ", ".join(waiting)
    return TRUE, "Ready", "default networking is ready"


class TenantReconciler(ObjectReconciler):
    kind = "tenant"

    def __init__(self, services: Services, recheck: timedelta = SafetyNets().tenant_recheck) -> None:
        super().__init__(services)
        #: While defaults provision (or are torn down), the tenant looks again this often: their
        #: changes queue it at once (``dependents``), so this is the safety net.
        self.recheck = recheck
        #: The default objects each tenant (in this process) waits for.
        self.defaults = Waiters()
        for reason in DEFAULT_NETWORKING_FAILURE_REASONS:  # exported from zero: the first failure is an increase
            DEFAULT_NETWORKING_FAILURES.labels(reason)

    def dependents(self, kind: str, object_id: str) -> tuple[str, ...]:
        """The tenant waiting for the default object that changed."""
        return self.defaults.dependents(kind, object_id)

    def _follow(self, tenant_id: str, objects: dict[str, list[Message]]) -> Result | None:
        """Follow ``objects``. A default this pass follows for the first time may have changed
        between the read and now unnoticed, so the tenant then looks again at once."""
        keys = [(kind_name, id_of(obj)) for kind_name, found in objects.items() for obj in found]
        return Result(requeue_after=timedelta(0)) if self.defaults.wait(tenant_id, keys) else None

    async def reconcile(self, key: ObjectKey) -> Result:
        async with self.store.write() as tx:
            loaded = await self.load(tx, key.id)
            if loaded is None:
                self.defaults.forget(key.id)
                return Result()
            stored = as_kind(loaded, Tenant)
            if is_deleting(stored):
                return await self._teardown(tx, stored)
            desired = as_kind(copy(stored), Tenant)
            add_finalizer(desired)
            status = desired.status
            condition = find_condition(status.conditions, DEFAULT_NETWORKING_READY)
            if condition is not None and condition.status == TRUE:
                self.defaults.forget(key.id)
                status.state = READY
                await self.write(tx, desired, stored)
                return Result()
            was = (condition.status, condition.reason) if condition is not None else None
            objects = await default_objects(tx, stored.metadata.name)
            look_again = self._follow(key.id, objects)
            verdict, reason, message = evaluate(objects, await defaults_were_created(tx, key.id))
            set_condition(status.conditions, DEFAULT_NETWORKING_READY, verdict, reason, message, tx.clock.now())
            before = stored.status.state
            if verdict == TRUE:
                status.state, status.message = READY, "tenant is ready"
            elif reason == "Provisioning":
                status.state = FAILED if before == FAILED else PENDING
                status.message = message
            else:
                status.state, status.message = FAILED, message
            written = await self.write(tx, desired, stored)
            if verdict == TRUE and reason == "Ready":
                await lifecycle.record(tx, self.descriptor, written, lifecycle.NORMAL, "DefaultNetworkingReady", message)
                created = stored.metadata.creation_timestamp.ToDatetime(tzinfo=UTC)
                seconds = max(0.0, (tx.clock.now() - created).total_seconds())
                tx.after_commit(lambda: DEFAULT_NETWORKING_SECONDS.observe(seconds))
            elif status.state == FAILED and before != FAILED:
                await lifecycle.record(tx, self.descriptor, written, lifecycle.WARNING, "DefaultNetworkingFailed", message)
            if verdict == FALSE and reason in DEFAULT_NETWORKING_FAILURE_REASONS and was != (FALSE, reason):
                tx.after_commit(DEFAULT_NETWORKING_FAILURES.labels(reason).inc)
        if verdict == TRUE:
            self.defaults.forget(key.id)
            return Result()
        # A failed default may recover (fault cleared, Signal): its change queues the tenant.
        return look_again or Result(requeue_after=self.recheck)

    async def _teardown(self, tx: Tx, stored: Tenant) -> Result:
        """Delete the defaults one kind after the other; archive the tenant when none is left."""
        objects = await default_objects(tx, stored.metadata.name)
        look_again = self._follow(stored.id, objects)
        for kind_name in TEARDOWN:
            if objects[kind_name]:
                for obj in objects[kind_name]:
                    if not is_deleting(obj):
                        await self.services[kind_name].delete_in(tx, Caller.system(), id_of(obj))
                return look_again or Result(requeue_after=self.recheck)
        desired = copy(stored)
        remove_finalizer(desired)
        await self.write(tx, desired, stored)
        return Result()
