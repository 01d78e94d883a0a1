"""What a filter is evaluated against: one stored object (``this``) or one event (``event``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from google.protobuf.descriptor import Descriptor
from sqlalchemy import ColumnElement


@dataclass(frozen=True, eq=False)
class ObjectRoot:
    """``this``: the object in the shape of the API called.

    ``descriptor`` is the public or private message of the kind (``osac.public.v1.Subnet``):
    names are checked against it, so a public caller cannot reach a private-only field.
    ``data`` is the storage JSON column holding the private object (``kind_table.c.data``).
    """

    descriptor: Descriptor
    data: ColumnElement[Any]
    #: Full protobuf names of fields that cannot be filtered on (write-only secrets).
    hidden_fields: frozenset[str] = frozenset()
    #: ``(key, value or None) ->`` an indexed predicate true exactly for the rows whose
    #: ``metadata.labels`` hold ``key`` (with ``value``): the store's label index. Given, a
    #: top-level label equality or ``'k' in this.metadata.labels`` also gets it, so the database
    #: reads the index instead of every row's JSON; the result is the same either way.
    labelled: Callable[[str, str | None], ColumnElement[bool]] | None = None


@dataclass(frozen=True, eq=False)
class EventRoot:
    """``event``: one row of the events outbox, in the shape of the ``Event`` message.

    ``event.type`` reads ``type_column``; a payload field (a member of the ``payload`` oneof,
    named like the kind, e.g. ``event.subnet``) requires ``kind_column`` to equal that name and
    reads the object from ``data_column``. ``event.revision`` and ``event.id`` can be filtered
    only when their columns are given (``id_column`` must be text).
    """

    descriptor: Descriptor
    type_column: ColumnElement[Any]
    kind_column: ColumnElement[Any]
    data_column: ColumnElement[Any]
    revision_column: ColumnElement[Any] | None = None
    id_column: ColumnElement[Any] | None = None
    payload_oneof: str = "payload"
    #: Full protobuf names of fields that cannot be filtered on (write-only secrets).
    hidden_fields: frozenset[str] = frozenset()


FilterRoot = ObjectRoot | EventRoot
