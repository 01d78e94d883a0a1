"""The console's forms that choose and change what the API lets a caller choose and change, in
Debian's chromium on one live server per database (tenants acme and beta): the bare-metal create
form's network attachments, a security group's rules edited on its page, and the provider
admin's creates, edits and deletes of host types and network classes.

Each stores through the same service call as the API (checked by reading the object back over
REST), shows the server's refusal naming the field with the form kept, and answers another
tenant (or a tenant, for the catalogue) not found."""

from __future__ import annotations

import time
from typing import Any

from playwright.sync_api import Browser, expect

from tests.console.conftest import NEEDS_CHROMIUM, PRIVATE, PUBLIC
from tests.console.fleet import wait_for
from tests.console.two_tenants import Site, cells, refused, signed_in, submitted, two_tenant_fixture

pytestmark = NEEDS_CHROMIUM

BMIS = f"{PUBLIC}/baremetal_instances"
VIP_31 = "spec.vip_prefix_length: 31 is out of range; use 0 (= 28) or 1-30 (the VIP range must hold a cluster's two VIPs)"


site = two_tenant_fixture("console-edits")


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


def test_the_bare_metal_form_attaches_a_subnet_per_interface(site: Site, browser: Browser) -> None:
    network = named(site, "virtual_networks", "default")["id"]
    default_subnet = named(site, "subnets", "default")["id"]
    default_group = named(site, "security_groups", "default")["id"]
    subnet = made_ready(site, "subnets", "metal-sn", {"virtual_network": network, "ipv4_cidr": "10.0.90.0/24"},
                        "SUBNET_STATE_READY")
    group = made_ready(site, "security_groups", "metal-sg", {"virtual_network": network}, "SECURITY_GROUP_STATE_READY")
    page = signed_in(browser, site.server, "tenant-admin", "acme", "alice")
    page.goto(f"{site.server.url}/baremetal-instances/new")

    # One attachment choice per interface the API lets an attachment use (not eno1, the lifecycle one).
    assert page.locator("[data-testid=network-attachment] select").evaluate_all("els => els.map(e => e.name)") == [
        "ens1f0.subnet", "ens1f1.subnet", "ens2f0.subnet"]
    expect(page.locator("[data-testid=network-attachment] legend")).to_have_text([
        "Interface ens1f0 (fabric: Tenant network port 0)", "Interface ens1f1 (fabric: Tenant network port 1)",
        "Interface ens2f0 (storage: Storage network)"])
    offered = page.locator("[id='ens1f1.subnet'] option").evaluate_all("els => els.map(e => e.value)")
    own = [s["id"] for s in site.acme.get(f"{PUBLIC}/subnets").json()["items"]]
    assert offered[0] == "" and sorted(offered[1:]) == sorted(own)  # acme's own subnets, none of beta's
    expect(page.locator("[id='ens1f1.subnet'] option").first).to_have_text("not attached")

    # The same subnet on two interfaces: the server's refusal naming the field, the choices kept.
    page.fill("#name", "metal-net")
    page.select_option("[id='ens1f0.subnet']", subnet)
    page.select_option("[id='ens1f1.subnet']", subnet)
    page.check(f"[name='ens1f1.sg:{group}']")
    page.check("[id='ens2f0.primary']")  # an interface left unattached: refused by the console
    assert submitted(page, "button:has-text('Create')") == 400
    expect(page.locator("[data-testid=error]")).to_have_text(
        "primary: interface 'ens2f0' is not attached; choose a subnet for it or make one of the attached interfaces "
        "primary (ens1f0, ens1f1)")
    page.check("[id='ens1f1.primary']")
    assert submitted(page, "button:has-text('Create')") == 400
    expect(page.locator("[data-testid=error]")).to_have_text(
        "spec.network_attachments[1].subnet: the subnet is already attached by spec.network_attachments[0]; "
        "a subnet may appear at most once")
    expect(page.locator("#name")).to_have_value("metal-net")
    expect(page.locator("[id='ens1f0.subnet']")).to_have_value(subnet)
    expect(page.locator("[id='ens1f1.subnet']")).to_have_value(subnet)
    expect(page.locator(f"[name='ens1f1.sg:{group}']")).to_be_checked()
    expect(page.locator("[id='ens1f1.primary']")).to_be_checked()
    assert not site.acme.get(BMIS, params={"filter": "this.metadata.name == 'metal-net'"}).json().get("items")

    page.select_option("[id='ens1f0.subnet']", default_subnet)
    page.click("button:has-text('Create')")
    expect(page.locator("[role=status]")).to_have_text("Bare-metal instance metal-net created")
    bmi_id = page.url.split("/baremetal-instances/", 1)[1].split("?", 1)[0]
    stored = site.acme.get(f"{BMIS}/{bmi_id}").json()
    assert stored["spec"]["network_attachments"] == [  # a subnet of the default network without groups: its default
        {"subnet": default_subnet, "security_groups": [default_group], "interface": "ens1f0"},
        {"subnet": subnet, "security_groups": [group], "interface": "ens1f1", "primary": True}]
    expect(page.locator("[data-field=State]")).to_contain_text("Running", timeout=30_000)
    statuses = site.acme.get(f"{BMIS}/{bmi_id}").json()["status"]["network_attachment_statuses"]
    by_interface = {s["interface"]: s for s in statuses}
    assert sorted(by_interface) == ["ens1f0", "ens1f1"]
    assert sorted(cells(page, "[data-testid=nics] tbody tr")) == [
        ["ens1f0", "default", by_interface["ens1f0"]["ip_address"], "no"],
        ["ens1f1", "metal-sn", by_interface["ens1f1"]["ip_address"], "yes"]]

    beta = signed_in(browser, site.server, "tenant-admin", "beta", "bob")
    beta.goto(f"{site.server.url}/baremetal-instances/new")
    assert subnet not in beta.locator("[id='ens1f0.subnet'] option").evaluate_all("els => els.map(e => e.value)")
    expect(beta.locator(f"[name='ens1f0.sg:{group}']")).to_have_count(0)

    assert site.acme.delete(f"{BMIS}/{bmi_id}").status_code == 200
    deadline = time.monotonic() + 30
    while site.acme.get(f"{BMIS}/{bmi_id}").status_code != 404:
        assert time.monotonic() < deadline, "the bare-metal instance was never archived"
        time.sleep(0.1)


