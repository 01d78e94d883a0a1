"""``osac wait`` and ``osac events``: following an object to its goal, and what happened to it."""

import sys
from typing import Annotated

import typer

from osac.cli.clusters.goals import DEFAULT_EVENT_LIMIT, DEFAULT_TIMEOUT, Goal
from osac.cli.errors import CliError, reports_errors
from osac.cli.options import KindArgument, ObjectArgument, ServerOptions, calls_server


@reports_errors
@calls_server()
def wait_command(
    server: ServerOptions,
    kind_word: KindArgument,
    word: ObjectArgument,
    goal: Annotated[Goal, typer.Option("--for", help=(
        "ready: its usable state (READY; RUNNING for compute and bare-metal instances; ALLOCATED for "
        "external IPs); running: the same; deleted: it is gone."))],
    timeout: Annotated[str, typer.Option("--timeout", help="Give up after this long: 30s, 10m, 1h.")] = (
        f"{int(DEFAULT_TIMEOUT.total_seconds() // 60)}m"
    ),
) -> None:
    """Wait until an object is usable (its lifecycle state, whatever its health) or deleted,
    showing its progress; exit code 1 when it FAILED, or at the timeout."""
    from osac.cli.clusters.wait import ProgressLine, wait_for
    from osac.cli.connection.client import KindClient
    from osac.cli.connection.tokens import parse_duration
    from osac.cli.objects.kinds import resolve_kind
    from osac.model.kinds import Method

    kind = resolve_kind(kind_word, private=server.private, method=Method.GET)
    if kind.state_enum is None:
        raise CliError(f"{kind.message} has no lifecycle state to wait for")
    deadline = parse_duration(timeout)
    line = ProgressLine(sys.stdout, is_terminal=sys.stdout.isatty())
    with server.connect() as connection:
        try:
            closing = wait_for(KindClient(connection, kind), word, goal, deadline, line.show)
        finally:
            line.close()
    typer.echo(closing)


@reports_errors
@calls_server()
def events(
    server: ServerOptions,
    object_reference: Annotated[
        str | None, typer.Option("--object", metavar="KIND/NAME", help="Only the events of this object (or KIND/ID).")
    ] = None,
    limit: Annotated[
        int, typer.Option("--limit", min=1, help="How many of the newest events to show.")
    ] = DEFAULT_EVENT_LIMIT,
) -> None:
    """List the newest lifecycle events, newest first: AGE OBJECT TYPE REASON MESSAGE."""
    from osac.cli.clusters.clock import reference_now
    from osac.cli.clusters.events import (
        LIST_HEADERS,
        listed_rows,
        newest_events,
        object_events_filter,
        object_names,
    )
    from osac.cli.output.render import table_lines

    with server.connect() as connection:
        expression = object_events_filter(connection, object_reference) if object_reference else None
        found = newest_events(connection, limit, expression)
        names = object_names(connection, found)
    if not found:
        typer.echo("No lifecycle events found.", err=True)
        return
    for text in table_lines(LIST_HEADERS, listed_rows(found, names, reference_now()))[0]:
        typer.echo(text)


def register(app: typer.Typer) -> None:
    app.command("wait")(wait_command)
    app.command()(events)
