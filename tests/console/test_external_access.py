"""The console's outbound external access, in Debian's chromium on one live server per database
(tenants acme and beta): a NAT gateway created from its list's form and deleted.

It goes through the same service call as the API (checked by reading the objects back over
REST), shows the server's refusal with the choices kept and nothing created, and offers another
tenant only its own external IPs."""

from __future__ import annotations

import time
from typing import Any

from playwright.sync_api import Browser, expect

from tests.console.conftest import NEEDS_CHROMIUM, PRIVATE, PUBLIC
from tests.console.fleet import wait_for
from tests.console.two_tenants import Site, row_of, signed_in, submitted, two_tenant_fixture

pytestmark = NEEDS_CHROMIUM

site = two_tenant_fixture("console-external")


def made(site: Site, collection: str, name: str, spec: dict[str, Any], state: str) -> dict[str, Any]:
    """acme's new ``name`` in ``collection``, created over REST, once in ``state``."""
    created = site.acme.post(f"{PUBLIC}/{collection}", json={"metadata": {"name": name}, "spec": spec})
    assert created.status_code == 200, created.text
    found: dict[str, Any] = wait_for(site.acme, f"{PUBLIC}/{collection}/{created.json()['id']}",
                                     lambda o: o.get("status", {}).get("state") == state)
    return found


def gone(site: Site, path: str) -> None:
    """Wait until ``path`` answers 404 (the object archived)."""
    deadline = time.monotonic() + 30
    while site.acme.get(path).status_code != 404:
        assert time.monotonic() < deadline, f"{path} was never archived"
        time.sleep(0.1)


def allocated_ip(site: Site, name: str) -> dict[str, Any]:
    pool = site.admin.get(f"{PRIVATE}/external_ip_pools").json()["items"][0]["id"]
    return made(site, "external_ips", name, {"pool": pool}, "EXTERNAL_IP_STATE_ALLOCATED")


def test_a_nat_gateway_is_created_from_its_form_and_deleted(site: Site, browser: Browser) -> None:
    network = made(site, "virtual_networks", "nat-vn", {"ipv4_cidr": "10.40.0.0/16"}, "VIRTUAL_NETWORK_STATE_READY")
    address = allocated_ip(site, "nat-ip")
    [default_gateway] = site.acme.get(f"{PUBLIC}/nat_gateways").json()["items"]
    page = signed_in(browser, site.server, "tenant-admin", "acme", "alice", landing="/networking/nat-gateways")
    page.click("a:has-text('Create NAT gateway')")
    own_ips = sorted(e["id"] for e in site.acme.get(f"{PUBLIC}/external_ips").json()["items"])
    assert sorted(page.locator("#external_ip option").evaluate_all("els => els.map(e => e.value)")) == own_ips

    # The default network has its gateway: the server refuses, as it refuses the same REST create.
    page.fill("#name", "nat-gw")
    page.select_option("#virtual_network", label="default")
    page.select_option("#external_ip", address["id"])
    body = {"metadata": {"name": "nat-gw"},
            "spec": {"virtual_network": default_gateway["spec"]["virtual_network"], "external_ip": address["id"]}}
    refusal = site.acme.post(f"{PUBLIC}/nat_gateways", json=body, headers={"x-dry-run": "true"})
    assert refusal.status_code == 409, refusal.text
    assert submitted(page, "button:has-text('Create')") == 409
    expect(page.locator("[data-testid=error]")).to_have_text(refusal.json()["message"])
    assert refusal.json()["message"] == f"VirtualNetwork 'default' already has NATGateway '{default_gateway['metadata']['name']}'"
    expect(page.locator("#name")).to_have_value("nat-gw")
    expect(page.locator("#external_ip")).to_have_value(address["id"])
    assert [g["id"] for g in site.acme.get(f"{PUBLIC}/nat_gateways").json()["items"]] == [default_gateway["id"]]

    page.select_option("#virtual_network", network["id"])
    page.click("button:has-text('Create')")
    expect(page.locator("[role=status]")).to_have_text("NAT gateway nat-gw created")
    [stored] = site.acme.get(f"{PUBLIC}/nat_gateways", params={"filter": "this.metadata.name == 'nat-gw'"}).json()["items"]
    assert stored["spec"] == {"virtual_network": network["id"], "external_ip": address["id"]}
    row = row_of(page, "nat-gateways", "nat-gw")
    expect(row.locator("td[data-label='Virtual network']")).to_have_text("nat-vn")
    expect(row.locator("td[data-label='External IP']")).to_have_text("nat-ip")
    expect(row.locator("td[data-label=State]")).to_have_text("Ready", timeout=20_000)  # pushed live

    row.locator("text=Delete…").click()
    page.click("button:has-text('Delete')")
    expect(page.locator("[role=status]")).to_have_text("Deletion requested")
    expect(row_of(page, "nat-gateways", "nat-gw")).to_have_count(0, timeout=20_000)
    gone(site, f"{PUBLIC}/nat_gateways/{stored['id']}")

    # Another tenant's user is offered only its own external IPs.
    beta = signed_in(browser, site.server, "tenant-user", "beta", "bob", landing="/networking/nat-gateways/new")
    assert address["id"] not in beta.locator("#external_ip option").evaluate_all("els => els.map(e => e.value)")
