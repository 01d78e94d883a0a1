"""The API semantics every kind shares (api.md §2–§6): one ``KindService`` per kind.

Inputs and outputs are *private* messages; the server converts public messages by field name
before and after. Every method takes the ``Caller`` and enforces tenancy in the store query, so
an object of another tenant behaves exactly as one that does not exist.
"""

from __future__ import annotations

import builtins
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from google.protobuf import timestamp_pb2
from google.protobuf.descriptor import Descriptor
from google.protobuf.message import Message
from sqlalchemy import ColumnElement, String, cast

from osac import filters
from osac.auth.subject import SHARED_TENANT, SYSTEM_TENANT
from osac.model import ids, protos
from osac.model.kinds import Kind, Method, Scope
from osac.model.shape import id_of, metadata_of, set_id, status_of
from osac.services.core import access, fields, limits
from osac.services.core.behaviour import Behaviour, WriteContext, reference_dependents
from osac.services.core.context import Caller
from osac.services.core.dependents import Dependents
from osac.services.core.errors import (
    Aborted,
    AlreadyExists,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
)
from osac.services.core.ordering import parse_order
from osac.store import errors as store_errors
from osac.store import lifecycle
from osac.store.grouping import GroupKey
from osac.store.labels import object_root
from osac.store.objects import Lock, Tenants, Tx, Written, object_label
from osac.store.tables import LIVE

if TYPE_CHECKING:
    from osac.services.core.catalog import Services

SYSTEM_LABEL_PREFIX = "osac.openshift.io/"
DEFAULT_LABEL = "osac.openshift.io/default"
DEFAULT_LIMIT = 100
#: What a reconciler's ``write_status`` may change of an object.
RECONCILER_PATHS = ("status", "metadata.finalizers")
#: Attempts of a last-writer-wins update that keeps losing the race to other writers.
UNLOCKED_UPDATE_ATTEMPTS = 8

_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_LABEL_NAME = re.compile(r"^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$")
_DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


@dataclass(frozen=True)
class Page:
    items: list[Message]
    total: int
    revision: int


@dataclass(frozen=True)
class GroupedCounts:
    """Objects per tuple of key values, and the revision read before counting them."""

    counts: dict[tuple[Any, ...], int]
    revision: int


def page_bounds(offset: int | None, limit: int | None) -> tuple[int, int]:
    """The offset and limit of a List (api.md §6, limits.md): offset and limit 0..2^31-1 (outside
    is refused), limit 0 or absent = 100, above 1000 clamped to 1000."""
    for name, value, (low, high) in (("offset", offset, limits.OFFSET_RANGE), ("limit", limit, limits.LIMIT_RANGE)):
        if value is not None and not low <= value <= high:
            raise InvalidArgument(f"{name}: {value} is out of range; use an integer from {low} to {high}")
    return offset or 0, min(limit or DEFAULT_LIMIT, limits.MAX_PAGE_SIZE)


def now_timestamp(tx: Tx) -> timestamp_pb2.Timestamp:
    stamp = timestamp_pb2.Timestamp()
    stamp.FromDatetime(tx.clock.now())
    return stamp


