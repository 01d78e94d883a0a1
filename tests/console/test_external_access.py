"""The console's outbound and inbound external access, in Debian's chromium on one live server
per database (tenants acme and beta): a NAT gateway created from its list's form and deleted, and
an external IP attached to a VM from the IP's page and detached.

Each goes through the same service call as the API (checked by reading the objects back over
REST), shows the server's refusal with the choices kept and nothing created, and answers another
tenant not found."""

from __future__ import annotations

import time
from typing import Any

from playwright.sync_api import Browser, expect

from tests.console.conftest import NEEDS_CHROMIUM, PRIVATE, PUBLIC
from tests.console.fleet import wait_for
from tests.console.two_tenants import Site, field_of, row_of, signed_in, submitted, two_tenant_fixture

pytestmark = NEEDS_CHROMIUM

ATTACHMENTS = f"{PUBLIC}/external_ip_attachments"


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


def test_an_external_ip_is_attached_to_a_vm_on_its_page_and_detached(site: Site, browser: Browser) -> None:
    vm = made(site, "compute_instances", "eip-vm", {"template": "fedora"}, "COMPUTE_INSTANCE_STATE_RUNNING")
    address = allocated_ip(site, "vm-ip")
    url = f"{site.server.url}/networking/external-ips/{address['id']}"
    page = signed_in(browser, site.server, "tenant-user", "acme", "carol", landing="/networking/external-ips")
    page.goto(url)
    expect(field_of(page, "Attached to")).to_have_text("-")
    targets = page.locator("#target option").evaluate_all("els => els.map(e => [e.value, e.textContent])")
    assert [f"compute_instance:{vm['id']}", "VM eip-vm"] in targets

    # A VM takes no endpoint: the server names the field; the choices are kept, nothing is created.
    page.select_option("#target", f"compute_instance:{vm['id']}")
    page.select_option("#endpoint", "api")
    assert submitted(page, "[data-testid=attach] button:has-text('Attach')") == 400
    expect(page.locator("[data-testid=error]")).to_have_text(
        "spec.target_endpoint: only a Cluster target has endpoints; leave it unset for a ComputeInstance")
    expect(page.locator("#target")).to_have_value(f"compute_instance:{vm['id']}")
    expect(page.locator("#endpoint")).to_have_value("api")
    assert site.acme.get(ATTACHMENTS, params={"filter": f"this.spec.external_ip == '{address['id']}'"}).json().get(
        "items", []) == []

    page.select_option("#endpoint", "")
    page.click("[data-testid=attach] button:has-text('Attach')")
    expect(page.locator("[role=status]")).to_have_text("Attachment requested")
    [attachment] = site.acme.get(ATTACHMENTS, params={"filter": f"this.spec.external_ip == '{address['id']}'"}).json()[
        "items"]
    assert attachment["spec"] == {"external_ip": address["id"], "compute_instance": vm["id"]}
    expect(field_of(page, "Attached to")).to_have_text("VM eip-vm")
    shown = page.locator(f"[data-testid=attachments] tr[data-attachment-id='{attachment['id']}']")
    expect(shown.locator("td").first).to_have_text("VM eip-vm")
    assert shown.locator("a").get_attribute("href") == f"/compute-instances/{vm['id']}"
    expect(shown.locator("td").nth(2)).to_have_text("Ready", timeout=20_000)  # pushed live
    ready = wait_for(site.acme, f"{ATTACHMENTS}/{attachment['id']}",
                     lambda a: a["status"]["state"] == "EXTERNAL_IP_ATTACHMENT_STATE_READY")
    expect(shown.locator("td").nth(3)).to_have_text(ready["status"]["target_address"])
    expect(page.locator("[data-testid=attach]")).to_have_count(0)  # attached: nothing more to attach

    # The default NAT gateway's IP is in use: no attach form, as the API would refuse.
    [nat] = site.acme.get(f"{PUBLIC}/nat_gateways", params={"filter": "this.metadata.name == 'default'"}).json()["items"]
    page.goto(f"{site.server.url}/networking/external-ips/{nat['spec']['external_ip']}")
    expect(page.locator("[data-testid=attachments] tbody tr")).to_have_text(["Not attached to anything you can see."])
    expect(page.locator("[data-testid=attach]")).to_have_count(0)

    # A second IP for the same VM: the server's refusal is shown.
    second = allocated_ip(site, "vm-ip-2")
    page.goto(f"{site.server.url}/networking/external-ips/{second['id']}")
    page.select_option("#target", f"compute_instance:{vm['id']}")
    refusal = site.acme.post(ATTACHMENTS, headers={"x-dry-run": "true"},
                             json={"metadata": {}, "spec": {"external_ip": second["id"], "compute_instance": vm["id"]}})
    assert refusal.status_code == 409, refusal.text
    assert submitted(page, "[data-testid=attach] button:has-text('Attach')") == 409
    expect(page.locator("[data-testid=error]")).to_have_text(refusal.json()["message"])
    assert refusal.json()["message"] == f"ComputeInstance 'eip-vm' already has ExternalIPAttachment '{attachment['id']}'"

    # Another tenant: not found, for the page and for an attach posted with its own session's token.
    beta = signed_in(browser, site.server, "tenant-admin", "beta", "bob", landing="/networking/external-ips")
    response = beta.goto(url)
    assert response is not None and response.status == 404
    expect(beta.locator("[data-testid=error]")).to_have_text(f"ExternalIP '{address['id']}' not found")
    beta.goto(f"{site.server.url}/networking/external-ips")
    token = str(beta.locator("input[name=csrf]").first.get_attribute("value"))
    for path, form in ((f"{url}/attachments", {"target": f"compute_instance:{vm['id']}"}),
                       (f"{url}/attachments/remove", {"attachment": attachment["id"]})):
        posted = beta.request.post(path, form={"csrf": token, **form})
        assert posted.status == 404, path
    posted = page.request.post(f"{url}/attachments/remove", form={"attachment": attachment["id"]})  # no CSRF token
    assert posted.status == 403
    assert site.acme.get(f"{ATTACHMENTS}/{attachment['id']}").status_code == 200

    page.goto(url)
    page.click("button[aria-label='Detach from VM eip-vm']")
    expect(page.locator("[role=status]")).to_have_text("Detach requested")
    expect(field_of(page, "Attached to")).to_have_text("-", timeout=20_000)  # pushed live once it is gone
    expect(page.locator("[data-testid=attachments] tr[data-attachment-id]")).to_have_count(0)
    gone(site, f"{ATTACHMENTS}/{attachment['id']}")
    assert site.acme.get(ATTACHMENTS, params={"filter": f"this.spec.external_ip == '{address['id']}'"}).json().get(
        "items", []) == []
