"""What a write prints: the object written (or its id, YAML, JSON), what a Delete did, and the
server's warnings."""

from __future__ import annotations

from collections.abc import Sequence

import typer
from google.protobuf.message import Message

from osac.cli.connection.shape import id_of, metadata_of
from osac.cli.objects.kinds import describe_object
from osac.cli.output.formats import OutputFormat
from osac.cli.output.render import as_json, as_yaml, state_label, to_dict
from osac.model.kinds import Kind


def print_warnings(warnings: Sequence[str]) -> None:
    """The server's warnings about a write, one ``Warning: ...`` line each on stderr."""
    for warning in warnings:
        typer.echo(f"Warning: {warning}", err=True)


def print_written(kind: Kind, obj: Message, output: OutputFormat | None, verb: str) -> None:
    object_id = id_of(obj)
    if output is None:
        typer.echo(f"{describe_object(kind, obj)} {verb}" + (f" (id {object_id})" if object_id else ""))
    elif output is OutputFormat.NAME:
        typer.echo(f"{kind.name}/{object_id}")
    elif output is OutputFormat.YAML:
        typer.echo("---\n" + as_yaml(to_dict(obj)).rstrip("\n"))
    else:
        typer.echo(as_json(to_dict(obj)))


def delete_outcome(kind: Kind, before: Message) -> str:
    """What a Delete did, judged from the object as it was: a DELETE_FAILED object's teardown
    restarts, an object already being deleted carries on, any other starts its deletion."""
    label = describe_object(kind, before)
    if not metadata_of(before).HasField("deletion_timestamp"):
        return f"{label} deleted"
    if state_label(before) == "DELETE_FAILED":
        return f"{label}: teardown restarted (it was DELETE_FAILED)"
    return f"{label} is already being deleted"