class KindService:
    """List, Get, Create, Update, Delete and Signal for one kind."""

    def __init__(self, kind: Kind, behaviour: Behaviour, services: Services) -> None:
        self.kind = kind
        self.behaviour = behaviour
        self.services = services
        self.store = services.store

    # -- visibility ----------------------------------------------------------------------------

    def _tenants(self, caller: Caller) -> Tenants:
        visible = caller.subject.visible_tenants
        if visible is not None and self.kind.scope is Scope.SYSTEM:
            return frozenset()
        return visible

    def _visibility(self, caller: Caller) -> list[ColumnElement[bool]]:
        if caller.private:
            return []
        return self.behaviour.public_visibility(LIVE[self.kind.name])

    async def _load(self, tx: Tx, caller: Caller, object_id: str, lock: Lock | None = None) -> Message:
        table = LIVE[self.kind.name]
        visibility = self._visibility(caller)
        if not visibility and lock is None:  # the common read: the store's prebuilt statement
            obj = await tx.get(self.kind, object_id, self._tenants(caller))
        else:
            found = await tx.find(self.kind, table.c.id == object_id, *visibility, tenants=self._tenants(caller),
                                  lock=lock)
            obj = found[0] if found else None
        if obj is None:
            raise NotFound(f"{self.kind.message} '{object_id}' not found")
        return obj

    # -- reads ---------------------------------------------------------------------------------

    async def list(
        self,
        caller: Caller,
        *,
        offset: int | None = None,
        limit: int | None = None,
        filter: str | None = None,
        order: str | None = None,
    ) -> Page:
        access.authorize(caller, self.kind, Method.LIST)
        offset, limit = page_bounds(offset, limit)
        keys = parse_order(self.kind, order)
        where = list(self._visibility(caller))
        async with self.store.read() as tx:
            if filter and filter.strip():
                where.append(self._compile(caller, filter, tx))
            items, total = await tx.page(
                self.kind, *where, tenants=self._tenants(caller), offset=offset, limit=limit, order=keys
            )
            revision = await tx.revision()
        return Page([self.behaviour.redact(item) for item in items], total, revision)

    async def count_by_state(self, caller: Caller) -> dict[int, int]:
        """How many of the objects the caller may list are in each ``status.state`` (0: unset),
        in one aggregate query: what a List per state would count, without reading any object."""
        access.authorize(caller, self.kind, Method.LIST)
        async with self.store.read(snapshot=False) as tx:
            return await tx.count_by_state(self.kind, *self._visibility(caller), tenants=self._tenants(caller))

    async def count_grouped(self, caller: Caller, keys: Sequence[GroupKey]) -> GroupedCounts:
        """How many of the objects the caller may list have each tuple of ``keys`` values
        (``osac.store.grouping``), in one aggregate query: what reading every visible object and
        counting would give, without reading any. The keys are the caller's code's, never a
        client's input: they name stored values that are in every shape of the kind. The revision
        is read first, so a change the counts may miss comes later on the Watch stream."""
        access.authorize(caller, self.kind, Method.LIST)
        async with self.store.read(snapshot=False) as tx:
            revision = await tx.revision()
            counts = await tx.count_grouped(self.kind, keys, *self._visibility(caller), tenants=self._tenants(caller))
        return GroupedCounts(counts, revision)

    def _compile(self, caller: Caller, expression: str, tx: Tx) -> ColumnElement[bool]:
        descriptor = self.kind.message_class(caller.private).DESCRIPTOR
        root = object_root(LIVE[self.kind.name], descriptor, self.kind.write_only_fields)
        try:
            return filters.compile_filter(expression, root, dialect=tx.dialect, now=tx.clock.now())
        except filters.FilterError as error:
            raise InvalidArgument(str(error)) from error

    async def get(self, caller: Caller, object_id: str) -> Message:
        access.authorize(caller, self.kind, Method.GET)
        async with self.store.read(snapshot=False) as tx:
            return self.behaviour.redact(await self._load(tx, caller, object_id))

    async def credential(self, caller: Caller, object_id: str, name: str) -> str:
        """GetKubeconfig / GetPassword: visible objects only, then the kind's provider."""
        method = access.policy.Method.GET_KUBECONFIG if name == "kubeconfig" else access.policy.Method.GET_PASSWORD
        access.authorize(caller, self.kind, method)
        async with self.store.read(snapshot=False) as tx:
            obj = await self._load(tx, caller, object_id)
        return await self.behaviour.credential(obj, name, self.services)

    async def warnings(self, obj: Message) -> Sequence[str]:
        """The kind's warnings about a stored object (a Create's or Update's answer)."""
        return await self.behaviour.warnings(obj, self.services)

    # -- create --------------------------------------------------------------------------------

    async def create(self, caller: Caller, obj: Message) -> Message:
        """Store a new object with its implied children in one transaction (dry run: roll back)."""
        access.authorize(caller, self.kind, Method.CREATE)
        if id_of(obj):
            raise InvalidArgument("id: must be empty on create; the service assigns ids")
        try:
            async with self.store.write() as tx:
                created = await self.create_in(tx, caller, obj)
                if caller.dry_run:
                    await tx.finish()  # its reservations too: a dry run fails as the Create would
                    raise _DryRun(created)
        except _DryRun as dry:
            result = dry.object
            result.ClearField("id")
            return self.behaviour.redact(result)
        return self.behaviour.redact(created)

    async def create_in(self, tx: Tx, caller: Caller, obj: Message) -> Message:
        """Create inside an open transaction (used for implied children too)."""
        obj = _copy(obj)
        meta = metadata_of(obj)
        tenant = self._creation_tenant(caller, meta.tenant, meta.name)
        if self.kind.scope is Scope.TENANT:
            await self._require_live_tenant(tx, tenant)
        self._validate_metadata(caller, obj, stored=None)
        if self._drops_status(caller) and "status" in obj.DESCRIPTOR.fields_by_name:
            obj.ClearField("status")
        meta.tenant = tenant
        meta.creator = caller.user
        meta.version = 0
        meta.ClearField("deletion_timestamp")
        meta.creation_timestamp.CopyFrom(now_timestamp(tx))
        set_id(obj, ids.new_id())
        ctx = WriteContext(tx, caller, self.services)
        await self._resolve_references(ctx, obj)
        self.behaviour.initialize(obj)
        await self.behaviour.prepare(ctx, obj, None)
        self._stamp_transition(obj, None, tx)
        try:
            await tx.insert(self.kind, obj)
        except store_errors.AlreadyExists as error:
            raise AlreadyExists(str(error)) from error
        await self.behaviour.after_create(ctx, obj)
        await self._record_notes(ctx, obj)
        return obj

    def _creation_tenant(self, caller: Caller, requested: str, name: str) -> str:
        scope = self.kind.scope
        if scope is Scope.SHARED:
            if requested and requested != SHARED_TENANT:
                raise InvalidArgument(
                    f"metadata.tenant: {self.kind.message} objects belong to tenant '{SHARED_TENANT}'"
                )
            return SHARED_TENANT
        if scope is Scope.SYSTEM:
            return SYSTEM_TENANT
        if scope is Scope.SELF:
            if not name:
                raise InvalidArgument("metadata.name: required; it is the tenant name used in tokens")
            if requested and requested != name:
                raise InvalidArgument("metadata.tenant: must equal metadata.name for a Tenant (or be empty)")
            return name
        return access.creation_tenant(caller, requested or None)

    async def _require_live_tenant(self, tx: Tx, tenant: str) -> None:
        from osac.model import registry

        deleting = await tx.is_deleting(registry.get("tenant"), tenant, tenant)
        if deleting is None:
            raise FailedPrecondition(f"tenant '{tenant}' does not exist; a provider admin must create it first")
        if deleting:
            raise FailedPrecondition(f"tenant '{tenant}' is being deleted; no new objects can be created in it")

    # -- update --------------------------------------------------------------------------------

    async def update(
        self, caller: Caller, obj: Message, mask: Sequence[str] | None, lock: bool
    ) -> Message:
        """Merge ``obj`` into the stored object (api.md §2.5) and write it if anything changed."""
        object_id = id_of(obj)
        if not object_id:
            raise InvalidArgument("id: required; name the object to update by its id")
        descriptor = protos.descriptor_of(self.kind.message_class(caller.private))
        for path in mask or ():
            try:
                fields.field_of(descriptor, path)
            except fields.PathError:
                raise InvalidArgument(f"update_mask: unknown field path '{path}'") from None
        for attempt in range(UNLOCKED_UPDATE_ATTEMPTS):
            try:
                async with self.store.write() as tx:
                    return self.behaviour.redact(await self.update_in(tx, caller, obj, mask, lock))
            except store_errors.Conflict as conflict:
                if lock or attempt == UNLOCKED_UPDATE_ATTEMPTS - 1:
                    raise Aborted(str(conflict)) from conflict
        raise AssertionError("unreachable")

    async def update_in(
        self, tx: Tx, caller: Caller, obj: Message, mask: Sequence[str] | None, lock: bool
    ) -> Message:
        stored = await self._load(tx, caller, id_of(obj))
        access.authorize(caller, self.kind, Method.UPDATE, labels=metadata_of(stored).labels, tenant=metadata_of(stored).tenant)
        given_version = metadata_of(obj).version
        stored_version = metadata_of(stored).version
        if lock and given_version != stored_version:
            raise Aborted(
                f"version conflict on {object_label(self.kind, stored)}: stored version "
                f"{stored_version}, request carries {given_version}"
            )
        self._check_identity(stored, obj, mask)
        merged = self._merge(caller, stored, obj, mask)
        ctx = WriteContext(tx, caller, self.services)
        await self._resolve_references(ctx, merged)
        self._check_immutable(stored, merged)
        self._validate_metadata(caller, merged, stored=stored)
        if metadata_of(stored).HasField("deletion_timestamp"):
            self._check_deleting_update(caller, stored, merged)
        else:
            await self.behaviour.prepare(ctx, merged, stored)
        self._check_transition(caller, stored, merged)
        if merged == stored:
            return stored
        self._stamp_transition(merged, stored, tx)
        written = await self._replace(tx, merged, stored_version)
        await self._record_notes(ctx, merged)
        return written.object

    async def write_status(
        self, tx: Tx, obj: Message, based_on: Message, paths: Sequence[str] = RECONCILER_PATHS
    ) -> Message:
        """The reconcilers' status write: store ``obj`` (private) over ``based_on`` with the
        version lock; a no-op when nothing changed. Archives when the last finalizer is gone.

        Only ``paths`` (the status and the finalizers) are the reconciler's to write: ``obj``
        differing from ``based_on`` anywhere else (the tenant's spec, its labels) is a bug of the
        caller, refused with ``ValueError`` before anything is written."""
        if obj == based_on:
            return based_on
        outside = _changed_outside(obj, based_on, paths)
        if outside:
            raise ValueError(f"write_status of {self.kind.name} {id_of(obj)}: a reconciler writes only "
                             f"{', '.join(paths)}, not {', '.join(outside)}")
        self._stamp_transition(obj, based_on, tx)
        written = await self._replace(tx, _copy(obj), metadata_of(based_on).version)
        return written.object

    async def _replace(self, tx: Tx, obj: Message, based_on_version: int) -> Written:
        """Every write of an existing object goes through here, so that archiving always runs
        the kind's ``after_archive`` in the same transaction."""
        written = await tx.replace(self.kind, obj, based_on_version)
        if written.archived:
            await self.behaviour.after_archive(tx, written.object)
        return written

    def _writable_paths(self, caller: Caller) -> builtins.list[str]:
        descriptor = self.kind.private_descriptor
        paths = ["metadata.labels", "metadata.annotations"]
        if caller.private:
            paths.append("metadata.finalizers")
        for field in descriptor.fields:
            if field.name in ("id", "metadata"):
                continue
            if field.name == "status" and self._drops_status(caller):
                continue
            paths.append(field.name)
        return paths

    def _drops_status(self, caller: Caller) -> bool:
        """Status input is ignored from public callers, and from every API caller for kinds whose
        status only their derivation writes (api.md §2.5; clusters, instances): reconcilers
        write those through ``write_status``."""
        return not caller.private or self.behaviour.derived_status

    def _merge(self, caller: Caller, stored: Message, given: Message, mask: Sequence[str] | None) -> Message:
        """Copy the caller-writable paths of ``given`` over ``stored``. Public input is merged by
        name, so private-only fields of the stored object survive a public write."""
        merged = _copy(stored)
        writable = self._writable_paths(caller)
        api_descriptor = protos.descriptor_of(self.kind.message_class(caller.private))
        for path in list(mask) if mask else writable:
            if not any(path == w or path.startswith(w + ".") for w in writable):
                continue  # output-only input is ignored
            if path.split(".")[0] not in api_descriptor.fields_by_name:
                continue
            for leaf in self._expand(caller, api_descriptor, path):
                fields.copy_path(given, merged, leaf)
        self._restore_system_labels(caller, stored, merged)
        return merged

    @staticmethod
    def _expand(caller: Caller, api_descriptor: Descriptor, path: str) -> builtins.list[str]:
        """A public write of a message field replaces only the subfields the public API has."""
        if caller.private:
            return [path]
        field = fields.field_of(api_descriptor, path)
        message_type = field.message_type
        if field.is_repeated or message_type is None or message_type.full_name.startswith("google.protobuf."):
            return [path]
        return [f"{path}.{sub.name}" for sub in message_type.fields]

    def _check_identity(self, stored: Message, given: Message, mask: Sequence[str] | None) -> None:
        """Name, tenant and project cannot change; a request may repeat them or leave them empty.
        With an update mask only the paths in it are looked at: fields outside it are ignored
        (api.md §2.5, as Kubernetes patches)."""
        for name in ("name", "tenant", "project"):
            if mask and not any(path in ("metadata", f"metadata.{name}") for path in mask):
                continue
            value = getattr(metadata_of(given), name)
            if value and value != getattr(metadata_of(stored), name):
                raise InvalidArgument(f"metadata.{name} is immutable")

    def _restore_system_labels(self, caller: Caller, stored: Message, merged: Message) -> None:
        """System labels a public caller omitted are kept (omitting is not removing)."""
        if caller.private:
            return
        old = metadata_of(stored).labels
        new = metadata_of(merged).labels
        for key, value in old.items():
            if key.startswith(SYSTEM_LABEL_PREFIX) and key not in new:
                new[key] = value

    def _check_immutable(self, stored: Message, merged: Message) -> None:
        for path in self.kind.immutable:
            before = fields.value_at(stored, path)
            after = fields.value_at(merged, path)
            if before == after:
                continue
            if not fields.has_value(merged, path):
                fields.copy_path(stored, merged, path)  # an omitted immutable field keeps its value
                continue
            raise InvalidArgument(f"{path} is immutable")

    def _check_deleting_update(self, caller: Caller, stored: Message, merged: Message) -> None:
        probe = _copy(merged)
        for path in ("metadata.labels", "metadata.annotations"):
            fields.copy_path(stored, probe, path)
        if caller.private:
            fields.copy_path(stored, probe, "metadata.finalizers")
            if "status" in probe.DESCRIPTOR.fields_by_name:
                fields.copy_path(stored, probe, "status")
        if probe != stored:
            raise FailedPrecondition(f"{object_label(self.kind, stored)}: object is being deleted")

    def _check_transition(self, caller: Caller, stored: Message, merged: Message) -> None:
        transitions = self.behaviour.transitions
        if transitions is None or self.kind.state_enum is None:
            return
        before = status_of(stored).state
        after = status_of(merged).state
        if before != after and after not in transitions.get(before, frozenset()):
            raise FailedPrecondition(
                f"invalid state transition {self.kind.state_name(before)} -> {self.kind.state_name(after)}"
            )

    def _stamp_transition(self, obj: Message, stored: Message | None, tx: Tx) -> None:
        """``state_transition_time`` changes with the state and only then (single writer)."""
        status_field = protos.descriptor_of(obj).fields_by_name.get("status")
        if status_field is None or "state_transition_time" not in protos.message_type_of(status_field).fields_by_name:
            return
        status = status_of(obj)
        if stored is None:
            # A derived status was stamped by its first derivation, with the same "now" as the
            # rest of it; anything else that starts with a state is stamped here.
            is_derived = self.behaviour.derived_status and status.HasField("state_transition_time")
            if status.state and not is_derived:
                status.state_transition_time.CopyFrom(now_timestamp(tx))
            return
        before = status_of(stored)
        if before.state != status.state:
            status.state_transition_time.CopyFrom(now_timestamp(tx))
        elif before.HasField("state_transition_time"):
            status.state_transition_time.CopyFrom(before.state_transition_time)
        else:
            status.ClearField("state_transition_time")

    # -- metadata validation -------------------------------------------------------------------

    def _validate_metadata(self, caller: Caller, obj: Message, stored: Message | None) -> None:
        meta = metadata_of(obj)
        if meta.name and (len(meta.name) > limits.MAX_NAME_LENGTH or not _DNS_LABEL.match(meta.name)):
            raise InvalidArgument(
                f"metadata.name: '{meta.name[:80]}' is not a valid name; use at most 63 lowercase "
                "letters, digits and '-', starting and ending with a letter or digit"
            )
        for key, value in meta.labels.items():
            _check_label(key, value)
        if not caller.private:
            old = dict(metadata_of(stored).labels) if stored is not None else {}
            for key in set(old) | set(meta.labels):
                if key.startswith(SYSTEM_LABEL_PREFIX) and old.get(key) != meta.labels.get(key):
                    raise InvalidArgument(
                        f"metadata.labels: '{key}' is a system label; only the service sets labels "
                        f"under '{SYSTEM_LABEL_PREFIX}'"
                    )

    # -- references ----------------------------------------------------------------------------

    async def _resolve_references(self, ctx: WriteContext, obj: Message) -> None:
        """Replace names by ids (api.md §2.8): the object's tenant first, then ``shared``."""
        from osac.model import registry

        tenant = metadata_of(obj).tenant
        scope = frozenset({tenant, SHARED_TENANT})
        for reference in self.kind.references:
            target = registry.get(reference.target)
            for slot in fields.reference_slots(obj, reference.path):
                value = slot.get()
                if not value:
                    continue
                resolved = await self.resolve(ctx.tx, target, value, scope, tenant)
                if resolved is None:
                    raise InvalidArgument(f"{slot.path}: {target.message} '{value}' not found")
                slot.set(id_of(resolved))

    async def resolve(
        self, tx: Tx, target: Kind, value: str, scope: frozenset[str], tenant: str
    ) -> Message | None:
        by_id = await tx.get(target, value, tenants=scope, lock="share")
        if by_id is not None:
            return by_id
        for candidate_tenant in (tenant, SHARED_TENANT):
            by_name = await tx.by_name(target, value, candidate_tenant, lock="share")
            if by_name is not None:
                return by_name
        return None

    # -- delete and signal ---------------------------------------------------------------------

    async def delete(self, caller: Caller, object_id: str) -> None:
        async with self.store.write() as tx:
            await self.delete_in(tx, caller, object_id)

    async def delete_in(self, tx: Tx, caller: Caller, object_id: str) -> None:
        stored = await self._load(tx, caller, object_id, lock="update")
        access.authorize(caller, self.kind, Method.DELETE, labels=metadata_of(stored).labels, tenant=metadata_of(stored).tenant)
        ctx = WriteContext(tx, caller, self.services)
        if metadata_of(stored).HasField("deletion_timestamp"):
            if self.kind.state_enum is not None and status_of(stored).state == self.kind.state_value("DELETE_FAILED"):
                obj = _copy(stored)
                restarted = self.kind.state_value("DELETING")
                if not self.behaviour.derived_status and restarted is not None:
                    status_of(obj).state = restarted
                await self.behaviour.restart_teardown(ctx, obj)
                if obj != stored:
                    self._stamp_transition(obj, stored, tx)
                    await self._replace(tx, obj, metadata_of(stored).version)
                    await self._record_notes(ctx, obj)
            return
        await self._check_dependents(tx, stored)
        await self.behaviour.check_delete(ctx, stored)
        obj = _copy(stored)
        metadata_of(obj).deletion_timestamp.CopyFrom(now_timestamp(tx))
        deleting = self.kind.state_value("DELETING")
        if deleting is not None:  # at once, derived status or not (cluster-status.md scenario 9)
            status_of(obj).state = deleting
        await self.behaviour.begin_teardown(ctx, obj, stored)
        self._stamp_transition(obj, stored, tx)
        status = status_of(obj) if deleting is not None else None
        if (status is not None and status.state != status_of(stored).state
                and "state_transition_time" in status.DESCRIPTOR.fields_by_name):
            status.state_transition_time.CopyFrom(metadata_of(obj).deletion_timestamp)  # one instant
        await self._replace(tx, obj, metadata_of(stored).version)
        await self._record_notes(ctx, obj)

    async def _check_dependents(self, tx: Tx, stored: Message) -> None:
        """Live objects that reference this one block its delete (networking.md §4)."""
        object_id = id_of(stored)
        found_dependents = Dependents()
        for other, path in reference_dependents(self.kind):
            condition = _reference_condition(other, path, object_id, tx)
            if condition is None:
                found = await _map_reference_dependents(tx, other, path, object_id)
                count, names = len(found), [metadata_of(d).name or id_of(d) for d in found[:5]]
            else:
                count = await tx.count(other, condition)
                names = [metadata_of(d).name or id_of(d) for d in await tx.find(other, condition, limit=5)] if count else []
            found_dependents.add(other.message, count, names)
        found_dependents.check(object_label(self.kind, stored))

    async def signal(self, caller: Caller, object_id: str) -> None:
        access.authorize(caller, self.kind, Method.SIGNAL)
        async with self.store.write() as tx:
            stored = await self._load(tx, caller, object_id)
            obj = _copy(stored)
            ctx = WriteContext(tx, caller, self.services)
            if await self.behaviour.on_signal(ctx, obj):
                self._stamp_transition(obj, stored, tx)
                obj = (await self._replace(tx, obj, metadata_of(stored).version)).object
                await self._record_notes(ctx, obj)
            await tx.signal(self.kind, obj)

    async def _record_notes(self, ctx: WriteContext, obj: Message) -> None:
        for event_type, reason, message in ctx.notes:
            await lifecycle.record(ctx.tx, self.kind, obj, event_type, reason, message)
        ctx.notes.clear()


