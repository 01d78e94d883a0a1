"""cluster-status.md acceptance scenario 15 (AC-7) in a real browser, at its full size: 50
clusters of two tenants in every situation (``fleet.py``). The console's list and detail equal
the API under the CLI's cell rules; a simulator fault shows on an open page within 2 s without a
reload; the admin stalled list holds exactly the stalled clusters of all tenants; a tenant sees
only its own and gets 404 for another's id. Also sign-in (``osac console`` URL and the
development page), sign-out and a forged cross-site form post, in the browser."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from osac.auth.subject import Role
from osac.console.labels import CLUSTER_STATE_NAMES, CLUSTER_STATES
from osac.console.pages import DEGRADED_FILTER, STAGE_UNKNOWN_FILTER, STALLED_FILTER
from osac.status.clusters import cells
from tests.console.conftest import NEEDS_CHROMIUM, PRIVATE, PUBLIC, ConsoleServer, database_url
from tests.console.fleet import CONFIG, FLEET_SIZE, Fleet, build_fleet, reason_is

pytestmark = NEEDS_CHROMIUM

#: A simulator change must show on an open page within this many seconds (AC-7).
LIVE_BUDGET_S = 2.0
READY_STATE = "CLUSTER_STATE_READY"


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def fleet(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fleet]:
    data_dir = tmp_path_factory.mktemp("console-fleet")
    for url in database_url(request.param, data_dir):
        server = ConsoleServer(data_dir, url, live=True, config=CONFIG)
        server.start()
        try:
            yield build_fleet(server)
        finally:
            server.stop()


def signed_in(browser: Browser, server: ConsoleServer, role: str, tenant: str, user: str) -> Page:
    """A fresh browser context signed in through the development sign-in page."""
    page = browser.new_context().new_page()
    page.goto(server.url + "/clusters")
    expect(page).to_have_url(server.url + "/console/sign-in?next=/clusters")
    page.click("text=sign in with a development identity")
    page.select_option("#role", role)
    page.fill("#tenant", tenant)
    page.fill("#user", user)
    page.click("button:has-text('Sign in')")
    expect(page).to_have_url(server.url + "/clusters")
    return page


def api_clusters(client: httpx.Client, private: bool) -> list[dict[str, Any]]:
    response = client.get(f"{PRIVATE if private else PUBLIC}/clusters", params={"limit": 1000})
    assert response.status_code == 200, response.text
    return list(response.json()["items"])


def expected_row(cluster: dict[str, Any], with_tenant: bool) -> list[str]:
    status = cluster.get("status", {})
    state = CLUSTER_STATES[CLUSTER_STATE_NAMES[status["state"].removeprefix("CLUSTER_STATE_")]].text
    row = [cluster["metadata"]["name"]]
    if with_tenant:
        row.append(cluster["metadata"]["tenant"])
    return row + [state, cells.stage_cell(status), cells.health_cell(status), status.get("api_url") or "-"]


def page_rows(page: Page, columns: int) -> dict[str, list[str]]:
    rows = {}
    for row in page.locator("[data-testid=clusters] tbody tr[data-object-id]").all():
        texts = [text.strip() for text in row.locator("td").all_inner_texts()]
        rows[str(row.get_attribute("data-object-id"))] = texts[:columns]
    return rows


def test_the_cluster_list_equals_the_api(fleet: Fleet, browser: Browser) -> None:
    admin = signed_in(browser, fleet.server, "provider-admin", "", "root")
    admin.goto(fleet.server.url + f"/clusters?per_page={FLEET_SIZE}")
    listed = api_clusters(fleet.admin, private=True)
    assert len(listed) == FLEET_SIZE
    expect(admin.locator("[data-testid=total]")).to_have_text(str(FLEET_SIZE))
    assert page_rows(admin, 6) == {c["id"]: expected_row(c, with_tenant=True) for c in listed}

    tenant = signed_in(browser, fleet.server, "tenant-admin", "beta", "bob")
    tenant.goto(fleet.server.url + "/clusters?per_page=50")
    own = api_clusters(fleet.tenants["beta"], private=False)
    assert {c["metadata"]["tenant"] for c in own} == {"beta"}
    assert page_rows(tenant, 5) == {c["id"]: expected_row(c, with_tenant=False) for c in own}


TRACK_STAGES = ("PreparingInfrastructure", "ControlPlaneStarting", "WorkersJoining", "Ready", "Scaling",
                "DestroyingCloudResources", "DestroyingControlPlane")


def state_text(cluster: dict[str, Any]) -> str:
    return CLUSTER_STATES[CLUSTER_STATE_NAMES[cluster["status"]["state"].removeprefix("CLUSTER_STATE_")]].text


def stage_text(cluster: dict[str, Any]) -> str:
    """The CLI's STAGE cell; a READY cluster with nothing in progress is at the track's Ready."""
    cell = cells.stage_cell(cluster["status"])
    return "Ready" if cell == "-" and cluster["status"]["state"] == READY_STATE else cell


def tally(clusters: list[dict[str, Any]], key: Any) -> dict[str, int]:
    found: dict[str, int] = {}
    for cluster in clusters:
        found[key(cluster)] = found.get(key(cluster), 0) + 1
    return found


def test_the_overview_counts_per_state_and_stage_equal_the_api(fleet: Fleet, browser: Browser) -> None:
    """Counts per state and per stage, for a tenant (its own clusters only) and for the provider
    admin (all)."""
    for page, client, private in (
        (signed_in(browser, fleet.server, "tenant-admin", "acme", "alice"), fleet.tenants["acme"], False),
        (signed_in(browser, fleet.server, "provider-admin", "", "root"), fleet.admin, True),
    ):
        page.goto(fleet.server.url + "/")
        listed = api_clusters(client, private)
        expected = tally(listed, state_text)
        card = page.locator("[data-testid='counts-Clusters']")
        for label in (state.text for state in CLUSTER_STATES.values()):
            expect(card.locator(f"dd[data-state='{label}']")).to_have_text(str(expected.get(label, 0)))
        assert sum(expected.values()) == (FLEET_SIZE if private else len(api_clusters(fleet.tenants["acme"], False)))
        stages = tally(listed, stage_text)
        # The mixed fleet has clusters preparing, stalled, ready, unknown and tearing down.
        assert {"PreparingInfrastructure", "Ready", "DestroyingCloudResources", "StageUnknown",
                "Stalled (ControlPlaneStarting)"} <= set(stages), stages
        card = page.locator("[data-testid='stages-Clusters']")
        shown = dict(zip(card.locator("dt").all_inner_texts(), card.locator("dd").all_inner_texts(), strict=True))
        assert shown == {stage: str(stages.get(stage, 0)) for stage in [*TRACK_STAGES, *sorted(set(stages) - set(TRACK_STAGES))]}
        assert list(shown)[:len(TRACK_STAGES)] == list(TRACK_STAGES)  # the track's order, zeros included
        expect(page.locator("a:has-text('Per tenant')")).to_have_count(1 if private else 0)
        # The attention counts equal the totals of the admin lists' filters run by the API.
        card = page.locator("[data-testid=attention]")
        for label, expression in (("Stalled", STALLED_FILTER), ("Degraded", DEGRADED_FILTER),
                                  ("Stage unknown", STAGE_UNKNOWN_FILTER)):
            listed_now = client.get(f"{PRIVATE if private else PUBLIC}/clusters", params={"limit": 1, "filter": expression})
            assert listed_now.status_code == 200, listed_now.text
            expect(card.locator(f"dd[data-state='{label}']")).to_have_text(str(listed_now.json()["total"]))


def test_the_admin_counts_per_tenant_equal_the_api(fleet: Fleet, browser: Browser) -> None:
    page = signed_in(browser, fleet.server, "provider-admin", "", "root")
    page.goto(fleet.server.url + "/")
    page.click("a:has-text('Per tenant')")
    expect(page).to_have_url(fleet.server.url + "/admin/counts")
    listed = api_clusters(fleet.admin, private=True)
    for tenant, clusters in (("All tenants", listed), *((t, [c for c in listed if c["metadata"]["tenant"] == t])
                                                       for t in ("acme", "beta"))):
        for table, key, columns in (("counts-by-state", state_text, [s.text for s in CLUSTER_STATES.values()]),
                                    ("counts-by-stage", stage_text, list(TRACK_STAGES))):
            row = page.locator(f"[data-testid={table}] tr[data-tenant='{tenant}']")
            expected = tally(clusters, key)
            shown = dict(zip(row.locator("td").evaluate_all("tds => tds.map(td => td.dataset.label)"),
                             row.locator("td").all_inner_texts(), strict=True))
            assert shown.pop("Total") == str(len(clusters)), (tenant, table)
            assert list(shown)[:len(columns)] == columns
            assert {k: int(v) for k, v in shown.items() if int(v)} == expected, (tenant, table)
    tenants = page.locator("[data-testid=counts-by-state] tbody tr").evaluate_all(
        "rows => rows.map(r => r.dataset.tenant)")
    assert tenants == ["All tenants", "acme", "beta"]
    tenant = signed_in(browser, fleet.server, "tenant-admin", "acme", "alice")
    response = tenant.goto(fleet.server.url + "/admin/counts")
    assert response is not None and response.status == 403
    expect(tenant.locator("[data-testid=error]")).to_contain_text("for provider admins")


def test_filters_sort_and_pages_are_in_the_url(fleet: Fleet, browser: Browser) -> None:
    page = signed_in(browser, fleet.server, "provider-admin", "", "root")
    page.goto(fleet.server.url + "/clusters?per_page=10&sort=name")
    names = sorted(c["metadata"]["name"] for c in api_clusters(fleet.admin, private=True))
    assert len(names) == FLEET_SIZE
    expect(page.locator("[data-testid=total]")).to_have_text(str(len(names)))
    shown = page.locator("[data-testid=clusters] tbody tr[data-object-id] td:first-child").all_inner_texts()
    assert shown == names[:10]
    page.click("text=Next ›")
    expect(page).to_have_url(fleet.server.url + "/clusters?sort=name&page=2&per_page=10")
    assert page.locator("[data-testid=clusters] tbody tr[data-object-id] td:first-child").all_inner_texts() == names[10:20]
    # State and creation (either way) are sorted and paged by the database: the API's List order.
    for sort, order in (("state&dir=desc", "status.state desc, metadata.name desc"), ("state", "status.state, metadata.name"),
                        ("created&dir=desc", "metadata.creation_timestamp desc")):
        page.goto(fleet.server.url + f"/clusters?per_page=10&sort={sort}&page=2")
        listed = fleet.admin.get(f"{PRIVATE}/clusters", params={"limit": 10, "offset": 10, "order": order})
        assert listed.status_code == 200, listed.text
        expected = [c["metadata"]["name"] for c in listed.json()["items"]]
        assert len(expected) == 10
        assert page.locator("[data-testid=clusters] tbody tr[data-object-id] td:first-child").all_inner_texts() == expected
    # A derived column (stage) is sorted in the server, over every cluster.
    page.goto(fleet.server.url + f"/clusters?per_page={FLEET_SIZE}&sort=stage")
    stages = page.locator("[data-testid=clusters] tbody tr[data-object-id] td:nth-child(4)").all_inner_texts()
    assert len(stages) == FLEET_SIZE and stages == sorted(stages)
    page.goto(fleet.server.url + "/clusters")
    page.fill("#name", "stuck")
    page.select_option("#state", "PROGRESSING")
    page.fill("#tenant", "acme")
    page.click("button:has-text('Filter')")
    expect(page).to_have_url(fleet.server.url + "/clusters?name=stuck&state=PROGRESSING&tenant=acme")
    expect(page.locator("[data-testid=total]")).to_have_text("2")


def test_a_stalled_cluster_detail_equals_the_api(fleet: Fleet, browser: Browser) -> None:
    tenant, cluster_id = fleet.situations["stalled"][0]
    page = signed_in(browser, fleet.server, "tenant-admin", tenant, "alice")
    page.goto(f"{fleet.server.url}/clusters/{cluster_id}")
    cluster = fleet.tenants[tenant].get(f"{PUBLIC}/clusters/{cluster_id}").json()
    status = cluster["status"]
    expect(page.locator("[data-testid=stalled-banner]")).to_contain_text("Stalled: ControlPlaneStarting for")
    expect(page.locator("[data-testid=stalled-banner]")).to_contain_text("(threshold 2s)")
    expect(page.locator("[data-field=Stage]")).to_have_text(cells.stage_cell(status))
    expect(page.locator("[data-field=Threshold]")).to_have_text("2s")
    expect(page.locator("[data-testid=track] [aria-current=step]")).to_have_text("ControlPlaneStarting")
    expect(page.locator("[data-field='API URL']")).to_have_text(status.get("api_url") or "-")
    conditions = page.locator("[data-testid=conditions] tbody tr").all()
    assert [row.locator("td").nth(2).inner_text() for row in conditions] == [c.get("reason") or "-" for c in status["conditions"]]
    rows = page.locator("[data-testid=node-sets] tbody tr[data-node-set]").all()
    for row in rows:
        key = str(row.get_attribute("data-node-set"))
        observed = status.get("node_sets", {}).get(key, {})
        texts = [t.strip() for t in row.locator("td").all_inner_texts()]
        assert texts[2] == str(cluster["spec"]["node_sets"][key].get("size", 0))
        assert texts[3:6] == [str(observed.get(f, 0)) for f in ("desired_replicas", "current_replicas", "ready_replicas")]
    assert {str(r.get_attribute("data-node-set")) for r in rows} == set(cluster["spec"]["node_sets"])
    expect(page.locator("[data-testid=events]")).to_contain_text("Stalled")


def test_stage_unknown_and_deleting_details(fleet: Fleet, browser: Browser) -> None:
    page = signed_in(browser, fleet.server, "tenant-admin", "acme", "alice")
    (_, unknown), = fleet.situations["unknown"]
    page.goto(f"{fleet.server.url}/clusters/{unknown}")
    expect(page.locator("[data-testid=unknown-banner]")).to_contain_text("Stage unknown")
    expect(page.locator("[data-testid=health] h2")).to_contain_text("Unknown")
    (_, deleting), = fleet.situations["deleting"]
    page.goto(f"{fleet.server.url}/clusters/{deleting}")
    expect(page.locator("[data-testid=track] [aria-current=step]")).to_have_text("DestroyingCloudResources")
    expect(page.locator("[data-field=State]")).to_contain_text("Deleting")


def test_the_admin_lists_hold_exactly_their_clusters_of_all_tenants(fleet: Fleet, browser: Browser) -> None:
    page = signed_in(browser, fleet.server, "provider-admin", "", "root")
    for path, situation in (("stalled", "stalled"), ("degraded", "degraded"), ("stage-unknown", "unknown")):
        page.goto(f"{fleet.server.url}/admin/{path}")
        rows = page.locator("[data-testid=admin-list] tbody tr[data-object-id]")
        ids = {str(r.get_attribute("data-object-id")) for r in rows.all()}
        assert ids == fleet.ids(situation), path
    page.goto(f"{fleet.server.url}/admin/stalled")
    rows = page.locator("[data-testid=admin-list] tbody tr[data-object-id]").all()
    assert {r.locator("td").first.inner_text() for r in rows} == {"acme", "beta"}
    entered = [fleet.cluster(str(r.get_attribute("data-object-id")))["status"]["stage_entered_at"] for r in rows]
    assert entered == sorted(entered)  # longest in its stage first
    assert all(r.locator("td").nth(5).inner_text() == "2s" for r in rows)
    tenant = signed_in(browser, fleet.server, "tenant-admin", "acme", "alice")
    tenant.goto(f"{fleet.server.url}/admin/stalled")
    expect(tenant.locator("[data-testid=error]")).to_contain_text("for provider admins")


def test_a_tenant_sees_only_its_own(fleet: Fleet, browser: Browser) -> None:
    page = signed_in(browser, fleet.server, "tenant-admin", "beta", "bob")
    page.goto(f"{fleet.server.url}/clusters?per_page=50")
    shown = {str(r.get_attribute("data-object-id"))
             for r in page.locator("[data-testid=clusters] tbody tr[data-object-id]").all()}
    beta = {i for ids in fleet.situations.values() for t, i in ids if t == "beta"}
    assert shown == beta
    (_, acme_cluster), = [(t, i) for t, i in fleet.situations["ready"] if t == "acme"][:1]
    response = page.goto(f"{fleet.server.url}/clusters/{acme_cluster}")
    assert response is not None and response.status == 404
    expect(page.locator("[data-testid=error]")).to_contain_text("not found")
    page.goto(f"{fleet.server.url}/")
    expect(page.locator("[data-testid=events]")).not_to_contain_text("acme")


def test_a_simulator_fault_appears_on_an_open_page_within_two_seconds(fleet: Fleet, browser: Browser) -> None:
    cluster_id = next(i for t, i in fleet.situations["ready"] if t == "acme" and fleet.cluster(i)["metadata"]["name"] == "live")
    page = signed_in(browser, fleet.server, "tenant-admin", "acme", "alice")
    page.goto(f"{fleet.server.url}/clusters/{cluster_id}")
    health = page.locator("[data-testid=health] h2")
    expect(health).to_contain_text("Healthy")
    page.evaluate("window.__notReloaded = true")
    started = time.monotonic()
    fault_id = fleet.fault("node_pool_failure", cluster_id, node_set="workers", count=1, mode="unhealthy")
    try:
        expect(health).to_contain_text("Degraded", timeout=LIVE_BUDGET_S * 1000)
        elapsed = time.monotonic() - started
        assert page.evaluate("window.__notReloaded") is True  # swapped in place, not reloaded
        expect(page.locator("[data-field=Workers]")).to_have_text("Degraded (node set workers)")
        assert elapsed < LIVE_BUDGET_S
    finally:
        fleet.clear(fault_id)
    expect(health).to_contain_text("Healthy", timeout=10_000)
    fleet.wait(cluster_id, reason_is("DEGRADED", "AsExpected"))


def test_sign_in_through_the_osac_console_url_and_sign_out(fleet: Fleet, browser: Browser) -> None:
    token = fleet.server.token(Role.TENANT_USER, ("acme",), user="carol")
    url = httpx.post(fleet.server.url + "/console/sign-in/codes", headers={"authorization": f"Bearer {token}"}).json()["url"]
    page = browser.new_context().new_page()
    page.goto(url)
    expect(page).to_have_url(fleet.server.url + "/")
    expect(page.locator("[data-testid=whoami]")).to_have_text("carol · tenant-user · tenants: acme")
    page.click("button:has-text('Sign out')")
    expect(page).to_have_url(fleet.server.url + "/console/sign-in?signed_out=1")
    page.goto(fleet.server.url + "/clusters")
    expect(page).to_have_url(fleet.server.url + "/console/sign-in?next=/clusters")
    again = browser.new_context().new_page()
    again.goto(url)  # the code was used
    expect(again.locator("[data-testid=error]")).to_contain_text("unknown, used or expired")


def test_a_forged_cross_site_form_post_is_refused(fleet: Fleet, browser: Browser) -> None:
    cluster_id = next(i for t, i in fleet.situations["ready"] if t == "acme" and fleet.cluster(i)["metadata"]["name"] == "prod")
    page = signed_in(browser, fleet.server, "tenant-admin", "acme", "alice")
    page.goto(f"{fleet.server.url}/clusters/{cluster_id}")
    expect(page.locator("[data-testid=health]")).to_be_visible()
    # Another site's page, in the same browser as the signed-in tab, posting to the console.
    attacker = page.context.new_page()
    attacker.set_content(f'<form method="post" action="{fleet.server.url}/clusters/{cluster_id}/delete">'
                         '<input name="csrf" value="guessed"></form>')
    with attacker.expect_navigation():
        attacker.evaluate("document.forms[0].submit()")
    assert "refused" in attacker.content() or "session has ended" in attacker.content()
    assert fleet.cluster(cluster_id)["status"]["state"] == "CLUSTER_STATE_READY"
    assert "deletion_timestamp" not in fleet.cluster(cluster_id)["metadata"]


def test_a_vm_detail_equals_the_api_and_stops_live(fleet: Fleet, browser: Browser) -> None:
    (_, vm_id), = fleet.situations["vm"]
    page = signed_in(browser, fleet.server, "tenant-admin", "acme", "alice")
    page.goto(f"{fleet.server.url}/compute-instances/{vm_id}")
    vm = fleet.tenants["acme"].get(f"{PUBLIC}/compute_instances/{vm_id}").json()
    status = vm["status"]
    expect(page.locator("[data-field=State]")).to_contain_text("Running")
    expect(page.locator("[data-field='External IP']")).to_have_text(status["external_ip_address"])
    expect(page.locator("[data-field='Internal IP']")).to_have_text(status["internal_ip_address"])
    nics = [[t.strip() for t in row.locator("td").all_inner_texts()]
            for row in page.locator("[data-testid=nics] tbody tr").all()]
    expected = [[a["ip_address"], "yes" if a.get("primary") else "no"]
                for a in status["compute_network_attachment_statuses"]]
    assert [row[1:] for row in nics] == expected
    assert all(row[0] == "default" for row in nics)  # the subnet's name, not its id
    page.click("button:has-text('Stop')")
    expect(page.locator("[role=status]")).to_have_text("Stop requested")
    expect(page.locator("[data-field=State]")).to_contain_text("Stopped", timeout=10_000)
    page.click("button:has-text('Start')")
    expect(page.locator("[data-field=State]")).to_contain_text("Running", timeout=10_000)


def test_a_refused_subnet_delete_shows_the_servers_message(fleet: Fleet, browser: Browser) -> None:
    client = fleet.tenants["acme"]
    subnet = next(s for s in client.get(f"{PUBLIC}/subnets").json()["items"] if s["metadata"]["name"] == "default")
    refusal = client.delete(f"{PUBLIC}/subnets/{subnet['id']}", headers={"x-dry-run": "true"})
    assert refusal.status_code >= 400, refusal.text  # the VM and the clusters sit on it
    page = signed_in(browser, fleet.server, "tenant-admin", "acme", "alice")
    page.goto(f"{fleet.server.url}/networking/subnets")
    row = page.locator(f"[data-testid=subnets] tr[data-object-id='{subnet['id']}']")
    expect(row).to_contain_text(subnet["spec"]["ipv4_cidr"])
    row.locator("text=Delete…").click()
    with page.expect_response(lambda r: r.request.method == "POST") as answer:
        page.click("button:has-text('Delete')")
    assert answer.value.status == refusal.status_code
    expect(page.locator("[data-testid=error]")).to_have_text(refusal.json()["message"])
    assert client.get(f"{PUBLIC}/subnets/{subnet['id']}").json().get("metadata", {}).get("deletion_timestamp") is None


def test_a_vm_created_through_the_form_runs_with_its_addresses_then_is_deleted(fleet: Fleet, browser: Browser) -> None:
    page = signed_in(browser, fleet.server, "tenant-admin", "acme", "alice")
    page.goto(f"{fleet.server.url}/compute-instances")
    page.click("text=Create virtual machine")
    page.fill("#name", "form-vm")
    page.select_option("#template", "fedora")
    page.check("#external_access")
    page.click("button:has-text('Create')")
    expect(page.locator("[role=status]")).to_have_text("Virtual machine created")
    expect(page.locator("[data-field=State]")).to_contain_text("Running", timeout=20_000)
    vm_id = page.url.split("/compute-instances/", 1)[1].split("?", 1)[0]
    vm = fleet.tenants["acme"].get(f"{PUBLIC}/compute_instances/{vm_id}").json()
    expect(page.locator("[data-field='External IP']")).not_to_have_text("-", timeout=20_000)
    vm = fleet.tenants["acme"].get(f"{PUBLIC}/compute_instances/{vm_id}").json()
    expect(page.locator("[data-field='External IP']")).to_have_text(vm["status"]["external_ip_address"])
    expect(page.locator("[data-field='Internal IP']")).to_have_text(vm["status"]["internal_ip_address"])
    page.click("text=Delete…")
    page.click("button:has-text('Delete')")
    expect(page.locator("[role=status]")).to_have_text("Deletion requested")
    deadline = time.monotonic() + 30
    while fleet.tenants["acme"].get(f"{PUBLIC}/compute_instances/{vm_id}").status_code != 404:
        assert time.monotonic() < deadline, "the VM was never archived"
        time.sleep(0.1)


def test_a_refused_vm_create_names_the_field(fleet: Fleet, browser: Browser) -> None:
    page = signed_in(browser, fleet.server, "tenant-admin", "acme", "alice")
    page.goto(f"{fleet.server.url}/compute-instances/new")
    page.fill("#name", "web-vm")  # taken
    page.click("button:has-text('Create')")
    expect(page.locator("[data-testid=error]")).to_contain_text("web-vm")
    expect(page.locator("#name")).to_have_value("web-vm")
