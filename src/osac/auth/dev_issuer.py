"""The built-in development token issuer (api.md §8, §9.1).

The embedded development setup needs tokens without running an identity provider, so the service
can sign its own: a local command mints a token for a chosen user, tenants and role, and the
verifier trusts the issuer `urn:osac:dev-issuer` when it is enabled. The public key is published by
`JsonWebKeySet.Get` / `/.well-known/jwks.json`.

The signing key (EC P-256, ES256) lives in `<data dir>/dev-issuer.pem`, mode 0600, so tokens stay
valid across restarts and the minting command and the server, being separate processes, agree on
it. It is created on first use. Several processes may start at once on a fresh data directory:
each writes its candidate to a private temporary file and hard-links it into place, and `link`
fails rather than overwrite, so exactly one key wins and everyone reads that one.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import os
import secrets
from collections.abc import Sequence
from datetime import timedelta
from functools import cached_property
from pathlib import Path
from typing import Any

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from jwt.algorithms import ECAlgorithm, RSAAlgorithm

from osac.auth.errors import AuthConfigError
from osac.auth.subject import Role
from osac.clock import Clock

DEV_ISSUER = "urn:osac:dev-issuer"
"""The `iss` of tokens the development issuer signs; listed in Capabilities when enabled."""

KEY_FILE_NAME = "dev-issuer.pem"

DEFAULT_TOKEN_TTL = timedelta(hours=12)
"""A working day: long enough not to interrupt development, short enough to expire overnight."""

_REALM_ROLES: dict[Role, list[str]] = {
    Role.PROVIDER_ADMIN: ["cloud-provider-admin"],
    Role.TENANT_ADMIN: ["tenant-admin"],
    Role.TENANT_USER: [],
}

SigningKey = ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey


class DevIssuer:
    """Signs development tokens with the key kept in the data directory.

    The key is read (or created) on first use, not in the constructor, so that building a server
    with the dev issuer enabled does not touch the disk until a token is minted or verified.
    """

    issuer = DEV_ISSUER

    def __init__(self, data_dir: Path | str, clock: Clock) -> None:
        self.key_path = Path(data_dir) / KEY_FILE_NAME
        self._clock = clock

    @cached_property
    def _key(self) -> SigningKey:
        return load_or_create_key(self.key_path)

    @cached_property
    def _public_jwk(self) -> dict[str, Any]:
        return public_jwk(self._key)

    @property
    def kid(self) -> str:
        """The key id: the RFC 7638 thumbprint of the public key, stable across restarts."""
        return str(self._public_jwk["kid"])

    @property
    def algorithm(self) -> str:
        return str(self._public_jwk["alg"])

    def mint(
        self,
        user: str,
        tenants: Sequence[str],
        role: Role,
        ttl: timedelta = DEFAULT_TOKEN_TTL,
        groups: Sequence[str] = (),
    ) -> str:
        """A signed JWT for `user`, in the Keycloak claim shape the verifier expects.

        A tenant user gets an empty `realm_access.roles`; any other role its realm role.
        """
        if not user:
            raise ValueError("cannot mint a token without a user name")
        if ttl <= timedelta(0):
            raise ValueError(f"token lifetime must be positive, got {ttl}")
        if isinstance(tenants, str) or isinstance(groups, str):
            raise TypeError("tenants and groups must be sequences of names, not a string")
        now = int(self._clock.now().timestamp())
        claims = {
            "iss": self.issuer,
            "sub": user,
            "preferred_username": user,
            "organization": list(tenants),
            "realm_access": {"roles": list(_REALM_ROLES[role])},
            "groups": list(groups),
            "iat": now,
            "nbf": now,
            "exp": now + int(ttl.total_seconds()),
        }
        return jwt.encode(claims, self._key, algorithm=self.algorithm, headers={"kid": self.kid})

    def jwks(self) -> dict[str, list[dict[str, Any]]]:
        """The JSON Web Key Set served at `/.well-known/jwks.json`."""
        return {"keys": [dict(self._public_jwk)]}


def load_or_create_key(path: Path) -> SigningKey:
    """Read the key at `path`, creating it first if it does not exist.

    :raises AuthConfigError: the file exists but is not a usable private key.
    """
    try:
        return _read_key(path)
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    pem = ec.generate_private_key(ec.SECP256R1()).private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(8)}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as file:
            os.fchmod(file.fileno(), 0o600)  # exact mode whatever the umask
            file.write(pem)
            file.flush()
            os.fsync(file.fileno())
        with contextlib.suppress(FileExistsError):  # another process won the race: its key is the key
            os.link(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
    return _read_key(path)


def _read_key(path: Path) -> SigningKey:
    data = path.read_bytes()
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError) as error:
        raise AuthConfigError(
            f"dev issuer key file '{path}' is not an unencrypted PEM private key ({error}); "
            "delete it to have a new key created"
        ) from error
    if isinstance(key, rsa.RSAPrivateKey):
        return key
    if isinstance(key, ec.EllipticCurvePrivateKey) and isinstance(key.curve, ec.SECP256R1):
        return key
    raise AuthConfigError(
        f"dev issuer key file '{path}' holds a {type(key).__name__}; expected an EC P-256 or RSA key; "
        "delete it to have a new key created"
    )


def public_jwk(key: SigningKey) -> dict[str, Any]:
    """The public JWK of `key`, with `kid` = RFC 7638 thumbprint of its required members."""
    members: tuple[str, ...]
    if isinstance(key, rsa.RSAPrivateKey):
        jwk, algorithm, members = (
            RSAAlgorithm.to_jwk(key.public_key(), as_dict=True),
            "RS256",
            ("e", "kty", "n"),
        )
    else:
        jwk, algorithm, members = (
            ECAlgorithm.to_jwk(key.public_key(), as_dict=True),
            "ES256",
            ("crv", "kty", "x", "y"),
        )
    required = {name: jwk[name] for name in members}
    digest = hashlib.sha256(json.dumps(required, sort_keys=True, separators=(",", ":")).encode()).digest()
    kid = base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
    return {**required, "kid": kid, "use": "sig", "alg": algorithm}
