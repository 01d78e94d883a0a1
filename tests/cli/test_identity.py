"""``osac token``, ``login`` and ``whoami`` against a running server."""

from __future__ import annotations

import stat

import yaml

from osac.cli.connection.tokens import identity_of

from .conftest import Osac


def test_token_prints_a_dev_token_with_the_chosen_identity(osac: Osac) -> None:
    token = osac.ok(
        "token", "--role", "tenant-admin", "--tenant", "acme", "--tenant", "beta", "--user", "bob",
        "--data-dir", str(osac.server.data_dir), "--ttl", "30m",
    ).strip()

    identity = identity_of(token)
    assert (identity.user, identity.tenants, identity.role.value) == ("bob", ("acme", "beta"), "tenant-admin")
    assert identity.issuer == "urn:osac:dev-issuer"


def test_login_dev_saves_address_and_token_privately_and_whoami_checks_the_server(osac: Osac) -> None:
    osac.login("tenant-admin", "acme", user="alice")

    saved = yaml.safe_load(osac.config_file.read_text())
    assert saved["address"] == osac.server.address
    assert identity_of(saved["token"]).user == "alice"
    assert stat.S_IMODE(osac.config_file.stat().st_mode) == 0o600

    shown = osac.ok("whoami")
    assert "User:     alice" in shown
    assert "Tenants:  acme" in shown
    assert "Role:     tenant-admin" in shown
    assert "Issuer:   urn:osac:dev-issuer" in shown
    assert "(in 11h59m)" in shown or "(in 12h0m)" in shown
    assert "the server accepts the token" in shown


def test_login_with_a_given_token(osac: Osac) -> None:
    token = osac.ok("token", "--role", "provider-admin", "--user", "root", "--data-dir", str(osac.server.data_dir))

    osac.ok("login", osac.server.address, "--token", token.strip())

    assert "Role:     provider-admin" in osac.ok("whoami")


def test_token_option_and_environment_override_the_saved_login(osac: Osac) -> None:
    osac.login("tenant-user", "acme", user="carol")
    admin = osac.ok("token", "--role", "provider-admin", "--user", "root", "--data-dir", str(osac.server.data_dir))

    assert "User:     root" in osac.ok("whoami", "--token", admin.strip())
    assert "User:     root" in osac.ok("whoami", env={"OSAC_TOKEN": admin.strip()})
    assert "User:     carol" in osac.ok("whoami")


def test_whoami_without_a_login_says_how_to_log_in(osac: Osac) -> None:
    result = osac("whoami")

    assert result.exit_code == 1
    assert result.stderr.startswith("Error: no token for 127.0.0.1:8000: run 'osac login")


def test_whoami_reports_an_unreachable_server(osac: Osac) -> None:
    token = osac.ok("token", "--role", "tenant-admin", "--data-dir", str(osac.server.data_dir)).strip()

    result = osac("whoami", "--address", "127.0.0.1:1", "--token", token)

    assert result.exit_code == 1
    assert result.stderr.startswith("Error: UNAVAILABLE: ")
    assert "Traceback" not in result.output


def test_a_bad_token_is_refused_by_the_server(osac: Osac) -> None:
    osac.login("tenant-admin", "acme")
    forged = "eyJhbGciOiJub25lIn0.eyJzdWIiOiJtYWxsb3J5IiwiaXNzIjoidXJuOm9zYWM6ZGV2LWlzc3VlciJ9.c2ln"

    result = osac("get", "subnets", "--token", forged)

    assert result.exit_code == 1
    assert result.stderr.startswith("Error: UNAUTHENTICATED: ")


def test_login_needs_a_token_or_dev(osac: Osac) -> None:
    result = osac("login", osac.server.address)

    assert result.exit_code == 1
    assert "give either --token TOKEN or --dev" in result.stderr