def rules_of(site: Site, group: str) -> tuple[list[Any], list[Any]]:
    spec = site.acme.get(f"{PUBLIC}/security_groups/{group}").json()["spec"]
    return spec.get("ingress", []), spec.get("egress", [])


def test_a_security_group_s_rules_are_added_and_removed_on_its_page(site: Site, browser: Browser) -> None:
    network = named(site, "virtual_networks", "default")["id"]
    ssh = {"protocol": "PROTOCOL_TCP", "port_from": 22, "port_to": 22, "ipv4_cidr": "0.0.0.0/0"}
    group = made_ready(site, "security_groups", "edit-sg", {"virtual_network": network, "ingress": [ssh]},
                       "SECURITY_GROUP_STATE_READY")
    page = signed_in(browser, site.server, "tenant-admin", "acme", "alice")
    url = f"{site.server.url}/networking/security-groups/{group}"
    page.goto(url)
    add = page.locator("[data-testid=add-rule]")

    # The server validates the new list and names the rule's field; the form is kept.
    refused(page, {"#direction": "ingress", "#protocol": "tcp", "#ports": "70000", "#peer": "10.0.0.0/8"},
            "[data-testid=add-rule] button:has-text('Add rule')", 400,
            "spec.ingress[1]: PROTOCOL_TCP ports must satisfy 1 <= port_from <= port_to <= 65535 (got 70000-70000)")
    assert rules_of(site, group) == ([ssh], [])

    page.select_option("#direction", "egress")
    page.select_option("#protocol", "udp")
    page.fill("#ports", "53")
    page.fill("#peer", "10.0.0.53/32")
    add.locator("button:has-text('Add rule')").click()
    expect(page.locator("[role=status]")).to_have_text("Rule added: Outbound UDP 53 to 10.0.0.53/32")
    dns = {"protocol": "PROTOCOL_UDP", "port_from": 53, "port_to": 53, "ipv4_cidr": "10.0.0.53/32"}
    assert rules_of(site, group) == ([ssh], [dns])
    assert cells(page, "[data-testid=rules] tbody tr") == [["Inbound", "TCP", "22", "0.0.0.0/0", "Remove"],
                                                           ["Outbound", "UDP", "53", "10.0.0.53/32", "Remove"]]
    expect(page.locator("#ports")).to_have_value("")  # a new, empty form after an edit

    page.click("button[aria-label='Remove Inbound TCP 22 from 0.0.0.0/0']")
    expect(page.locator("[role=status]")).to_have_text("Rule removed: Inbound TCP 22 from 0.0.0.0/0")
    assert rules_of(site, group) == ([], [dns])
    expect(page.locator("[data-testid=rules] tbody tr")).to_have_count(1)

    # Someone else changes the rules: the open page shows them, pushed by the change stream; a
    # remove sent by a page read before the change removes nothing.
    token = str(page.locator("input[name=csrf]").first.get_attribute("value"))
    icmp = {"protocol": "PROTOCOL_ICMP", "ipv4_cidr": "0.0.0.0/0"}
    changed = site.acme.patch(f"{PUBLIC}/security_groups/{group}", params={"update_mask": "spec.egress"},
                              json={"spec": {"egress": [icmp, dns]}})
    assert changed.status_code == 200, changed.text
    expect(page.locator("[data-testid=rules] tbody tr td:nth-child(2)")).to_have_text(["ICMP", "UDP"], timeout=20_000)
    stale = page.request.post(f"{url}/rules/remove", form={"csrf": token, "direction": "egress", "index": "0",
                                                          "rule": "Outbound UDP 53 to 10.0.0.53/32"})
    assert stale.status == 409
    assert ("rule: &#39;Outbound UDP 53 to 10.0.0.53/32&#39; is no longer rule 0 of the group&#39;s outbound rules "
            "(they changed since the page was read); the page shows them now") in stale.text()
    assert rules_of(site, group) == ([], [icmp, dns])

    # Another tenant: not found, for the page and for an edit posted with its own session's token.
    beta = signed_in(browser, site.server, "tenant-admin", "beta", "bob")
    response = beta.goto(url)
    assert response is not None and response.status == 404
    beta.goto(f"{site.server.url}/networking/security-groups")
    token = beta.locator("input[name=csrf]").first.get_attribute("value")
    posted = beta.request.post(f"{url}/rules", form={"csrf": str(token), "direction": "ingress", "protocol": "all"})
    assert posted.status == 404 and f"SecurityGroup &#39;{group}&#39; not found" in posted.text()
    posted = page.request.post(f"{url}/rules", form={"direction": "ingress", "protocol": "all"})  # no CSRF token
    assert posted.status == 403
    assert rules_of(site, group) == ([], [icmp, dns])


