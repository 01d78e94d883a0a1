"""The bare-metal and networking pages in Debian's chromium, on one live server per database
(the simulator at instant speed, bare-metal gates shortened), tenants acme and beta.

Bare metal: a tenant creates an instance through the form, sees it reach Running on its page
without a reload, with its interfaces as the API reports them, powers it off and on, and deletes
it after the confirmation; the list equals the API; another tenant gets 404 for its id; a refused
create names the field. Networking: virtual networks, subnets, security groups and external IPs
are created through their forms and shown as the API reports them; a refused create and a refused
delete show the server's message; another tenant sees none of them and is not offered the delete
of its own defaults."""

from __future__ import annotations

import re
import time

import httpx
from playwright.sync_api import Browser, Page, expect

from tests.console.conftest import NEEDS_CHROMIUM, PRIVATE, PUBLIC
from tests.console.fleet import wait_for
from tests.console.two_tenants import Site, cells, field_of, row_of, signed_in, two_tenant_fixture

pytestmark = NEEDS_CHROMIUM

BMIS = f"{PUBLIC}/baremetal_instances"


site = two_tenant_fixture("console-resources")


def test_a_bare_metal_instance_from_the_form_runs_powers_off_and_on_and_is_deleted(site: Site, browser: Browser) -> None:
    page = signed_in(browser, site.server, "tenant-admin", "acme", "alice")
    page.click("text=Create bare-metal instance")
    expect(page.locator("#host_type option")).to_have_text(["bm-standard"])  # bare-metal host types only
    page.fill("#name", "metal-1")
    page.check("#external_access")
    page.click("button:has-text('Create')")
    expect(page.locator("[role=status]")).to_have_text("Bare-metal instance metal-1 created")
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

    page.goto(f"{site.server.url}/networking/external-ips")
    [attachment] = [a for a in site.acme.get(f"{PUBLIC}/external_ip_attachments").json()["items"]
                    if a["spec"].get("baremetal_instance") == bmi_id]
    external = site.acme.get(f"{PUBLIC}/external_ips/{attachment['spec']['external_ip']}").json()
    row = page.locator(f"[data-testid=external-ips] tr[data-object-id='{external['id']}']")
    expect(row.locator("td[data-label='Attached to']")).to_have_text("bare metal metal-1")
    expect(row.locator("td[data-label=Address]")).to_have_text(external["status"]["address"])

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


def create_through_the_form(page: Page, url: str, collection: str, name: str, **fields: str) -> None:
    page.goto(f"{url}/networking/{collection}")
    page.click("a:has-text('Create')")
    page.fill("#name", name)
    for field, value in fields.items():
        if page.locator(f"select#{field}").count():
            page.select_option(f"#{field}", label=value)
        else:
            page.fill(f"#{field}", value)
    page.click("button:has-text('Create')")


