"""One live server with tenants acme and beta READY (the simulator at instant speed, bare-metal
gates shortened), shared by the browser tests of the resource pages and of the edit forms, and
the page helpers they use."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from osac.auth.subject import Role
from tests.console.conftest import PRIVATE, PUBLIC, ConsoleServer, database_url
from tests.console.fleet import wait_for
from tests.support.bmaas import FAST_GATES


@dataclass
class Site:
    server: ConsoleServer
    admin: httpx.Client
    acme: httpx.Client


def two_tenant_site(engine: str, data_dir: Path, config: dict[str, Any] = FAST_GATES) -> Iterator[Site]:
    """The server on ``engine`` (sqlite or postgresql) with ``config``; ``admin`` is a provider
    admin's REST client, ``acme`` tenant admin alice's."""
    for url in database_url(engine, data_dir):
        server = ConsoleServer(data_dir, url, live=True, config=config)
        server.start()
        try:
            admin = server.api(server.token(Role.PROVIDER_ADMIN, user="root"))
            wait_for(admin, f"{PRIVATE}/network_classes",
                     lambda page: page["items"][0].get("status", {}).get("state") == "NETWORK_CLASS_STATE_READY")
            wait_for(admin, f"{PRIVATE}/external_ip_pools",
                     lambda page: page["items"][0].get("status", {}).get("state") == "EXTERNAL_IP_POOL_STATE_READY")
            for tenant in ("acme", "beta"):
                created = admin.post(f"{PUBLIC}/tenants", json={"metadata": {"name": tenant}})
                assert created.status_code == 200, created.text
                wait_for(admin, f"{PUBLIC}/tenants/{created.json()['id']}",
                         lambda t: t["status"]["state"] == "TENANT_STATE_READY")
            yield Site(server, admin, server.api(server.token(Role.TENANT_ADMIN, ("acme",), user="alice")))
        finally:
            server.stop()


def two_tenant_fixture(name: str) -> Any:
    """A module's ``site`` fixture: ``two_tenant_site`` on each database, in a temporary ``name``
    folder, for the whole module."""

    @pytest.fixture(scope="module", params=["sqlite", "postgresql"])
    def site(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
        yield from two_tenant_site(request.param, tmp_path_factory.mktemp(name))

    return site


def signed_in(browser: Browser, server: ConsoleServer, role: str, tenant: str, user: str,
              landing: str = "/baremetal-instances") -> Page:
    """A new browser context signed in through the development page, on ``landing``."""
    page = browser.new_context().new_page()
    page.goto(f"{server.url}/console/dev-sign-in?next={landing}")
    page.select_option("#role", role)
    page.fill("#tenant", tenant)
    page.fill("#user", user)
    page.click("button:has-text('Sign in')")
    expect(page).to_have_url(server.url + landing)
    return page


def cells(page: Page, row_selector: str) -> list[list[str]]:
    return [[t.strip() for t in row.locator("td").all_inner_texts()] for row in page.locator(row_selector).all()]


def row_of(page: Page, collection: str, name: str) -> Any:
    return page.locator(f"[data-testid={collection}] tbody tr[data-object-id]", has=page.locator(
        "td[data-label=Name]", has_text=re.compile(f"^{re.escape(name)}$")))


def field_of(page: Page, term: str) -> Any:
    """The value of ``term`` in a detail page's summary."""
    return page.locator(f"[data-testid=summary] [data-field='{term}']")


def submitted(page: Page, selector: str) -> int:
    """Click ``selector`` (a form's submit button) and return the status of the POST it sends."""
    with page.expect_response(lambda r: r.request.method == "POST") as answer:
        page.click(selector)
    return answer.value.status


def refused(page: Page, values: dict[str, str], button: str, status: int, message: str) -> None:
    """Enter ``values`` (by selector: a select's option or a field's text), submit with ``button``:
    refused with ``status`` and ``message`` above the form, every value kept."""
    for selector, value in values.items():
        if page.locator(selector).evaluate("e => e.tagName") == "SELECT":
            page.select_option(selector, value)
        else:
            page.fill(selector, value)
    assert submitted(page, button) == status
    expect(page.locator("[data-testid=error]")).to_have_text(message)
    for selector, value in values.items():
        expect(page.locator(selector)).to_have_value(value)
