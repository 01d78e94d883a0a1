"""Errors of the command-line client and how a command reports them.

    CliError            anything the user should read as ``Error: <message>`` (exit code 1)
    └── ApiError        the server answered with a gRPC status: ``Error: <CODE>: <message>``

Commands raise these; ``reports_errors`` turns them into one line on stderr and exit code 1, so
no traceback ever reaches the user. Ctrl-C ends a command with exit code 130 and no traceback.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import ParamSpec, TypeVar

import typer

EXIT_FAILURE = 1
EXIT_INTERRUPTED = 130
#: Exit code of input the user must fix, as for Click's usage errors.
EXIT_BAD_INPUT = 2

P = ParamSpec("P")
R = TypeVar("R")


class CliError(Exception):
    """A failure explained to the user; the message names what went wrong and, where known, the fix."""


class ApiError(CliError):
    """The server refused a call. ``code`` is the gRPC status name (``NOT_FOUND``)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


def report(message: str) -> None:
    typer.echo(f"Error: {message}", err=True)


def reports_errors(command: Callable[P, R]) -> Callable[P, R]:
    """Wrap a command so that a ``CliError`` or Ctrl-C ends it with a one-line message."""

    @functools.wraps(command)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return command(*args, **kwargs)
        except CliError as error:
            report(str(error))
            raise typer.Exit(EXIT_FAILURE) from None
        except KeyboardInterrupt:
            raise typer.Exit(EXIT_INTERRUPTED) from None

    return run


class BadInput(CliError):
    """An option or file the user must fix; exit code 2. The message names the option and the fix."""


def reports_bad_input(command: Callable[P, R]) -> Callable[P, R]:
    """Wrap a command so that ``BadInput`` ends it with ``Error: <message>`` and exit code 2.

    Apply it inside ``reports_errors``, which would otherwise take it for a ``CliError`` (exit 1)."""

    @functools.wraps(command)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return command(*args, **kwargs)
        except BadInput as error:
            report(str(error))
            raise typer.Exit(EXIT_BAD_INPUT) from None

    return run