def test_networking_objects_are_created_listed_and_deleted_through_the_pages(site: Site, browser: Browser) -> None:
    page = signed_in(browser, site.server, "tenant-admin", "acme", "alice")
    classes = {c["id"]: c["metadata"]["name"] for c in site.acme.get(f"{PUBLIC}/network_classes").json()["items"]}

    create_through_the_form(page, site.server.url, "virtual-networks", "lab-vn", ipv4_cidr="10.50.0.0/16")
    expect(page.locator("[role=status]")).to_have_text("Virtual network lab-vn created")
    expect(row_of(page, "virtual-networks", "lab-vn").locator("td[data-label=State]")).to_have_text("Ready", timeout=20_000)
    vn = next(v for v in site.acme.get(f"{PUBLIC}/virtual_networks").json()["items"] if v["metadata"]["name"] == "lab-vn")
    expect(row_of(page, "virtual-networks", "lab-vn").locator("td[data-label='Network class']")).to_have_text(
        classes[vn["spec"]["network_class"]])
    expect(row_of(page, "virtual-networks", "lab-vn").locator("td[data-label=CIDR]")).to_have_text("10.50.0.0/16")

    create_through_the_form(page, site.server.url, "subnets", "lab-sn", virtual_network="lab-vn", ipv4_cidr="10.60.1.0/24")
    expect(page.locator("[data-testid=error]")).to_contain_text("spec.ipv4_cidr: 10.60.1.0/24 is not inside")
    expect(page.locator("#name")).to_have_value("lab-sn")
    page.fill("#ipv4_cidr", "10.50.1.0/24")
    page.click("button:has-text('Create')")
    expect(page.locator("[role=status]")).to_have_text("Subnet lab-sn created")
    expect(row_of(page, "subnets", "lab-sn").locator("td[data-label=State]")).to_have_text("Ready", timeout=20_000)
    expect(row_of(page, "subnets", "lab-sn").locator("td[data-label='Virtual network']")).to_have_text("lab-vn")

    create_through_the_form(page, site.server.url, "security-groups", "web-sg", virtual_network="lab-vn", protocol="TCP",
                            ports="8000-8080", source="10.0.0.0/8")
    expect(page.locator("[role=status]")).to_have_text("Security group web-sg created")
    group = row_of(page, "security-groups", "web-sg")
    expect(group.locator("td[data-label='Inbound rules']")).to_have_text("1")
    expect(group.locator("td[data-label='Outbound rules']")).to_have_text("0")
    group_id = str(group.get_attribute("data-object-id"))
    expect(page.locator(f"[data-details-of='{group_id}']")).to_have_text("Inbound TCP 8000-8080 from 10.0.0.0/8")
    stored = site.acme.get(f"{PUBLIC}/security_groups/{group_id}").json()["spec"]["ingress"]
    assert stored == [{"protocol": "PROTOCOL_TCP", "port_from": 8000, "port_to": 8080, "ipv4_cidr": "10.0.0.0/8"}]
    create_through_the_form(page, site.server.url, "security-groups", "bad-sg", virtual_network="lab-vn", protocol="TCP",
                            ports="ssh")
    expect(page.locator("[data-testid=error]")).to_have_text("ports: 'ssh' is not a port or a range of ports (22 or 8000-8080)")

    pools = site.admin.get(f"{PRIVATE}/external_ip_pools").json()["items"]
    create_through_the_form(page, site.server.url, "external-ips", "spare-ip", pool=pools[0]["metadata"]["name"])
    expect(page.locator("[role=status]")).to_have_text("External IP spare-ip created")
    address = next(e for e in site.acme.get(f"{PUBLIC}/external_ips").json()["items"]
                   if e["metadata"]["name"] == "spare-ip")
    spare = row_of(page, "external-ips", "spare-ip")
    expect(spare.locator("td[data-label=Address]")).to_have_text(address["status"]["address"])
    expect(spare.locator("td[data-label=Pool]")).to_have_text(pools[0]["metadata"]["name"])
    expect(spare.locator("td[data-label='Attached to']")).to_have_text("-")

    # The network still holds the subnet and the group: the server refuses, naming them.
    refusal = site.acme.delete(f"{PUBLIC}/virtual_networks/{vn['id']}", headers={"x-dry-run": "true"})
    assert refusal.status_code >= 400, refusal.text
    page.goto(f"{site.server.url}/networking/virtual-networks")
    row_of(page, "virtual-networks", "lab-vn").locator("text=Delete…").click()
    with page.expect_response(lambda r: r.request.method == "POST") as answer:
        page.click("button:has-text('Delete')")
    assert answer.value.status == refusal.status_code
    expect(page.locator("[data-testid=error]")).to_have_text(refusal.json()["message"])
    assert "lab-sn" in refusal.json()["message"] or "web-sg" in refusal.json()["message"]

    page.goto(f"{site.server.url}/networking/security-groups")
    row_of(page, "security-groups", "web-sg").locator("text=Delete…").click()
    page.click("button:has-text('Delete')")
    expect(page.locator("[role=status]")).to_have_text("Deletion requested")
    expect(row_of(page, "security-groups", "web-sg")).to_have_count(0, timeout=20_000)

    page.goto(f"{site.server.url}/networking/subnets")
    page.fill("#name", "lab")
    page.click("button:has-text('Filter')")
    expect(page).to_have_url(f"{site.server.url}/networking/subnets?name=lab&state=")  # the state filter: all
    assert page.locator("[data-testid=subnets] tbody tr[data-object-id] td[data-label=Name]").all_inner_texts() == ["lab-sn"]

    page.goto(f"{site.server.url}/networking/nat-gateways")
    [nat] = site.acme.get(f"{PUBLIC}/nat_gateways").json()["items"]  # the tenant's default one
    nat_ip = site.acme.get(f"{PUBLIC}/external_ips/{nat['spec']['external_ip']}").json()
    assert cells(page, "[data-testid=nat-gateways] tbody tr[data-object-id]") == [
        [nat["metadata"]["name"], "default", nat_ip["metadata"]["name"], "Ready", "Delete…"]]
    expect(page.locator("a:has-text('Create NAT gateway')").first).to_be_visible()  # test_external_access.py creates one

    beta = signed_in(browser, site.server, "tenant-user", "beta", "bob")
    beta.goto(f"{site.server.url}/networking/virtual-networks")
    expect(beta.locator("a:has-text('Create virtual network')")).to_be_visible()  # any role creates
    names = beta.locator("[data-testid=virtual-networks] tbody tr[data-object-id] td[data-label=Name]").all_inner_texts()
    assert names and "lab-vn" not in names  # its own default network only
    expect(beta.locator("[data-testid=virtual-networks] >> text=Delete…")).to_have_count(0)  # defaults: not a user's
    response = beta.goto(f"{site.server.url}/networking/virtual-networks/{vn['id']}/delete")
    assert response is not None and response.status == 404
    response = beta.goto(f"{site.server.url}/networking/routers")
    assert response is not None and response.status == 404
    expect(beta.locator("[data-testid=error]")).to_contain_text("no networking page 'routers'; there are virtual-networks")


