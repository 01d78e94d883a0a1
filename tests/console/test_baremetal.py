"""The bare-metal instance pages in Debian's chromium, on one live server per database (the
simulator at instant speed, gates shortened): a tenant creates an instance through the form,
sees it reach Running on its page without a reload, with its interfaces as the API reports them,
powers it off and on, and deletes it after the confirmation; the list equals the API; another
tenant gets 404 for its id and is offered nothing; a refused create names the field."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from dataclasses import dataclass

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright

from osac.auth.subject import Role
from tests.console.conftest import CHROMIUM, PRIVATE, PUBLIC, ConsoleServer, chromium_available, database_url
from tests.console.fleet import wait_for
from tests.support.bmaas import FAST_GATES

pytestmark = pytest.mark.skipif(not chromium_available() and not os.environ.get("CI"),
                                reason=f"no chromium at {CHROMIUM} (apt-get install -y chromium)")

BMIS = f"{PUBLIC}/baremetal_instances"


@dataclass
class Site:
    server: ConsoleServer
    admin: httpx.Client
    acme: httpx.Client


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def site(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    data_dir = tmp_path_factory.mktemp("console-baremetal")
    for url in database_url(request.param, data_dir):
        server = ConsoleServer(data_dir, url, live=True, config=FAST_GATES)
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


@pytest.fixture(scope="module")
def chromium() -> Iterator[Browser]:
    os.environ.setdefault("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield launched
        launched.close()


@pytest.fixture
def browser(chromium: Browser) -> Iterator[Browser]:
    yield chromium
    for context in chromium.contexts:
        context.close()


def signed_in(browser: Browser, server: ConsoleServer, role: str, tenant: str, user: str) -> Page:
    page = browser.new_context().new_page()
    page.goto(server.url + "/console/dev-sign-in?next=/baremetal-instances")
    page.select_option("#role", role)
    page.fill("#tenant", tenant)
    page.fill("#user", user)
    page.click("button:has-text('Sign in')")
    expect(page).to_have_url(server.url + "/baremetal-instances")
    return page


def cells(page: Page, row_selector: str) -> list[list[str]]:
    return [[t.strip() for t in row.locator("td").all_inner_texts()] for row in page.locator(row_selector).all()]


def test_a_bare_metal_instance_from_the_form_runs_powers_off_and_on_and_is_deleted(site: Site, browser: Browser) -> None:
    page = signed_in(browser, site.server, "tenant-admin", "acme", "alice")
    page.click("text=Create bare-metal instance")
    expect(page.locator("#host_type option")).to_have_text(["bm-standard"])  # bare-metal host types only
    page.fill("#name", "metal-1")
    page.check("#external_access")
    page.click("button:has-text('Create')")
    expect(page.locator("[role=status]")).to_have_text("Bare-metal instance created")
    page.evaluate("window.__notReloaded = true")
    expect(page.locator("[data-field=State]")).to_contain_text("Running", timeout=30_000)
    assert page.evaluate("window.__notReloaded") is True  # the live update swapped it in place
    bmi_id = page.url.split("/baremetal-instances/", 1)[1].split("?", 1)[0]
    bmi = site.acme.get(f"{BMIS}/{bmi_id}").json()
    attachments = bmi["status"]["network_attachment_statuses"]
    assert attachments and all(a.get("ip_address") for a in attachments)
    expect(page.locator("[data-field='Host type']")).to_have_text("bm-standard")
    expect(page.locator("[data-field=Power]")).to_have_text("Always")
    assert cells(page, "[data-testid=nics] tbody tr") == [
        [a["interface"], "default", a["ip_address"], "yes" if a.get("primary") else "no"] for a in attachments]
    reasons = [c.get("reason") or "-" for c in bmi["status"]["conditions"]]
    assert [row[2] for row in cells(page, "[data-testid=conditions] tbody tr")] == reasons
    expect(page.locator("[data-testid=events]")).not_to_contain_text("No events yet")
    expect(page.locator("[data-field=Host]")).to_have_count(0)  # the host's name is the provider's

    page.click("button:has-text('Stop')")
    expect(page.locator("[role=status]")).to_have_text("Stop requested")
    expect(page.locator("[data-field=State]")).to_contain_text("Stopped", timeout=20_000)
    expect(page.locator("[data-field=Power]")).to_have_text("Halted")
    assert site.acme.get(f"{BMIS}/{bmi_id}").json()["spec"]["run_strategy"] == "BARE_METAL_INSTANCE_RUN_STRATEGY_HALTED"
    page.click("button:has-text('Start')")
    expect(page.locator("[data-field=State]")).to_contain_text("Running", timeout=20_000)

    page.goto(site.server.url + "/baremetal-instances")
    expect(page.locator("[data-testid=total]")).to_have_text("1")
    addresses = ", ".join(a["ip_address"] for a in attachments)
    assert cells(page, "[data-testid=baremetal] tbody tr[data-object-id]")[0][:4] == [
        "metal-1", "Running", "bm-standard", addresses]

    admin = signed_in(browser, site.server, "provider-admin", "", "root")
    admin.goto(f"{site.server.url}/baremetal-instances/{bmi_id}")
    host = site.admin.get(f"{PRIVATE}/baremetal_instances/{bmi_id}").json()["status"]["host"]
    expect(admin.locator("[data-field=Host]")).to_have_text(host)
    admin.goto(f"{site.server.url}/baremetal-instances")
    assert cells(admin, "[data-testid=baremetal] tbody tr[data-object-id]")[0][:2] == ["metal-1", "acme"]

    page.goto(f"{site.server.url}/baremetal-instances/{bmi_id}")
    page.click("text=Delete…")
    expect(page.locator("#confirm-title")).to_have_text("Delete bare-metal instance metal-1?")
    page.click("button:has-text('Delete')")
    expect(page.locator("[role=status]")).to_have_text("Deletion requested")
    deadline = time.monotonic() + 30
    while site.acme.get(f"{BMIS}/{bmi_id}").status_code != 404:
        assert time.monotonic() < deadline, "the bare-metal instance was never archived"
        time.sleep(0.1)


def test_another_tenant_gets_not_found_and_a_refused_create_names_the_field(site: Site, browser: Browser) -> None:
    created = site.acme.post(BMIS, json={"metadata": {"name": "metal-acme"}, "spec": {"host_type": "bm-standard"}})
    assert created.status_code == 200, created.text
    bmi_id = created.json()["id"]
    beta = signed_in(browser, site.server, "tenant-user", "beta", "bob")
    expect(beta.locator("[data-testid=baremetal] tbody tr[data-object-id]")).to_have_count(0)
    response = beta.goto(f"{site.server.url}/baremetal-instances/{bmi_id}")
    assert response is not None and response.status == 404
    expect(beta.locator("[data-testid=error]")).to_contain_text(f"'{bmi_id}' not found")
    response = beta.goto(f"{site.server.url}/baremetal-instances/{bmi_id}/delete")
    assert response is not None and response.status == 404

    alice = signed_in(browser, site.server, "tenant-admin", "acme", "alice")
    alice.goto(f"{site.server.url}/baremetal-instances/new")
    alice.fill("#name", "metal-acme")  # taken
    alice.click("button:has-text('Create')")
    expect(alice.locator("[data-testid=error]")).to_contain_text("metal-acme")
    expect(alice.locator("#name")).to_have_value("metal-acme")
    alice.goto(f"{site.server.url}/baremetal-instances?state=ASLEEP")
    expect(alice.locator("[data-testid=error]")).to_contain_text("state: 'ASLEEP' is not a state; use one of PROVISIONING")
    assert site.acme.delete(f"{BMIS}/{bmi_id}").status_code == 200
