"""Clusters on bare-metal hosts (cluster-status.md §20 scenario 22, networking.md §7.3 "Host
selection"): the hosts of every bare-metal node set are claimed all at once before anything is
applied; too few → nothing claimed, no HostedCluster, one AgentSelectionFailed, Stalled (a short
configured threshold here), never FAILED; more hosts → AgentsSelected and the cluster comes up on
them; two clusters racing for three hosts → one gets all three; teardown returns them."""

from __future__ import annotations

import asyncio
from typing import Any

from osac.server.settings import merge_config
from tests.support.cluster_scenarios import PRIVATE, PUBLIC, READY, condition, events, live, reasons
from tests.support.onboarding import INSTANT, wait_for

SHORT = merge_config(INSTANT, {
    "simulator": {"inventory": {"hosts": [{"prefix": "bm", "host_type": "bm-standard", "count": 2}]}},
    "cluster_status": {"stall_thresholds": {"PreparingInfrastructure": "2s"}},
})
METAL = {"title": "Metal", "node_sets": {"gpu": {"host_type": "bm-standard", "size": 3}},
         "spec_defaults": {"release_image": "quay.io/openshift-release-dev/ocp-release:4.17.0-x86_64"}}


async def _metal_template(admin: Any) -> None:
    response = await admin.request("POST", f"{PRIVATE}/cluster_templates", json={"metadata": {"name": "metal"}, **METAL})
    assert response.status_code == 200, response.text


async def _create(alice: Any, name: str) -> dict[str, Any]:
    response = await alice.request("POST", f"{PUBLIC}/clusters", json={"metadata": {"name": name},
                                                                       "spec": {"template": "metal"}})
    assert response.status_code == 200, response.text
    return dict(response.json())


async def _hosts(admin: Any) -> dict[str, str]:
    """Host name -> owner id ("" when free)."""
    response = await admin.request("POST", f"{PRIVATE}/simulator/list_hosts", json={"host_type": "bm-standard"})
    assert response.status_code == 200, response.text
    return {h["name"]: h.get("owner", {}).get("id", "") for h in response.json()["hosts"]}


async def _observation(admin: Any, cluster_id: str) -> dict[str, Any]:
    response = await admin.request("POST", f"{PRIVATE}/simulator/get_observation", json={"kind": "cluster", "key": cluster_id})
    assert response.status_code == 200, response.text
    return dict(response.json()["observation"])


async def _add_host(admin: Any, prefix: str) -> None:
    response = await admin.request("POST", f"{PRIVATE}/simulator/add_hosts",
                                   json={"prefix": prefix, "host_type": "bm-standard", "count": 1})
    assert response.status_code == 200, response.text


async def _cluster_passes(admin: Any) -> float:
    """Cluster reconcile passes so far, whatever their outcome (the process's /metrics)."""
    text = (await admin.request("GET", "/metrics")).text
    return sum(float(line.split()[-1]) for line in text.splitlines()
               if line.startswith("osac_reconcile_total{") and 'kind="cluster"' in line)


async def _signal(admin: Any, cluster_id: str) -> None:
    assert (await admin.request("POST", f"{PRIVATE}/clusters/{cluster_id}/signal", json={})).status_code == 200