def test_the_provider_catalogue_pages_equal_the_api_and_are_for_provider_admins_only(site: Site, browser: Browser) -> None:
    admin = signed_in(browser, site.server, "provider-admin", "", "root")
    private = site.admin

    admin.goto(f"{site.server.url}/admin/tenants")
    tenants = private.get(f"{PRIVATE}/tenants").json()["items"]
    assert {t["metadata"]["name"] for t in tenants} >= {"acme", "beta"}
    expect(admin.locator("[data-testid=total]")).to_have_text(str(len(tenants)))
    for tenant in tenants:
        [ready] = [c for c in tenant["status"]["conditions"]
                   if c["type"] == "TENANT_CONDITION_TYPE_DEFAULT_NETWORKING_READY"]
        row = cells(admin, f"[data-testid=tenants] tr[data-object-id='{tenant['id']}']")[0]
        assert row[:4] == [tenant["metadata"]["name"], "Ready", ready["status"].removeprefix("CONDITION_STATUS_").capitalize(),
                           ready.get("reason") or "-"], row

    created = site.acme.post(f"{PUBLIC}/external_ips", json={"metadata": {"name": "count-me"},
                                                             "spec": {"pool": private.get(f"{PRIVATE}/external_ip_pools").json()["items"][0]["id"]}})
    assert created.status_code == 200, created.text
    pool = wait_for(private, f"{PRIVATE}/external_ip_pools/{created.json()['status']['pool']}",
                    lambda p: int(p["status"].get("allocated", 0)) > 0)
    admin.goto(f"{site.server.url}/admin/external-ip-pools")
    row = admin.locator(f"[data-testid=external-ip-pools] tr[data-object-id='{pool['id']}']")
    expect(row.locator("td[data-label='Allocated / total']")).to_have_text(
        f"{pool['status']['allocated']} / {pool['status']['total']}")
    expect(row.locator("td[data-label=CIDRs]")).to_have_text(", ".join(pool["spec"]["cidrs"]))
    before = int(pool["status"]["allocated"])
    assert site.acme.delete(f"{PUBLIC}/external_ips/{created.json()['id']}").status_code == 200
    # The freed address shows on the open page, pushed by the change stream.
    expect(row.locator("td[data-label='Allocated / total']")).to_have_text(
        f"{before - 1} / {pool['status']['total']}", timeout=20_000)

    admin.goto(f"{site.server.url}/admin/network-classes")
    classes = private.get(f"{PRIVATE}/network_classes").json()["items"]
    assert [r[:3] for r in cells(admin, "[data-testid=network-classes] tbody tr[data-object-id]")] == [
        [c["metadata"]["name"], c.get("title") or "-", "yes" if c.get("is_default") else "no"] for c in classes]

    admin.goto(f"{site.server.url}/admin/host-types")
    host_types = private.get(f"{PRIVATE}/host_types").json()["items"]
    shown = {r[0]: r for r in cells(admin, "[data-testid=host-types] tbody tr[data-object-id]")}
    assert set(shown) == {h["metadata"]["name"] for h in host_types}
    assert shown["bm-standard"][2] == "bare metal"
    standard = next(h for h in host_types if h["metadata"]["name"] == "bm-standard")
    assert shown["bm-standard"][3] == ", ".join(f"{i['name']} ({i['role']})" for i in standard["interfaces"])

    admin.goto(f"{site.server.url}/admin/cluster-templates")
    templates = private.get(f"{PRIVATE}/cluster_templates").json()["items"]
    assert [r[0] for r in cells(admin, "[data-testid=cluster-templates] tbody tr[data-object-id]")] == [
        t["metadata"]["name"] for t in templates]
    expect(admin.locator("nav >> text=Cluster templates")).to_be_visible()

    instance_types = private.get(f"{PRIVATE}/instance_types").json()["items"]
    assert instance_types
    type_names = {t["id"]: t["metadata"]["name"] for t in instance_types}
    admin.goto(f"{site.server.url}/admin/compute-instance-templates")
    compute_templates = private.get(f"{PRIVATE}/compute_instance_templates").json()["items"]
    assert compute_templates and all(t["spec_defaults"]["instance_type"] in type_names for t in compute_templates)
    # The default instance type by its name, not its id.
    assert [r[:3] for r in cells(admin, "[data-testid=compute-instance-templates] tbody tr[data-object-id]")] == [
        [t["metadata"]["name"], t.get("title") or "-", type_names[t["spec_defaults"]["instance_type"]]]
        for t in compute_templates]

    admin.goto(f"{site.server.url}/admin/instance-types")
    assert [r[:3] for r in cells(admin, "[data-testid=instance-types] tbody tr[data-object-id]")] == [
        [t["metadata"]["name"], str(t["spec"].get("cores", 0)), str(t["spec"].get("memory_gib", 0))]
        for t in instance_types]

    tenant = signed_in(browser, site.server, "tenant-admin", "acme", "alice")
    expect(tenant.locator("nav >> text=Tenants")).to_have_count(0)  # not offered
    for path in ("tenants", "external-ip-pools", "network-classes", "host-types", "cluster-templates",
                 "compute-instance-templates", "instance-types"):
        response = tenant.goto(f"{site.server.url}/admin/{path}")
        assert response is not None and response.status == 404, path
        expect(tenant.locator("[data-testid=error]")).to_have_text(f"no page at /admin/{path}")


