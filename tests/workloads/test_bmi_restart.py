"""A service restart in the middle of provisioning (compute.md §3.2, §6 scenario 16): the new
process resumes at the first incomplete gate from the stored gate record; the completed gates are
not run again and their events are not repeated."""

from __future__ import annotations

from pathlib import Path

from osac.auth.subject import Role
from osac.server.settings import merge_config
from tests.support.bmaas import BMIS, FAST_GATES, PRIVATE, PUBLIC, step_status, steps
from tests.support.onboarding import ready_catalogue, wait_for
from tests.support.server import running_server

#: Provisioning the OS takes 150 s at speed 1, 3 s here: long enough to stop the service during it.
SLOW_DEPLOY = merge_config(FAST_GATES, {"simulator": {"speed": 50}})


async def test_a_restart_during_gate_three_resumes_there(db_url: str, tmp_path: Path) -> None:
    async with running_server(tmp_path, db_url, controllers=True, config=SLOW_DEPLOY) as server:
        admin = server.rest(server.token(Role.PROVIDER_ADMIN, user="root"))
        alice = server.rest(server.token(Role.TENANT_ADMIN, ("acme",), user="alice"))
        async with admin, alice:
            await ready_catalogue(admin)
            tenant = (await admin.request("POST", f"{PUBLIC}/tenants", json={"metadata": {"name": "acme"}})).json()
            await wait_for(admin, f"{PUBLIC}/tenants/{tenant['id']}",
                           lambda t: t["status"]["state"] == "TENANT_STATE_READY")
            response = await alice.request("POST", BMIS, json={"metadata": {"name": "box"},
                                                               "spec": {"host_type": "bm-standard"}})
            assert response.status_code == 200, response.text
            path = f"{PRIVATE}/baremetal_instances/{response.json()['id']}"
            deploying = await wait_for(admin, path, lambda b: step_status(b, "ProvisioningComplete") == "RUNNING")

    async with running_server(tmp_path, db_url, controllers=True, config=SLOW_DEPLOY) as server:
        admin = server.rest(server.token(Role.PROVIDER_ADMIN, user="root"))
        async with admin:
            running = await wait_for(admin, path, lambda b: b["status"]["state"] == "BARE_METAL_INSTANCE_STATE_RUNNING")
            for gate in ("InventoryAssigned", "NetworkingConfigured"):
                assert steps(running)[gate] == steps(deploying)[gate]
            assert steps(running)["ProvisioningComplete"]["started_at"] == steps(deploying)["ProvisioningComplete"][
                "started_at"]
            assert running["status"]["host"] == deploying["status"]["host"]
            events = (await admin.request("GET", f"{PUBLIC}/lifecycle_events",
                                          params={"filter": f"this.object_id == '{running['id']}'"})).json()["items"]
            reasons = [e["reason"] for e in events]
            for once in ("HostAssigned", "NetworkingConfigured", "ProvisioningComplete", "IPAddressDiscovered", "Ready"):
                assert reasons.count(once) == 1, reasons
