"""Turning API messages into output: aligned tables, proto JSON / YAML, names, event lines.

Tables are plain text with columns padded to a width, so a table reads the same on a terminal,
in a pipe and in a test, and rows printed later (``get -w``) line up with the first ones.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import yaml
from google.protobuf import json_format
from google.protobuf.descriptor import FieldDescriptor, OneofDescriptor
from google.protobuf.message import Message
from google.protobuf.timestamp_pb2 import Timestamp

from osac.api.public.v1.event_type_pb2 import Event
from osac.cli.connection.shape import id_of
from osac.cli.objects.kinds import display_name
from osac.cli.objects.rules import short_rule
from osac.cli.output.fields import (
    ABSENT,
    descriptor_of,
    enum_label,
    enum_type_of,
    is_map,
    lookup_field,
    value_at,
)
from osac.cli.output.formats import OutputFormat as OutputFormat
from osac.cli.output.tables import Column
from osac.model import registry
from osac.status.clusters import cells, summary

EMPTY = "-"
COLUMN_GAP = "   "
NAME_PATH = "metadata.name"
#: A column given to formatters called without one.
TEXT = Column("", "")
#: Rule lists up to this long are spelled out in tables; longer ones are counted.
SHORT_RULES = 2


@dataclass(frozen=True)
class CellContext:
    """What formatting a cell may need besides the value."""

    now: datetime = field(default_factory=lambda: datetime.now(UTC))
    #: Names of referenced objects by id, for ``ref`` columns.
    names: Mapping[str, str] = field(default_factory=dict)
    #: Other fields of referenced objects, by (field path, id), for ``ref`` columns with ``show``.
    shown: Mapping[tuple[str, str], str] = field(default_factory=dict)


Formatter = Callable[[Any, FieldDescriptor | OneofDescriptor, CellContext, Column], str]


def format_text(
    value: Any, field: FieldDescriptor | OneofDescriptor, context: CellContext, column: Column = TEXT
) -> str:
    if isinstance(field, OneofDescriptor):
        return format_oneof(value, field, context, column)
    if field.is_repeated and not is_map(field):
        return ",".join(format_scalar(item, field) for item in value) or EMPTY
    if is_map(field):
        return ",".join(f"{k}={v}" for k, v in sorted(value.items())) or EMPTY
    return format_scalar(value, field) or EMPTY


def format_scalar(value: Any, field: FieldDescriptor) -> str:
    if isinstance(value, Message):
        if isinstance(value, Timestamp):
            return value.ToJsonString()
        return json.dumps(to_dict(value), separators=(",", ":"))
    if field.type == FieldDescriptor.TYPE_ENUM:
        return enum_label(enum_type_of(field), value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def format_enum(
    value: Any, field: FieldDescriptor | OneofDescriptor, context: CellContext, column: Column = TEXT
) -> str:
    if isinstance(field, FieldDescriptor) and field.enum_type is not None and not field.is_repeated:
        return enum_label(enum_type_of(field), value) if value else EMPTY
    return format_text(value, field, context, column)


def format_age(
    value: Any, field: FieldDescriptor | OneofDescriptor, context: CellContext, column: Column = TEXT
) -> str:
    if not isinstance(value, Timestamp):
        return EMPTY
    return age(context.now - value.ToDatetime(tzinfo=UTC))


def format_ref(
    value: Any, field: FieldDescriptor | OneofDescriptor, context: CellContext, column: Column = TEXT
) -> str:
    if isinstance(value, str):
        if column.show != NAME_PATH and (column.show, value) in context.shown:
            return context.shown[(column.show, value)] or EMPTY
        return context.names.get(value, value) or EMPTY
    return format_text(value, field, context, column)


def format_count(
    value: Any, field: FieldDescriptor | OneofDescriptor, context: CellContext, column: Column = TEXT
) -> str:
    return str(len(value))


def format_yes(
    value: Any, field: FieldDescriptor | OneofDescriptor, context: CellContext, column: Column = TEXT
) -> str:
    return "yes" if value else "no"


def format_oneof(
    value: Any, field: FieldDescriptor | OneofDescriptor, context: CellContext, column: Column = TEXT
) -> str:
    chosen, target = value
    return f"{chosen}/{context.names.get(target, target)}" if target else EMPTY


def format_rules(
    value: Any, field: FieldDescriptor | OneofDescriptor, context: CellContext, column: Column = TEXT
) -> str:
    """Security rules in short: ``tcp/443,icmp`` for up to ``SHORT_RULES`` rules, else ``5 rules``;
    ``none`` for no rules (nothing passes)."""
    if not value:
        return "none"
    if len(value) > SHORT_RULES:
        return f"{len(value)} rules"
    return ",".join(short_rule(rule) for rule in value)


def format_stage(
    value: Any, field: FieldDescriptor | OneofDescriptor, context: CellContext, column: Column = TEXT
) -> str:
    """The STAGE cell of a cluster (cluster-status.md §14), by the rule the web console shares."""
    return cells.stage_cell(value) if isinstance(value, Message) else EMPTY


def format_health(
    value: Any, field: FieldDescriptor | OneofDescriptor, context: CellContext, column: Column = TEXT
) -> str:
    """The HEALTH cell of a cluster, by the rule the web console shares."""
    return cells.health_cell(value) if isinstance(value, Message) else EMPTY


FORMATTERS: dict[str, Formatter] = {
    "text": format_text,
    "enum": format_enum,
    "age": format_age,
    "ref": format_ref,
    "count": format_count,
    "yes": format_yes,
    "oneof": format_oneof,
    "rules": format_rules,
    "cluster_stage": format_stage,
    "cluster_health": format_health,
}


def age(delta: Any) -> str:
    """``45s``, ``12m``, ``3h``, ``2d`` (kubectl's AGE; shared with the web console)."""
    return summary.age(delta)


def cell(obj: Message, column: Column, context: CellContext) -> str:
    field = lookup_field(descriptor_of(obj), column.path)
    value = value_at(obj, column.path)
    if field is None or value is ABSENT:
        return EMPTY
    try:
        return FORMATTERS[column.format](value, field, context, column)
    except Exception:  # a value the formatter does not expect must not break the listing
        return str(value)


def rows(objects: Iterable[Message], columns: Sequence[Column], context: CellContext) -> list[list[str]]:
    return [[cell(obj, column, context) for column in columns] for obj in objects]


def widths_of(headers: Sequence[str], table: Sequence[Sequence[str]]) -> list[int]:
    return [max([len(h), *(len(row[i]) for row in table)]) for i, h in enumerate(headers)]


def aligned(row: Sequence[str], widths: Sequence[int]) -> str:
    return COLUMN_GAP.join(text.ljust(width) for text, width in zip(row, widths, strict=False)).rstrip()


def table_lines(headers: Sequence[str], table: Sequence[Sequence[str]]) -> tuple[list[str], list[int]]:
    """The header and rows as aligned lines, and the widths used (for rows printed later)."""
    widths = widths_of(headers, table)
    return [aligned(headers, widths), *(aligned(row, widths) for row in table)], widths


# -- structured output ---------------------------------------------------------------------------


def to_dict(message: Message) -> dict[str, Any]:
    """Proto JSON with proto field names (the API's JSON shape, api.md §5)."""
    return json_format.MessageToDict(message, preserving_proto_field_name=True)


def list_dict(items: Sequence[Message], total: int, revision: int) -> dict[str, Any]:
    """A List response in proto JSON (int64 ``revision`` as a string)."""
    return {"size": len(items), "total": total, "items": [to_dict(i) for i in items], "revision": str(revision)}


def as_json(data: Any) -> str:
    return json.dumps(data, indent=2)


def as_yaml(data: Any) -> str:
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True)


