"""The options the commands share, and the one place the server options are declared.

Every command that calls the server takes ``--address``, ``--token``, ``--plaintext`` and (where
the private API applies) ``--private`` after its own options (docs/cli.md "Options of every
command that calls the server"). ``calls_server`` adds them to a command's signature and hands
them to it as one ``ServerOptions``, so they are written once and mean the same everywhere.

Nothing here loads gRPC, the API types or the status rules: building the command line (``osac
--help``) must stay cheap. ``ServerOptions.connect`` imports the channel when a command runs.
"""

import functools
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from osac.cli.connection.target import DEFAULT_ADDRESS
from osac.cli.output.formats import OutputFormat

if TYPE_CHECKING:
    from osac.cli.connection.channel import Connection
    from osac.cli.connection.target import Target

R = TypeVar("R")

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
ObjectArgument = Annotated[str, typer.Argument(metavar="ID|NAME", help="The object, by id or name.")]
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


@dataclass(frozen=True)
class ServerOptions:
    """Which server, as whom, and which API: the server options as the command was given them."""

    address: str | None = None
    token: str | None = None
    plaintext: bool = False
    private: bool = False

    def target(self, *, private: bool | None = None) -> "Target":
        """The options over the saved login over the defaults; ``private`` overrides ``--private``
        for writes that only the private API offers."""
        from osac.cli.connection.target import resolve_target

        chosen = self.private if private is None else private
        return resolve_target(self.address, self.token, plaintext=self.plaintext, private=chosen)

    def connect(self, *, private: bool | None = None) -> "Connection":
        from osac.cli.connection.channel import Connection

        return Connection(self.target(private=private))


_SERVER_PARAMETERS = {
    name: inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation)
    for name, annotation, default in (
        ("address", AddressOption, None),
        ("token", TokenOption, None),
        ("plaintext", PlaintextOption, False),
        ("private", PrivateOption, False),
    )
}


def calls_server(
    *, plaintext: bool = True, private: bool = True
) -> Callable[[Callable[..., R]], Callable[..., R]]:
    """Give a command the server options after its own (``--plaintext`` and ``--private`` unless
    told otherwise) and call it with them as ``server: ServerOptions``."""
    names = ["address", "token", *(["plaintext"] if plaintext else []), *(["private"] if private else [])]

    def decorate(command: Callable[..., R]) -> Callable[..., R]:
        signature = inspect.signature(command)
        own = [parameter for parameter in signature.parameters.values() if parameter.name != "server"]
        added = [_SERVER_PARAMETERS[name] for name in names]

        @functools.wraps(command)
        def with_server(*args: Any, **kwargs: Any) -> R:
            given = {name: kwargs.pop(name) for name in names}
            return command(*args, server=ServerOptions(**given), **kwargs)

        with_server.__signature__ = signature.replace(parameters=[*own, *added])  # type: ignore[attr-defined]
        with_server.__annotations__ = {
            **{p.name: p.annotation for p in own}, **{p.name: p.annotation for p in added},
            "return": signature.return_annotation,
        }
        return with_server

    return decorate