def events_shown(page: Page, client: httpx.Client, object_id: str) -> None:
    """The page's events table holds the object's lifecycle events as the API lists them."""
    listed = client.get(f"{PUBLIC}/lifecycle_events", params={"filter": f"this.object_id == '{object_id}'"}).json()
    reasons = [e["reason"] for e in reversed(listed.get("items", []))][:10]
    rows = page.locator("[data-testid=events] tbody tr")
    if reasons:
        assert [r.locator("td").nth(2).inner_text() for r in rows.all()] == reasons
    else:
        expect(rows).to_have_text(["No events yet."])


def test_networking_detail_pages_show_their_parts_live_and_only_to_their_tenant(site: Site, browser: Browser) -> None:
    acme = site.acme
    vn = acme.post(f"{PUBLIC}/virtual_networks", json={"metadata": {"name": "detail-vn"}, "spec": {"ipv4_cidr": "10.70.0.0/16"}})
    assert vn.status_code == 200, vn.text
    vn_id = vn.json()["id"]
    wait_for(acme, f"{PUBLIC}/virtual_networks/{vn_id}", lambda v: v["status"]["state"] == "VIRTUAL_NETWORK_STATE_READY")
    group = acme.post(f"{PUBLIC}/security_groups", json={"metadata": {"name": "detail-sg"}, "spec": {
        "virtual_network": vn_id, "ingress": [{"protocol": "PROTOCOL_TCP", "port_from": 22, "port_to": 22, "ipv4_cidr": "0.0.0.0/0"}],
        "egress": [{"protocol": "PROTOCOL_ALL", "ipv4_cidr": "0.0.0.0/0"}]}})
    assert group.status_code == 200, group.text

    page = signed_in(browser, site.server, "tenant-admin", "acme", "alice")
    page.goto(f"{site.server.url}/networking/virtual-networks")
    row_of(page, "virtual-networks", "detail-vn").locator("td[data-label=Name] a").click()
    expect(page).to_have_url(f"{site.server.url}/networking/virtual-networks/{vn_id}")
    expect(page.locator("h1")).to_have_text("Virtual network detail-vn")
    expect(field_of(page, "CIDR")).to_have_text("10.70.0.0/16")
    expect(field_of(page, "State")).to_have_text("Ready", timeout=20_000)
    expect(page.locator("[data-testid=security-groups] td[data-label=Name]")).to_have_text(["detail-sg"])
    expect(page.locator("[data-testid=subnets] tbody")).to_have_text("None yet.")
    page.evaluate("window.__notReloaded = true")
    subnet = acme.post(f"{PUBLIC}/subnets", json={"metadata": {"name": "detail-sn"},
                                                  "spec": {"virtual_network": vn_id, "ipv4_cidr": "10.70.1.0/24"}})
    assert subnet.status_code == 200, subnet.text
    subnet_id = subnet.json()["id"]
    # The new subnet appears on the open network page, pushed by the change stream.
    expect(page.locator("[data-testid=subnets] td[data-label=Name]")).to_have_text(["detail-sn"], timeout=20_000)
    expect(page.locator("[data-testid=subnets] td[data-label=State]")).to_have_text(["Ready"], timeout=20_000)
    assert page.evaluate("window.__notReloaded") is True
    events_shown(page, acme, vn_id)

    page.locator("[data-testid=security-groups] td[data-label=Name] a").click()
    expect(page.locator("h1")).to_have_text("Security group detail-sg")
    assert cells(page, "[data-testid=rules] tbody tr") == [["Inbound", "TCP", "22", "0.0.0.0/0", "Remove"],
                                                           ["Outbound", "ALL", "-", "0.0.0.0/0", "Remove"]]
    field_of(page, "Virtual network").locator("a").click()
    expect(page).to_have_url(f"{site.server.url}/networking/virtual-networks/{vn_id}")

    page.locator("[data-testid=subnets] td[data-label=Name] a").click()
    stored = acme.get(f"{PUBLIC}/subnets/{subnet_id}").json()
    for term, value in (("CIDR", "10.70.1.0/24"), ("Gateway", stored["status"]["gateway"]),
                        ("VIP range", stored["status"]["vip_range"]),
                        ("Available addresses", str(stored["status"]["available_addresses"])),
                        ("Virtual network", "detail-vn")):
        expect(field_of(page, term)).to_have_text(value)
    expect(page.locator("[data-testid=attached] tbody")).to_have_text("Nothing you can see is attached to this subnet.")

    # The tenant's default subnet: a VM, a bare-metal instance and a cluster on it, live.
    [default] = [s for s in acme.get(f"{PUBLIC}/subnets").json()["items"] if s["metadata"]["name"] == "default"]
    deadline = time.monotonic() + 30
    while [b for b in acme.get(BMIS).json()["items"]]:  # the earlier tests' instances are gone
        assert time.monotonic() < deadline, "the earlier bare-metal instances were never archived"
        time.sleep(0.1)
    page.goto(f"{site.server.url}/networking/subnets/{default['id']}")
    expect(page.locator("[data-testid=attached] tbody tr[data-attached-id]")).to_have_count(0)
    vm = acme.post(f"{PUBLIC}/compute_instances", json={"metadata": {"name": "on-default"}, "spec": {"template": "fedora"}})
    bmi = acme.post(BMIS, json={"metadata": {"name": "metal-default"}, "spec": {"host_type": "bm-standard"}})
    cluster = acme.post(f"{PUBLIC}/clusters", json={"metadata": {"name": "c-default"}, "spec": {"template": "ocp-small"}})
    for created in (vm, bmi, cluster):
        assert created.status_code == 200, created.text
    vm_id, bmi_id, cluster_id = vm.json()["id"], bmi.json()["id"], cluster.json()["id"]
    vm_now = wait_for(acme, f"{PUBLIC}/compute_instances/{vm_id}",
                      lambda v: v.get("status", {}).get("state") == "COMPUTE_INSTANCE_STATE_RUNNING")
    vm_row = page.locator(f"[data-attached-id='{vm_id}'] td")
    expect(vm_row).to_have_text(["Virtual machine", "on-default", "Running", vm_now["status"]["internal_ip_address"]],
                                timeout=20_000)
    bmi_now = wait_for(acme, f"{BMIS}/{bmi_id}", lambda b: b.get("status", {}).get("state") == "BARE_METAL_INSTANCE_STATE_RUNNING")
    expect(page.locator(f"[data-attached-id='{bmi_id}'] td")).to_have_text(
        ["Bare-metal instance", "metal-default", "Running",
         ", ".join(a["ip_address"] for a in bmi_now["status"]["network_attachment_statuses"] if a["subnet"] == default["id"])],
        timeout=20_000)
    cluster_now = wait_for(acme, f"{PUBLIC}/clusters/{cluster_id}",
                           lambda c: c.get("status", {}).get("state") == "CLUSTER_STATE_READY", timeout=60)
    expect(page.locator(f"[data-attached-id='{cluster_id}'] td")).to_have_text(
        ["Cluster", "c-default", "Ready",
         f"API {cluster_now['status']['api_endpoint']}, ingress {cluster_now['status']['ingress_endpoint']}"], timeout=20_000)
    expect(page.locator("[data-testid=attached] tbody tr[data-attached-id]")).to_have_count(3)
    page.locator(f"[data-attached-id='{vm_id}'] a").click()
    expect(page).to_have_url(f"{site.server.url}/compute-instances/{vm_id}")

    [nat] = acme.get(f"{PUBLIC}/nat_gateways").json()["items"]
    page.goto(f"{site.server.url}/networking/nat-gateways/{nat['id']}")
    field_of(page, "External IP").locator("a").click()
    expect(page).to_have_url(f"{site.server.url}/networking/external-ips/{nat['spec']['external_ip']}")
    address = acme.get(f"{PUBLIC}/external_ips/{nat['spec']['external_ip']}").json()
    expect(field_of(page, "Address")).to_have_text(address["status"]["address"])
    expect(field_of(page, "State")).to_have_text("Allocated")
    events_shown(page, acme, address["id"])

    # Another tenant's ids answer 404 on every detail page.
    beta = signed_in(browser, site.server, "tenant-user", "beta", "bob")
    for collection, object_id in (("virtual-networks", vn_id), ("subnets", subnet_id), ("security-groups", group.json()["id"]),
                                  ("external-ips", address["id"]), ("nat-gateways", nat["id"])):
        response = beta.goto(f"{site.server.url}/networking/{collection}/{object_id}")
        assert response is not None and response.status == 404, collection
        expect(beta.locator("[data-testid=error]")).to_contain_text(f"'{object_id}' not found")
    for path in (f"{PUBLIC}/compute_instances/{vm_id}", f"{BMIS}/{bmi_id}", f"{PUBLIC}/clusters/{cluster_id}"):
        assert acme.delete(path).status_code == 200


