"""networking.md §14 scenario 9 (*no fallback*): the network class's fabric manager is configured
not to serve ``network_attachment.create`` for bare-metal servers. A server of that class fails
its networking gate with a message naming the manager, the operation and the target; nothing
falls back to another manager, and a VM on the same class, whose target the manager serves, runs."""

from __future__ import annotations

from typing import Any

import pytest

from osac.server.settings import merge_config
from tests.support.bmaas import FAST_GATES, Bmaas, condition, step_status
from tests.support.onboarding import wait_for
from tests.support.vmaas import VMS

#: The embedded managers, the fabric serving attachments for VMs and clusters only.
NO_BAREMETAL = merge_config(FAST_GATES, {"network_managers": [
    {"name": "sim-fabric", "kind": "fabric", "implementation": "simulator", "contract_version": "v1",
     "settings": {"supported": {"network_attachment.create": ["compute_instance", "cluster"]}}},
    {"name": "sim-k8s", "kind": "k8s", "implementation": "simulator", "contract_version": "v1"},
]})
UNSUPPORTED = ("fabric manager 'sim-fabric' does not support operation 'network_attachment.create' "
               "for target 'baremetal_instance'")


@pytest.mark.parametrize("bmaas", [NO_BAREMETAL], indirect=True)
async def test_a_server_fails_where_its_manager_does_not_serve_it_and_a_vm_runs(bmaas: Bmaas) -> None:
    # Given a class whose fabric manager declares no bare-metal network attachments,
    # when a server is created on the tenant's default networking,
    created = await bmaas.create("box")
    failed = await bmaas.until_state(created["id"], "FAILED")

    # then its networking gate fails, naming manager, operation and target,
    provisioned = condition(failed, "PROVISIONED")
    assert (provisioned["status"], provisioned["reason"]) == ("CONDITION_STATUS_FALSE", "NetworkingConfigurationFailed")
    assert UNSUPPORTED in provisioned["message"]
    assert step_status(failed, "InventoryAssigned") == "COMPLETED"
    assert step_status(failed, "NetworkingConfigured") == "FAILED"
    assert step_status(failed, "ProvisioningComplete") == "PENDING"
    assert (await bmaas.events(created["id"])).count("NetworkingConfigurationFailed") == 1
    # and its host's ports never left parking for the tenant's subnet;
    subnet = await bmaas.default_subnet()
    assert bmaas_ports_on(await bmaas.observation("fabric", subnet["spec"]["virtual_network"]), failed["status"]["host"]) == []

    # while a VM on the same class, a target the manager serves, runs on its address.
    response = await bmaas.alice.request("POST", VMS, json={"metadata": {"name": "vm"}, "spec": {"template": "fedora"}})
    assert response.status_code == 200, response.text
    vm = await wait_for(bmaas.alice, f"{VMS}/{response.json()['id']}",
                        lambda v: v["status"]["state"] == "COMPUTE_INSTANCE_STATE_RUNNING")
    assert vm["status"]["internal_ip_address"]
    fabric = await bmaas.observation("fabric", subnet["spec"]["virtual_network"])
    assert [p["target_kind"] for p in fabric["ports"] if p["host_name"] == f"ci/{vm['id']}"] == ["compute_instance"]


def bmaas_ports_on(fabric: dict[str, Any], host: str) -> list[dict[str, Any]]:
    return [p for p in fabric["ports"] if p["host_name"] == host]