def a_tenant_gets_not_found(site: Site, browser: Browser, paths: tuple[str, ...],
                            posts: dict[str, dict[str, str]]) -> None:
    """A tenant admin gets 404 for each catalogue page under ``/admin/`` and for each form posted
    there with its own session's CSRF token."""
    tenant = signed_in(browser, site.server, "tenant-admin", "acme", "alice")
    for path in paths:
        response = tenant.goto(f"{site.server.url}/admin/{path}")
        assert response is not None and response.status == 404, path
        expect(tenant.locator("[data-testid=error]")).to_have_text(f"no page at /admin/{path}")
    tenant.goto(f"{site.server.url}/networking/security-groups")
    token = str(tenant.locator("input[name=csrf]").first.get_attribute("value"))
    for path, form in posts.items():
        assert tenant.request.post(f"{site.server.url}/admin/{path}", form={"csrf": token, **form}).status == 404, path


def test_a_provider_admin_edits_host_types_and_network_classes_and_a_tenant_gets_not_found(
        site: Site, browser: Browser) -> None:
    private = site.admin
    admin = signed_in(browser, site.server, "provider-admin", "", "root")

    made = private.post(f"{PRIVATE}/host_types", json={"metadata": {"name": "bm-edit"}, "title": "Edit me",
                                                      "interfaces": [{"name": "eno1", "role": "lifecycle"},
                                                                     {"name": "ens1f0", "role": "fabric"}]})
    assert made.status_code == 200, made.text
    host_type = made.json()["id"]
    admin.goto(f"{site.server.url}/admin/host-types")
    admin.click("a[aria-label='Edit bm-edit']")
    expect(admin).to_have_url(f"{site.server.url}/admin/host-types/{host_type}")
    expect(admin.locator("#title")).to_have_value("Edit me")
    expect(admin.locator("#interfaces")).to_have_value("eno1 lifecycle\nens1f0 fabric")

    admin.fill("#title", "GPU server")
    admin.fill("#description", "Eight GPUs, two fabric ports.")
    admin.fill("#interfaces", "eno1 lifecycle PXE\nens1f0 fabric Port 0\nens1f0 fabric Port 1")  # a name twice
    assert submitted(admin, "button:has-text('Save')") == 400
    expect(admin.locator("[data-testid=error]")).to_have_text(
        "interfaces[2].name: interface 'ens1f0' is already defined by interfaces[1]")
    expect(admin.locator("#title")).to_have_value("GPU server")
    assert private.get(f"{PRIVATE}/host_types/{host_type}").json()["title"] == "Edit me"  # nothing stored

    admin.fill("#interfaces", "eno1 lifecycle PXE\nens1f0 fabric Port 0\nens1f1 fabric Port 1")
    admin.click("button:has-text('Save')")
    expect(admin.locator("[role=status]")).to_have_text("Host type bm-edit saved")
    stored = private.get(f"{PRIVATE}/host_types/{host_type}").json()
    assert (stored["title"], stored["description"]) == ("GPU server", "Eight GPUs, two fabric ports.")
    assert stored["interfaces"] == [{"name": "eno1", "role": "lifecycle", "description": "PXE"},
                                    {"name": "ens1f0", "role": "fabric", "description": "Port 0"},
                                    {"name": "ens1f1", "role": "fabric", "description": "Port 1"}]
    row = admin.locator(f"[data-testid=host-types] tr[data-object-id='{host_type}']")
    expect(row.locator("td[data-label=Title]")).to_have_text("GPU server")
    expect(row.locator("td[data-label=Interfaces]")).to_have_text("eno1 (lifecycle), ens1f0 (fabric), ens1f1 (fabric)")

    # An edit made meanwhile is not overwritten by a page read before it.
    admin.goto(f"{site.server.url}/admin/host-types/{host_type}")
    assert private.patch(f"{PRIVATE}/host_types/{host_type}", json={"title": "Changed meanwhile"}).status_code == 200
    admin.fill("#title", "Stale")
    assert submitted(admin, "button:has-text('Save')") == 409
    expect(admin.locator("[data-testid=error]")).to_contain_text("version conflict")
    assert private.get(f"{PRIVATE}/host_types/{host_type}").json()["title"] == "Changed meanwhile"

    [cls] = private.get(f"{PRIVATE}/network_classes").json()["items"]
    admin.goto(f"{site.server.url}/admin/network-classes/{cls['id']}")
    expect(admin.locator("#is_default")).to_be_checked()
    expect(admin.locator("#virtual_network_ipv4_cidr")).to_have_value("10.0.0.0/16")
    refused(admin, {"#vip_prefix_length": "31"}, "button:has-text('Save')", 400, VIP_31)
    admin.uncheck("#is_default")
    admin.fill("#vip_prefix_length", "27")
    admin.click("button:has-text('Save')")
    expect(admin.locator("[data-testid=error]")).to_have_text(
        "is_default: exactly one NetworkClass is the default; set is_default on another class to move it")
    admin.check("#is_default")
    admin.fill("#title", "Simulated overlay")
    admin.fill("#subnet_ipv4_cidr", "10.0.0.0/21")
    admin.click("button:has-text('Save')")
    expect(admin.locator("[role=status]")).to_have_text(f"Network class {cls['metadata']['name']} saved")
    stored = private.get(f"{PRIVATE}/network_classes/{cls['id']}").json()
    assert (stored["title"], stored["is_default"], stored["spec"]["vip_prefix_length"]) == ("Simulated overlay", True, 27)
    assert stored["spec"]["defaults"]["subnet_ipv4_cidr"] == "10.0.0.0/21"
    assert stored["spec"]["defaults"]["ingress_rules"] == cls["spec"]["defaults"]["ingress_rules"]  # not in the form: kept
    row = admin.locator(f"[data-testid=network-classes] tr[data-object-id='{cls['id']}']")
    expect(row.locator("td[data-label=Title]")).to_have_text("Simulated overlay")

    a_tenant_gets_not_found(site, browser, (f"host-types/{host_type}", f"network-classes/{cls['id']}"),
                            {f"host-types/{host_type}": {"title": "mine", "version": "0"}})
    assert private.get(f"{PRIVATE}/host_types/{host_type}").json()["title"] == "Changed meanwhile"
    assert private.delete(f"{PRIVATE}/host_types/{host_type}").status_code == 200


