"""Network managers come from configuration (networking.md §2, §14 scenario 8): a second
simulated manager is one configuration entry, no API change."""

from __future__ import annotations

from osac.auth.subject import Role
from osac.server.settings import DEFAULT_CONFIG, merge_config
from tests.support.onboarding import wait_for
from tests.support.server import running_server

SECOND_MANAGER = {
    "name": "sim-fabric-v6", "kind": "fabric", "implementation": "simulator", "contract_version": "v1",
    "settings": {"capabilities": {"ipv4": True, "ipv6": True, "dual_stack": True}},
}
V6_K8S = {
    "name": "sim-k8s-v6", "kind": "k8s", "implementation": "simulator", "contract_version": "v1",
    "settings": {"capabilities": {"ipv4": True, "ipv6": True, "dual_stack": False}},
}


async def test_second_manager_by_configuration_and_unregistered_names(db_url, tmp_path) -> None:
    config = merge_config(DEFAULT_CONFIG, {"simulator": {"speed": "instant"}})
    config["network_managers"] = [*DEFAULT_CONFIG["network_managers"], SECOND_MANAGER, V6_K8S]
    async with running_server(tmp_path, db_url, controllers=True, config=config) as server:
        admin = server.rest(server.token(Role.PROVIDER_ADMIN, user="root"))
        unknown = await admin.request("POST", "/api/private/v1/network_classes",
                                      json={"metadata": {"name": "x"}, "fabric_manager": "netris"})
        assert unknown.status_code == 400
        assert "fabric manager 'netris' is not registered" in unknown.json()["message"]

        created = await admin.request("POST", "/api/private/v1/network_classes", json={
            "metadata": {"name": "dual"}, "title": "Dual stack", "fabric_manager": "sim-fabric-v6", "k8s_manager": "sim-k8s-v6"})
        assert created.status_code == 200, created.text
        ready = await wait_for(admin, f"/api/private/v1/network_classes/{created.json()['id']}",
                               lambda c: c.get("status", {}).get("state") == "NETWORK_CLASS_STATE_READY")
        assert ready["capabilities"] == {"supports_ipv4": True, "supports_ipv6": True}
