"""The console's forms that choose and change what the API lets a caller choose and change, in
Debian's chromium on one live server per database (tenants acme and beta): the bare-metal create
form's network attachment, a security group's rules edited on its page, and the provider
admin's edits of host types and network classes.

Each stores through the same service call as the API (checked by reading the object back over
REST), shows the server's refusal naming the field with the form kept, and answers another
tenant (or a tenant, for the catalogue) not found."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, expect

from tests.console.conftest import CHROMIUM, PUBLIC, chromium_available
from tests.console.fleet import wait_for
from tests.console.two_tenants import Site, cells, signed_in, two_tenant_site

pytestmark = pytest.mark.skipif(not chromium_available() and not os.environ.get("CI"),
                                reason=f"no chromium at {CHROMIUM} (apt-get install -y chromium)")

BMIS = f"{PUBLIC}/baremetal_instances"


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def site(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    yield from two_tenant_site(request.param, tmp_path_factory.mktemp("console-edits"))


def named(site: Site, collection: str, name: str) -> dict[str, Any]:
    [found] = site.acme.get(f"{PUBLIC}/{collection}", params={"filter": f"this.metadata.name == '{name}'"}).json()["items"]
    return dict(found)


def made_ready(site: Site, collection: str, name: str, spec: dict[str, Any], state: str) -> str:
    """The id of acme's ``name`` in ``collection`` (created with ``spec`` unless it exists) once READY."""
    listed = site.acme.get(f"{PUBLIC}/{collection}", params={"filter": f"this.metadata.name == '{name}'"}).json()["items"]
    if listed:
        object_id = str(listed[0]["id"])
    else:
        created = site.acme.post(f"{PUBLIC}/{collection}", json={"metadata": {"name": name}, "spec": spec})
        assert created.status_code == 200, created.text
        object_id = str(created.json()["id"])
    wait_for(site.acme, f"{PUBLIC}/{collection}/{object_id}", lambda o: o.get("status", {}).get("state") == state)
    return object_id


def test_the_bare_metal_form_attaches_the_chosen_subnet_security_group_and_interface(site: Site, browser: Browser) -> None:
    network = named(site, "virtual_networks", "default")["id"]
    subnet = made_ready(site, "subnets", "metal-sn", {"virtual_network": network, "ipv4_cidr": "10.0.90.0/24"},
                        "SUBNET_STATE_READY")
    group = made_ready(site, "security_groups", "metal-sg", {"virtual_network": network}, "SECURITY_GROUP_STATE_READY")
    page = signed_in(browser, site.server, "tenant-admin", "acme", "alice")
    page.goto(f"{site.server.url}/baremetal-instances/new")

    # The host type's interfaces the API lets an attachment use (not eno1, its lifecycle one).
    assert page.locator("#interface option").evaluate_all("els => els.map(e => e.value)") == [
        "", "ens1f0", "ens1f1", "ens2f0"]
    expect(page.locator("#interface option").first).to_have_text("the host type's first fabric interface (ens1f0)")
    offered = page.locator("#subnet option").evaluate_all("els => els.map(e => e.value)")
    own = [s["id"] for s in site.acme.get(f"{PUBLIC}/subnets").json()["items"]]
    assert offered[0] == "" and sorted(offered[1:]) == sorted(own)  # acme's own subnets, none of beta's

    page.fill("#name", "metal-net")
    page.select_option("#interface", "ens1f1")
    with page.expect_response(lambda r: r.request.method == "POST") as answer:
        page.click("button:has-text('Create')")
    assert answer.value.status == 400
    expect(page.locator("[data-testid=error]")).to_have_text("subnet: choose the subnet interface 'ens1f1' attaches to")
    expect(page.locator("#name")).to_have_value("metal-net")
    expect(page.locator("#interface")).to_have_value("ens1f1")
    assert not site.acme.get(BMIS, params={"filter": "this.metadata.name == 'metal-net'"}).json().get("items")

    page.select_option("#subnet", subnet)
    page.check(f"[name='sg:{group}']")
    page.click("button:has-text('Create')")
    expect(page.locator("[role=status]")).to_have_text("Bare-metal instance metal-net created")
    bmi_id = page.url.split("/baremetal-instances/", 1)[1].split("?", 1)[0]
    stored = site.acme.get(f"{BMIS}/{bmi_id}").json()
    assert stored["spec"]["network_attachments"] == [
        {"subnet": subnet, "security_groups": [group], "interface": "ens1f1", "primary": True}]
    expect(page.locator("[data-field=State]")).to_contain_text("Running", timeout=30_000)
    [status] = site.acme.get(f"{BMIS}/{bmi_id}").json()["status"]["network_attachment_statuses"]
    assert cells(page, "[data-testid=nics] tbody tr") == [["ens1f1", "metal-sn", status["ip_address"], "yes"]]

    beta = signed_in(browser, site.server, "tenant-admin", "beta", "bob")
    beta.goto(f"{site.server.url}/baremetal-instances/new")
    assert subnet not in beta.locator("#subnet option").evaluate_all("els => els.map(e => e.value)")
    expect(beta.locator(f"[name='sg:{group}']")).to_have_count(0)

    assert site.acme.delete(f"{BMIS}/{bmi_id}").status_code == 200
    deadline = time.monotonic() + 30
    while site.acme.get(f"{BMIS}/{bmi_id}").status_code != 404:
        assert time.monotonic() < deadline, "the bare-metal instance was never archived"
        time.sleep(0.1)