def test_a_provider_admin_creates_and_deletes_host_types_and_network_classes_and_a_tenant_gets_not_found(
        site: Site, browser: Browser) -> None:
    private = site.admin
    admin = signed_in(browser, site.server, "provider-admin", "", "root", landing="/admin/host-types")
    admin.click("a:has-text('Create')")
    expect(admin).to_have_url(f"{site.server.url}/admin/host-types/new")
    refused(admin, {"#name": "gpu-vm", "#title": "GPU virtual machine",
                    "#interfaces": "nic-0 fabric Tenant network\nnic-0 storage Storage"},  # a name twice
            "button:has-text('Create')", 400, "interfaces[1].name: interface 'nic-0' is already defined by interfaces[0]")
    created = {"filter": "this.metadata.name == 'gpu-vm'"}
    assert not private.get(f"{PRIVATE}/host_types", params=created).json().get("items")  # nothing stored

    admin.fill("#interfaces", "nic-0 fabric Tenant network")
    admin.click("button:has-text('Create')")
    expect(admin.locator("[role=status]")).to_have_text("Host type gpu-vm created")
    [stored] = private.get(f"{PRIVATE}/host_types", params=created).json()["items"]
    assert stored["title"] == "GPU virtual machine"
    assert stored["interfaces"] == [{"name": "nic-0", "role": "fabric", "description": "Tenant network"}]
    row = admin.locator(f"[data-testid=host-types] tr[data-object-id='{stored['id']}']")
    expect(row.locator("td[data-label=Interfaces]")).to_have_text("nic-0 (fabric)")

    # In use by a cluster template: the server refuses the delete, naming it; nothing is deleted.
    template = private.post(f"{PRIVATE}/cluster_templates", json={
        "metadata": {"name": "gpu-ocp"}, "node_sets": {"workers": {"host_type": stored["id"], "size": 1}}})
    assert template.status_code == 200, template.text
    refusal = private.delete(f"{PRIVATE}/host_types/{stored['id']}", headers={"x-dry-run": "true"})
    assert refusal.status_code >= 400, refusal.text
    row.locator("a:has-text('Delete')").click()
    expect(admin.locator("#confirm-title")).to_have_text("Delete host type gpu-vm?")
    assert submitted(admin, "button:has-text('Delete')") == refusal.status_code
    expect(admin.locator("[data-testid=error]")).to_have_text(
        "cannot delete HostType 'gpu-vm': 1 ClusterTemplate(s) still reference it: gpu-ocp")
    assert private.get(f"{PRIVATE}/host_types/{stored['id']}").status_code == 200

    assert private.delete(f"{PRIVATE}/cluster_templates/{template.json()['id']}").status_code == 200
    admin.goto(f"{site.server.url}/admin/host-types/{stored['id']}/delete")
    admin.click("button:has-text('Delete')")
    expect(admin.locator("[role=status]")).to_have_text("Host type gpu-vm deleted")
    assert private.get(f"{PRIVATE}/host_types/{stored['id']}").status_code == 404
    expect(admin.locator(f"[data-testid=host-types] tr[data-object-id='{stored['id']}']")).to_have_count(0)

    # A network class: the managers are given at create only; the server names a bad field.
    admin.goto(f"{site.server.url}/admin/network-classes/new")
    refused(admin, {"#name": "metal-only", "#title": "Bare metal only", "#fabric_manager": "sim-fabric",
                    "#vip_prefix_length": "31"}, "button:has-text('Create')", 400, VIP_31)
    admin.fill("#vip_prefix_length", "27")
    admin.click("button:has-text('Create')")
    expect(admin.locator("[role=status]")).to_have_text("Network class metal-only created")
    [cls] = private.get(f"{PRIVATE}/network_classes",
                        params={"filter": "this.metadata.name == 'metal-only'"}).json()["items"]
    assert (cls["title"], cls["fabric_manager"], cls.get("k8s_manager", ""), cls.get("is_default", False),
            cls["spec"]["vip_prefix_length"]) == ("Bare metal only", "sim-fabric", "", False, 27)
    expect(admin.locator(f"[data-testid=network-classes] tr[data-object-id='{cls['id']}'] td[data-label=Title]")
           ).to_have_text("Bare metal only")

    # The default class holds the tenants' networks: refused, naming them.
    [default] = private.get(f"{PRIVATE}/network_classes", params={"filter": "this.is_default"}).json()["items"]
    refusal = private.delete(f"{PRIVATE}/network_classes/{default['id']}", headers={"x-dry-run": "true"})
    assert refusal.status_code >= 400 and "VirtualNetwork(s) still reference it" in refusal.json()["message"]
    admin.goto(f"{site.server.url}/admin/network-classes/{default['id']}/delete")
    assert submitted(admin, "button:has-text('Delete')") == refusal.status_code
    expect(admin.locator("[data-testid=error]")).to_have_text(refusal.json()["message"])

    admin.goto(f"{site.server.url}/admin/network-classes")
    admin.locator(f"[data-testid=network-classes] tr[data-object-id='{cls['id']}'] a:has-text('Delete')").click()
    admin.click("button:has-text('Delete')")
    expect(admin.locator("[role=status]")).to_have_text("Network class metal-only deleted")
    wait_for(private, f"{PRIVATE}/network_classes", lambda page: cls["id"] not in [c["id"] for c in page["items"]])

    # A tenant admin: not found for every page and post, and nothing done.
    delete = f"network-classes/{default['id']}/delete"
    a_tenant_gets_not_found(site, browser, ("host-types/new", "network-classes/new", delete),
                            {"host-types/new": {"name": "mine", "interfaces": "nic-0 fabric"}, delete: {}})
    assert not private.get(f"{PRIVATE}/host_types", params={"filter": "this.metadata.name == 'mine'"}).json().get("items")
    assert private.get(f"{PRIVATE}/network_classes/{default['id']}").status_code == 200


