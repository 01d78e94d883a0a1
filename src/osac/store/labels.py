"""The label index: one row per (object, label key), kept by the database itself.

``object_labels`` holds every live object's ``metadata.labels`` as rows ``(object_table,
object_id, key, value)``. Triggers on every live table write it in the transaction that writes
the object (insert; an update whose labels changed; delete when the object is archived), so it is
exact whatever wrote the row and a crash cannot leave it behind the objects (migration 0008).

A filter's top-level ``this.metadata.labels['k'] == 'v'`` and ``'k' in this.metadata.labels``
are then served by the primary key instead of a scan of the JSON of every object
(``osac.filters`` adds ``labelled(key, value)`` to the predicate; docs/filters.md).
"""

from __future__ import annotations

from functools import cache, partial

from google.protobuf.descriptor import Descriptor
from sqlalchemy import Column, ColumnElement, Index, PrimaryKeyConstraint, String, Table, select

from osac.filters import ObjectRoot
from osac.store.schema import ID_LENGTH, metadata

object_labels = Table(
    "object_labels",
    metadata,
    Column("object_table", String(64), nullable=False),
    Column("object_id", String(ID_LENGTH), nullable=False),
    Column("key", String(), nullable=False),
    Column("value", String(), nullable=False),
    PrimaryKeyConstraint("object_table", "key", "value", "object_id"),
    Index(None, "object_id"),
)


def labelled(table: Table, key: str, value: str | None) -> ColumnElement[bool]:
    """Rows of ``table`` (a live table) whose labels hold ``key`` (with ``value``, unless None)."""
    rows = object_labels.c
    query = select(rows.object_id).where(rows.object_table == table.name, rows.key == key)
    if value is not None:
        query = query.where(rows.value == value)
    return table.c.id.in_(query)


@cache
def object_root(table: Table, descriptor: Descriptor, hidden_fields: frozenset[str] = frozenset()) -> ObjectRoot:
    """The filter root ``this`` over the live ``table``, with its label index.

    One root per table, descriptor and hidden fields (there are a few per kind), so the compiled
    filters cached by root (``osac.filters.cache``) are found again on the next List."""
    return ObjectRoot(descriptor, table.c.data, hidden_fields=hidden_fields, labelled=partial(labelled, table))
