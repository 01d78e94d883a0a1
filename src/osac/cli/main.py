"""The ``osac`` command: Typer wiring only; each command delegates to the module doing its job."""

import contextlib
import getpass
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Annotated

import typer
from google.protobuf.message import Message

from osac.auth.subject import Role
from osac.cli import restarts, scaling
from osac.cli import serve as serving
from osac.cli import simulator as simulation
from osac.cli.client import (
    KindClient,
    Listing,
    auto_provisioned,
    check_server,
    lifecycle_events,
    references,
    referrers,
    watch_events,
)
from osac.cli.cluster_clock import reference_now
from osac.cli.cluster_columns import CLUSTER_FORMATTERS
from osac.cli.cluster_describe import cluster_lines
from osac.cli.cluster_events import (
    DEFAULT_LIMIT,
    LIST_HEADERS,
    listed_rows,
    newest_events,
    object_events_filter,
    object_names,
)
from osac.cli.cluster_follow import changes, snapshot
from osac.cli.cluster_lookups import look_up
from osac.cli.cluster_wait import DEFAULT_TIMEOUT, Goal, ProgressLine, wait_for
from osac.cli.config import SavedLogin, load_login, save_login
from osac.cli.connection import DEFAULT_ADDRESS, NOT_LOGGED_IN, Connection, resolve_target, split_address
from osac.cli.console_sign_in import console_url, sign_in_url
from osac.cli.credentials import check_request, credential, is_credential
from osac.cli.debug import debug_app
from osac.cli.describe import AUTO_PARENTS, Related, describe_lines
from osac.cli.errors import ApiError, CliError, reports_errors
from osac.cli.inputs import (
    Document,
    parse_documents,
    parse_label_changes,
    parse_labels,
    read_text,
    split_assignment,
)
from osac.cli.kind_flags import flags_help, parse_kind_flags
from osac.cli.kinds import (
    describe_object,
    ids_filter,
    known_kinds,
    plural_words,
    resolve_kind,
    resolve_write,
    write_is_private,
)
from osac.cli.printer import KindPrinter, print_event, print_lines
from osac.cli.render import (
    FORMATTERS,
    OutputFormat,
    as_json,
    as_yaml,
    list_dict,
    state_label,
    table_lines,
    to_dict,
)
from osac.cli.sorting import sort_order
from osac.cli.tokens import identity_of, mint_dev_token, parse_duration
from osac.cli.watching import kind_event_filter
from osac.cli.writes import Overrides, create_all, create_is_private, edit_object, relabel
from osac.model.kinds import Kind, Method
from osac.server.settings import DEFAULT_GRPC_ADDRESS, DEFAULT_HTTP_ADDRESS, default_data_dir

# The STAGE and HEALTH cells of `get clusters` (columns in tables.py, rules in osac.status).
FORMATTERS.update(CLUSTER_FORMATTERS)