class _DryRun(Exception):
    """Rolls back a dry-run Create, carrying the would-be object out."""

    def __init__(self, obj: Message) -> None:
        super().__init__("dry run")
        self.object = obj


def _changed_outside(obj: Message, based_on: Message, paths: Sequence[str]) -> builtins.list[str]:
    """The fields (``metadata.x`` for metadata's) where ``obj`` differs from ``based_on``, other
    than ``paths``."""
    changed = []
    for field in obj.DESCRIPTOR.fields:
        if field.name == "metadata":
            mine, theirs = metadata_of(obj), metadata_of(based_on)
            for sub in mine.DESCRIPTOR.fields:
                path = f"metadata.{sub.name}"
                if path not in paths and getattr(mine, sub.name) != getattr(theirs, sub.name):
                    changed.append(path)
        elif field.name not in paths and getattr(obj, field.name) != getattr(based_on, field.name):
            changed.append(field.name)
    return changed


def _copy(message: Message) -> Message:
    copy = type(message)()
    copy.CopyFrom(message)
    return copy


def _check_label(key: str, value: str) -> None:
    prefix, _, name = key.rpartition("/")
    if len(key) > limits.MAX_KEY_LENGTH or (prefix and (len(prefix) > 253 or not _DNS_SUBDOMAIN.match(prefix))):
        raise InvalidArgument(
            f"metadata.labels: key '{key[:80]}' is invalid; use an optional DNS subdomain prefix "
            "and '/', then a name of at most 63 characters"
        )
    if not name or len(name) > 63 or not _LABEL_NAME.match(name):
        raise InvalidArgument(
            f"metadata.labels: key '{key[:80]}' is invalid; the name part must be 1-63 letters, "
            "digits, '-', '_' or '.', starting and ending with a letter or digit"
        )
    if len(value) > limits.MAX_LABEL_VALUE_LENGTH or (value and not _LABEL_NAME.match(value)):
        raise InvalidArgument(
            f"metadata.labels['{key}']: value is invalid; use at most 63 letters, digits, '-', '_' or '.'"
        )