async def test_a_host_shortage_claims_nothing_and_stalls_until_a_host_is_added(db_url, tmp_path) -> None:
    async with live(db_url, tmp_path, SHORT) as (admin, alice):
        await _metal_template(admin)
        cluster = await _create(alice, "gpu-lab")
        path = f"{PUBLIC}/clusters/{cluster['id']}"
        stalled = await wait_for(alice, path, lambda c: condition(c, "PROGRESSING")["reason"] == "Stalled", timeout=30)
        assert stalled["status"]["state"] == "CLUSTER_STATE_PROGRESSING"
        assert stalled["status"]["stage"] == "PreparingInfrastructure"
        assert condition(stalled, "FAILED")["status"] == "CONDITION_STATUS_FALSE"
        assert set((await _hosts(admin)).values()) == {""}  # nothing claimed
        assert (await _observation(admin, cluster["id"]))["hosted_cluster"] is None
        warnings = [(e["type"], e["message"]) for e in await events(alice, cluster["id"]) if e["reason"] == "AgentSelectionFailed"]
        assert warnings == [("LIFECYCLE_EVENT_TYPE_WARNING", "node set 'gpu' needs 3 hosts of type 'bm-standard', 2 free")]
        passes = await _cluster_passes(admin)
        await _signal(admin, cluster["id"])  # another look with the same shortage: no second Warning
        async with asyncio.timeout(10):
            while await _cluster_passes(admin) <= passes:
                await asyncio.sleep(0.05)
        assert (await reasons(alice, cluster["id"])).count("AgentSelectionFailed") == 1

        await _add_host(admin, "bm-new")
        await _signal(admin, cluster["id"])
        ready = await wait_for(alice, path, lambda c: c["status"]["state"] == READY, timeout=60)
        assert ready["status"]["node_sets"]["gpu"]["ready_replicas"] == 3
        assert "AgentsSelected" in await reasons(alice, cluster["id"])
        [selected] = [e["message"] for e in await events(alice, cluster["id"]) if e["reason"] == "AgentsSelected"]
        assert selected == "3 bm-standard hosts selected"
        owners = await _hosts(admin)
        assert set(owners.values()) == {f"{cluster['id']}/gpu"}
        nodes = (await _observation(admin, cluster["id"]))["nodes"]
        assert sorted((n["ordinal"], n["host_name"]) for n in nodes) == [(0, "bm-001"), (1, "bm-002"), (2, "bm-new-001")]

        assert (await alice.request("DELETE", path)).status_code == 200
        async with asyncio.timeout(60):
            while (await alice.request("GET", path)).status_code != 404:
                await asyncio.sleep(0.05)
        assert set((await _hosts(admin)).values()) == {""}  # teardown returned every host


async def test_two_clusters_racing_for_three_hosts_one_gets_all(db_url, tmp_path) -> None:
    config = merge_config(SHORT, {"simulator": {"inventory": {"hosts": [
        {"prefix": "bm", "host_type": "bm-standard", "count": 3}]}}})
    async with live(db_url, tmp_path, config) as (admin, alice):
        await _metal_template(admin)
        first, second = await _create(alice, "one"), await _create(alice, "two")
        paths = [f"{PUBLIC}/clusters/{c['id']}" for c in (first, second)]

        async def settled() -> tuple[list[str], list[str]]:
            got = [(await alice.request("GET", path)).json() for path in paths]
            return [c["status"]["state"] for c in got], [",".join(await reasons(alice, c["id"])) for c in got]

        async with asyncio.timeout(60):
            while True:
                states, history = await settled()
                if READY in states and any("AgentSelectionFailed" in h for h in history):
                    break
                await asyncio.sleep(0.1)
        winner = [first, second][states.index(READY)]
        loser = [first, second][1 - states.index(READY)]
        owners = await _hosts(admin)
        assert sorted(owners.values()) == [f"{winner['id']}/gpu"] * 3
        assert (await _observation(admin, loser["id"]))["hosted_cluster"] is None
        [warning] = [e["message"] for e in await events(alice, loser["id"]) if e["reason"] == "AgentSelectionFailed"]
        assert warning == "node set 'gpu' needs 3 hosts of type 'bm-standard', 0 free"

        assert (await alice.request("DELETE", f"{PUBLIC}/clusters/{winner['id']}")).status_code == 200
        async with asyncio.timeout(60):
            while (await alice.request("GET", f"{PUBLIC}/clusters/{winner['id']}")).status_code != 404:
                await asyncio.sleep(0.05)
        await _signal(admin, loser["id"])
        await wait_for(alice, f"{PUBLIC}/clusters/{loser['id']}", lambda c: c["status"]["state"] == READY, timeout=60)
        assert sorted((await _hosts(admin)).values()) == [f"{loser['id']}/gpu"] * 3


