"""Printing objects and events in the chosen output format, including rows that arrive later.

A ``KindPrinter`` prints a listing once (table header and rows, or JSON / YAML / names) and
then, for ``get -w``, one more row or document per change, aligned with the first table.
Referenced ids in ``ref`` columns are shown as names, looked up once per batch.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import typer
from google.protobuf.message import Message
from rich.console import Console
from rich.text import Text

from osac.api.public.v1.event_type_pb2 import Event
from osac.cli.connection.client import KindClient, Listing, field_text
from osac.cli.connection.shape import id_of
from osac.cli.objects.kinds import plural_words
from osac.cli.output.fields import ABSENT, descriptor_of, value_at
from osac.cli.output.render import (
    NAME_PATH,
    CellContext,
    OutputFormat,
    aligned,
    as_json,
    as_yaml,
    event_line,
    list_dict,
    object_reference,
    rows,
    table_lines,
    to_dict,
)
from osac.cli.output.tables import Column, columns_for, reference_targets
from osac.model import registry


class KindPrinter:
    def __init__(self, client: KindClient, output: OutputFormat) -> None:
        self.client = client
        self.kind = client.kind
        self.output = output
        self.columns = columns_for(self.kind, descriptor_of(client.message_class()))
        self._targets = reference_targets(self.kind, self.columns)
        self._names: dict[str, str] = {}
        self._shown: dict[tuple[str, str], str] = {}
        self._looked_up: set[str] = set()
        self._widths: list[int] | None = None
        #: ``get -w``: the header is still to be printed (the listing was empty).
        self._is_header_due = False
        #: ``get -w``: the cells last printed per object id (a change that leaves them is not printed).
        self._printed: dict[str, list[str]] = {}

    def print_listing(self, listing: Listing[Message], *, single: bool = False) -> None:
        """Everything in ``listing``; ``single``: one object asked for by id or name, printed as
        the object rather than as a list in JSON / YAML."""
        items = listing.items
        if self.output is OutputFormat.TABLE:
            if not items:
                typer.echo(f"No {plural_words(self.kind)} found.", err=True)
                self._widths = [len(c.header) for c in self.columns]
                self._is_header_due = True
                return
            table = self._rows(items)
            lines, self._widths = table_lines([c.header for c in self.columns], table)
            for obj, row in zip(items, table, strict=True):
                self._printed[id_of(obj)] = row
            for line in lines:
                typer.echo(line)
        elif self.output is OutputFormat.NAME:
            for obj in items:
                typer.echo(object_reference(self.kind.name, obj))
        else:
            data = to_dict(items[0]) if single and len(items) == 1 else list_dict(
                items, listing.total, listing.revision
            )
            typer.echo(as_json(data) if self.output is OutputFormat.JSON else as_yaml(data).rstrip("\n"))

    def print_change(self, obj: Message) -> None:
        """One changed object, after ``print_listing`` (``get -w``)."""
        if self.output is OutputFormat.TABLE:
            self._print_changed_row(obj)
        elif self.output is OutputFormat.NAME:
            typer.echo(object_reference(self.kind.name, obj))
        elif self.output is OutputFormat.JSON:
            typer.echo(json.dumps(to_dict(obj)))
        else:
            typer.echo("---\n" + as_yaml(to_dict(obj)).rstrip("\n"))

    def _print_changed_row(self, obj: Message) -> None:
        """As kubectl's ``get -w``: a row only when a displayed cell changed (ages aside: they
        move with the clock, not with the object); the header once, before the first row; a
        cell wider than its column widens it for this and later rows."""
        row = self._rows([obj])[0]
        moving = [column.format == "age" for column in self.columns]
        last = self._printed.get(id_of(obj))
        if last is not None and [c for c, m in zip(row, moving, strict=True) if not m] == [
                c for c, m in zip(last, moving, strict=True) if not m]:
            return
        self._printed[id_of(obj)] = row
        widths = [max(width, len(cell)) for width, cell in
                  zip(self._widths or [len(c.header) for c in self.columns], row, strict=True)]
        self._widths = widths
        if self._is_header_due:
            typer.echo(aligned([c.header for c in self.columns], widths))
            self._is_header_due = False
        typer.echo(aligned(row, widths))

    def _rows(self, items: Sequence[Message]) -> list[list[str]]:
        self._learn_names(items)
        return rows(items, self.columns, CellContext(names=self._names, shown=self._shown))

    def _learn_names(self, items: Sequence[Message]) -> None:
        """Look up, once per batch and referenced kind, what ``ref`` and ``oneof`` columns show
        of the objects they reference: their names, and other fields (``show``)."""
        wanted: dict[str, set[str]] = {}  # referenced kind -> ids not looked up yet
        fields: dict[str, set[str]] = {}  # referenced kind -> fields shown besides the name
        for column in self.columns:
            for obj in items:
                for path, object_id in self._references(column, obj):
                    target = self._targets.get(path)
                    if target is None or object_id in self._looked_up:
                        continue
                    wanted.setdefault(target, set()).add(object_id)
                    if column.format == "ref" and column.show != NAME_PATH:
                        fields.setdefault(target, set()).add(column.show)
        for target, ids in wanted.items():
            self._looked_up.update(ids)
            for obj in KindClient(self.client.connection, registry.get(target)).objects(ids):
                object_id = id_of(obj)
                name = field_text(obj, NAME_PATH)
                if name:
                    self._names[object_id] = name
                for path in fields.get(target, ()):
                    self._shown[(path, object_id)] = field_text(obj, path)

    @staticmethod
    def _references(column: Column, obj: Message) -> list[tuple[str, str]]:
        """(reference path, id) pairs a ``ref`` or ``oneof`` cell of ``obj`` shows."""
        value = value_at(obj, column.path)
        if value is ABSENT or not value:
            return []
        if column.format == "ref" and isinstance(value, str):
            return [(column.path, value)]
        if column.format == "oneof" and isinstance(value, tuple):
            chosen, object_id = value
            return [(f"{column.path.rpartition('.')[0]}.{chosen}", object_id)] if object_id else []
        return []


def print_event(event: Event, output: OutputFormat) -> None:
    if output is OutputFormat.JSON:
        typer.echo(json.dumps(to_dict(event)))
    else:
        typer.echo(event_line(event))


def print_lines(lines: Sequence[str]) -> None:
    """Lines on stdout through Rich: section titles (lines ending with ':' at column 0) in bold
    on a terminal, plain text in a pipe; no markup, no wrapping."""
    console = Console(highlight=False, markup=False, soft_wrap=True, emoji=False)
    for line in lines:
        is_title = bool(line) and not line.startswith(" ") and line.endswith(":")
        console.print(Text(line, style="bold" if is_title else ""))
