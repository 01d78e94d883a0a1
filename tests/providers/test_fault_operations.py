"""The operations a fabric fault can name are the manager Protocols' methods."""

from __future__ import annotations

from osac.providers.simulator.runtime.faults import FABRIC_OPERATIONS, K8S_OPERATIONS, OPERATIONS


def test_a_fault_can_name_every_fabric_and_k8s_manager_method_but_describe() -> None:
    assert FABRIC_OPERATIONS == (
        "create_virtual_network", "delete_virtual_network", "create_subnet", "delete_subnet",
        "apply_security_group", "delete_security_group", "allocate_external_ip", "release_external_ip",
        "create_external_ip_attachment", "delete_external_ip_attachment", "create_nat_gateway",
        "delete_nat_gateway", "create_network_attachment", "delete_network_attachment", "query_dhcp_lease",
    )
    assert K8S_OPERATIONS == ("create_subnet_overlay", "delete_subnet_overlay")
    assert OPERATIONS == FABRIC_OPERATIONS + K8S_OPERATIONS