def test_networking_lists_sort_and_filter_by_state_as_the_api_orders_and_filters(site: Site, browser: Browser) -> None:
    [network] = site.acme.get(f"{PUBLIC}/virtual_networks", params={"filter": "this.metadata.name == 'default'"}).json()["items"]
    for name, cidr in (("zz-last", "10.0.96.0/24"), ("aa-first", "10.0.97.0/24")):
        if not site.acme.get(f"{PUBLIC}/subnets", params={"filter": f"this.metadata.name == '{name}'"}).json()["items"]:
            made = site.acme.post(f"{PUBLIC}/subnets", json={"metadata": {"name": name},
                                                              "spec": {"virtual_network": network["id"], "ipv4_cidr": cidr}})
            assert made.status_code == 200, made.text
    wait_for(site.admin, f"{PRIVATE}/subnets", lambda p: all(
        s.get("status", {}).get("state") == "SUBNET_STATE_READY" for s in p["items"]))
    page = signed_in(browser, site.server, "provider-admin", "", "root")
    names = "[data-testid=subnets] tbody tr[data-object-id] td:first-child"

    page.goto(site.server.url + "/networking/subnets")
    page.click("th >> text=Name")
    expect(page).to_have_url(site.server.url + "/networking/subnets?sort=name")
    listed = site.admin.get(f"{PRIVATE}/subnets", params={"order": "metadata.name"}).json()["items"]
    assert page.locator(names).all_inner_texts() == [s["metadata"]["name"] for s in listed]
    page.click("th >> text=Name")  # again: the other way
    expect(page).to_have_url(site.server.url + "/networking/subnets?sort=name&dir=desc")
    assert page.locator(names).all_inner_texts() == [s["metadata"]["name"] for s in reversed(listed)]

    page.goto(site.server.url + "/networking/subnets?sort=tenant")  # sorted in the server: tenant, then name
    by_tenant = sorted(listed, key=lambda s: (s["metadata"]["tenant"], s["metadata"]["name"]))
    assert page.locator(names).all_inner_texts() == [s["metadata"]["name"] for s in by_tenant]
    assert page.locator("[data-testid=subnets] tbody tr[data-object-id] td:nth-child(2)").all_inner_texts() == [
        s["metadata"]["tenant"] for s in by_tenant]

    page.select_option("#state", "READY")
    page.click("button:has-text('Filter')")
    expect(page).to_have_url(re.compile(r"/networking/subnets\?.*state=READY.*&sort=tenant$"))
    assert len(page.locator(names).all_inner_texts()) == len(listed)
    page.goto(site.server.url + "/networking/subnets?state=DELETE_FAILED")
    assert page.locator(names).all_inner_texts() == []
    response = page.goto(site.server.url + "/networking/external-ips?state=READY")  # an external IP is ALLOCATED
    assert response is not None and response.status == 400
    expect(page.locator("[data-testid=error]")).to_have_text(
        "state: 'READY' is not a state; use one of PENDING, ALLOCATED, FAILED, DELETING, DELETE_FAILED")

    tenant = signed_in(browser, site.server, "tenant-admin", "acme", "alice")
    tenant.goto(site.server.url + "/networking/subnets?sort=name&dir=desc")
    own = site.acme.get(f"{PUBLIC}/subnets", params={"order": "metadata.name desc"}).json()["items"]
    assert tenant.locator(names).all_inner_texts() == [s["metadata"]["name"] for s in own]
    assert {s["metadata"]["tenant"] for s in own} == {"acme"}
