"""The cluster create form in Debian's chromium, on one live server per database (the simulator at
instant speed), tenants acme and beta and a provider template with parameters of three types.

A tenant admin picks the template, sees its parameters as labelled fields with their defaults and
its node-set sizes, is refused a value of the wrong type naming the parameter (the form kept),
creates the cluster with external access, and sees it reach READY on its page with its external
addresses; the API stores the parameters, sizes and external access given. A taken name is
refused with the server's message and the form kept. Who is offered the form follows the API's
policy; cluster templates are the provider's (tenant ``shared``), never a tenant's own."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from playwright.sync_api import Browser, Page, expect

from osac.auth.subject import Role
from tests.console import two_tenants
from tests.console.conftest import NEEDS_CHROMIUM, PRIVATE, PUBLIC, ConsoleServer
from tests.console.fleet import wait_for
from tests.support.onboarding import INSTANT

pytestmark = NEEDS_CHROMIUM

STRING = "type.googleapis.com/google.protobuf.StringValue"
INT64 = "type.googleapis.com/google.protobuf.Int64Value"
BOOL = "type.googleapis.com/google.protobuf.BoolValue"
TEMPLATE = {
    "metadata": {"name": "ocp-params"},
    "title": "OpenShift with options",
    "description": "A template with parameters.",
    "parameters": [
        {"name": "zone", "title": "Availability zone", "description": "Where the nodes run.", "required": True,
         "type": STRING},
        {"name": "ingress_replicas", "title": "Ingress replicas", "type": INT64,
         "default": {"@type": INT64, "value": "2"}},
        {"name": "fips", "title": "FIPS mode", "type": BOOL, "default": {"@type": BOOL, "value": False}},
    ],
    "node_sets": {"workers": {"host_type": "vm-standard", "size": 2}},
    "spec_defaults": {"release_image": "quay.io/openshift-release-dev/ocp-release:4.17.0-x86_64"},
}


@dataclass
class Site(two_tenants.Site):
    template_id: str


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def site(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    for base in two_tenants.two_tenant_site(request.param, tmp_path_factory.mktemp("console-cluster-create"), INSTANT):
        template = base.admin.post(f"{PRIVATE}/cluster_templates", json=TEMPLATE)
        assert template.status_code == 200, template.text
        yield Site(base.server, base.admin, base.acme, template.json()["id"])


def signed_in(browser: Browser, server: ConsoleServer, role: str, tenant: str, user: str) -> Page:
    return two_tenants.signed_in(browser, server, role, tenant, user, landing="/clusters")


def label_of(page: Page, field: str) -> str:
    return page.locator(f"label[for='{field}']").inner_text().strip()


def test_a_cluster_from_the_template_form_reaches_ready_with_its_parameters_and_external_ips(
        site: Site, browser: Browser) -> None:
    page = signed_in(browser, site.server, "tenant-admin", "acme", "alice")
    page.click("text=Create cluster")
    expect(page).to_have_url(site.server.url + "/clusters/new")
    names = sorted(t["metadata"]["name"] for t in site.acme.get(f"{PUBLIC}/cluster_templates").json()["items"])
    assert page.locator("#template option").evaluate_all("els => els.map(e => e.value)") == names
    page.select_option("#template", "ocp-params")  # the select submits its form: the template's fields
    expect(page).to_have_url(site.server.url + "/clusters/new?template=ocp-params")

    assert label_of(page, "param.zone").replace("\xa0", " ") == "Availability zone *"  # required: marked
    expect(page.locator("#param\\.zone-help")).to_have_text("Where the nodes run.")
    expect(page.locator("#param\\.zone")).to_have_attribute("required", "")
    expect(page.locator("#param\\.ingress_replicas")).to_have_value("2")  # defaults prefilled
    expect(page.locator("#param\\.ingress_replicas")).to_have_attribute("inputmode", "numeric")
    expect(page.locator("#param\\.fips")).to_have_value("false")
    expect(page.locator("#node_set\\.workers")).to_have_value("2")
    expect(page.locator("#node_set\\.workers-help")).to_have_text("Host type vm-standard; the template gives 2.")

    page.fill("#name", "form-c1")
    page.fill("#param\\.zone", "eu-1")
    page.fill("#param\\.ingress_replicas", "three")
    with page.expect_response(lambda r: r.request.method == "POST") as answer:
        page.click("button:has-text('Create')")
    assert answer.value.status == 400
    expect(page.locator("[data-testid=error]")).to_have_text(
        "spec.template_parameters['ingress_replicas']: 'three' is not a whole number (google.protobuf.Int64Value)")
    expect(page.locator("#name")).to_have_value("form-c1")  # the form is kept
    expect(page.locator("#param\\.zone")).to_have_value("eu-1")
    assert [c["metadata"]["name"] for c in site.acme.get(f"{PUBLIC}/clusters").json()["items"]] == []

    page.fill("#param\\.ingress_replicas", "4")
    page.select_option("#param\\.fips", "true")
    page.fill("#node_set\\.workers", "3")
    page.check("#external_access")
    page.click("button:has-text('Create')")
    expect(page.locator("[role=status]")).to_have_text("Cluster form-c1 created")
    cluster_id = page.url.split("/clusters/", 1)[1].split("?", 1)[0]
    cluster = site.acme.get(f"{PUBLIC}/clusters/{cluster_id}").json()
    spec = cluster["spec"]
    assert spec["template"] == site.template_id
    assert spec["template_parameters"] == {"zone": {"@type": STRING, "value": "eu-1"},
                                           "ingress_replicas": {"@type": INT64, "value": "4"},
                                           "fips": {"@type": BOOL, "value": True}}
    assert spec["node_sets"]["workers"]["size"] == 3
    assert spec["auto_external_ip_attachment"] is True

    page.evaluate("window.__notReloaded = true")
    expect(page.locator("[data-field=State]")).to_contain_text("Ready", timeout=60_000)
    assert page.evaluate("window.__notReloaded") is True  # the live update swapped it in place
    attachments = wait_for(site.acme, f"{PUBLIC}/external_ip_attachments",
                           lambda p: len([a for a in p["items"] if a["spec"].get("cluster") == cluster_id
                                          and a.get("status", {}).get("state") == "EXTERNAL_IP_ATTACHMENT_STATE_READY"]) == 2)
    addresses = {a["spec"]["target_endpoint"]: a["status"]["external_ip_address"]
                 for a in attachments["items"] if a["spec"].get("cluster") == cluster_id}
    expect(page.locator("[data-field='External API']")).to_have_text(
        addresses["EXTERNAL_IP_ATTACHMENT_ENDPOINT_API"], timeout=20_000)
    expect(page.locator("[data-field='External Ingress']")).to_have_text(
        addresses["EXTERNAL_IP_ATTACHMENT_ENDPOINT_INGRESS"])
    expect(page.locator("[data-node-set=workers] td").nth(2)).to_have_text("3")

    # The name is taken now: the server's refusal, with the form kept.
    page.goto(site.server.url + "/clusters/new?template=ocp-params")
    page.fill("#name", "form-c1")
    page.fill("#param\\.zone", "eu-2")
    with page.expect_response(lambda r: r.request.method == "POST") as answer:
        page.click("button:has-text('Create')")
    assert answer.value.status == 409
    expect(page.locator("[data-testid=error]")).to_contain_text("form-c1")
    expect(page.locator("#name")).to_have_value("form-c1")
    expect(page.locator("#param\\.zone")).to_have_value("eu-2")
    expect(page.locator("#template")).to_have_value("ocp-params")


def test_who_is_offered_the_form_follows_the_api_and_templates_are_the_providers(
        site: Site, browser: Browser) -> None:
    # The API lets every tenant role create clusters (policy: Create on Cluster, any role).
    bob = signed_in(browser, site.server, "tenant-user", "beta", "bob")
    expect(bob.locator("a:has-text('Create cluster')")).to_be_visible()
    bob.goto(site.server.url + "/clusters/new")
    beta = site.server.api(site.server.token(Role.TENANT_USER, ("beta",), user="bob"))
    offered = sorted(t["metadata"]["name"] for t in beta.get(f"{PUBLIC}/cluster_templates").json()["items"])
    assert bob.locator("#template option").evaluate_all("els => els.map(e => e.value)") == offered
    response = bob.goto(site.server.url + "/clusters/new?template=no-such-template")
    assert response is not None and response.status == 404
    expect(bob.locator("[data-testid=error]")).to_have_text("ClusterTemplate 'no-such-template' not found")

    # A token whose organization is the reserved catalogue tenant can create nothing: no form.
    shared = signed_in(browser, site.server, "tenant-admin", "shared", "carol")
    refusal = site.server.api(site.server.token(Role.TENANT_ADMIN, ("shared",), user="carol")).post(
        f"{PUBLIC}/clusters", json={"metadata": {"name": "nope"}, "spec": {"template": "ocp-params"}})
    assert refusal.status_code == 403, refusal.text
    expect(shared.locator("[data-testid=clusters]")).to_be_visible()
    expect(shared.locator("a:has-text('Create cluster')")).to_have_count(0)
    response = shared.goto(site.server.url + "/clusters/new")
    assert response is not None and response.status == 403
    expect(shared.locator("[data-testid=error]")).to_have_text(refusal.json()["message"])

    # Templates are the provider's catalogue: the API refuses one in a tenant's own name, so no
    # tenant has a private template another could use.
    private = site.admin.post(f"{PRIVATE}/cluster_templates",
                              json={**TEMPLATE, "metadata": {"name": "acme-only", "tenant": "acme"}})
    assert private.status_code == 400, private.text
    assert "belong to tenant 'shared'" in private.json()["message"]


def _acme_network(site: Site) -> tuple[str, str, str]:
    """acme's second subnet ``apps`` and security group ``web`` on its default network (made once
    per server): their ids and the default network's."""
    [network] = site.acme.get(f"{PUBLIC}/virtual_networks").json()["items"]
    subnets = {s["metadata"]["name"]: s for s in site.acme.get(f"{PUBLIC}/subnets").json()["items"]}
    if "apps" not in subnets:
        made = site.acme.post(f"{PUBLIC}/subnets", json={"metadata": {"name": "apps"},
                                                          "spec": {"virtual_network": network["id"], "ipv4_cidr": "10.0.64.0/20"}})
        assert made.status_code == 200, made.text
        subnets["apps"] = made.json()
        made = site.acme.post(f"{PUBLIC}/security_groups", json={"metadata": {"name": "web"},
                                                                 "spec": {"virtual_network": network["id"]}})
        assert made.status_code == 200, made.text
    wait_for(site.acme, f"{PUBLIC}/subnets/{subnets['apps']['id']}",
             lambda s: s.get("status", {}).get("state") == "SUBNET_STATE_READY")
    [web] = [g for g in site.acme.get(f"{PUBLIC}/security_groups").json()["items"] if g["metadata"]["name"] == "web"]
    wait_for(site.acme, f"{PUBLIC}/security_groups/{web['id']}",
             lambda g: g.get("status", {}).get("state") == "SECURITY_GROUP_STATE_READY")
    return subnets["apps"]["id"], web["id"], network["id"]


