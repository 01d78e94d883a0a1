"""Development tokens minted locally, and what a token says about its holder.

``osac token`` and ``osac login --dev`` sign with the development issuer's key in the data
directory, the same key ``osac serve`` on that directory trusts. ``whoami`` decodes a token
without checking its signature: the server checks it on every call, the CLI only reports.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from osac.auth import errors as auth_errors
from osac.auth.claims import subject_from_claims
from osac.auth.dev_issuer import DevIssuer
from osac.auth.subject import Role
from osac.cli.errors import CliError
from osac.clock import SystemClock

_DURATION_PART = re.compile(r"(\d+)([dhms])")
_UNIT_SECONDS = {"d": 86400, "h": 3600, "m": 60, "s": 1}


def parse_duration(text: str) -> timedelta:
    """``12h``, ``30m``, ``1h30m``, ``2d``, or plain seconds.

    :raises CliError: anything else, or a zero duration.
    """
    word = text.strip().lower()
    if word.isdigit():
        seconds = int(word)
    elif word and _DURATION_PART.sub("", word) == "":
        seconds = sum(int(n) * _UNIT_SECONDS[unit] for n, unit in _DURATION_PART.findall(word))
    else:
        raise CliError(f"'{text}' is not a duration; use e.g. 12h, 30m, 1h30m or 2d")
    if seconds <= 0:
        raise CliError(f"'{text}': the duration must be positive")
    return timedelta(seconds=seconds)


def mint_dev_token(data_dir: Path, user: str, tenants: Sequence[str], role: Role, ttl: timedelta) -> str:
    """A token from the development issuer of ``data_dir`` (the key is created on first use).

    :raises CliError: the key file is unusable or the request is invalid.
    """
    try:
        return DevIssuer(data_dir, clock=SystemClock()).mint(user, list(tenants), role, ttl=ttl)
    except (auth_errors.AuthError, ValueError, OSError) as error:
        raise CliError(f"cannot mint a development token in {data_dir}: {error}") from error


@dataclass(frozen=True)
class Identity:
    """Who a token says its holder is."""

    user: str
    tenants: tuple[str, ...]
    role: Role
    issuer: str
    expires_at: datetime | None

    def expiry_text(self, now: datetime | None = None) -> str:
        if self.expires_at is None:
            return "never"
        now = now or datetime.now(UTC)
        remaining = self.expires_at - now
        stamp = self.expires_at.strftime("%Y-%m-%d %H:%M:%S UTC")
        if remaining.total_seconds() <= 0:
            return f"{stamp} (EXPIRED)"
        return f"{stamp} (in {_span(remaining)})"


def _span(delta: timedelta) -> str:
    minutes = int(delta.total_seconds()) // 60
    hours, minutes = divmod(minutes, 60)
    days, hours = divmod(hours, 24)
    if days:
        return f"{days}d{hours}h"
    if hours:
        return f"{hours}h{minutes}m"
    return f"{minutes}m"


def decode_claims(token: str) -> dict[str, Any]:
    """The claims of a JWT, without verifying its signature.

    :raises CliError: the text is not a JWT.
    """
    parts = token.strip().split(".")
    if len(parts) != 3:
        raise CliError("the token is not a JWT (expected three dot-separated parts)")
    payload = parts[1] + "=" * (-len(parts[1]) % 4)
    try:
        claims = json.loads(base64.urlsafe_b64decode(payload))
    except (binascii.Error, ValueError) as error:
        raise CliError("the token is not a JWT (its payload is not base64url JSON)") from error
    if not isinstance(claims, dict):
        raise CliError("the token is not a JWT (its payload is not a JSON object)")
    return claims


def identity_of(token: str) -> Identity:
    """The identity a token claims, mapped as the server maps claims (api.md §9.1)."""
    claims = decode_claims(token)
    issuer = str(claims.get("iss", ""))
    try:
        subject = subject_from_claims(claims, issuer=issuer)
    except auth_errors.AuthError as error:
        raise CliError(f"the token's claims are unusable: {error}") from error
    expiry = claims.get("exp")
    expires_at = datetime.fromtimestamp(expiry, UTC) if isinstance(expiry, int | float) else None
    return Identity(subject.user, subject.tenants, subject.role, issuer, expires_at)
