"""Every condition reason of compute.md §3.1 for bare metal, and the attachment statuses."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from osac.status.baremetal.derivation import (
    BareMetalAttachment,
    BareMetalInstanceStatusView,
    BareMetalNetworkAttachmentStatusView,
    ProvisioningSteps,
    TenantReadiness,
    derive_baremetal_instance_status,
)
from osac.status.baremetal.gates import (
    ADDRESS_MISMATCH,
    INVENTORY_ASSIGNED,
    IP_DISCOVERY_COMPLETE,
    IP_DISCOVERY_TIMEOUT,
    NETWORKING_CONFIGURATION_FAILED,
    NETWORKING_CONFIGURED,
    PROVISIONING_COMPLETE,
    PROVISIONING_FAILED,
)
from osac.status.baremetal.views import (
    CONFIGURATION_APPLIED,
    PROVISIONED,
    READY,
    RESTART_REQUIRED,
    RUN_STRATEGY_HALTED,
    RUNNING,
)
from osac.status.conditions.views import FALSE, TRUE, ConditionView
from tests.support.baremetal_status import (
    ADDRESS,
    ALL_DONE,
    INTERFACE,
    SECOND_ADDRESS,
    T0,
    completed,
    cond,
    context,
    host,
    leased,
)

NOW = T0 + timedelta(minutes=10)
NOT_READY = TenantReadiness("acme", False, "PENDING")

CASES: list[tuple[str, int, dict[str, Any], tuple[int, str, str | None]]] = [
    # PROVISIONED
    ("provisioned-initialized", PROVISIONED, {"steps": ProvisioningSteps(), "host": None}, (FALSE, "Initialized", "")),
    ("provisioned-tenant-not-ready", PROVISIONED, {"steps": ProvisioningSteps(), "host": None, "ctx": {"tenant": NOT_READY}},
     (FALSE, "TenantNotReady", "Tenant 'acme' is not ready (phase: PENDING)")),
    ("provisioned-waiting-for-host", PROVISIONED,
     {"steps": ProvisioningSteps().start(INVENTORY_ASSIGNED, T0, "no free host of type 'bm-standard'"), "host": None},
     (FALSE, "WaitingForHost", "no free host of type 'bm-standard'")),
    ("provisioned-configuring-network", PROVISIONED,
     {"steps": completed(1).start(NETWORKING_CONFIGURED, T0), "host": host("available", powered_on=False)},
     (FALSE, "ConfiguringNetwork", None)),
    ("provisioned-configuring-network-after-retry", PROVISIONED,
     {"steps": completed(1).start(NETWORKING_CONFIGURED, T0).attempt(NETWORKING_CONFIGURED, "switch busy, retrying"),
      "host": host("available", powered_on=False)},
     (FALSE, "ConfiguringNetwork", "switch busy, retrying")),
    ("provisioned-provisioning-host", PROVISIONED,
     {"steps": completed(2).start(PROVISIONING_COMPLETE, T0), "host": host("provisioning")},
     (FALSE, "ProvisioningHost", None)),
    ("provisioned-next-gate-not-started", PROVISIONED, {"steps": completed(2), "host": host("available")},
     (FALSE, "ProvisioningHost", None)),
    ("provisioned-discovering-ip", PROVISIONED,
     {"steps": completed(3).start(IP_DISCOVERY_COMPLETE, T0), "leases": {INTERFACE: None}},
     (FALSE, "DiscoveringIP", None)),
    ("provisioned-networking-failed", PROVISIONED,
     {"steps": completed(1).fail(NETWORKING_CONFIGURED, T0, NETWORKING_CONFIGURATION_FAILED, "port not active after 2m")},
     (FALSE, "NetworkingConfigurationFailed", "port not active after 2m")),
    ("provisioned-provisioning-failed", PROVISIONED,
     {"steps": completed(2).fail(PROVISIONING_COMPLETE, T0, PROVISIONING_FAILED, "3 attempts failed")},
     (FALSE, "ProvisioningFailed", "3 attempts failed")),
    ("provisioned-ip-discovery-timeout", PROVISIONED,
     {"steps": completed(3).fail(IP_DISCOVERY_COMPLETE, T0, IP_DISCOVERY_TIMEOUT, "no lease within 5m")},
     (FALSE, "IPDiscoveryTimeout", "no lease within 5m")),
    ("provisioned-address-mismatch", PROVISIONED,
     {"steps": completed(3).fail(IP_DISCOVERY_COMPLETE, T0, ADDRESS_MISMATCH, "leased 10.0.2.99, reserved 10.0.2.17")},
     (FALSE, "AddressMismatch", "leased 10.0.2.99, reserved 10.0.2.17")),
    ("provisioned-infrastructure-ready", PROVISIONED, {},
     (TRUE, "InfrastructureReady", "All infrastructure resources provisioned successfully")),
    # CONFIGURATION_APPLIED
    ("configuration-applied", CONFIGURATION_APPLIED, {}, (TRUE, "ConfigurationApplied", "")),
    ("configuration-during-provisioning", CONFIGURATION_APPLIED, {"steps": completed(2), "host": host("provisioning")},
     (FALSE, "ApplyingConfiguration", None)),
    ("configuration-hash-differs", CONFIGURATION_APPLIED, {"ctx": {"spec_hash": "h2"}}, (FALSE, "ApplyingConfiguration", None)),
    ("configuration-power-pending", CONFIGURATION_APPLIED, {"ctx": {"run_strategy": RUN_STRATEGY_HALTED}},
     (FALSE, "ApplyingConfiguration", "waiting for the host to power off")),
    ("configuration-halted-applied", CONFIGURATION_APPLIED,
     {"ctx": {"run_strategy": RUN_STRATEGY_HALTED}, "host": host(powered_on=False)}, (TRUE, "ConfigurationApplied", "")),
    ("configuration-failed", CONFIGURATION_APPLIED, {"ctx": {"configuration_error": "security group sg-1 rejected"}},
     (FALSE, "ConfigurationFailed", "security group sg-1 rejected")),
    # READY
    ("ready-as-expected", READY, {}, (TRUE, "AsExpected", "")),
    ("ready-no-host", READY, {"steps": ProvisioningSteps(), "host": None}, (FALSE, "Provisioning", None)),
    ("ready-host-provisioning", READY, {"steps": completed(2), "host": host("provisioning")}, (FALSE, "Provisioning", None)),
    ("ready-gates-incomplete", READY, {"steps": completed(3), "leases": {}}, (FALSE, "Provisioning", None)),
    ("ready-no-primary-address", READY, {"leases": {INTERFACE: None}}, (FALSE, "Provisioning", None)),
    ("ready-powered-off", READY, {"host": host(powered_on=False)}, (FALSE, "PoweredOff", None)),
    ("ready-host-error", READY,
     {"host": host(operational="error", error_type="power management error", error_message="BMC unreachable")},
     (FALSE, "HostError", "BMC unreachable")),
    ("ready-operational-status-not-ok", READY, {"host": host(operational="delayed")}, (FALSE, "HostError", None)),
    ("ready-unreadable", READY, {"ctx": {"readable": False}}, (FALSE, "Unreadable", None)),
    # RESTART_REQUIRED
    ("restart-required", RESTART_REQUIRED,
     {"ctx": {"restart_required_reason": "FirmwareUpdated", "restart_required_message": "BIOS settings changed"}},
     (TRUE, "FirmwareUpdated", "BIOS settings changed")),
    ("restart-not-required", RESTART_REQUIRED, {}, (FALSE, "AsExpected", "")),
]


@pytest.mark.parametrize(("condition_type", "case", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_condition_reason(condition_type: int, case: dict[str, Any], expected: tuple[int, str, str | None]) -> None:
    result = derive_baremetal_instance_status(
        case.get("host", host()), case.get("steps", ALL_DONE), case.get("leases", leased()),
        BareMetalInstanceStatusView(state=RUNNING), NOW, context(**case.get("ctx", {})),
    )
    found = cond(result.status, condition_type)
    status, reason, message = expected
    assert (found.status, found.reason) == (status, reason)
    if message is not None:
        assert found.message == message


def test_unreadable_keeps_every_other_condition() -> None:
    ready = derive_baremetal_instance_status(host(), ALL_DONE, leased(), BareMetalInstanceStatusView(), T0, context())
    blind = derive_baremetal_instance_status(host(), ALL_DONE, {}, ready.status, NOW, context(readable=False))
    assert blind.status.state == ready.status.state
    changed = [c.type for c, d in zip(ready.status.conditions, blind.status.conditions, strict=True) if c != d]
    assert changed == [READY]


def test_attachment_statuses_come_from_leases_in_spec_order() -> None:
    attachments = (
        BareMetalAttachment("ens2f0", "subnet-b", False, SECOND_ADDRESS),
        BareMetalAttachment(INTERFACE, "subnet-a", True, ADDRESS),
    )
    result = derive_baremetal_instance_status(
        host(), ALL_DONE, {INTERFACE: ADDRESS, "ens2f0": "10.0.3.99"}, BareMetalInstanceStatusView(), NOW,
        context(attachments=attachments),
    )
    assert result.status.network_attachment_statuses == (
        BareMetalNetworkAttachmentStatusView("ens2f0", "subnet-b", "", False),  # lease on another address
        BareMetalNetworkAttachmentStatusView(INTERFACE, "subnet-a", ADDRESS, True),
    )


def test_an_interface_not_queried_keeps_its_address_and_a_missing_lease_clears_it() -> None:
    before = BareMetalInstanceStatusView(
        state=RUNNING, network_attachment_statuses=(BareMetalNetworkAttachmentStatusView(INTERFACE, "subnet-a", ADDRESS, True),)
    )
    kept = derive_baremetal_instance_status(host(), ALL_DONE, {}, before, NOW, context())
    assert kept.status.network_attachment_statuses[0].ip_address == ADDRESS
    assert kept.status.state == RUNNING
    cleared = derive_baremetal_instance_status(host(), ALL_DONE, {INTERFACE: None}, before, NOW, context())
    assert cleared.status.network_attachment_statuses[0].ip_address == ""


def test_host_name_is_kept_and_steps_are_copied() -> None:
    steps = completed(2)
    result = derive_baremetal_instance_status(host("provisioning"), steps, {}, BareMetalInstanceStatusView(host="bm-std-001"),
                                              NOW, context(host_name=""))
    assert result.status.host == "bm-std-001"
    assert result.status.provisioning_steps == steps


def test_unknown_condition_types_survive() -> None:
    unknown = ConditionView(42, TRUE, "FromTheFuture", "", T0)
    result = derive_baremetal_instance_status(
        host(), ALL_DONE, leased(), BareMetalInstanceStatusView(conditions=(unknown,)), NOW, context()
    )
    assert [c.type for c in result.status.conditions] == [1, 2, 3, 4, 5, 6, 42]
    assert result.status.conditions[-1] == unknown
