"""The development issuer: its key file (created once, reused, 0600, safe under concurrent
creation) and the shape of the tokens and key set it produces."""

from __future__ import annotations

import stat
import threading
from datetime import timedelta
from pathlib import Path

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from jwt.types import Options

from osac.auth import DEV_ISSUER, AuthConfigError, DevIssuer, Role
from osac.auth.dev_issuer import load_or_create_key, public_jwk
from osac.clock import FakeClock

from .idp import T0


def test_key_file_is_created_on_first_use_with_mode_0600(dev_issuer: DevIssuer) -> None:
    assert not dev_issuer.key_path.exists()
    dev_issuer.mint("alice", ["acme"], Role.TENANT_USER)
    assert dev_issuer.key_path.name == "dev-issuer.pem"
    assert stat.S_IMODE(dev_issuer.key_path.stat().st_mode) == 0o600


def test_key_file_is_reused_by_the_next_process(dev_issuer: DevIssuer, clock: FakeClock) -> None:
    first_kid = dev_issuer.kid
    pem = dev_issuer.key_path.read_bytes()

    restarted = DevIssuer(dev_issuer.key_path.parent, clock)

    assert restarted.kid == first_kid
    assert restarted.jwks() == dev_issuer.jwks()
    assert dev_issuer.key_path.read_bytes() == pem


def test_an_existing_key_is_never_replaced(tmp_path: Path) -> None:
    """Given another process already wrote the key, ours must adopt it rather than overwrite it."""
    path = tmp_path / "dev-issuer.pem"
    theirs = ec.generate_private_key(ec.SECP256R1())
    path.write_bytes(
        theirs.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    assert public_jwk(load_or_create_key(path)) == public_jwk(theirs)


def test_concurrent_creation_agrees_on_one_key(tmp_path: Path) -> None:
    path = tmp_path / "fresh" / "dev-issuer.pem"
    start = threading.Barrier(8)
    kids: list[str] = []

    def create() -> None:
        start.wait()
        kids.append(public_jwk(load_or_create_key(path))["kid"])

    threads = [threading.Thread(target=create) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert len(kids) == 8
    assert len(set(kids)) == 1
    assert [entry.name for entry in path.parent.iterdir()] == ["dev-issuer.pem"]  # no temporary files left


def test_unusable_key_file_names_the_file_and_the_fix(tmp_path: Path, clock: FakeClock) -> None:
    (tmp_path / "dev-issuer.pem").write_text("not a key")
    with pytest.raises(
        AuthConfigError, match=r"dev issuer key file '.*dev-issuer.pem' is not an unencrypted PEM"
    ):
        DevIssuer(tmp_path, clock).jwks()


@pytest.mark.parametrize(
    ("role", "realm_roles"),
    [
        pytest.param(Role.PROVIDER_ADMIN, ["cloud-provider-admin"], id="provider-admin"),
        pytest.param(Role.TENANT_ADMIN, ["tenant-admin"], id="tenant-admin"),
        pytest.param(Role.TENANT_USER, [], id="tenant-user"),
    ],
)
def test_minted_token_shape(dev_issuer: DevIssuer, role: Role, realm_roles: list[str]) -> None:
    token = dev_issuer.mint("alice", ["acme", "beta"], role, ttl=timedelta(hours=1), groups=["ops"])

    header = jwt.get_unverified_header(token)
    claims = jwt.decode(token, options={"verify_signature": False})

    assert header["kid"] == dev_issuer.kid
    assert header["alg"] == "ES256"
    issued = int(T0.timestamp())
    assert claims == {
        "iss": "urn:osac:dev-issuer",
        "sub": "alice",
        "preferred_username": "alice",
        "organization": ["acme", "beta"],
        "realm_access": {"roles": realm_roles},
        "groups": ["ops"],
        "iat": issued,
        "nbf": issued,
        "exp": issued + 3600,
    }


def test_default_lifetime_is_twelve_hours(dev_issuer: DevIssuer) -> None:
    claims = jwt.decode(dev_issuer.mint("alice", [], Role.TENANT_USER), options={"verify_signature": False})
    assert claims["exp"] - claims["iat"] == 12 * 3600


def test_jwks_publishes_only_the_public_key(dev_issuer: DevIssuer) -> None:
    (key,) = dev_issuer.jwks()["keys"]
    assert {"kid": key["kid"], "kty": key["kty"], "use": key["use"], "alg": key["alg"]} == {
        "kid": dev_issuer.kid,
        "kty": "EC",
        "use": "sig",
        "alg": "ES256",
    }
    assert "d" not in key
    token = dev_issuer.mint("alice", [], Role.TENANT_USER)
    signature_only: Options = {"verify_exp": False, "verify_nbf": False, "verify_iat": False}
    assert (
        jwt.decode(token, jwt.PyJWK(key).key, algorithms=["ES256"], options=signature_only)["sub"] == "alice"
    )


def test_issuer_id() -> None:
    assert DEV_ISSUER == DevIssuer.issuer == "urn:osac:dev-issuer"


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        pytest.param({"user": ""}, ValueError, id="no-user"),
        pytest.param({"ttl": timedelta(0)}, ValueError, id="zero-lifetime"),
        pytest.param({"tenants": "acme"}, TypeError, id="tenants-as-string"),
    ],
)
def test_mint_refuses_nonsense(
    dev_issuer: DevIssuer, kwargs: dict[str, object], error: type[Exception]
) -> None:
    arguments: dict[str, object] = {"user": "alice", "tenants": ["acme"], "role": Role.TENANT_USER, **kwargs}
    with pytest.raises(error):
        dev_issuer.mint(**arguments)  # type: ignore[arg-type]