def test_the_cluster_form_takes_the_openshift_fields_and_a_chosen_subnet_and_security_group(
        site: Site, browser: Browser) -> None:
    apps, web, _ = _acme_network(site)
    page = signed_in(browser, site.server, "tenant-admin", "acme", "alice")
    page.goto(site.server.url + "/clusters/new?template=ocp-params")
    # Offered: acme's own subnets and groups (never beta's), the default first.
    offered = page.locator("#subnet option").evaluate_all("els => els.map(e => e.value)")
    own = sorted(s["id"] for s in site.acme.get(f"{PUBLIC}/subnets").json()["items"])
    assert offered[0] == "" and sorted(offered[1:]) == own
    groups = page.locator("[data-testid=network-attachment] input[type=checkbox]").evaluate_all("els => els.map(e => e.name)")
    assert sorted(groups) == sorted(f"sg:{g['id']}" for g in site.acme.get(f"{PUBLIC}/security_groups").json()["items"])
    expect(page.locator("#release_image")).to_have_attribute("placeholder", TEMPLATE["spec_defaults"]["release_image"])
    expect(page.locator("#pod_cidr")).to_have_attribute("placeholder", "10.128.0.0/14")

    page.fill("#name", "form-net")
    page.fill("#param\\.zone", "eu-1")
    page.select_option("#subnet", apps)
    page.check(f"[name='sg:{web}']")
    page.fill("#release_image", "quay.io/openshift-release-dev/ocp-release:4.18.1-x86_64")
    page.fill("#pull_secret", '{"auths": {"registry.example.com": {"auth": "dXNlcjpwYXNz"}}}')
    page.fill("#pod_cidr", "10.200.0.0/14")
    page.fill("#service_cidr", "10.200.0.0/16")  # inside the pods' network
    with page.expect_response(lambda r: r.request.method == "POST") as answer:
        page.click("button:has-text('Create')")
    assert answer.value.status == 400  # the API's refusal of overlapping networks, the form kept
    expect(page.locator("[data-testid=error]")).to_contain_text("spec.network.service_cidr")
    expect(page.locator("#subnet")).to_have_value(apps)
    expect(page.locator(f"[name='sg:{web}']")).to_be_checked()
    assert [c for c in site.acme.get(f"{PUBLIC}/clusters").json()["items"] if c["metadata"]["name"] == "form-net"] == []

    page.fill("#service_cidr", "172.31.0.0/16")
    page.click("button:has-text('Create')")
    expect(page.locator("[role=status]")).to_have_text("Cluster form-net created")
    cluster_id = page.url.split("/clusters/", 1)[1].split("?", 1)[0]
    spec = site.admin.get(f"{PRIVATE}/clusters/{cluster_id}").json()["spec"]
    assert spec["network_attachment"] == {"subnet": apps, "security_groups": [web]}
    assert spec["release_image"] == "quay.io/openshift-release-dev/ocp-release:4.18.1-x86_64"
    assert spec["network"] == {"pod_cidr": "10.200.0.0/14", "service_cidr": "172.31.0.0/16"}
    assert spec["pull_secret"] == "***"  # stored, and write-only as through the API
    expect(page.locator("[data-field=State]")).to_contain_text("Ready", timeout=60_000)