def domains_of(site: Site, tenant: str) -> list[str]:
    return list(site.admin.get(f"{PRIVATE}/tenants/{tenant}").json().get("spec", {}).get("domains", []))


def test_a_provider_admin_edits_a_tenant_s_domains_and_a_cluster_template_s_title(site: Site, browser: Browser) -> None:
    private = site.admin
    tenants = {t["metadata"]["name"]: t for t in private.get(f"{PRIVATE}/tenants").json()["items"]}
    acme, beta = tenants["acme"]["id"], tenants["beta"]["id"]
    admin = signed_in(browser, site.server, "provider-admin", "", "root", landing="/admin/tenants")
    expect(admin.locator("a[href='/admin/tenants/new']")).to_have_count(0)  # tenants are edited here, not created
    admin.click("a[aria-label='Edit acme']")
    expect(admin).to_have_url(f"{site.server.url}/admin/tenants/{acme}")
    refused(admin, {"#domains": "acme.example\nnot-a-domain"}, "button:has-text('Save')", 400,
            "spec.domains[1]: 'not-a-domain' is not an e-mail domain (e.g. 'example.com')")
    assert domains_of(site, acme) == []  # nothing stored
    admin.fill("#domains", "acme.example\nacme.test")
    admin.click("button:has-text('Save')")
    expect(admin.locator("[role=status]")).to_have_text("Tenant acme saved")
    assert domains_of(site, acme) == ["acme.example", "acme.test"]

    admin.goto(f"{site.server.url}/admin/tenants/{beta}")
    refused(admin, {"#domains": "acme.test"}, "button:has-text('Save')", 409,
            "spec.domains[0]: domain 'acme.test' already belongs to another tenant")
    assert domains_of(site, beta) == []

    made = private.post(f"{PRIVATE}/cluster_templates", json={
        "metadata": {"name": "tpl-edit"}, "title": "Old title",
        "node_sets": {"workers": {"host_type": "vm-standard", "size": 2}}})
    assert made.status_code == 200, made.text
    template = made.json()
    admin.goto(f"{site.server.url}/admin/cluster-templates")
    expect(admin.locator("a[href='/admin/cluster-templates/new']")).to_have_count(0)
    admin.click("a[aria-label='Edit tpl-edit']")
    expect(admin.locator("#title")).to_have_value("Old title")
    admin.fill("#title", "OpenShift, two workers")
    admin.fill("#description", "For the edit test.")
    admin.click("button:has-text('Save')")
    expect(admin.locator("[role=status]")).to_have_text("Cluster template tpl-edit saved")
    stored = private.get(f"{PRIVATE}/cluster_templates/{template['id']}").json()
    assert (stored["title"], stored["description"]) == ("OpenShift, two workers", "For the edit test.")
    assert stored["node_sets"] == template["node_sets"]  # not on the form: kept
    row = admin.locator(f"[data-testid=cluster-templates] tr[data-object-id='{template['id']}']")
    expect(row.locator("td[data-label=Title]")).to_have_text("OpenShift, two workers")
    response = admin.goto(f"{site.server.url}/admin/cluster-templates/{template['id']}/delete")
    assert response is not None and response.status == 404  # deleted with osac --private, not here

    a_tenant_gets_not_found(site, browser, (f"tenants/{acme}", f"cluster-templates/{template['id']}"),
                            {f"tenants/{acme}": {"domains": "mine.example", "version": "0"}})
    assert domains_of(site, acme) == ["acme.example", "acme.test"]
    assert private.delete(f"{PRIVATE}/cluster_templates/{template['id']}").status_code == 200