app = typer.Typer(
    name="osac",
    help="OSAC fulfillment: run the control plane and manage its objects.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

# -- options shared by the commands that call the server --------------------------------------------

AddressOption = Annotated[
    str | None,
    typer.Option(
        "--address", envvar="OSAC_ADDRESS",
        help=f"Server HOST:PORT (default: the saved login, else {DEFAULT_ADDRESS}).",
    ),
]
TokenOption = Annotated[
    str | None, typer.Option("--token", envvar="OSAC_TOKEN", help="Bearer token (default: the saved login).")
]
PlaintextOption = Annotated[
    bool, typer.Option("--plaintext", help="Plaintext gRPC even for a non-loopback address.")
]
PrivateOption = Annotated[
    bool, typer.Option("--private", help="Use the private API (provider admins: finalizers, catalogue writes).")
]
KindArgument = Annotated[str, typer.Argument(metavar="KIND", help="Kind: singular, plural or alias (subnet, vn).")]
ObjectsArgument = Annotated[list[str], typer.Argument(metavar="ID|NAME", help="Objects by id or name.")]
OutputOption = Annotated[OutputFormat, typer.Option("--output", "-o", help="Output format.")]
DataDirOption = Annotated[
    Path | None,
    typer.Option("--data-dir", envvar="OSAC_DATA_DIR", help="Data directory (default: ~/.local/share/osac)."),
]
SetOption = Annotated[
    list[str] | None,
    typer.Option("--set", metavar="PATH=VALUE", help="Set a field (repeatable): spec.ipv4_cidr=10.0.1.0/24."),
]
MaxEventsOption = Annotated[
    int | None, typer.Option("--max-events", help="Stop after this many events (scripts and tests).")
]


def connect(address: str | None, token: str | None, plaintext: bool, private: bool) -> Connection:
    return Connection(resolve_target(address, token, plaintext=plaintext, private=private))


@contextlib.contextmanager
def provider_only(kinds: list[Kind], method: Method, *, asked: bool) -> Iterator[None]:
    """Explain a refusal of a write that went to the private API without ``--private``
    (network classes, external IP pools): it is for provider admins."""
    try:
        yield
    except ApiError as error:
        automatic = [k for k in kinds if not asked and write_is_private(k, method, private=False)]
        if error.code != "PERMISSION_DENIED" or not automatic:
            raise
        what = " and ".join(plural_words(k) for k in automatic)
        raise ApiError(error.code, f"{error.message} ({method.value} of {what} is for provider admins)") from None


# -- server and identity ---------------------------------------------------------------------------


@app.command()
@reports_errors
def serve(
    data_dir: DataDirOption = None,
    db_url: Annotated[
        str | None, typer.Option("--db-url", envvar="OSAC_DB_URL", help="Database URL (default: SQLite in the data dir).")
    ] = None,
    grpc_address: Annotated[str, typer.Option("--grpc-address", help="gRPC listen address.")] = DEFAULT_GRPC_ADDRESS,
    http_address: Annotated[str, typer.Option("--http-address", help="HTTP listen address.")] = DEFAULT_HTTP_ADDRESS,
    no_controllers: Annotated[bool, typer.Option("--no-controllers", help="Serve the API only; no reconcilers.")] = False,
    bootstrap: Annotated[
        Path | None, typer.Option("--bootstrap", metavar="FILE", help="Catalogue seeded into an empty database.")
    ] = None,
    config: Annotated[Path | None, typer.Option("--config", metavar="FILE", help="YAML configuration file.")] = None,
    simulator_speed: Annotated[
        str | None,
        typer.Option(
            "--simulator-speed", metavar="instant|N",
            help="Simulated seconds per real second (default: the config file's, else 60).",
        ),
    ] = None,
    log_level: Annotated[str, typer.Option("--log-level", help="debug, info, warning or error.")] = "info",
) -> None:
    """Run the control plane: gRPC and HTTP APIs, reconcilers and the web UI, until Ctrl-C."""
    serving.configure_logging(log_level)
    settings = serving.build_settings(
        data_dir=data_dir,
        db_url=db_url,
        grpc_address=grpc_address,
        http_address=http_address,
        run_controllers=not no_controllers,
        bootstrap=bootstrap,
        config_file=config,
        simulator_speed=simulator_speed,
    )
    serving.serve(settings)


RoleOption = Annotated[Role, typer.Option("--role", help="Role of the token.")]
TenantsOption = Annotated[
    list[str] | None, typer.Option("--tenant", help="Tenant (organization) of the token; repeatable.")
]
UserOption = Annotated[str | None, typer.Option("--user", help="User name (default: your login name).")]
TtlOption = Annotated[str, typer.Option("--ttl", help="Lifetime: 12h, 30m, 2d.")]


def _default_user() -> str:
    try:
        return getpass.getuser()
    except Exception:  # no login name in this environment
        return "developer"


@app.command()
@reports_errors
def token(
    role: RoleOption,
    tenant: TenantsOption = None,
    user: UserOption = None,
    data_dir: DataDirOption = None,
    ttl: TtlOption = "12h",
) -> None:
    """Print a development token signed by the data directory's built-in issuer."""
    directory = data_dir or default_data_dir()
    typer.echo(mint_dev_token(directory, user or _default_user(), tenant or [], role, parse_duration(ttl)))


@app.command()
@reports_errors
def login(
    address_argument: Annotated[str | None, typer.Argument(metavar="ADDRESS", help="Server HOST:PORT.")] = None,
    token: Annotated[str | None, typer.Option("--token", help="Bearer token to save.")] = None,
    dev: Annotated[bool, typer.Option("--dev", help="Mint a development token locally and save it.")] = False,
    tenant: TenantsOption = None,
    role: Annotated[Role, typer.Option("--role", help="Role of a --dev token.")] = Role.TENANT_ADMIN,
    user: UserOption = None,
    address: Annotated[str | None, typer.Option("--address", help="Server HOST:PORT (same as ADDRESS).")] = None,
    data_dir: DataDirOption = None,
    ttl: TtlOption = "12h",
    plaintext: PlaintextOption = False,
) -> None:
    """Save the server address and a token for the following commands."""
    if address_argument and address and split_address(address_argument)[0] != split_address(address)[0]:
        raise CliError("give the address once: as ADDRESS or with --address")
    chosen = address_argument or address
    if dev and token is None:
        token = mint_dev_token(
            data_dir or default_data_dir(), user or _default_user(), tenant or [], role, parse_duration(ttl)
        )
    elif dev or token is None:
        raise CliError("give either --token TOKEN or --dev (to mint a development token)")
    elif tenant or user:
        raise CliError("--tenant and --user only apply to --dev tokens")
    identity = identity_of(token)
    host_port = split_address(chosen or load_login().address or DEFAULT_ADDRESS)[0]
    path = save_login(SavedLogin(address=host_port, token=token, is_plaintext=plaintext))
    tenants = ", ".join(identity.tenants) or "none"
    typer.echo(f"Logged in to {host_port} as {identity.user} ({identity.role.value}; tenants: {tenants}).")
    typer.echo(f"Saved to {path}.")


@app.command()
@reports_errors
def whoami(address: AddressOption = None, token: TokenOption = None, plaintext: PlaintextOption = False) -> None:
    """Show who the token says you are, and check that the server accepts it."""
    target = resolve_target(address, token, plaintext=plaintext)
    if not target.token:
        raise CliError(NOT_LOGGED_IN.format(address=target.address))
    identity = identity_of(target.token)
    print_lines([
        f"User:     {identity.user}",
        f"Tenants:  {', '.join(identity.tenants) or '-'}",
        f"Role:     {identity.role.value}",
        f"Issuer:   {identity.issuer or '-'}",
        f"Expires:  {identity.expiry_text()}",
        f"Server:   {target.address}",
    ])
    with Connection(target) as connection:
        check_server(connection)
    typer.echo("Status:   the server accepts the token")


@app.command()
@reports_errors
def console(
    no_browser: Annotated[bool, typer.Option("--no-browser", help="Only print the sign-in URL.")] = False,
    url: Annotated[
        str | None,
        typer.Option("--url", envvar="OSAC_CONSOLE_URL",
                     help="The web console's URL (default: the server's host, HTTP port = gRPC port + 1)."),
    ] = None,
    address: AddressOption = None,
    token: TokenOption = None,
) -> None:
    """Sign in to the web console as the CLI's identity: a one-time URL valid for 60 s (last line)."""
    target = resolve_target(address, token)
    if not target.token:
        raise CliError(NOT_LOGGED_IN.format(address=target.address))
    link = sign_in_url(console_url(target.address, url), target.token)
    if not no_browser:
        import webbrowser

        with contextlib.suppress(Exception):
            if webbrowser.open(link):
                typer.echo("Opened the sign-in link in your browser; if it did not open, use:")
    typer.echo(link)


# -- reading ---------------------------------------------------------------------------------------


@app.command()
@reports_errors
def get(
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
    address: AddressOption = None,
    token: TokenOption = None,
    plaintext: PlaintextOption = False,
    private: PrivateOption = False,
) -> None:
    """List objects of a kind, or show some by id or name. ``get kubeconfig CLUSTER`` and
    ``get password CLUSTER`` print a cluster's kubeconfig and kubeadmin password."""
    if is_credential(kind_word):
        listing_options = output != OutputFormat.TABLE or filter is not None or sort_by is not None or watch
        cluster = check_request(kind_word, objects or [], private=private, listing_options=listing_options)
        with connect(address, token, plaintext, private) as connection:
            typer.echo(credential(connection, kind_word, cluster), nl=False)
        return
    kind = resolve_kind(kind_word, private=private, method=Method.LIST)
    if objects and filter:
        raise CliError("--filter selects among all objects; give either names or --filter")
    order = sort_order(kind, sort_by) if sort_by is not None else None
    with connect(address, token, plaintext, private) as connection:
        client = KindClient(connection, kind)
        if objects:
            found = [client.find(word) for word in objects]
            listing = Listing(found, len(found), 0)
            if watch or order:  # a resume point for exactly these objects, or them in order
                listing = client.list(ids_filter([obj.id for obj in found]), order)  # type: ignore[attr-defined]
        else:
            listing = client.list(filter, order)
        printer = KindPrinter(client, output)
        printer.print_listing(listing, single=len(objects or []) == 1)
        if not watch:
            return
        ids = [obj.id for obj in listing.items] if objects else None  # type: ignore[attr-defined]
        events = watch_events(connection, kind_event_filter(kind, filter, ids), listing.revision)
        for count, event in enumerate(events, start=1):
            printer.print_change(getattr(event, kind.name))
            if max_events is not None and count >= max_events:
                break


@app.command()
@reports_errors
def describe(
    kind_word: KindArgument,
    objects: ObjectsArgument,
    watch: Annotated[
        bool, typer.Option("--watch", "-w", help="Keep the view live: print it again on every change.")
    ] = False,
    max_events: MaxEventsOption = None,
    address: AddressOption = None,
    token: TokenOption = None,
    plaintext: PlaintextOption = False,
    private: PrivateOption = False,
) -> None:
    """Show objects in detail: identity, state, key facts, spec, status, labels, the objects it
    references and those referring to it, and its events. A cluster shows its stage, health,
    node sets, conditions and last events instead."""
    kind = resolve_kind(kind_word, private=private, method=Method.GET)
    if watch and len(objects) != 1:
        raise CliError("--watch follows one object; name exactly one")
    with connect(address, token, plaintext, private) as connection:
        client = KindClient(connection, kind)
        if watch:
            _describe_live(connection, client, objects[0], max_events)
            return
        for index, word in enumerate(objects):
            print_lines(([""] if index else []) + _view(connection, kind, client.find(word)))


def _view(connection: Connection, kind: Kind, obj: Message) -> list[str]:
    if kind.name == "cluster":
        return cluster_lines(obj, look_up(connection, obj, reference_now()))
    children = auto_provisioned(connection, obj.id) if kind.name in AUTO_PARENTS else []  # type: ignore[attr-defined]
    related = Related(
        referrers(connection, kind, obj.id),  # type: ignore[attr-defined]
        _events_of(connection, obj.id),  # type: ignore[attr-defined]
        references=references(connection, kind, obj),
        auto_provisioned=children,
    )
    return describe_lines(kind, obj, related)


def _describe_live(connection: Connection, client: KindClient, word: str, max_events: int | None) -> None:
    """The view, then the view again after each change (on a terminal in place of the last
    one), until the object is deleted, ``max_events`` changes, or Ctrl-C."""
    found = client.find(word)
    first = snapshot(client, found.id)  # type: ignore[attr-defined]
    if first.obj is None:
        raise CliError(f"{describe_object(client.kind, found)} was deleted")
    is_terminal = sys.stdout.isatty()
    print_lines(_view(connection, client.kind, first.obj))
    for count, obj in enumerate(changes(client, found.id, first.revision), start=1):  # type: ignore[attr-defined]
        if obj is None:
            typer.echo(f"{describe_object(client.kind, found)} deleted")
            return
        typer.echo("\x1b[H\x1b[2J" if is_terminal else "", nl=not is_terminal)
        print_lines(_view(connection, client.kind, obj))
        if max_events is not None and count >= max_events:
            return


def _events_of(connection: Connection, object_id: str) -> list[Message]:
    try:
        return lifecycle_events(connection, object_id)
    except CliError:  # events are an extra: a failing lookup must not hide the object
        return []


@app.command()
@reports_errors
def watch(
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
    address: AddressOption = None,
    token: TokenOption = None,
    plaintext: PlaintextOption = False,
    private: PrivateOption = False,
) -> None:
    """Print the change stream: REVISION TYPE KIND NAME STATE per event (or JSON lines)."""
    if output not in (OutputFormat.TABLE, OutputFormat.JSON):
        raise CliError("watch prints lines (-o table) or JSON lines (-o json)")
    kind = resolve_kind(kind_word, private=private) if kind_word else None
    expression = kind_event_filter(kind, filter, None) if kind else filter
    with connect(address, token, plaintext, private) as connection:
        for count, event in enumerate(watch_events(connection, expression, after_revision), start=1):
            print_event(event, output)
            if max_events is not None and count >= max_events:
                break


@app.command("wait")
@reports_errors
def wait_command(
    kind_word: KindArgument,
    word: Annotated[str, typer.Argument(metavar="ID|NAME", help="The object, by id or name.")],
    goal: Annotated[Goal, typer.Option("--for", help=(
        "ready: its usable state (READY; RUNNING for compute and bare-metal instances; ALLOCATED for "
        "external IPs); running: the same; deleted: it is gone."))],
    timeout: Annotated[str, typer.Option("--timeout", help="Give up after this long: 30s, 10m, 1h.")] = (
        f"{int(DEFAULT_TIMEOUT.total_seconds() // 60)}m"
    ),
    address: AddressOption = None,
    token: TokenOption = None,
    plaintext: PlaintextOption = False,
    private: PrivateOption = False,
) -> None:
    """Wait until an object is usable (its lifecycle state, whatever its health) or deleted,
    showing its progress; exit code 1 when it FAILED, or at the timeout."""
    kind = resolve_kind(kind_word, private=private, method=Method.GET)
    if kind.state_enum is None:
        raise CliError(f"{kind.message} has no lifecycle state to wait for")
    deadline = parse_duration(timeout)
    line = ProgressLine(sys.stdout, is_terminal=sys.stdout.isatty())
    with connect(address, token, plaintext, private) as connection:
        try:
            closing = wait_for(KindClient(connection, kind), word, goal, deadline, line.show)
        finally:
            line.close()
    typer.echo(closing)


@app.command()
@reports_errors
def events(
    object_reference: Annotated[
        str | None, typer.Option("--object", metavar="KIND/NAME", help="Only the events of this object (or KIND/ID).")
    ] = None,
    limit: Annotated[int, typer.Option("--limit", min=1, help="How many of the newest events to show.")] = DEFAULT_LIMIT,
    address: AddressOption = None,
    token: TokenOption = None,
    plaintext: PlaintextOption = False,
    private: PrivateOption = False,
) -> None:
    """List the newest lifecycle events, newest first: AGE OBJECT TYPE REASON MESSAGE."""
    with connect(address, token, plaintext, private) as connection:
        expression = object_events_filter(connection, object_reference) if object_reference else None
        found = newest_events(connection, limit, expression)
        names = object_names(connection, found)
    if not found:
        typer.echo("No lifecycle events found.", err=True)
        return
    for text in table_lines(LIST_HEADERS, listed_rows(found, names, reference_now()))[0]:
        typer.echo(text)


# -- writing ---------------------------------------------------------------------------------------


@app.command(
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
    epilog=flags_help(),
)
@reports_errors
def create(
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
    address: AddressOption = None,
    token: TokenOption = None,
    plaintext: PlaintextOption = False,
    private: PrivateOption = False,
) -> None:
    """Create objects from files (-f) or from options (NAME or --name, --set PATH=VALUE, per-kind options).

    Network classes and external IP pools are created through the private API (provider admins)
    without --private."""
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
    asked = private
    private = create_is_private(documents, given_kind, private=private)
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
    with connect(address, token, plaintext, private) as connection, provider_only(kinds, Method.CREATE, asked=asked):
        for kind, created, warnings in create_all(connection, documents, given_kind, overrides, dry_run=dry_run):
            _print_written(kind, created, output, verb)
            print_warnings(warnings)


def print_warnings(warnings: Sequence[str]) -> None:
    """The server's warnings about a write, one ``Warning: ...`` line each on stderr."""
    for warning in warnings:
        typer.echo(f"Warning: {warning}", err=True)


def _print_written(kind: Kind, obj: Message, output: OutputFormat | None, verb: str) -> None:
    object_id = obj.id  # type: ignore[attr-defined]
    if output is None:
        typer.echo(f"{describe_object(kind, obj)} {verb}" + (f" (id {object_id})" if object_id else ""))
    elif output is OutputFormat.NAME:
        typer.echo(f"{kind.name}/{object_id}")
    elif output is OutputFormat.YAML:
        typer.echo("---\n" + as_yaml(to_dict(obj)).rstrip("\n"))
    else:
        typer.echo(as_json(to_dict(obj)))


@app.command(
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
    epilog="Per-kind options of create work too (a list they name is replaced): "
    "osac edit sg web --ingress protocol=tcp,port=443,cidr=0.0.0.0/0.",
)
@reports_errors
def edit(
    context: typer.Context,
    kind_word: KindArgument,
    word: Annotated[str, typer.Argument(metavar="ID|NAME", help="The object, by id or name.")],
    set_: SetOption = None,
    output: Annotated[OutputFormat | None, typer.Option("--output", "-o", help="Print the updated object.")] = None,
    address: AddressOption = None,
    token: TokenOption = None,
    plaintext: PlaintextOption = False,
    private: PrivateOption = False,
) -> None:
    """Change an object in $EDITOR (or with --set PATH=VALUE or per-kind options) and send an
    Update of the changed paths."""
    asked = private
    kind, private = resolve_write(kind_word, Method.UPDATE, private=private)
    assignments = [split_assignment(text) for text in set_ or []]
    kind_flags = parse_kind_flags(kind.name, list(context.args))
    with connect(address, token, plaintext, private) as connection, provider_only([kind], Method.UPDATE, asked=asked):
        result = edit_object(KindClient(connection, kind), word, assignments, kind_flags)
    if result.updated is None:
        typer.echo(f"{describe_object(kind, result.stored)} unchanged; nothing sent")
    else:
        _print_written(kind, result.updated, output, f"updated ({', '.join(result.paths)})")
        print_warnings(result.warnings)


@app.command()
@reports_errors
def label(
    kind_word: KindArgument,
    word: Annotated[str, typer.Argument(metavar="ID|NAME", help="The object, by id or name.")],
    changes: Annotated[list[str], typer.Argument(metavar="KEY=VALUE|KEY-", help="Set KEY=VALUE, remove KEY-.")],
    address: AddressOption = None,
    token: TokenOption = None,
    plaintext: PlaintextOption = False,
    private: PrivateOption = False,
) -> None:
    """Set (k=v) and remove (k-) labels of an object."""
    asked = private
    kind, private = resolve_write(kind_word, Method.UPDATE, private=private)
    wanted = parse_label_changes(changes)
    with connect(address, token, plaintext, private) as connection, provider_only([kind], Method.UPDATE, asked=asked):
        updated = relabel(KindClient(connection, kind), word, wanted)
    labels = ", ".join(f"{k}={v}" for k, v in sorted(updated.metadata.labels.items())) or "none"  # type: ignore[attr-defined]
    typer.echo(f"{describe_object(kind, updated)} labelled; labels: {labels}")


def delete_outcome(kind: Kind, before: Message) -> str:
    """What a Delete did, judged from the object as it was: a DELETE_FAILED object's teardown
    restarts, an object already being deleted carries on, any other starts its deletion."""
    label = describe_object(kind, before)
    if not before.metadata.HasField("deletion_timestamp"):  # type: ignore[attr-defined]
        return f"{label} deleted"
    if state_label(before) == "DELETE_FAILED":
        return f"{label}: teardown restarted (it was DELETE_FAILED)"
    return f"{label} is already being deleted"


@app.command()
@reports_errors
def delete(
    kind_word: KindArgument,
    objects: ObjectsArgument,
    address: AddressOption = None,
    token: TokenOption = None,
    plaintext: PlaintextOption = False,
    private: PrivateOption = False,
) -> None:
    """Delete objects; those with infrastructure are torn down first, then archived."""
    asked = private
    kind, private = resolve_write(kind_word, Method.DELETE, private=private)
    with connect(address, token, plaintext, private) as connection, provider_only([kind], Method.DELETE, asked=asked):
        client = KindClient(connection, kind)
        for word in objects:
            obj = client.find(word)
            client.delete(obj.id)  # type: ignore[attr-defined]
            typer.echo(delete_outcome(kind, obj))


@app.command()
@reports_errors
def scale(
    kind_word: KindArgument,
    word: Annotated[str, typer.Argument(metavar="ID|NAME", help="The cluster, by id or name.")],
    node_set: Annotated[str, typer.Option("--node-set", metavar="KEY", help="The node set to resize.")],
    size: Annotated[int, typer.Option("--size", help="Its new requested number of nodes (0 or more).")],
    address: AddressOption = None,
    token: TokenOption = None,
    plaintext: PlaintextOption = False,
    private: PrivateOption = False,
) -> None:
    """Resize a node set of a cluster; prints the new desired size. The cluster stays READY while
    the nodes join or leave (stage Scaling)."""
    kind, private = resolve_write(kind_word, Method.UPDATE, private=private)
    if kind.name not in scaling.SCALABLE:
        raise CliError(f"{plural_words(kind)} cannot be scaled; scale a cluster's node set")
    with connect(address, token, plaintext, private) as connection:
        result = scaling.scale_node_set(KindClient(connection, kind), word, node_set, size)
    typer.echo(result.summary())
    print_warnings(result.warnings)


@app.command()
@reports_errors
def restart(
    kind_word: KindArgument,
    objects: ObjectsArgument,
    address: AddressOption = None,
    token: TokenOption = None,
    plaintext: PlaintextOption = False,
    private: PrivateOption = False,
) -> None:
    """Restart instances: a compute instance gets spec.restart_requested_at = now (it must be
    running), a bare-metal instance's spec.restart_trigger goes up by one; the reconcilers do the rest."""
    kind, private = resolve_write(kind_word, Method.UPDATE, private=private)
    restarts.require_restartable(kind)
    with connect(address, token, plaintext, private) as connection:
        client = KindClient(connection, kind)
        for word in objects:
            updated = restarts.request_restart(client, word)
            typer.echo(f"{describe_object(kind, updated)} restart requested")


@app.command()
@reports_errors
def signal(
    kind_word: KindArgument,
    objects: ObjectsArgument,
    address: AddressOption = None,
    token: TokenOption = None,
    plaintext: PlaintextOption = False,
) -> None:
    """Ask the reconcilers to look at objects again (private API; retries FAILED work)."""
    kind, _ = resolve_write(kind_word, Method.SIGNAL, private=True)
    with connect(address, token, plaintext, True) as connection:
        client = KindClient(connection, kind)
        for word in objects:
            obj = client.find(word)
            client.signal(obj.id)  # type: ignore[attr-defined]
            typer.echo(f"{describe_object(kind, obj)} signalled")


# -- offline diagnostics (no server) ---------------------------------------------------------------

app.add_typer(debug_app)


@app.command("alert-rules")
@reports_errors
def alert_rules_command(
    stalled_for: Annotated[str, typer.Option("--stalled-for", help="How long a cluster is Stalled before it alerts.")] = "5m",
    stage_unknown_for: Annotated[str, typer.Option(
        "--stage-unknown-for", help="How long clusters have an unreadable stage before it alerts.")] = "10m",
    failure_window: Annotated[str, typer.Option(
        "--failure-window", help="Window in which entering FAILED or DELETE_FAILED alerts.")] = "5m",
    pool_utilization: Annotated[float, typer.Option(
        "--pool-utilization", help="Share of an external IP pool allocated at which it alerts.")] = 0.9,
    pool_utilization_for: Annotated[str, typer.Option(
        "--pool-utilization-for", help="How long a pool stays at that share before it alerts.")] = "10m",
    network_failure_window: Annotated[str, typer.Option(
        "--network-failure-window",
        help="Window in which a cleanup, default-networking or automatic allocation failure alerts.")] = "5m",
    networking_failed_for: Annotated[str, typer.Option(
        "--networking-failed-for", help="How long networking objects are FAILED before it alerts.")] = "15m",
    controller_lag: Annotated[float, typer.Option(
        "--controller-lag", help="Seconds a key may wait in a controller's queue before it counts as behind.")] = 5.0,
    controller_lag_for: Annotated[str, typer.Option(
        "--controller-lag-for", help="How long a controller is behind before it alerts.")] = "2m",
) -> None:
    """Print the Prometheus alerting rules for cluster status, networking and the controllers (a
    rules file; no server needed)."""
    from osac.cli import alert_rules

    typer.echo(alert_rules.render(
        stalled_for, stage_unknown_for, failure_window,
        pool_utilization=pool_utilization, pool_utilization_for=pool_utilization_for,
        network_failure_window=network_failure_window, networking_failed_for=networking_failed_for,
        controller_lag=controller_lag, controller_lag_for=controller_lag_for,
    ), nl=False)


# -- the simulator (private API, provider admins) ---------------------------------------------------

simulator_app = typer.Typer(
    name="simulator",
    help="Administer the infrastructure simulator: faults, observations, reachability, speed and clock "
    "(private API; provider admins).",
    no_args_is_help=True,
)
fault_app = typer.Typer(name="fault", help="Inject, list and clear simulator faults.", no_args_is_help=True)
simulator_app.add_typer(fault_app)
app.add_typer(simulator_app)


def _simulator_connection(address: str | None, token: str | None, plaintext: bool) -> Connection:
    return connect(address, token, plaintext, True)


def _structured(data: object, output: OutputFormat) -> str:
    return as_json(data) if output is OutputFormat.JSON else as_yaml(data).rstrip("\n")


@fault_app.command("create")
@reports_errors
def fault_create(
    fault: Annotated[str, typer.Argument(metavar="FAULT", help="Fault name: stall, fabric_fail, provision_fail, ...")],
    target_kind: Annotated[
        str, typer.Option("--target-kind", help="cluster, compute_instance, host, fabric, subnet or host_interface "
                          "(default: the fault's only one).")
    ] = "",
    target: Annotated[str, typer.Option("--target", metavar="ID|NAME", help=(
        "Target: a cluster, VM or subnet by name or id, or a host name (default: * = all)."))] = "",
    param: Annotated[
        list[str] | None,
        typer.Option("--param", metavar="KEY=VALUE", help="Fault parameter; repeatable (numbers and true/false typed)."),
    ] = None,
    times: Annotated[int | None, typer.Option("--times", help="Apply N times (params.times).")] = None,
    expires_in: Annotated[str | None, typer.Option("--expires-in", help="Expire after this long: 10m, 1h.")] = None,
    address: AddressOption = None,
    token: TokenOption = None,
    plaintext: PlaintextOption = False,
) -> None:
    """Record a fault, effective from the next simulated step; print its id."""
    new = simulation.NewFault(
        fault=fault,
        target_kind=target_kind,
        target_id=target,
        params=simulation.parse_params(param or []),
        times=times,
        expires_in=parse_duration(expires_in) if expires_in is not None else None,
    )
    with _simulator_connection(address, token, plaintext) as connection:
        created = simulation.create_fault(connection, new)
    typer.echo(created.id)  # type: ignore[attr-defined]


@fault_app.command("list")
@reports_errors
def fault_list(
    output: OutputOption = OutputFormat.TABLE,
    address: AddressOption = None,
    token: TokenOption = None,
    plaintext: PlaintextOption = False,
) -> None:
    """List the recorded faults: ID FAULT TARGET KIND TARGET PARAMS REMAINING EXPIRES."""
    with _simulator_connection(address, token, plaintext) as connection:
        listing = simulation.list_faults(connection)
    if output is OutputFormat.TABLE:
        if not listing.items:
            typer.echo("No simulator faults found.", err=True)
            return
        for line in table_lines(simulation.FAULT_HEADERS, [simulation.fault_row(f) for f in listing.items])[0]:
            typer.echo(line)
    elif output is OutputFormat.NAME:
        for item in listing.items:
            typer.echo(f"simulator_fault/{item.id}")  # type: ignore[attr-defined]
    else:
        data = list_dict(listing.items, listing.total, listing.revision)
        data["items"] = [simulation.fault_dict(item) for item in listing.items]
        typer.echo(_structured(data, output))


@fault_app.command("delete")
@reports_errors
def fault_delete(
    ids: Annotated[list[str], typer.Argument(metavar="ID", help="Faults to clear, by id.")],
    address: AddressOption = None,
    token: TokenOption = None,
    plaintext: PlaintextOption = False,
) -> None:
    """Clear faults; normal progression resumes from the current time."""
    with _simulator_connection(address, token, plaintext) as connection:
        for fault_id in ids:
            simulation.delete_fault(connection, fault_id)
            typer.echo(f"Fault {fault_id} deleted")


StructuredOption = Annotated[OutputFormat, typer.Option("--output", "-o", help="yaml or json.")]


@simulator_app.command()
@reports_errors
def observe(
    kind: Annotated[str, typer.Argument(metavar="KIND", help="cluster, compute_instance, host or fabric.")],
    key: Annotated[str, typer.Argument(metavar="KEY", help="Object id, host name, or (fabric) a VirtualNetwork id.")],
    output: StructuredOption = OutputFormat.YAML,
    address: AddressOption = None,
    token: TokenOption = None,
    plaintext: PlaintextOption = False,
) -> None:
    """Print an observation exactly as the service receives it (fabric: the VN's fabric tables)."""
    if output not in (OutputFormat.YAML, OutputFormat.JSON):
        raise CliError("observe prints YAML (-o yaml) or JSON (-o json)")
    with _simulator_connection(address, token, plaintext) as connection:
        typer.echo(_structured(simulation.observe(connection, kind, key), output))


@simulator_app.command()
@reports_errors
def reachability(
    src: Annotated[str, typer.Argument(metavar="SRC", help="<host>/<interface>, an address or internet.")],
    dst: Annotated[str, typer.Argument(metavar="DST", help="<host>/<interface>, an address or internet.")],
    protocol: Annotated[str, typer.Option("--protocol", help="tcp, udp, icmp or all.")],
    port: Annotated[int, typer.Option("--port", help="Destination port (tcp and udp).")] = 0,
    address: AddressOption = None,
    token: TokenOption = None,
    plaintext: PlaintextOption = False,
) -> None:
    """Whether a packet from SRC reaches DST on the simulated fabric (ALLOWED or DENIED, why, NAT)."""
    with _simulator_connection(address, token, plaintext) as connection:
        answer = simulation.check_reachability(connection, src, dst, protocol, port)
    for line in answer.lines():
        typer.echo(line)


@simulator_app.command()
@reports_errors
def speed(
    value: Annotated[str, typer.Argument(metavar="VALUE", help="Simulated seconds per real second, or instant.")],
    address: AddressOption = None,
    token: TokenOption = None,
    plaintext: PlaintextOption = False,
) -> None:
    """Change the simulator's speed factor at runtime."""
    with _simulator_connection(address, token, plaintext) as connection:
        typer.echo(f"Simulator speed: {simulation.set_speed(connection, value)}")


@simulator_app.command()
@reports_errors
def advance(
    duration: Annotated[str, typer.Argument(metavar="DURATION", help="How far: 30s, 10m, 1h.")],
    address: AddressOption = None,
    token: TokenOption = None,
    plaintext: PlaintextOption = False,
) -> None:
    """Advance the simulator's fake clock (simulator.clock: fake only)."""
    delta = parse_duration(duration)
    with _simulator_connection(address, token, plaintext) as connection:
        typer.echo(f"Clock advanced to {simulation.advance_clock(connection, delta)}")


hosts_app = typer.Typer(
    name="hosts",
    help="List, add and remove the simulated bare-metal hosts (without a subcommand: list them).",
    invoke_without_command=True,
)
simulator_app.add_typer(hosts_app)
HostTypeFilter = Annotated[str, typer.Option("--host-type", help="Only hosts of this host type.")]


@hosts_app.callback()
@reports_errors
def hosts(
    context: typer.Context,
    host_type: HostTypeFilter = "",
    output: OutputOption = OutputFormat.TABLE,
    address: AddressOption = None,
    token: TokenOption = None,
    plaintext: PlaintextOption = False,
) -> None:
    """List the simulated host inventory: NAME TYPE POWER PROVISIONING STATUS OWNER BMC."""
    if context.invoked_subcommand is None:
        with _simulator_connection(address, token, plaintext) as connection:
            _print_hosts(simulation.list_hosts(connection, host_type), output)


@hosts_app.command("list")
@reports_errors
def hosts_list(
    host_type: HostTypeFilter = "",
    output: OutputOption = OutputFormat.TABLE,
    address: AddressOption = None,
    token: TokenOption = None,
    plaintext: PlaintextOption = False,
) -> None:
    """List the simulated host inventory: NAME TYPE POWER PROVISIONING STATUS OWNER BMC."""
    with _simulator_connection(address, token, plaintext) as connection:
        _print_hosts(simulation.list_hosts(connection, host_type), output)


@hosts_app.command("add")
@reports_errors
def hosts_add(
    prefix: Annotated[str, typer.Argument(metavar="PREFIX", help="Name prefix: hosts are PREFIX-001, PREFIX-002, ...")],
    host_type: Annotated[str, typer.Option("--host-type", help="A bare-metal HostType; its interfaces are used.")],
    count: Annotated[int, typer.Option("--count", min=1, help="How many hosts to add.")] = 1,
    output: OutputOption = OutputFormat.TABLE,
    address: AddressOption = None,
    token: TokenOption = None,
    plaintext: PlaintextOption = False,
) -> None:
    """Add hosts to the inventory, numbered on from the highest PREFIX-<nnn> there is."""
    with _simulator_connection(address, token, plaintext) as connection:
        _print_hosts(simulation.add_hosts(connection, prefix, host_type, count), output)


@hosts_app.command("remove")
@reports_errors
def hosts_remove(
    names: Annotated[list[str], typer.Argument(metavar="NAME", help="Hosts to remove; each must be free.")],
    address: AddressOption = None,
    token: TokenOption = None,
    plaintext: PlaintextOption = False,
) -> None:
    """Remove free hosts from the inventory (an assigned host is refused, naming its owner)."""
    with _simulator_connection(address, token, plaintext) as connection:
        for name in names:
            simulation.remove_host(connection, name)
            typer.echo(f"Host {name} removed")


def _print_hosts(found: list[Message], output: OutputFormat) -> None:
    if output is OutputFormat.TABLE:
        if not found:
            typer.echo("No simulated hosts found.", err=True)
            return
        for line in table_lines(simulation.HOST_HEADERS, [simulation.host_row(h) for h in found])[0]:
            typer.echo(line)
    elif output is OutputFormat.NAME:
        for host in found:
            typer.echo(f"host/{host.name}")  # type: ignore[attr-defined]
    else:
        typer.echo(_structured([to_dict(h) for h in found], output))
