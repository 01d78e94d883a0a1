"""OIDC sign-in in Debian's chromium, with the issuer on another site than the console (``localhost``
against ``127.0.0.1``; ports do not make sites) and a user who clicks "Approve" on the issuer's
page, as at a real identity provider. This is what the cookie attributes are for: the callback
arrives from the issuer's site, so the pre-session cookie must be SameSite=Lax, and the Strict
session cookie reaches the next page only through the console's own "Signed in" page."""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from playwright.sync_api import Browser, expect, sync_playwright

from osac.clock import FakeClock
from tests.console.conftest import CHROMIUM, NEEDS_CHROMIUM, ConsoleServer, database_url
from tests.console.fake_oidc import FakeIssuer, Realm, User
from tests.support.onboarding import INSTANT

pytestmark = NEEDS_CHROMIUM

CLOCK = FakeClock(datetime.now(UTC).replace(microsecond=0))


@pytest.fixture(scope="module")
def idp() -> Iterator[FakeIssuer]:
    issuer = FakeIssuer(CLOCK, [Realm("osac", "osac-console", interactive=True)], host="localhost")
    issuer.start()
    try:
        yield issuer
    finally:
        issuer.stop()


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def served(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
           idp: FakeIssuer) -> Iterator[ConsoleServer]:
    data_dir = tmp_path_factory.mktemp("console-oidc-browser")
    issuer = idp.issuer("osac")
    auth = {"issuers": [{"issuer": issuer, "jwks_url": f"{issuer}/certs",
                         "console": {"client_id": "osac-console", "title": "Fake SSO"}}]}
    for url in database_url(request.param, data_dir):
        running = ConsoleServer(data_dir, url, live=False, clock=CLOCK, config={**INSTANT, "auth": auth})
        running.start()
        try:
            yield running
        finally:
            running.stop()


@pytest.fixture(scope="module")
def chromium() -> Iterator[Browser]:
    os.environ.setdefault("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield launched
        launched.close()


@pytest.fixture
def browser(chromium: Browser, idp: FakeIssuer) -> Iterator[Browser]:
    idp.reset()
    idp.realms["osac"].interactive = True
    yield chromium
    for context in chromium.contexts:
        context.close()


def test_sign_in_at_the_issuer_lands_on_the_page_asked_for(served: ConsoleServer, idp: FakeIssuer,
                                                          browser: Browser) -> None:
    idp.realms["osac"].user = User("b-7", "bea", ("acme",), ("tenant-admin",))
    page = browser.new_context().new_page()
    page.goto(served.url + "/clusters")
    expect(page).to_have_url(served.url + "/console/sign-in?next=/clusters")
    page.click("text=Sign in with Fake SSO")
    expect(page.get_by_text("Sign in to osac-console as bea?")).to_be_visible()
    assert page.url.startswith(idp.issuer("osac") + "/authorize?")
    page.click("text=Approve")
    expect(page).to_have_url(served.url + "/clusters")
    expect(page.get_by_test_id("whoami")).to_have_text("bea · tenant-admin · tenants: acme")
    cookies = {cookie["name"]: cookie for cookie in page.context.cookies(served.url)}
    assert cookies["osac_console"]["sameSite"] == "Strict" and cookies["osac_console"]["httpOnly"]
    page.click("button:has-text('Sign out')")
    expect(page).to_have_url(served.url + "/console/sign-in?signed_out=1")


def test_a_refusal_at_the_issuer_is_shown_on_the_sign_in_page(served: ConsoleServer, idp: FakeIssuer,
                                                             browser: Browser) -> None:
    idp.realms["osac"].deny = True
    page = browser.new_context().new_page()
    page.goto(served.url + "/console/sign-in")
    page.click("text=Sign in with Fake SSO")
    expect(page.get_by_test_id("error")).to_have_text(
        "Fake SSO did not sign you in: access_denied (The user denied the request); start again from the "
        "sign-in page")
    assert page.url.startswith(served.url + "/console/oidc/callback?")
    assert "osac_console" not in {cookie["name"] for cookie in page.context.cookies(served.url)}
    page.goto(served.url + "/")
    expect(page).to_have_url(served.url + "/console/sign-in?next=/")
