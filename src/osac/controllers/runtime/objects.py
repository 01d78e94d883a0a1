"""What every object reconciler shares: reading the stored object as the service itself, and
writing status back through the service layer with the version lock."""

from __future__ import annotations

from google.protobuf.message import Message

from osac.controllers.runtime.manager import OwnWrites
from osac.model import registry
from osac.model.kinds import Kind
from osac.model.shape import id_of, metadata_of
from osac.services.core.catalog import Services
from osac.services.core.generic import RECONCILER_PATHS, KindService
from osac.store.objects import Tx

#: The finalizer of infrastructure teardown (api.md §2.6).
CONTROLLER_FINALIZER = "fulfillment-controller"


class ObjectReconciler:
    """Base of the per-kind reconcilers. Subclasses set ``kind`` (a registry name), and
    ``own_writes`` when every pass schedules its own next run (then the change of its own status
    write does not queue the object again)."""

    kind: str
    own_writes: OwnWrites | None = None
    #: What this reconciler writes of its objects (``KindService.write_status`` refuses more).
    writes: tuple[str, ...] = RECONCILER_PATHS

    def __init__(self, services: Services) -> None:
        self.services = services
        self.store = services.store

    @property
    def descriptor(self) -> Kind:
        return registry.get(self.kind)

    @property
    def service(self) -> KindService:
        return self.services[self.kind]

    async def load(self, tx: Tx, object_id: str) -> Message | None:
        """The stored object (being deleted or not), or None once it is archived."""
        return await tx.get(self.descriptor, object_id)

    async def write(self, tx: Tx, desired: Message, stored: Message) -> Message:
        """Persist ``desired`` over ``stored`` (no-op when equal; Conflict when stale)."""
        written = await self.service.write_status(tx, desired, stored, self.writes)
        own = self.own_writes
        # A teardown's passes follow one another through their own writes (each step's write
        # queues the next look), and an archive's change runs the last pass, which forgets.
        event = tx.last_event
        if own is not None and written is not stored and not is_deleting(written) and event is not None:
            object_id: str = id_of(written)
            own.writing(object_id)
            tx.after_commit(lambda: own.committed(object_id, event.revision))  # numbered at commit
            tx.after_rollback(lambda: own.rolled_back(object_id))
        return written


def copy(message: Message) -> Message:
    duplicate = type(message)()
    duplicate.CopyFrom(message)
    return duplicate


def add_finalizer(obj: Message, name: str = CONTROLLER_FINALIZER) -> bool:
    """Add ``name``; reports whether anything changed."""
    finalizers = metadata_of(obj).finalizers
    if name in finalizers:
        return False
    finalizers.append(name)
    return True


def remove_finalizer(obj: Message, name: str = CONTROLLER_FINALIZER) -> bool:
    finalizers = metadata_of(obj).finalizers
    if name not in finalizers:
        return False
    finalizers.remove(name)
    return True


def is_deleting(obj: Message) -> bool:
    return metadata_of(obj).HasField("deletion_timestamp")