def object_reference(kind_name: str, obj: Message) -> str:
    """``subnet/<id>``, the ``-o name`` form."""
    return f"{kind_name}/{id_of(obj)}"


# -- events --------------------------------------------------------------------------------------


def state_label(obj: Message) -> str:
    field = lookup_field(descriptor_of(obj), "status.state")
    value = value_at(obj, "status.state")
    if not isinstance(field, FieldDescriptor) or field.enum_type is None or value is ABSENT:
        return EMPTY
    return enum_label(enum_type_of(field), value)


def event_object(event: Event) -> tuple[str, Message | None]:
    """The kind name and object an event carries (``("?", None)`` for an unknown payload)."""
    chosen = event.WhichOneof("payload")
    if chosen is None:
        return "?", None
    return chosen, getattr(event, chosen)


def event_type_label(event: Event) -> str:
    type_field = descriptor_of(event).fields_by_name["type"]
    return enum_label(enum_type_of(type_field), event.type)


def event_line(event: Event) -> str:
    """``REVISION TYPE KIND NAME STATE``, e.g. ``14  CREATED  subnet  app  PENDING``."""
    kind_name, obj = event_object(event)
    type_label = event_type_label(event).removeprefix("OBJECT_")
    name = display_name(obj) if obj is not None else EMPTY
    state = state_label(obj) if obj is not None else EMPTY
    return aligned([str(event.revision), type_label, kind_name, name, state], EVENT_WIDTHS)


EVENT_WIDTHS = (8, 9, max(len(k.name) for k in registry.KINDS), 24, 0)