MIXED = {"title": "Mixed", "node_sets": {"workers": {"host_type": "vm-standard", "size": 2},
                                         "metal": {"host_type": "bm-standard", "size": 2}},
         "spec_defaults": {"release_image": "quay.io/openshift-release-dev/ocp-release:4.17.0-x86_64"}}


async def test_teardown_of_a_cluster_with_virtual_and_metal_node_sets_releases_every_host(db_url, tmp_path) -> None:
    """Issue 17 item 1: a cluster with a VM node set beside a bare-metal one, created and deleted
    at a speed where the HostedCluster is destroyed before its nodes are gone: after the deletion
    the inventory is exactly as it started (tests/caas/test_walkthrough.py repeats it through the
    CLI with scaling and faults; tests/recovery/test_cluster_teardown_recovery.py with a crash)."""
    async with live(db_url, tmp_path, merge_config(SHORT, {"simulator": {"speed": 200}})) as (admin, alice):
        response = await admin.request("POST", f"{PRIVATE}/cluster_templates", json={"metadata": {"name": "mixed"}, **MIXED})
        assert response.status_code == 200, response.text
        start = await _hosts(admin)
        assert set(start.values()) == {""}
        response = await alice.request("POST", f"{PUBLIC}/clusters", json={"metadata": {"name": "mix"},
                                                                           "spec": {"template": "mixed"}})
        assert response.status_code == 200, response.text
        path = f"{PUBLIC}/clusters/{response.json()['id']}"
        await wait_for(alice, path, lambda c: c["status"]["state"] == READY, timeout=60)
        assert set((await _hosts(admin)).values()) == {f"{response.json()['id']}/metal"}
        assert (await alice.request("DELETE", path)).status_code == 200
        async with asyncio.timeout(60):
            while (await alice.request("GET", path)).status_code != 404:
                await asyncio.sleep(0.05)
        assert await _hosts(admin) == start


async def test_the_configured_stall_threshold_is_in_the_status_before_any_stall(db_url, tmp_path) -> None:
    """Issue 17 item 3: the threshold in force is written with the stage (``stage_threshold``),
    so the CLI and the console need not guess it from a stall message or the defaults."""
    config = merge_config(SHORT, {"cluster_status": {"stall_thresholds": {"PreparingInfrastructure": "10m"}}})
    async with live(db_url, tmp_path, config) as (admin, alice):
        await _metal_template(admin)
        cluster = await _create(alice, "gpu-lab")  # 3 hosts wanted, 2 exist: PreparingInfrastructure
        path = f"{PUBLIC}/clusters/{cluster['id']}"
        waiting = await wait_for(alice, path, lambda c: c["status"].get("stage_threshold") == "600s", timeout=30)
        assert waiting["status"]["stage"] == "PreparingInfrastructure"
        assert condition(waiting, "PROGRESSING")["reason"] == "PreparingInfrastructure"  # not stalled


async def test_a_scale_beyond_the_inventory_names_what_the_node_set_holds_and_what_is_free(db_url, tmp_path) -> None:
    """Issue 17 item 10: the hosts a node set already holds are not counted as free."""
    async with live(db_url, tmp_path, SHORT) as (admin, alice):
        response = await admin.request("POST", f"{PRIVATE}/cluster_templates", json={"metadata": {"name": "mixed"}, **MIXED})
        assert response.status_code == 200, response.text
        response = await alice.request("POST", f"{PUBLIC}/clusters", json={"metadata": {"name": "grow"},
                                                                           "spec": {"template": "mixed"}})
        assert response.status_code == 200, response.text
        cluster_id = response.json()["id"]
        path = f"{PUBLIC}/clusters/{cluster_id}"
        await wait_for(alice, path, lambda c: c["status"]["state"] == READY, timeout=60)
        patch = {"spec": {"node_sets": {"metal": {"host_type": "bm-standard", "size": 3}}}}
        response = await alice.request("PATCH", path, params={"update_mask": "spec.node_sets"}, json=patch)
        assert response.status_code == 200, response.text
        async with asyncio.timeout(30):
            while "AgentSelectionFailed" not in await reasons(alice, cluster_id):
                await asyncio.sleep(0.1)
        [warning] = [e["message"] for e in await events(alice, cluster_id) if e["reason"] == "AgentSelectionFailed"]
        assert warning == "node set 'metal' needs 3 hosts of type 'bm-standard': it holds 2, 0 more free"


