"""The bare-metal state rule of compute.md §3.3, first match wins."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from osac.status.baremetal.derivation import BareMetalInstanceStatusView, derive_baremetal_instance_status
from osac.status.baremetal.gates import (
    ADDRESS_MISMATCH,
    IP_DISCOVERY_COMPLETE,
    IP_DISCOVERY_TIMEOUT,
    NETWORKING_CONFIGURATION_FAILED,
    NETWORKING_CONFIGURED,
    PROVISIONING_COMPLETE,
    PROVISIONING_FAILED,
)
from osac.status.baremetal.views import (
    DELETE_FAILED,
    DELETING,
    FAILED,
    PROVISIONING,
    RESTART_FAILED,
    RUN_STRATEGY_HALTED,
    RUNNING,
    STARTING,
    STOPPED,
    STOPPING,
)
from osac.status.conditions.views import TRUE, ConditionView
from tests.support.baremetal_status import ALL_DONE, T0, completed, context, host, leased

NOW = T0 + timedelta(minutes=30)
FAILED_RESTART = ConditionView(RESTART_FAILED, TRUE, "RestartFailed", "3 power errors", T0)
GATE_2_FAILED = completed(1).start(NETWORKING_CONFIGURED, T0).fail(
    NETWORKING_CONFIGURED, T0, NETWORKING_CONFIGURATION_FAILED, "port bm-std-007/ens1f0 not active after 2m")
GATE_3_FAILED = completed(2).start(PROVISIONING_COMPLETE, T0).fail(
    PROVISIONING_COMPLETE, T0, PROVISIONING_FAILED, "image download failed 3 times")
GATE_4_TIMEOUT = completed(3).start(IP_DISCOVERY_COMPLETE, T0).fail(
    IP_DISCOVERY_COMPLETE, T0, IP_DISCOVERY_TIMEOUT, "no DHCP lease within 5m for ens1f0")
GATE_4_MISMATCH = completed(3).start(IP_DISCOVERY_COMPLETE, T0).fail(
    IP_DISCOVERY_COMPLETE, T0, ADDRESS_MISMATCH, "interface ens1f0 leased 10.0.2.99, reserved 10.0.2.17")


def previous(state: int = RUNNING, *conditions: ConditionView) -> BareMetalInstanceStatusView:
    return BareMetalInstanceStatusView(state=state, conditions=conditions, state_transition_time=T0)


ROWS: list[tuple[str, dict[str, Any], int]] = [
    ("deletion", {"ctx": {"deletion_requested": True}}, DELETING),
    ("deletion-cleanup-gave-up", {"ctx": {"deletion_requested": True, "cleanup_gave_up": True}}, DELETE_FAILED),
    ("deletion-before-unreadable", {"ctx": {"deletion_requested": True, "readable": False}}, DELETING),
    ("deletion-before-gate-failure", {"ctx": {"deletion_requested": True}, "steps": GATE_2_FAILED}, DELETING),
    ("unreadable-provider", {"ctx": {"readable": False}, "previous": previous(STOPPED)}, STOPPED),
    ("unreadable-malformed-host", {"host": {"status": {"poweredOn": "yes"}}, "previous": previous(STARTING)}, STARTING),
    ("unreadable-before-gate-failure", {"ctx": {"readable": False}, "steps": GATE_3_FAILED}, RUNNING),
    ("unreadable-first-status", {"ctx": {"readable": False}, "previous": BareMetalInstanceStatusView()}, PROVISIONING),
    ("gate-2-failed", {"steps": GATE_2_FAILED, "previous": previous(PROVISIONING)}, FAILED),
    ("gate-3-failed", {"steps": GATE_3_FAILED, "previous": previous(PROVISIONING)}, FAILED),
    ("gate-4-timeout", {"steps": GATE_4_TIMEOUT, "previous": previous(PROVISIONING)}, FAILED),
    ("gate-4-mismatch", {"steps": GATE_4_MISMATCH, "previous": previous(PROVISIONING)}, FAILED),
    ("restart-failed-not-ready", {"host": host(powered_on=False), "previous": previous(STARTING, FAILED_RESTART)},
     FAILED),
    ("restart-failed-but-ready", {"previous": previous(FAILED, FAILED_RESTART)}, RUNNING),
    *[(f"provisioning-{n}-gates-done", {"steps": completed(n), "host": None if n == 0 else host("provisioning")},
       PROVISIONING) for n in range(4)],
    ("always-ready", {}, RUNNING),
    ("always-powered-off", {"host": host(powered_on=False)}, STARTING),
    ("always-no-address", {"leases": {"ens1f0": None}, "previous": previous(STARTING)}, STARTING),
    ("always-unspecified-strategy", {"ctx": {"run_strategy": 0}}, RUNNING),
    ("halted-powered-on", {"ctx": {"run_strategy": RUN_STRATEGY_HALTED}}, STOPPING),
    ("halted-powered-off", {"ctx": {"run_strategy": RUN_STRATEGY_HALTED}, "host": host(powered_on=False)}, STOPPED),
    ("halted-host-gone", {"ctx": {"run_strategy": RUN_STRATEGY_HALTED}, "host": None}, STOPPED),
]


@pytest.mark.parametrize(("case", "expected"), [(c, e) for _, c, e in ROWS], ids=[name for name, _, _ in ROWS])
def test_state_rule(case: dict[str, Any], expected: int) -> None:
    result = derive_baremetal_instance_status(
        case.get("host", host()),
        case.get("steps", ALL_DONE),
        case.get("leases", leased()),
        case.get("previous", previous(RUNNING)),
        NOW,
        context(**case.get("ctx", {})),
    )
    assert result.status.state == expected


@pytest.mark.parametrize("changed", [True, False], ids=["state-changes", "state-stays"])
def test_state_transition_time_is_stamped_exactly_on_state_changes(changed: bool) -> None:
    result = derive_baremetal_instance_status(
        host(), ALL_DONE, leased(), previous(STARTING if changed else RUNNING), NOW, context()
    )
    assert result.status.state == RUNNING
    assert result.status.state_transition_time == (NOW if changed else T0)
