"""Console sign-in and sessions over plain HTTP (no browser): one-time codes of ``osac console``,
the development sign-in, sign-out, CSRF and the security headers. One server per database,
without reconcilers, on a fake clock so a code's 60 s lifetime is tested exactly."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from osac.auth.subject import Role
from osac.cli.connection.console_sign_in import console_url
from osac.cli.errors import CliError
from osac.cli.main import app as osac_cli
from osac.clock import FakeClock
from tests.console.conftest import CODES, ConsoleServer, code_url, csrf_of, database_url, said, sign_in_dev


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def served(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ConsoleServer]:
    data_dir = tmp_path_factory.mktemp("console-sessions")
    for url in database_url(request.param, data_dir):
        running = ConsoleServer(data_dir, url, live=False, clock=FakeClock(datetime(2026, 3, 4, 10, 0, tzinfo=UTC)))
        running.start()
        try:
            yield running
        finally:
            running.stop()


def test_a_page_without_a_session_sends_to_sign_in(served: ConsoleServer) -> None:
    with served.browser_client() as browser:
        response = browser.get("/clusters")
        assert response.status_code == 303
        assert response.headers["location"] == "/console/sign-in?next=/clusters"
        page = browser.get("/console/sign-in")
        assert "osac console" in said(page) and "/console/dev-sign-in" in said(page)


def test_a_one_time_code_signs_in_once(served: ConsoleServer) -> None:
    url = code_url(served, served.token(Role.TENANT_ADMIN, ("acme",), user="alice"))
    assert url.startswith(served.url + "/console/sign-in?code=")
    with served.browser_client() as browser:
        response = browser.get(url)
        assert response.status_code == 303 and response.headers["location"] == "/"
        cookie = response.headers["set-cookie"]
        assert "HttpOnly" in cookie and "SameSite=strict" in cookie
        page = browser.get("/")
        assert page.status_code == 200
        assert "alice · tenant-admin · tenants: acme" in said(page)
    with served.browser_client() as other:
        again = other.get(url)
        assert again.status_code == 401
        assert "unknown, used or expired" in said(again)
        assert other.get("/").status_code == 303


def test_an_expired_code_is_refused(served: ConsoleServer) -> None:
    url = code_url(served, served.token(Role.TENANT_ADMIN, ("acme",), user="alice"))
    clock = served.application.clock
    assert isinstance(clock, FakeClock)
    clock.advance(timedelta(seconds=60))
    with served.browser_client() as browser:
        response = browser.get(url)
        assert response.status_code == 401
        assert "valid once, for 60 seconds" in said(response)
        assert browser.get("/").status_code == 303


def test_a_code_needs_a_valid_token(served: ConsoleServer) -> None:
    response = httpx.post(served.url + CODES, headers={"authorization": "Bearer not-a-token"})
    assert response.status_code == 401
    assert response.json()["code"] == 16
    assert httpx.post(served.url + CODES).status_code == 401


def test_osac_console_prints_the_sign_in_url_last(served: ConsoleServer, tmp_path: Path) -> None:
    token = served.token(Role.TENANT_USER, ("acme",), user="carol")
    result = CliRunner().invoke(osac_cli, ["console", "--no-browser", "--address", served.grpc_address,
                                           "--url", served.url],
                                env={"OSAC_TOKEN": token, "OSAC_CONFIG": str(tmp_path / "osac.yaml")})
    assert result.exit_code == 0, result.output
    url = result.stdout.strip().splitlines()[-1]
    assert url.startswith(served.url + "/console/sign-in?code=")
    with served.browser_client() as browser:
        assert browser.get(url).status_code == 303
        assert "carol · tenant-user · tenants: acme" in browser.get("/").text


def test_the_console_url_defaults_to_the_port_above_grpc() -> None:
    assert console_url("127.0.0.1:8000", None) == "http://127.0.0.1:8001"
    assert console_url("127.0.0.1:8000", "https://console.example/") == "https://console.example"
    with pytest.raises(CliError, match="is not an http"):
        console_url("127.0.0.1:8000", "console.example")


def test_osac_console_without_a_token_says_how_to_log_in(served: ConsoleServer, tmp_path: Path) -> None:
    result = CliRunner().invoke(osac_cli, ["console", "--no-browser", "--address", served.grpc_address],
                                env={"OSAC_TOKEN": None, "OSAC_CONFIG": str(tmp_path / "osac.yaml")})
    assert result.exit_code != 0
    assert "osac login" in result.output


def test_development_sign_in_mints_the_identity_asked(served: ConsoleServer) -> None:
    with served.browser_client() as browser:
        response = sign_in_dev(browser, "provider-admin", "", "root")
        assert response.status_code == 303
        page = browser.get("/")
        assert "root · provider-admin · tenants: -" in said(page)
        assert "/admin/stalled" in said(page)


def test_development_sign_in_refuses_bad_input(served: ConsoleServer) -> None:
    with served.browser_client() as browser:
        csrf = csrf_of(browser.get("/console/dev-sign-in").text)
        refused = browser.post("/console/dev-sign-in", data={"csrf": csrf, "role": "owner", "tenant": "", "user": "x"})
        assert refused.status_code == 400 and "role: 'owner' is not a role" in said(refused)
        refused = browser.post("/console/dev-sign-in", data={"csrf": csrf, "role": "tenant-admin", "tenant": "",
                                                              "user": "x"})
        assert refused.status_code == 400 and "tenant: required" in said(refused)
        forged = browser.post("/console/dev-sign-in", data={"csrf": "forged", "role": "provider-admin",
                                                             "tenant": "", "user": "x"})
        assert forged.status_code == 403
        assert browser.get("/").status_code == 303


def test_sign_out_ends_the_session(served: ConsoleServer) -> None:
    with served.browser_client() as browser:
        sign_in_dev(browser, "tenant-admin", "acme", "alice")
        page = browser.get("/")
        out = browser.post("/console/sign-out", data={"csrf": csrf_of(page.text)})
        assert out.status_code == 303 and out.headers["location"].startswith("/console/sign-in")
        assert browser.get("/").status_code == 303
        old = out.request.headers["cookie"].split("osac_console=", 1)[1].split(";", 1)[0]
    with served.browser_client() as replay:  # the old cookie is worth nothing any more, even sent again by hand
        replay.cookies.set("osac_console", old)
        assert replay.get("/").status_code == 303


def test_a_forged_cross_site_post_is_refused(served: ConsoleServer) -> None:
    with served.browser_client() as browser:
        sign_in_dev(browser, "tenant-admin", "acme", "alice")
        csrf = csrf_of(browser.get("/").text)
        no_token = browser.post("/console/sign-out", data={})
        assert no_token.status_code == 403 and "CSRF token" in said(no_token)
        other_site = browser.post("/console/sign-out", data={"csrf": csrf}, headers={"origin": "https://evil.example"})
        assert other_site.status_code == 403 and "another site" in said(other_site)
        forged_delete = browser.post("/clusters/0192f3a4-7c1e-7b2a-9d51-3f0e8c6a2c10/delete", data={"csrf": "guess"})
        assert forged_delete.status_code == 403
        assert browser.get("/").status_code == 200  # still signed in


def test_pages_carry_the_security_headers(served: ConsoleServer) -> None:
    with served.browser_client() as browser:
        sign_in_dev(browser, "tenant-admin", "acme", "alice")
        page = browser.get("/")
        policy = page.headers["content-security-policy"]
        assert "script-src 'self'" in policy and "'unsafe-inline'" not in policy
        assert "frame-ancestors 'none'" in policy
        assert page.headers["x-content-type-options"] == "nosniff"
        assert "<script>" not in page.text and " style=" not in page.text


def test_the_api_keeps_its_paths(served: ConsoleServer) -> None:
    token = served.token(Role.TENANT_ADMIN, ("acme",), user="alice")
    with served.api(token) as api:
        assert api.get("/api/fulfillment/v1/clusters").status_code == 200
        assert api.get("/healthz").text == "ok\n"


def test_bad_list_parameters_name_the_parameter(served: ConsoleServer) -> None:
    with served.browser_client() as browser:
        sign_in_dev(browser, "tenant-admin", "acme", "alice")
        page = browser.get("/clusters", params={"state": "SLEEPING"})
        assert page.status_code == 400 and "state: 'SLEEPING' is not a state" in said(page)
        page = browser.get("/clusters", params={"page": "0"})
        assert page.status_code == 400 and "page: '0' is not a positive whole number" in said(page)
        page = browser.get("/clusters", params={"sort": "colour"})
        assert page.status_code == 400 and "sort: 'colour'" in said(page)
        page = browser.get("/clusters", params={"tenant": "beta"})
        assert page.status_code == 400 and "tenant:" in said(page)
        assert browser.get("/admin/stalled").status_code == 403


def test_a_session_ends_with_its_token(served: ConsoleServer) -> None:
    issuer = served.application.dev_issuer
    assert issuer is not None
    token = issuer.mint("dora", ["acme"], Role.TENANT_ADMIN, ttl=timedelta(minutes=5))
    with served.browser_client() as browser:
        assert browser.get(code_url(served, token)).status_code == 303
        assert browser.get("/").status_code == 200
        clock = served.application.clock
        assert isinstance(clock, FakeClock)
        clock.advance(timedelta(minutes=6))
        expired = browser.get("/clusters")
        assert expired.status_code == 303 and expired.headers["location"] == "/console/sign-in?next=/clusters"
        refused = browser.post("/console/sign-out", data={"csrf": "x"})
        assert refused.status_code in (303, 401)


def test_a_tenant_user_is_not_offered_what_the_api_refuses(served: ConsoleServer) -> None:
    with served.browser_client() as browser:
        sign_in_dev(browser, "tenant-user", "acme", "uma")
        page = browser.get("/compute-instances")
        assert page.status_code == 200
        user_offers = "Create virtual machine" in page.text
    token = served.token(Role.TENANT_USER, ("acme",), user="uma")
    with served.api(token) as api:
        refused = api.post("/api/fulfillment/v1/compute_instances", headers={"x-dry-run": "true"},
                           json={"metadata": {"name": "x"}, "spec": {"template": "fedora"}}).status_code == 403
    assert user_offers != refused
    with served.browser_client() as browser:
        sign_in_dev(browser, "tenant-admin", "acme", "alice")
        assert "Create virtual machine" in browser.get("/compute-instances").text
