"""Errors of the command-line client and how a command reports them.

    CliError            anything the user should read as ``Error: <message>`` (exit code 1)
    └── ApiError        the server answered with a gRPC status: ``Error: <CODE>: <message>``

Commands raise these; ``reports_errors`` turns them into one line on stderr and exit code 1, so
no traceback ever reaches the user. Ctrl-C ends a command with exit code 130 and no traceback.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

import typer

EXIT_FAILURE = 1
EXIT_INTERRUPTED = 130

F = TypeVar("F", bound=Callable[..., Any])


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


def reports_errors(command: F) -> F:
    """Wrap a command so that a ``CliError`` or Ctrl-C ends it with a one-line message."""

    @functools.wraps(command)
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except CliError as error:
            report(str(error))
            raise typer.Exit(EXIT_FAILURE) from None
        except KeyboardInterrupt:
            raise typer.Exit(EXIT_INTERRUPTED) from None

    return run  # type: ignore[return-value]
