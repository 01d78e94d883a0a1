"""The saved login: which server the CLI talks to and with which token.

Kept in ``$OSAC_CONFIG``, else ``$XDG_CONFIG_HOME/osac/config.yaml``, else
``~/.config/osac/config.yaml``. The file holds a bearer token, so it is written with mode 0600
(whatever the umask) and replaced atomically: a reader never sees half a file.
"""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass
from pathlib import Path

import yaml

from osac.cli.errors import CliError

CONFIG_ENV = "OSAC_CONFIG"
FILE_MODE = 0o600


@dataclass(frozen=True)
class SavedLogin:
    address: str | None = None
    token: str | None = None
    #: Force plaintext gRPC even for a non-loopback address (saved by ``login --plaintext``).
    is_plaintext: bool = False


def config_path() -> Path:
    configured = os.environ.get(CONFIG_ENV)
    if configured:
        return Path(configured).expanduser()
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "osac" / "config.yaml"


def load_login(path: Path | None = None) -> SavedLogin:
    """The saved login, or an empty one when nothing was saved yet.

    :raises CliError: the file exists but is not a YAML mapping.
    """
    path = path or config_path()
    try:
        text = path.read_text()
    except FileNotFoundError:
        return SavedLogin()
    try:
        data = yaml.safe_load(text) or {}
    except yaml.YAMLError as error:
        raise CliError(f"{path} is not valid YAML ({error}); fix it or run 'osac login' again") from error
    if not isinstance(data, dict):
        raise CliError(f"{path} must be a YAML mapping; run 'osac login' again")
    return SavedLogin(
        address=_optional_string(data.get("address")),
        token=_optional_string(data.get("token")),
        is_plaintext=bool(data.get("plaintext", False)),
    )


def save_login(login: SavedLogin, path: Path | None = None) -> Path:
    """Write ``login`` to the config file (mode 0600), replacing what was there."""
    path = path or config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    data: dict[str, object] = {"address": login.address, "token": login.token}
    if login.is_plaintext:
        data["plaintext"] = True
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    try:
        with os.fdopen(fd, "w") as handle:
            os.fchmod(handle.fileno(), FILE_MODE)
            yaml.safe_dump(data, handle, sort_keys=False)
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
    return path


def _optional_string(value: object) -> str | None:
    return str(value) if value not in (None, "") else None
