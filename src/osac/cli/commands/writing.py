"""``osac create``, ``edit``, ``label``, ``delete``, ``scale``, ``restart`` and ``signal``: writes."""

from typing import Annotated, Any

import typer
from typer.core import TyperCommand

from osac.cli.errors import CliError, reports_errors
from osac.cli.options import (
    KindArgument,
    ObjectArgument,
    ObjectsArgument,
    ServerOptions,
    SetOption,
    calls_server,
)
from osac.cli.output.formats import OutputFormat

EXTRA_ARGUMENTS = {"allow_extra_args": True, "ignore_unknown_options": True}


class KindFlagsHelp(TyperCommand):
    """``osac create``: its epilog lists the per-kind options, read from their declarations only
    when the help is shown."""

    @property
    def epilog(self) -> str:
        from osac.cli.objects.kind_flags import flags_help

        return flags_help()

    @epilog.setter
    def epilog(self, value: Any) -> None:
        """The epilog is always the declared per-kind options."""


@reports_errors
@calls_server()
def create(
    server: ServerOptions,
    context: typer.Context,
    kind_word: Annotated[str | None, typer.Argument(metavar="KIND", help="Kind (optional with -f files naming theirs).")] = None,
    file: Annotated[
        list[str] | None, typer.Option("--file", "-f", help="YAML or JSON objects (API shape); '-' for stdin.")
    ] = None,
    name: Annotated[str | None, typer.Option("--name", help="metadata.name")] = None,
    tenant: Annotated[str | None, typer.Option("--tenant", help="metadata.tenant (default: your first tenant)")] = None,
    label: Annotated[list[str] | None, typer.Option("--label", "-l", metavar="KEY=VALUE", help="Label; repeatable.")] = None,
    set_: SetOption = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Validate everything, create nothing.")] = False,
    output: Annotated[OutputFormat | None, typer.Option("--output", "-o", help="Print the created objects.")] = None,
) -> None:
    """Create objects from files (-f) or from options (NAME or --name, --set PATH=VALUE, per-kind options).

    Network classes and external IP pools are created through the private API (provider admins)
    without --private."""
    from osac.cli.objects.inputs import Document, parse_documents, parse_labels, read_text, split_assignment
    from osac.cli.objects.kind_flags import parse_kind_flags
    from osac.cli.objects.kinds import known_kinds, resolve_kind, resolve_write
    from osac.cli.objects.writes import Overrides, create_all, create_is_private, provider_only
    from osac.cli.output.written import print_warnings, print_written
    from osac.model.kinds import Method

    given_kind = resolve_kind(kind_word, private=True) if kind_word else None
    extra = list(context.args)
    if given_kind is not None and extra and not extra[0].startswith("-"):
        if name is not None and name != extra[0]:
            raise CliError(f"give the name once: as NAME ({extra[0]}) or with --name ({name})")
        name = extra.pop(0)  # osac create KIND NAME ...
    if extra and given_kind is None:
        raise CliError(f"unexpected arguments {' '.join(extra)}; name the KIND first: osac create KIND ...")
    documents = [document for path in file or [] for document in parse_documents(read_text(path), path)]
    if not file:
        if given_kind is None:
            raise CliError(f"name the KIND to create, or give -f FILE; kinds: {known_kinds()}")
        documents = [Document({}, None, "the options")]
    private = create_is_private(documents, given_kind, private=server.private)
    if kind_word:
        given_kind, _ = resolve_write(kind_word, Method.CREATE, private=private)
    overrides = Overrides(
        name=name,
        tenant=tenant,
        labels=parse_labels(label or []),
        assignments=[split_assignment(text) for text in set_ or []],
        kind_flags=parse_kind_flags(given_kind.name, extra) if given_kind else [],
    )
    verb = "valid (dry run; nothing created)" if dry_run else "created"
    kinds = [given_kind] if given_kind else [resolve_kind(d.kind_word, private=True) for d in documents if d.kind_word]
    with (
        server.connect(private=private) as connection,
        provider_only(kinds, Method.CREATE, asked=server.private),
    ):
        for kind, created, warnings in create_all(connection, documents, given_kind, overrides, dry_run=dry_run):
            print_written(kind, created, output, verb)
            print_warnings(warnings)


@reports_errors
@calls_server()
def edit(
    server: ServerOptions,
    context: typer.Context,
    kind_word: KindArgument,
    word: ObjectArgument,
    set_: SetOption = None,
    output: Annotated[OutputFormat | None, typer.Option("--output", "-o", help="Print the updated object.")] = None,
) -> None:
    """Change an object in $EDITOR (or with --set PATH=VALUE or per-kind options) and send an
    Update of the changed paths."""
    from osac.cli.connection.client import KindClient
    from osac.cli.objects.inputs import split_assignment
    from osac.cli.objects.kind_flags import parse_kind_flags
    from osac.cli.objects.kinds import describe_object, resolve_write
    from osac.cli.objects.writes import edit_object, provider_only
    from osac.cli.output.written import print_warnings, print_written
    from osac.model.kinds import Method

    kind, private = resolve_write(kind_word, Method.UPDATE, private=server.private)
    assignments = [split_assignment(text) for text in set_ or []]
    kind_flags = parse_kind_flags(kind.name, list(context.args))
    with (
        server.connect(private=private) as connection,
        provider_only([kind], Method.UPDATE, asked=server.private),
    ):
        result = edit_object(KindClient(connection, kind), word, assignments, kind_flags)
    if result.updated is None:
        typer.echo(f"{describe_object(kind, result.stored)} unchanged; nothing sent")
    else:
        print_written(kind, result.updated, output, f"updated ({', '.join(result.paths)})")
        print_warnings(result.warnings)


