"""``osac token``, ``login``, ``whoami`` and ``console``: who the commands act as."""

import contextlib
import getpass
from typing import Annotated

import typer

from osac.auth.subject import Role
from osac.cli.errors import CliError, reports_errors
from osac.cli.options import DataDirOption, PlaintextOption, ServerOptions, calls_server

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


@reports_errors
def token(
    role: RoleOption,
    tenant: TenantsOption = None,
    user: UserOption = None,
    data_dir: DataDirOption = None,
    ttl: TtlOption = "12h",
) -> None:
    """Print a development token signed by the data directory's built-in issuer."""
    from osac.cli.connection.tokens import mint_dev_token, parse_duration
    from osac.defaults import default_data_dir

    directory = data_dir or default_data_dir()
    typer.echo(mint_dev_token(directory, user or _default_user(), tenant or [], role, parse_duration(ttl)))


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
    from osac.cli.connection.config import SavedLogin, load_login, save_login
    from osac.cli.connection.target import DEFAULT_ADDRESS, split_address
    from osac.cli.connection.tokens import identity_of, mint_dev_token, parse_duration
    from osac.defaults import default_data_dir

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


@reports_errors
@calls_server(private=False)
def whoami(server: ServerOptions) -> None:
    """Show who the token says you are, and check that the server accepts it."""
    from osac.cli.connection.channel import Connection
    from osac.cli.connection.client import check_server
    from osac.cli.connection.target import NOT_LOGGED_IN
    from osac.cli.connection.tokens import identity_of
    from osac.cli.output.printer import print_lines

    target = server.target()
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


@reports_errors
@calls_server(plaintext=False, private=False)
def console(
    server: ServerOptions,
    no_browser: Annotated[bool, typer.Option("--no-browser", help="Only print the sign-in URL.")] = False,
    url: Annotated[
        str | None,
        typer.Option("--url", envvar="OSAC_CONSOLE_URL",
                     help="The web console's URL (default: the server's host, HTTP port = gRPC port + 1)."),
    ] = None,
) -> None:
    """Sign in to the web console as the CLI's identity: a one-time URL valid for 60 s (last line)."""
    from osac.cli.connection.console_sign_in import console_url, sign_in_url
    from osac.cli.connection.target import NOT_LOGGED_IN

    target = server.target()
    if not target.token:
        raise CliError(NOT_LOGGED_IN.format(address=target.address))
    link = sign_in_url(console_url(target.address, url), target.token)
    if not no_browser:
        import webbrowser

        with contextlib.suppress(Exception):
            if webbrowser.open(link):
                typer.echo("Opened the sign-in link in your browser; if it did not open, use:")
    typer.echo(link)


def register(app: typer.Typer) -> None:
    for command in (token, login, whoami, console):
        app.command()(command)
