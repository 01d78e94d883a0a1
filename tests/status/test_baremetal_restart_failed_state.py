"""The state after a failed power cycle (compute.md §3.3, §6 scenario 14): FAILED until the
instance runs again, also when the cycle failed with the host still up (its power calls failed),
so three power faults give RESTART_FAILED and FAILED; a host seen down and then READY again runs.
``tests/workloads/test_restart_scenarios.py`` drives the same through the simulator."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from osac.status.baremetal.derivation import derive_baremetal_instance_status
from osac.status.baremetal.views import (
    FAILED,
    READY,
    RESTART_FAILED,
    RUNNING,
    BareMetalInstanceStatusView,
    BareMetalRestart,
)
from osac.status.conditions.views import FALSE, TRUE, ConditionView
from tests.support.baremetal_status import ALL_DONE, T0, context, host, leased

NOW = T0 + timedelta(minutes=30)
UP = ConditionView(READY, TRUE, "AsExpected", "", T0)
DOWN = ConditionView(READY, FALSE, "PoweredOff", "", T0)
RESTART_OK = ConditionView(RESTART_FAILED, FALSE, "AsExpected", "", T0)
RESTART_KO = ConditionView(RESTART_FAILED, TRUE, "RestartFailed", "power cycle failed after 3 attempt(s)", T0)
POWER_ERRORS = BareMetalRestart(started_at=NOW, error="power cycle failed after 3 attempt(s): BMC timeout")


def previous(state: int, *conditions: ConditionView) -> BareMetalInstanceStatusView:
    return BareMetalInstanceStatusView(state=state, conditions=conditions, restart_trigger=0, state_transition_time=T0)


ROWS: list[tuple[str, dict[str, Any], int]] = [
    ("power-errors-on-a-running-host", {"previous": previous(RUNNING, UP, RESTART_OK), "restart": POWER_ERRORS},
     FAILED),
    ("power-errors-host-down", {"previous": previous(RUNNING, UP, RESTART_OK), "restart": POWER_ERRORS,
                                "host": host(powered_on=False)}, FAILED),
    ("failed-host-still-up", {"previous": previous(FAILED, UP, RESTART_KO)}, FAILED),
    ("failed-host-down", {"previous": previous(FAILED, UP, RESTART_KO), "host": host(powered_on=False)}, FAILED),
    ("failed-host-back-up", {"previous": previous(FAILED, DOWN, RESTART_KO)}, RUNNING),
    ("running-again-after-a-failure", {"previous": previous(RUNNING, UP, RESTART_KO)}, RUNNING),
    ("no-failure", {"previous": previous(RUNNING, UP, RESTART_OK)}, RUNNING),
]


@pytest.mark.parametrize(("case", "expected"), [(c, e) for _, c, e in ROWS], ids=[name for name, _, _ in ROWS])
def test_state_after_a_failed_power_cycle(case: dict[str, Any], expected: int) -> None:
    ctx = context(restart_trigger=1, restart=case.get("restart", BareMetalRestart()))
    result = derive_baremetal_instance_status(case.get("host", host()), ALL_DONE, leased(), case["previous"], NOW, ctx)
    assert result.status.state == expected
    again = derive_baremetal_instance_status(case.get("host", host()), ALL_DONE, leased(), result.status, NOW,
                                             context(restart_trigger=1))
    assert again.status == result.status and again.events == ()  # a fixpoint