@reports_errors
@calls_server()
def label(
    server: ServerOptions,
    kind_word: KindArgument,
    word: ObjectArgument,
    changes: Annotated[list[str], typer.Argument(metavar="KEY=VALUE|KEY-", help="Set KEY=VALUE, remove KEY-.")],
) -> None:
    """Set (k=v) and remove (k-) labels of an object."""
    from osac.cli.connection.client import KindClient
    from osac.cli.connection.shape import metadata_of
    from osac.cli.objects.inputs import parse_label_changes
    from osac.cli.objects.kinds import describe_object, resolve_write
    from osac.cli.objects.writes import provider_only, relabel
    from osac.model.kinds import Method

    kind, private = resolve_write(kind_word, Method.UPDATE, private=server.private)
    wanted = parse_label_changes(changes)
    with (
        server.connect(private=private) as connection,
        provider_only([kind], Method.UPDATE, asked=server.private),
    ):
        updated = relabel(KindClient(connection, kind), word, wanted)
    labels = ", ".join(f"{k}={v}" for k, v in sorted(metadata_of(updated).labels.items())) or "none"
    typer.echo(f"{describe_object(kind, updated)} labelled; labels: {labels}")


@reports_errors
@calls_server()
def delete(server: ServerOptions, kind_word: KindArgument, objects: ObjectsArgument) -> None:
    """Delete objects; those with infrastructure are torn down first, then archived."""
    from osac.cli.connection.client import KindClient
    from osac.cli.connection.shape import id_of
    from osac.cli.objects.kinds import resolve_write
    from osac.cli.objects.writes import provider_only
    from osac.cli.output.written import delete_outcome
    from osac.model.kinds import Method

    kind, private = resolve_write(kind_word, Method.DELETE, private=server.private)
    with (
        server.connect(private=private) as connection,
        provider_only([kind], Method.DELETE, asked=server.private),
    ):
        client = KindClient(connection, kind)
        for word in objects:
            obj = client.find(word)
            client.delete(id_of(obj))
            typer.echo(delete_outcome(kind, obj))


@reports_errors
@calls_server()
def scale(
    server: ServerOptions,
    kind_word: KindArgument,
    word: Annotated[str, typer.Argument(metavar="ID|NAME", help="The cluster, by id or name.")],
    node_set: Annotated[str, typer.Option("--node-set", metavar="KEY", help="The node set to resize.")],
    size: Annotated[int, typer.Option("--size", help="Its new requested number of nodes (0 or more).")],
) -> None:
    """Resize a node set of a cluster; prints the new desired size. The cluster stays READY while
    the nodes join or leave (stage Scaling)."""
    from osac.cli.connection.client import KindClient
    from osac.cli.objects import scaling
    from osac.cli.objects.kinds import plural_words, resolve_write
    from osac.cli.output.written import print_warnings
    from osac.model.kinds import Method

    kind, private = resolve_write(kind_word, Method.UPDATE, private=server.private)
    if kind.name not in scaling.SCALABLE:
        raise CliError(f"{plural_words(kind)} cannot be scaled; scale a cluster's node set")
    with server.connect(private=private) as connection:
        result = scaling.scale_node_set(KindClient(connection, kind), word, node_set, size)
    typer.echo(result.summary())
    print_warnings(result.warnings)


@reports_errors
@calls_server()
def restart(server: ServerOptions, kind_word: KindArgument, objects: ObjectsArgument) -> None:
    """Restart instances: a compute instance gets spec.restart_requested_at = now (it must be
    running), a bare-metal instance's spec.restart_trigger goes up by one; the reconcilers do the rest."""
    from osac.cli.connection.client import KindClient
    from osac.cli.objects import restarts
    from osac.cli.objects.kinds import describe_object, resolve_write
    from osac.model.kinds import Method

    kind, private = resolve_write(kind_word, Method.UPDATE, private=server.private)
    restarts.require_restartable(kind)
    with server.connect(private=private) as connection:
        client = KindClient(connection, kind)
        for word in objects:
            updated = restarts.request_restart(client, word)
            typer.echo(f"{describe_object(kind, updated)} restart requested")


@reports_errors
@calls_server(private=False)
def signal(server: ServerOptions, kind_word: KindArgument, objects: ObjectsArgument) -> None:
    """Ask the reconcilers to look at objects again (private API; retries FAILED work)."""
    from osac.cli.connection.client import KindClient
    from osac.cli.connection.shape import id_of
    from osac.cli.objects.kinds import describe_object, resolve_write
    from osac.model.kinds import Method

    kind, _ = resolve_write(kind_word, Method.SIGNAL, private=True)
    with server.connect(private=True) as connection:
        client = KindClient(connection, kind)
        for word in objects:
            obj = client.find(word)
            client.signal(id_of(obj))
            typer.echo(f"{describe_object(kind, obj)} signalled")


def register_writes(app: typer.Typer) -> None:
    """create, edit, label, delete (in the order of ``osac --help``)."""
    app.command(context_settings=EXTRA_ARGUMENTS, cls=KindFlagsHelp)(create)
    app.command(
        context_settings=EXTRA_ARGUMENTS,
        epilog="Per-kind options of create work too (a list they name is replaced): "
        "osac edit sg web --ingress protocol=tcp,port=443,cidr=0.0.0.0/0.",
    )(edit)
    app.command()(label)
    app.command()(delete)


def register_actions(app: typer.Typer) -> None:
    """scale, restart, signal."""
    for command in (scale, restart, signal):
        app.command()(command)
