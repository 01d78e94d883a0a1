"""The values a filter expression compiles to, before they become one SQL predicate.

Field paths stay ``Ref``s (a location in the storage JSON) as long as possible, because
``has()``, ``in``, ``exists()`` and ``size()`` need the location, not the value; a ``Ref`` is
turned into SQL only when its value is compared or computed with.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement

from osac.filters.roots import EventRoot
from osac.filters.types import FilterType


@dataclass(frozen=True, eq=False)
class Source:
    """A JSON document in SQL: the ``data`` column, or one element of an array being iterated.

    ``is_element`` marks a row of ``json_each`` / ``jsonb_array_elements``; on SQLite a scalar
    element arrives as a plain SQL value rather than JSON. ``guard`` must hold for the document
    to exist at all (an event payload exists only for events of its kind).
    """

    document: ColumnElement[Any]
    is_element: bool = False
    guard: ColumnElement[bool] | None = None


@dataclass(frozen=True)
class Segment:
    """One step of a path: a field name, or a key of a map (``is_key``)."""

    name: str
    is_key: bool = False


@dataclass(frozen=True, eq=False)
class Ref:
    """A location in a stored object, typed by the descriptor of the API called."""

    type: FilterType
    source: Source
    path: tuple[Segment, ...]
    #: How the user wrote it, for error messages: ``spec.node_sets['workers'].size``.
    display: str
    #: Message the path starts from, for error messages: ``Subnet``.
    owner: str

    def child(self, segment: Segment, type_: FilterType) -> Ref:
        if segment.is_key:
            display = f"{self.display}[{segment.name!r}]"
        elif not self.path and self.display == "this":
            display = segment.name  # the brief form: 'spec.vnet', not 'this.spec.vnet'
        else:
            display = f"{self.display}.{segment.name}"
        return Ref(type_, self.source, (*self.path, segment), display, self.owner)

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(segment.name for segment in self.path)


@dataclass(frozen=True)
class Const:
    """A value known at compile time. Timestamps and durations are integer nanoseconds."""

    type: FilterType
    value: Any


@dataclass(frozen=True, eq=False)
class Sql:
    """A computed SQL value. ``nullable`` means it can be NULL (an evaluation error).

    ``unchecked`` is an integer result before its overflow check, where the database carries
    an overflow through later arithmetic by itself (SQLite's REAL fallback): the next ``+ - *
    /`` builds on it, so the whole arithmetic tree is checked once, not once per operator.
    """

    type: FilterType
    expr: ColumnElement[Any]
    nullable: bool = False
    unchecked: ColumnElement[Any] | None = None


@dataclass(frozen=True)
class EnumName:
    """A bare identifier that is not a variable: an enum value name, resolved by context."""

    name: str


@dataclass(frozen=True)
class ListValue:
    """A list literal; only usable on the right of ``in``."""

    items: tuple[Operand, ...]


@dataclass(frozen=True)
class EventValue:
    """The ``event`` variable itself."""

    root: EventRoot


Operand = Ref | Const | Sql | EnumName | ListValue | EventValue
