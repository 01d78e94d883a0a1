"""Builders of BareMetalHost dicts shaped as the simulator emits them (simulator.md §3.3), gate
records as the reconciler keeps them, and a driver that feeds them to the bare-metal derivation
in sequence (each result becomes the next ``previous``). Holds no tests."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any

from osac.status.baremetal.derivation import (
    BareMetalAttachment,
    BareMetalContext,
    BareMetalDerivation,
    BareMetalInstanceStatusView,
    ProvisioningSteps,
    TenantReadiness,
    derive_baremetal_instance_status,
)
from osac.status.baremetal.gates import GATES
from osac.status.conditions.views import ConditionView, condition

T0 = datetime(2026, 3, 4, 10, 0, tzinfo=UTC)
HOST = "bm-std-007"
ADDRESS = "10.0.2.17"
SECOND_ADDRESS = "10.0.3.17"
INTERFACE = "ens1f0"


def host(
    provisioning: str = "provisioned",
    *,
    powered_on: bool = True,
    operational: str = "OK",
    error_type: str = "",
    error_message: str = "",
    name: str = HOST,
) -> dict[str, Any]:
    return {
        "apiVersion": "metal3.io/v1alpha1",
        "kind": "BareMetalHost",
        "metadata": {"name": name, "labels": {"osac.openshift.io/host-type": "bm-standard"},
                     "annotations": {"osac.openshift.io/interface-macs": "{}"}},
        "spec": {"online": powered_on, "consumerRef": {"kind": "BareMetalInstance", "name": "0192"}},
        "status": {
            "provisioning": {"state": provisioning},
            "poweredOn": powered_on,
            "operationalStatus": operational,
            "errorType": error_type,
            "errorMessage": error_message,
            "hardware": {"nics": [{"name": INTERFACE, "mac": "02:11:22:33:44:55", "ip": ""}]},
        },
    }


def completed(count: int, at: datetime = T0) -> ProvisioningSteps:
    """The first ``count`` gates completed, one minute apart from ``at``."""
    steps = ProvisioningSteps()
    for index, gate in enumerate(GATES[:count]):
        steps = steps.start(gate, at + timedelta(minutes=index)).complete(gate, at + timedelta(minutes=index, seconds=30))
    return steps


ALL_DONE = completed(4)


def context(**fields: Any) -> BareMetalContext:
    """A ready tenant, the current spec applied, one primary attachment on ``INTERFACE``."""
    fields.setdefault("tenant", TenantReadiness("acme", True, "READY"))
    fields.setdefault("spec_hash", "h1")
    fields.setdefault("applied_spec_hash", "h1")
    fields.setdefault("host_name", HOST)
    fields.setdefault("attachments", (BareMetalAttachment(INTERFACE, "subnet-a", True, ADDRESS),))
    return BareMetalContext(**fields)


def leased(address: str | None = ADDRESS) -> dict[str, str | None]:
    return {INTERFACE: address}


def cond(status: BareMetalInstanceStatusView, condition_type: int) -> ConditionView:
    found = condition(status.conditions, condition_type)
    assert found is not None, f"condition {condition_type} missing"
    return found


@dataclass
class Instance:
    """One bare-metal instance reconciled over time."""

    ctx: BareMetalContext = field(default_factory=context)
    now: datetime = T0
    status: BareMetalInstanceStatusView = field(default_factory=BareMetalInstanceStatusView)
    history: list[BareMetalDerivation] = field(default_factory=list)

    def observe(
        self,
        machine: Mapping[str, Any] | None,
        steps: ProvisioningSteps,
        leases: Mapping[str, str | None] | None = None,
        *,
        at: timedelta | None = None,
        **context_changes: Any,
    ) -> BareMetalDerivation:
        if at is not None:
            self.now = T0 + at
        if context_changes:
            self.ctx = replace(self.ctx, **context_changes)
        result = derive_baremetal_instance_status(machine, steps, leases or {}, self.status, self.now, self.ctx)
        self.status = result.status
        self.history.append(result)
        return result

    @property
    def events(self) -> list[str]:
        return [event.reason for result in self.history for event in result.events]

    def states(self) -> list[int]:
        seen: list[int] = []
        for result in self.history:
            if not seen or seen[-1] != result.status.state:
                seen.append(result.status.state)
        return seen

    def reasons(self, condition_type: int) -> list[str]:
        seen: list[str] = []
        for result in self.history:
            reason = cond(result.status, condition_type).reason
            if not seen or seen[-1] != reason:
                seen.append(reason)
        return seen