async def _host_states(admin: Any) -> dict[str, tuple[str, str, str]]:
    """Host name -> (power, provisioning state, owner id)."""
    response = await admin.request("POST", f"{PRIVATE}/simulator/list_hosts", json={"host_type": "bm-standard"})
    assert response.status_code == 200, response.text
    return {h["name"]: (h["power"], h["provisioning_state"], h.get("owner", {}).get("id", ""))
            for h in response.json()["hosts"]}


async def test_the_hosts_of_a_ready_cluster_are_listed_on_and_provisioned_and_free_again_after_delete(
        db_url, tmp_path) -> None:
    """The inventory shows what the cluster's agents did to its hosts, not the plan of hosts
    that no BareMetalInstance drives (which left them listed ``off available``)."""
    config = merge_config(SHORT, {"simulator": {"inventory": {"hosts": [
        {"prefix": "bm", "host_type": "bm-standard", "count": 4}]}}})
    async with live(db_url, tmp_path, config) as (admin, alice):
        await _metal_template(admin)
        cluster = await _create(alice, "gpu-lab")
        path = f"{PUBLIC}/clusters/{cluster['id']}"
        await wait_for(alice, path, lambda c: c["status"]["state"] == READY, timeout=60)
        owner = f"{cluster['id']}/gpu"
        assert await _host_states(admin) == {
            "bm-001": ("on", "provisioned", owner), "bm-002": ("on", "provisioned", owner),
            "bm-003": ("on", "provisioned", owner), "bm-004": ("off", "available", "")}

        assert (await alice.request("DELETE", path)).status_code == 200
        async with asyncio.timeout(60):
            while (await alice.request("GET", path)).status_code != 404:
                await asyncio.sleep(0.05)
        assert await _host_states(admin) == {f"bm-00{n}": ("off", "available", "") for n in range(1, 5)}


async def test_rest_answers_a_node_set_beyond_the_whole_inventory_with_a_warning_header(db_url, tmp_path) -> None:
    """Three hosts asked of an inventory of two: stored (the cluster waits), with a ``Warning``
    header on the Create and on each Update that still asks for too many."""
    async with live(db_url, tmp_path, SHORT) as (admin, alice):
        await _metal_template(admin)
        response = await alice.request("POST", f"{PUBLIC}/clusters", json={"metadata": {"name": "gpu-lab"},
                                                                           "spec": {"template": "metal"}})
        assert response.status_code == 200, response.text
        assert response.headers.get_list("warning") == [
            '299 osac "node set \'gpu\' asks for 3 hosts of type \'bm-standard\', but the inventory has 2 in all; '
            'the cluster waits for hosts until a provider admin adds 1 more"']
        path = f"{PUBLIC}/clusters/{response.json()['id']}"
        patch = {"spec": {"node_sets": {"gpu": {"host_type": "bm-standard", "size": 2}}}}
        fits = await alice.request("PATCH", path, params={"update_mask": "spec.node_sets"}, json=patch)
        assert fits.status_code == 200 and "warning" not in fits.headers
        patch["spec"]["node_sets"]["gpu"]["size"] = 5
        beyond = await alice.request("PATCH", path, params={"update_mask": "spec.node_sets"}, json=patch)
        assert beyond.status_code == 200, beyond.text
        assert beyond.json()["spec"]["node_sets"]["gpu"]["size"] == 5
        assert [w.split(", but")[0] for w in beyond.headers.get_list("warning")] == [
            '299 osac "node set \'gpu\' asks for 5 hosts of type \'bm-standard\'']