def test_a_click_pressed_while_a_live_update_arrives_is_not_lost(site: Site, browser: Browser) -> None:
    """The change stream brings a new snapshot of the page between a press on "Remove" and its
    release: the snapshot waits for the release (``data-swap-waiting``), so the click lands on
    the button pressed (swapped in at once, the button under the pointer would be a new one and
    no click would fire), and the page shows the new snapshot after."""
    network = named(site, "virtual_networks", "default")["id"]
    ssh = {"protocol": "PROTOCOL_TCP", "port_from": 22, "port_to": 22, "ipv4_cidr": "0.0.0.0/0"}
    group = made_ready(site, "security_groups", "pressed-sg", {"virtual_network": network, "ingress": [ssh]},
                       "SECURITY_GROUP_STATE_READY")
    page = signed_in(browser, site.server, "tenant-admin", "acme", "alice")
    page.goto(f"{site.server.url}/networking/security-groups/{group}")
    page.locator("button[aria-label='Remove Inbound TCP 22 from 0.0.0.0/0']").hover()  # in view, under the pointer
    page.mouse.down()
    # Someone else labels the group: a new version, pushed to the open page.
    changed = site.acme.patch(f"{PUBLIC}/security_groups/{group}", params={"update_mask": "metadata.labels"},
                              json={"metadata": {"labels": {"team": "web"}}})
    assert changed.status_code == 200, changed.text
    expect(page.locator("body")).to_have_attribute("data-swap-waiting", "", timeout=20_000)
    page.mouse.up()
    expect(page.locator("[role=status]")).to_have_text("Rule removed: Inbound TCP 22 from 0.0.0.0/0")
    assert rules_of(site, group) == ([], [])
    expect(page.locator("body")).not_to_have_attribute("data-swap-waiting", "")