def test_the_vm_form_attaches_the_chosen_subnet_and_refuses_groups_without_one(site: Site, browser: Browser) -> None:
    apps, web, _ = _acme_network(site)
    page = signed_in(browser, site.server, "tenant-admin", "acme", "alice")
    page.goto(site.server.url + "/compute-instances/new")
    page.fill("#name", "form-vm")
    page.check(f"[name='sg:{web}']")
    with page.expect_response(lambda r: r.request.method == "POST") as answer:
        page.click("button:has-text('Create')")
    assert answer.value.status == 400
    expect(page.locator("[data-testid=error]")).to_have_text("subnet: choose the subnet the chosen security groups apply to")
    page.select_option("#subnet", apps)
    page.uncheck(f"[name='sg:{web}']")
    page.click("button:has-text('Create')")
    expect(page.locator("[role=status]")).to_have_text("Virtual machine created")
    vm_id = page.url.split("/compute-instances/", 1)[1].split("?", 1)[0]
    [attachment] = site.acme.get(f"{PUBLIC}/compute_instances/{vm_id}").json()["spec"]["compute_network_attachments"]
    default_group = next(g["id"] for g in site.acme.get(f"{PUBLIC}/security_groups").json()["items"]
                         if g["metadata"]["name"] == "default")
    assert attachment == {"subnet": apps, "security_groups": [default_group], "primary": True}
    expect(page.locator("[data-field=State]")).to_contain_text("Running", timeout=60_000)
