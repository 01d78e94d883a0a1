"""Properties of the bare-metal derivation: deterministic, total (a malformed host dict is an
unreadable observation and never raises), a fixpoint, never UNSPECIFIED, preserving unknown
condition types and gate entries."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from osac.status.baremetal.derivation import (
    BareMetalAttachment,
    BareMetalContext,
    BareMetalInstanceStatusView,
    BareMetalNetworkAttachmentStatusView,
    BareMetalRestart,
    ProvisioningStep,
    ProvisioningSteps,
    TenantReadiness,
    derive_baremetal_instance_status,
)
from osac.status.baremetal.gates import GATES, STEP_COMPLETED, STEP_FAILED, STEP_PENDING, STEP_RUNNING
from osac.status.conditions.views import ConditionView
from tests.support.baremetal_status import ADDRESS, INTERFACE, SECOND_ADDRESS, T0, host

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
UNKNOWN_CONDITION = ConditionView(42, 1, "FromTheFuture", "written by a newer version", T0)
FUTURE_GATE = ProvisioningStep("FirmwareChecked", STEP_COMPLETED, 1, T0, T0, "")

offsets = st.integers(min_value=0, max_value=3600).map(lambda s: timedelta(seconds=s))
times = offsets.map(lambda d: T0 + d)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3),
    max_leaves=12,
)


@st.composite
def hosts(draw: st.DrawFn) -> dict[str, Any] | None:
    if draw(st.integers(0, 4)) == 0:
        return None
    return host(
        draw(st.sampled_from(["available", "provisioning", "provisioned", "deprovisioning", ""])),
        powered_on=draw(st.booleans()),
        operational=draw(st.sampled_from(["OK", "OK", "error", "delayed", ""])),
        error_type=draw(st.sampled_from(["", "", "power management error"])),
    )


@st.composite
def gate_records(draw: st.DrawFn) -> ProvisioningSteps:
    done = draw(st.integers(0, 4))
    steps = [ProvisioningStep(g, STEP_COMPLETED, 1, T0, T0, "") for g in GATES[:done]]
    if done < 4:
        status = draw(st.sampled_from([STEP_PENDING, STEP_RUNNING, STEP_FAILED, 9]))
        message = draw(st.sampled_from(["", "retrying", "AddressMismatch: leased 10.0.2.99", "IPDiscoveryTimeout: x"]))
        steps.append(ProvisioningStep(GATES[done], status, draw(st.integers(0, 3)), draw(st.none() | times), None, message))
    if draw(st.booleans()):
        steps.append(FUTURE_GATE)
    return ProvisioningSteps(tuple(steps))


lease_maps = st.dictionaries(
    st.sampled_from([INTERFACE, "ens2f0"]), st.none() | st.sampled_from([ADDRESS, SECOND_ADDRESS, "10.9.9.9"]), max_size=2
)


@st.composite
def contexts(draw: st.DrawFn) -> BareMetalContext:
    return BareMetalContext(
        tenant=TenantReadiness("acme", draw(st.booleans()), "PENDING"),
        readable=draw(st.integers(0, 9)) > 0,
        deletion_requested=draw(st.integers(0, 9)) == 0,
        run_strategy=draw(st.sampled_from([0, 1, 2, 7])),
        restart_trigger=draw(st.integers(0, 3)),
        restart=BareMetalRestart(started_at=draw(st.none() | times), error=draw(st.sampled_from(["", "", "BMC timeout"]))),
        restart_timeout=timedelta(minutes=draw(st.sampled_from([1, 15]))),
        spec_hash=draw(st.sampled_from(["h1", "h2"])),
        applied_spec_hash=draw(st.sampled_from(["", "h1"])),
        configuration_error=draw(st.sampled_from(["", "", "sg rejected"])),
        restart_required_reason=draw(st.sampled_from(["", "FirmwareUpdated"])),
        host_name=draw(st.sampled_from(["", "bm-std-007"])),
        attachments=draw(st.sampled_from([
            (BareMetalAttachment(INTERFACE, "subnet-a", True, ADDRESS),),
            (BareMetalAttachment("ens2f0", "subnet-b", False, SECOND_ADDRESS),
             BareMetalAttachment(INTERFACE, "subnet-a", True, ADDRESS)),
        ])),
        cleanup_leftovers=("port bm-std-007/ens1f0",),
        cleanup_gave_up=draw(st.booleans()),
    )


@st.composite
def previous_statuses(draw: st.DrawFn) -> BareMetalInstanceStatusView:
    conditions = tuple(
        ConditionView(kind, draw(st.sampled_from([1, 2])),
                      draw(st.sampled_from(["AsExpected", "RestartRequested", "RestartInProgress", "RestartFailed"])),
                      "", draw(st.none() | times))
        for kind in draw(st.lists(st.sampled_from([1, 2, 3, 4, 5, 6]), max_size=6, unique=True))
    )
    return BareMetalInstanceStatusView(
        state=draw(st.sampled_from([0, 1, 2, 3, 4, 5, 6, 7, 8, 42])),
        conditions=conditions + (UNKNOWN_CONDITION,),
        restart_trigger=draw(st.integers(0, 3)),
        network_attachment_statuses=draw(st.sampled_from(
            [(), (BareMetalNetworkAttachmentStatusView(INTERFACE, "subnet-a", ADDRESS, True),)])),
        state_transition_time=draw(st.none() | times),
        host=draw(st.sampled_from(["", "bm-std-001"])),
        provisioning_steps=draw(gate_records()),
    )


@SETTINGS
@given(hosts(), gate_records(), lease_maps, previous_statuses(), times, contexts())
def test_deterministic_fixpoint_and_never_unspecified(
    machine: Any, steps: ProvisioningSteps, leases: Any, previous: BareMetalInstanceStatusView, now: Any,
    ctx: BareMetalContext,
) -> None:
    first = derive_baremetal_instance_status(machine, steps, leases, previous, now, ctx)
    assert first == derive_baremetal_instance_status(machine, steps, leases, previous, now, ctx)
    assert first.status.state != 0
    assert UNKNOWN_CONDITION in first.status.conditions
    assert (FUTURE_GATE in steps.steps) == (FUTURE_GATE in first.status.provisioning_steps.steps)
    assert first.requeue_after is None or first.requeue_after > timedelta(0)

    settled = derive_baremetal_instance_status(machine, steps, leases, first.status, now, ctx)
    assert settled.status == first.status
    assert settled.events == ()


@SETTINGS
@given(json_values, gate_records(), json_values, previous_statuses(), times, contexts())
def test_arbitrary_input_never_raises(
    machine: Any, steps: ProvisioningSteps, leases: Any, previous: BareMetalInstanceStatusView, now: Any,
    ctx: BareMetalContext,
) -> None:
    assert derive_baremetal_instance_status(machine, steps, leases, previous, now, ctx).status.state != 0


CORRUPTIONS: list[tuple[list[str], Any]] = [
    ([], "bm-std-007"),
    (["status"], ["provisioned"]),
    (["status", "poweredOn"], "on"),
    (["status", "provisioning"], "provisioned"),
    (["status", "provisioning", "state"], 3),
    (["status", "operationalStatus"], True),
    (["status", "hardware", "nics"], {"ens1f0": {}}),
    (["metadata", "name"], 7),
    (["spec", "online"], "true"),
]


def corrupt(value: Any, path: list[str], bad: Any) -> Any:
    if not path:
        return bad
    head, *rest = path
    copy = dict(value)
    copy[head] = corrupt(copy[head], rest, bad)
    return copy


@SETTINGS
@given(st.sampled_from(CORRUPTIONS), gate_records(), lease_maps, previous_statuses(), times, contexts())
def test_a_malformed_host_counts_as_unreadable(
    corruption: tuple[list[str], Any], steps: ProvisioningSteps, leases: Any, previous: BareMetalInstanceStatusView,
    now: Any, ctx: BareMetalContext,
) -> None:
    path, bad = corruption
    ctx = replace(ctx, readable=True)
    result = derive_baremetal_instance_status(corrupt(host(), path, bad), steps, leases, previous, now, ctx)
    unreadable = derive_baremetal_instance_status(host(), steps, leases, previous, now, replace(ctx, readable=False))
    assert result == unreadable
