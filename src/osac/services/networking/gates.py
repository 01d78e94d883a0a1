"""Create gates (networking.md §4): what a new object refers to must be live and ready.

``require_ready`` is checked in the writing transaction, on a row the reference resolution has
already locked (``FOR KEY SHARE``), so a concurrent Delete of the referenced object (``FOR
UPDATE``) waits for the create or makes it see the deletion: never both succeed.

**Objects created together** in one transaction (tenant default networking, auto-provisioned
external IPs and attachments) are exempt from each other's gates: they all start PENDING and the
reconcilers order them. ``together`` opens such a scope; every object created inside it through
a networking behaviour is registered with ``add_sibling`` and passes the gates of the others.
The scope also defers address-counter writes (``addresses``) to its end, so the CREATED events
of the objects made together carry consecutive revisions.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from contextvars import ContextVar

from google.protobuf.message import Message

from osac.model.kinds import Kind
from osac.model.shape import id_of, metadata_of, status_of
from osac.services.core.errors import FailedPrecondition, InvalidArgument
from osac.services.networking import addresses
from osac.store.objects import Tx, object_label

_SIBLINGS: ContextVar[set[str] | None] = ContextVar("osac_created_together", default=None)


@asynccontextmanager
async def together(tx: Tx) -> AsyncIterator[set[str]]:
    """Create several objects as one unit: they skip each other's gates, and counters are
    written once at the end. Nested scopes join the outer one."""
    joined = _SIBLINGS.get()
    if joined is not None:
        yield joined
        return
    siblings: set[str] = set()
    token = _SIBLINGS.set(siblings)
    try:
        async with addresses.deferred_counters(tx):
            yield siblings
    finally:
        _SIBLINGS.reset(token)


def add_sibling(object_id: str) -> None:
    """Register an object created inside the current ``together`` scope (no-op outside)."""
    siblings = _SIBLINGS.get()
    if siblings is not None:
        siblings.add(object_id)


def is_sibling(object_id: str) -> bool:
    siblings = _SIBLINGS.get()
    return siblings is not None and object_id in siblings


def is_being_deleted(kind: Kind, obj: Message) -> bool:
    if metadata_of(obj).HasField("deletion_timestamp"):
        return True
    state = status_of(obj).state
    return state in (kind.state_value("DELETING"), kind.state_value("DELETE_FAILED"))


async def load(tx: Tx, kind: Kind, object_id: str) -> Message:
    """A referenced object (already resolved to an id), share-locked."""
    found = await tx.get(kind, object_id, lock="share")
    if found is None:
        raise InvalidArgument(f"{kind.message} '{object_id}' not found")
    return found


def check_ready(kind: Kind, obj: Message, ready: str = "READY") -> None:
    """Raise FAILED_PRECONDITION unless ``obj`` is live and in state ``ready`` (or a sibling).

    Messages: ``Subnet 'app' is being deleted`` / ``Subnet 'app' is not READY (state
    SUBNET_STATE_PENDING)``. The wording says READY for every kind; the state names the actual
    requirement (an ExternalIP must be ALLOCATED)."""
    if is_sibling(id_of(obj)):
        return
    label = object_label(kind, obj)
    if is_being_deleted(kind, obj):
        raise FailedPrecondition(f"{label} is being deleted")
    state = status_of(obj).state
    if state != kind.state_value(ready):
        raise FailedPrecondition(f"{label} is not READY (state {kind.state_name(state)})")


async def require_ready(tx: Tx, kind: Kind, object_id: str, ready: str = "READY") -> Message:
    """Load the referenced object and ``check_ready`` it; returns it."""
    obj = await load(tx, kind, object_id)
    check_ready(kind, obj, ready)
    return obj
