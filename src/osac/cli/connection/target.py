"""Where and as whom a command calls: ``--address`` / ``OSAC_ADDRESS`` and ``--token`` /
``OSAC_TOKEN`` over the saved login over the default of ``osac serve``. No gRPC here, so the options can name the default address cheaply.

The saved token is only sent to the saved address: a token is never handed to a server it was
not saved for.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from typing import TYPE_CHECKING

from osac.cli.errors import CliError
from osac.defaults import DEFAULT_GRPC_ADDRESS

if TYPE_CHECKING:
    from osac.cli.connection.config import SavedLogin

#: Where ``osac serve`` listens unless told otherwise.
DEFAULT_ADDRESS = DEFAULT_GRPC_ADDRESS
LOOPBACK_NAMES = frozenset({"localhost", "ip6-localhost"})

NOT_LOGGED_IN = (
    "no token for {address}: run 'osac login {address} --token TOKEN' (or 'osac login --dev ...'), "
    "or pass --token / set OSAC_TOKEN"
)


@dataclass(frozen=True)
class Target:
    """Where and as whom to call."""

    address: str
    token: str | None
    is_plaintext: bool
    is_private: bool = False


def resolve_target(
    address: str | None,
    token: str | None,
    *,
    plaintext: bool = False,
    private: bool = False,
    saved: SavedLogin | None = None,
) -> Target:
    """The target from the command's options over the saved login over the defaults."""
    from osac.cli.connection.config import load_login

    saved = saved if saved is not None else load_login()
    chosen = address or saved.address or DEFAULT_ADDRESS
    host_port, scheme_plaintext = split_address(chosen)
    uses_saved = address is None or _same_address(address, saved.address)
    if token is None and uses_saved:
        token = saved.token
    is_plaintext = (
        plaintext
        or (scheme_plaintext is True)
        or (scheme_plaintext is None and (is_loopback(host_port) or (uses_saved and saved.is_plaintext)))
    )
    return Target(address=host_port, token=token, is_plaintext=is_plaintext, is_private=private)


def split_address(address: str) -> tuple[str, bool | None]:
    """``host:port`` and whether the scheme asks for plaintext (``http://``) or TLS (``https://``).

    >>> split_address("https://api.example.com")
    ('api.example.com:443', False)
    """
    text = address.strip().rstrip("/")
    scheme_plaintext: bool | None = None
    for scheme, plain, port in (("http://", True, 80), ("https://", False, 443), ("grpc://", True, 80)):
        if text.startswith(scheme):
            text = text[len(scheme):]
            scheme_plaintext = plain
            if not _has_port(text):
                text = f"{text}:{port}"
    if not text:
        raise CliError(f"invalid address '{address}': expected HOST:PORT")
    if not _has_port(text):
        raise CliError(f"invalid address '{address}': expected HOST:PORT (e.g. 127.0.0.1:8000)")
    return text, scheme_plaintext


def is_loopback(host_port: str) -> bool:
    host = host_port.rsplit(":", 1)[0].strip("[]").lower()
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _has_port(text: str) -> bool:
    if text.startswith("["):
        return "]:" in text
    return text.count(":") == 1 and text.rsplit(":", 1)[1].isdigit()


def _same_address(a: str | None, b: str | None) -> bool:
    if a is None or b is None:
        return False
    try:
        return split_address(a)[0] == split_address(b)[0]
    except CliError:
        return False
