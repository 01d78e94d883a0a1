"""``osac get``, ``describe`` and ``watch``: reading objects and the change stream."""

from typing import Annotated

import typer

from osac.cli.errors import CliError, reports_errors
from osac.cli.options import (
    KindArgument,
    MaxEventsOption,
    ObjectsArgument,
    OutputOption,
    ServerOptions,
    calls_server,
)
from osac.cli.output.formats import OutputFormat


@reports_errors
@calls_server()
def get(
    server: ServerOptions,
    kind_word: KindArgument,
    objects: Annotated[list[str] | None, typer.Argument(metavar="ID|NAME", help="Objects by id or name; all when omitted.")] = None,
    output: OutputOption = OutputFormat.TABLE,
    filter: Annotated[str | None, typer.Option("--filter", help="CEL filter over `this`.")] = None,
    sort_by: Annotated[
        str | None,
        typer.Option("--sort-by", metavar="FIELD",
                     help="Sort by name, created, state, id or a field path (.metadata.name); '-' first: "
                          "descending; commas: several fields. The server sorts; ties in creation order."),
    ] = None,
    watch: Annotated[bool, typer.Option("--watch", "-w", help="After the list, print changes as they happen.")] = False,
    max_events: MaxEventsOption = None,
) -> None:
    """List objects of a kind, or show some by id or name. ``get kubeconfig CLUSTER`` and
    ``get password CLUSTER`` print a cluster's kubeconfig and kubeadmin password."""
    from osac.cli.connection.client import KindClient, Listing, watch_events
    from osac.cli.connection.credentials import check_request, credential, is_credential
    from osac.cli.connection.shape import id_of
    from osac.cli.objects.kinds import ids_filter, resolve_kind
    from osac.cli.objects.sorting import sort_order
    from osac.cli.objects.watching import kind_event_filter
    from osac.cli.output.printer import KindPrinter
    from osac.model.kinds import Method

    if is_credential(kind_word):
        listing_options = output != OutputFormat.TABLE or filter is not None or sort_by is not None or watch
        cluster = check_request(kind_word, objects or [], private=server.private, listing_options=listing_options)
        with server.connect() as connection:
            typer.echo(credential(connection, kind_word, cluster), nl=False)
        return
    kind = resolve_kind(kind_word, private=server.private, method=Method.LIST)
    if objects and filter:
        raise CliError("--filter selects among all objects; give either names or --filter")
    order = sort_order(kind, sort_by) if sort_by is not None else None
    with server.connect() as connection:
        client = KindClient(connection, kind)
        if objects:
            found = [client.find(word) for word in objects]
            listing = Listing(found, len(found), 0)
            if watch or order:  # a resume point for exactly these objects, or them in order
                listing = client.list(ids_filter([id_of(obj) for obj in found]), order)
        else:
            listing = client.list(filter, order)
        printer = KindPrinter(client, output)
        printer.print_listing(listing, single=len(objects or []) == 1)
        if not watch:
            return
        ids = [id_of(obj) for obj in listing.items] if objects else None
        events = watch_events(connection, kind_event_filter(kind, filter, ids), listing.revision)
        for count, event in enumerate(events, start=1):
            printer.print_change(getattr(event, kind.name))
            if max_events is not None and count >= max_events:
                break


@reports_errors
@calls_server()
def describe(
    server: ServerOptions,
    kind_word: KindArgument,
    objects: ObjectsArgument,
    watch: Annotated[
        bool, typer.Option("--watch", "-w", help="Keep the view live: print it again on every change.")
    ] = False,
    max_events: MaxEventsOption = None,
) -> None:
    """Show objects in detail: identity, state, key facts, spec, status, labels, the objects it
    references and those referring to it, and its events. A cluster shows its stage, health,
    node sets, conditions and last events instead."""
    from osac.cli.connection.client import KindClient
    from osac.cli.objects.kinds import resolve_kind
    from osac.cli.output.printer import print_lines
    from osac.cli.output.views import describe_live, view
    from osac.model.kinds import Method

    kind = resolve_kind(kind_word, private=server.private, method=Method.GET)
    if watch and len(objects) != 1:
        raise CliError("--watch follows one object; name exactly one")
    with server.connect() as connection:
        client = KindClient(connection, kind)
        if watch:
            describe_live(connection, client, objects[0], max_events)
            return
        for index, word in enumerate(objects):
            print_lines(([""] if index else []) + view(connection, kind, client.find(word)))


@reports_errors
@calls_server()
def watch(
    server: ServerOptions,
    kind_word: Annotated[str | None, typer.Argument(metavar="KIND", help="Only events of this kind.")] = None,
    filter: Annotated[
        str | None, typer.Option("--filter", help="CEL filter over `event` (or `this`, the object, with KIND).")
    ] = None,
    after_revision: Annotated[
        int, typer.Option("--after-revision", help="Replay events after this revision first (0: live only).")
    ] = 0,
    output: Annotated[OutputFormat, typer.Option("--output", "-o", help="table (one line per event) or json.")] = (
        OutputFormat.TABLE
    ),
    max_events: MaxEventsOption = None,
) -> None:
    """Print the change stream: REVISION TYPE KIND NAME STATE per event (or JSON lines)."""
    from osac.cli.connection.client import watch_events
    from osac.cli.objects.kinds import resolve_kind
    from osac.cli.objects.watching import kind_event_filter
    from osac.cli.output.printer import print_event

    if output not in (OutputFormat.TABLE, OutputFormat.JSON):
        raise CliError("watch prints lines (-o table) or JSON lines (-o json)")
    kind = resolve_kind(kind_word, private=server.private) if kind_word else None
    expression = kind_event_filter(kind, filter, None) if kind else filter
    with server.connect() as connection:
        for count, event in enumerate(watch_events(connection, expression, after_revision), start=1):
            print_event(event, output)
            if max_events is not None and count >= max_events:
                break


def register(app: typer.Typer) -> None:
    for command in (get, describe, watch):
        app.command()(command)