def _reference_condition(kind: Kind, path: str, object_id: str, tx: Tx) -> ColumnElement[bool] | None:
    """A SQL condition "this object's ``path`` refers to ``object_id``", via the filter compiler."""
    expression = _reference_expression(path, object_id)
    if expression is None:
        return None
    root = filters.ObjectRoot(kind.private_descriptor, LIVE[kind.name].c.data)
    return filters.compile_filter(expression, root, dialect=tx.dialect, now=tx.clock.now())


async def _map_reference_dependents(tx: Tx, kind: Kind, path: str, object_id: str) -> builtins.list[Message]:
    """Objects referring to ``object_id`` through a map path (``spec.node_sets{}.host_type``),
    which the filter subset cannot express: the rows whose JSON mentions the id at all are read
    (ids are unique, so these are few) and the path itself is checked on each."""
    mentions = cast(LIVE[kind.name].c.data, String).contains(object_id, autoescape=True)
    return [
        obj for obj in await tx.find(kind, mentions)
        if any(slot.get() == object_id for slot in fields.reference_slots(obj, path))
    ]


def _reference_expression(path: str, object_id: str) -> str | None:
    literal = f'"{object_id}"'
    if "{}" in path:
        return None
    if "[]" not in path:
        return f"this.{path} == {literal}"
    head, _, rest = path.partition("[]")
    rest = rest.lstrip(".")
    if not rest:
        return f"{literal} in this.{head}"
    inner = f"{literal} in e.{rest[:-2]}" if rest.endswith("[]") else f"e.{rest} == {literal}"
    return f"this.{head}.exists(e, {inner})"

