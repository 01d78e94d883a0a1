"""Lifecycle events (api.md §7.4): named notices about objects, written in the transaction of
the change they describe and readable with the tenancy of the object."""

from __future__ import annotations

from collections.abc import Collection
from datetime import timedelta

from google.protobuf.message import Message
from prometheus_client import Counter
from sqlalchemy import bindparam, delete, select

from osac.model import ids
from osac.model.kinds import Kind
from osac.model.shape import id_of, metadata_of
from osac.store import direct, schema, statements
from osac.store.codec import format_datetime
from osac.store.objects import Tx

NORMAL = 1
WARNING = 2

#: cluster-status.md §16. Counted when the event is written; a write that loses its optimistic
#: lock rolls back and is counted again by the winner's retry, so this may run slightly ahead.
LIFECYCLE_EVENTS = Counter(
    "osac_lifecycle_events_total",
    "Lifecycle events emitted, by object type, event type and reason (the token before ':').",
    ["object_type", "type", "reason"],
)
_TYPE_NAMES = {NORMAL: "Normal", WARNING: "Warning"}
#: One object's lifecycle events, oldest first (built once: ``store/direct.py``).
_OF_OBJECT = (select(schema.lifecycle_events.c.data)
              .where(schema.lifecycle_events.c.object_id == bindparam("object_id"))
              .order_by(schema.lifecycle_events.c.id))


async def record(tx: Tx, kind: Kind, obj: Message, event_type: int, reason: str, message: str) -> str:
    """Append one lifecycle event about ``obj``; returns its id."""
    now = tx.clock.now()
    event_id = ids.new_id()
    tenant = metadata_of(obj).tenant
    data = {
        "id": event_id,
        "object_type": kind.message,
        "object_id": id_of(obj),
        "tenant": tenant,
        "type": event_type,
        "reason": reason,
        "message": message,
        "timestamp": format_datetime(now),
    }
    name = metadata_of(obj).name
    if name:
        data["object_name"] = name  # the object's events stay findable by name once it is archived
    await direct.execute_later(tx.conn, statements.INSERT_LIFECYCLE_EVENT, {
        "id": event_id, "object_type": kind.message, "object_id": id_of(obj),
        "tenant": tenant, "timestamp": now, "data": data,
    })
    LIFECYCLE_EVENTS.labels(kind.message, _TYPE_NAMES.get(event_type, str(event_type)), reason.split(":", 1)[0]).inc()
    return event_id


async def reasons(tx: Tx, object_id: str, among: Collection[str]) -> list[tuple[str, str]]:
    """(reason, message) of the object's lifecycle events whose reason is one of ``among``,
    oldest first."""
    rows = await direct.execute(tx.conn, _OF_OBJECT, {"object_id": object_id})
    return [(data["reason"], data["message"]) for (data,) in rows if data.get("reason") in among]


async def prune(tx: Tx, retention: timedelta = timedelta(days=30)) -> int:
    """Remove lifecycle events older than ``retention`` (30 days by default)."""
    cutoff = tx.clock.now() - retention
    table = schema.lifecycle_events
    result = await tx.conn.execute(delete(table).where(table.c.timestamp < cutoff))
    return int(result.rowcount or 0)
