"""Per-kind semantics plugged into the generic service.

The generic service (``generic.py``) does everything that is the same for every kind: tenancy,
authorisation, metadata, update masks, immutability, references, versions, events, finalizers.
A kind's module subclasses ``Behaviour`` to add what only that kind has: defaults, validation,
implied children, delete gates, its state machine. ``Behaviour`` is generic in the kind's
generated class (``class SubnetBehaviour(Behaviour[Subnet])``), so the hooks see typed objects.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Generic, TypeVar

from google.protobuf.message import Message
from sqlalchemy import ColumnElement, Table

from osac.model.kinds import Kind
from osac.model.shape import status_of
from osac.services.core.context import Caller
from osac.store.objects import Tx

if TYPE_CHECKING:
    from osac.services.core.catalog import Services


@dataclass
class WriteContext:
    """What a hook may use while the write transaction is open."""

    tx: Tx
    caller: Caller
    services: Services
    #: Lifecycle events to record with this write: (type, reason, message).
    notes: list[tuple[int, str, str]] = field(default_factory=list)


M = TypeVar("M", bound=Message)


class Behaviour(Generic[M]):
    """Default behaviour: no extra rules. Override what the kind needs."""

    #: Status of this kind is derived by its reconciler (clusters, instances): API writes of its
    #: status are dropped; the service writes only what Delete starts (DELETING, ``begin_teardown``).
    derived_status: bool = False
    #: Allowed state transitions for private status writes, or None to allow any.
    transitions: Mapping[int, frozenset[int]] | None = None

    def __init__(self, kind: Kind) -> None:
        self.kind = kind

    def initialize(self, obj: M) -> None:
        """Set the initial status of a new object (state PENDING, managed conditions, ...)."""
        state = self.kind.state_value("PENDING")
        if state is not None and not status_of(obj).state:
            status_of(obj).state = state

    async def prepare(self, ctx: WriteContext, obj: M, stored: M | None) -> None:
        """Default and validate the merged object (``stored`` is None on create). References
        are already resolved to ids. Raise a ServiceError to refuse the write."""

    async def warnings(self, obj: M, services: Services) -> list[str]:
        """What the stored ``obj`` asks for that cannot come true as things stand (a valid
        request, so not an error); asked after a Create or Update has committed."""
        return []

    async def after_create(self, ctx: WriteContext, obj: M) -> None:
        """Create implied children in the same transaction (after ``obj`` is stored)."""

    async def check_delete(self, ctx: WriteContext, obj: M) -> None:
        """Refuse a delete (FailedPrecondition naming the dependents)."""

    async def on_signal(self, ctx: WriteContext, obj: M) -> bool:
        """A private Signal: retry failed work (api.md §3). By default FAILED goes back to
        PENDING and DELETE_FAILED to DELETING, so the reconciler (level-triggered) retries with a
        fresh budget. Returns whether ``obj`` was changed."""
        if self.derived_status or self.kind.state_enum is None:
            return False
        status = status_of(obj)
        failed, pending = self.kind.state_value("FAILED"), self.kind.state_value("PENDING")
        delete_failed, deleting = self.kind.state_value("DELETE_FAILED"), self.kind.state_value("DELETING")
        if status.state == failed and pending is not None:
            status.state = pending
            status.message = "retrying after Signal"
            return True
        if status.state == delete_failed and deleting is not None:
            status.state = deleting
            status.message = "retrying teardown after Signal"
            return True
        return False

    async def begin_teardown(self, ctx: WriteContext, obj: M, stored: M) -> None:
        """Delete of ``stored``, not yet deleting: ``obj`` carries its ``deletion_timestamp`` and
        state DELETING (set by the generic service for every kind with a lifecycle state, so a
        Get right after the Delete shows it). A ``derived_status`` kind whose derivation writes
        more on entering teardown writes it here too (the cluster: stage, conditions, events in
        ``ctx.notes``), so its reconciler carries on as from its own write."""

    async def restart_teardown(self, ctx: WriteContext, obj: M) -> None:
        """Delete on an object in DELETE_FAILED: reset the retry budget and state. The generic
        service has already set DELETING, except for ``derived_status`` kinds, whose derivation
        moves the state once this hook has cleared what records the failure."""

    async def after_archive(self, tx: Tx, obj: M) -> None:
        """The object was archived in this transaction (``obj`` is its last state): release
        what it held that is not an object (uniqueness claims, ...). Called by whoever archives
        (the generic service's writes; the reconcilers' status writes)."""

    async def credential(self, obj: M, name: str, services: Services) -> str:
        """A credential served from the provider (cluster ``kubeconfig`` / ``password``)."""
        from osac.services.core.errors import FailedPrecondition
        from osac.store.objects import object_label

        raise FailedPrecondition(
            f"{object_label(self.kind, obj)}: the control plane has not been available yet; "
            f"the {name} is served once it is"
        )

    def redact(self, obj: M) -> M:
        """What API callers are shown of a stored object: write-only fields (a cluster's pull
        secret) masked. ``obj`` is the service's own copy and may be changed in place."""
        self.kind.mask_write_only(obj)
        return obj

    def public_visibility(self, table: Table) -> list[ColumnElement[bool]]:
        """Extra conditions on what public callers may see of this kind."""
        return []


def reference_dependents(kind: Kind) -> list[tuple[Kind, str]]:
    """Every (kind, reference path) in the registry that points at ``kind`` and blocks its delete."""
    from osac.model import registry

    found = []
    for other in registry.KINDS:
        for reference in other.references:
            if reference.target == kind.name and reference.blocks_delete:
                found.append((other, reference.path))
    return found
