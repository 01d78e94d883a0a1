"""Properties of the compute derivation (compute.md §1): deterministic, total (malformed input is
an unreadable observation and never raises), a fixpoint, never UNSPECIFIED, and preserving
condition types it does not know."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from osac.status.compute.derivation import (
    ComputeAttachment,
    ComputeContext,
    ComputeInstanceStatusView,
    ComputeNetworkAttachmentStatusView,
    ComputeRestart,
    ProviderFailure,
    TenantReadiness,
    derive_compute_instance_status,
)
from osac.status.conditions.views import ConditionView
from tests.support.compute_status import ADDRESS, SECOND_ADDRESS, T0, ts

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
PRINTABLE = ["", "Provisioning", "WaitingForVolumeBinding", "Starting", "Running", "Migrating", "Paused", "Stopping",
             "Terminating", "Stopped", "ErrorUnschedulable", "CrashLoopBackOff", "DataVolumeError", "Unknown", "Newer"]
UNKNOWN_CONDITION = ConditionView(42, 1, "FromTheFuture", "written by a newer version", T0)

offsets = st.integers(min_value=0, max_value=3600).map(lambda s: timedelta(seconds=s))
times = offsets.map(lambda d: T0 + d)

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3),
    max_leaves=12,
)


def kube_conditions(types: list[str]) -> st.SearchStrategy[list[dict[str, Any]]]:
    return st.lists(
        st.fixed_dictionaries({
            "type": st.sampled_from(types),
            "status": st.sampled_from(["True", "False", "Unknown"]),
            "reason": st.sampled_from(["", "AsExpected", "RestartRequired", "PausedByUser"]),
            "message": st.text(max_size=6),
        }),
        max_size=3,
    )


@st.composite
def virtual_machines(draw: st.DrawFn) -> dict[str, Any] | None:
    if draw(st.booleans()) and draw(st.booleans()):
        return None
    metadata: dict[str, Any] = {"name": "ci-1"}
    if draw(st.integers(0, 9)) == 0:
        metadata["deletionTimestamp"] = ts(draw(offsets))
    status: dict[str, Any] = {"ready": draw(st.booleans()), "conditions": draw(kube_conditions(["Ready", "RestartRequired"]))}
    if draw(st.integers(0, 9)) > 0:
        status["printableStatus"] = draw(st.sampled_from(PRINTABLE))
    return {"metadata": metadata, "spec": {"runStrategy": draw(st.sampled_from(["Always", "Halted", ""]))}, "status": status}


@st.composite
def virtual_machine_instances(draw: st.DrawFn) -> dict[str, Any] | None:
    if draw(st.booleans()):
        return None
    interfaces = [
        {"name": name, "ipAddress": draw(st.sampled_from([ADDRESS, SECOND_ADDRESS, "10.9.9.9", ""]))}
        for name in draw(st.lists(st.sampled_from(["nic-0", "nic-1", "eth0"]), max_size=2, unique=True))
    ]
    return {
        "metadata": {"uid": draw(st.sampled_from(["a", "b"])), "creationTimestamp": ts(draw(offsets))},
        "status": {"phase": draw(st.sampled_from(["Running", "Scheduling", "Succeeded"])),
                   "conditions": draw(kube_conditions(["Paused", "Ready"])), "interfaces": interfaces},
    }


data_volume_lists = st.lists(
    st.sampled_from(["Succeeded", "ImportInProgress", "Pending", "Failed"]).map(lambda p: {"status": {"phase": p}}),
    max_size=4,
)


@st.composite
def contexts(draw: st.DrawFn) -> ComputeContext:
    restart_started = draw(st.none() | times)
    return ComputeContext(
        tenant=TenantReadiness("acme", draw(st.booleans()), draw(st.sampled_from(["PENDING", "READY"]))),
        readable=draw(st.integers(0, 9)) > 0,
        deletion_requested=draw(st.integers(0, 9)) == 0,
        spec_hash=draw(st.sampled_from(["h1", "h2"])),
        applied_spec_hash=draw(st.sampled_from(["", "h1", "h2"])),
        run_strategy=draw(st.sampled_from(["Always", "Halted", ""])),
        terminal_failure=draw(st.none() | st.just(ProviderFailure("Quota", "quota exceeded"))),
        restart=ComputeRestart(
            requested_at=draw(st.none() | times),
            started_at=restart_started,
            error=draw(st.sampled_from(["", "", "", "locked"])),
        ),
        restart_timeout=timedelta(minutes=draw(st.sampled_from([1, 10]))),
        boot_disk_gib=40,
        additional_disks=draw(st.integers(0, 3)),
        attachments=draw(st.sampled_from([
            (ComputeAttachment("subnet-a", True, ADDRESS),),
            (ComputeAttachment("subnet-b", False, SECOND_ADDRESS), ComputeAttachment("subnet-a", True, ADDRESS)),
            (),
        ])),
        cleanup_leftovers=("port ci/1/nic-0",),
        cleanup_gave_up=draw(st.booleans()),
        external_ip_address=draw(st.none() | st.just("198.51.100.7")),
    )


@st.composite
def previous_statuses(draw: st.DrawFn) -> ComputeInstanceStatusView:
    conditions = tuple(
        ConditionView(
            kind,
            draw(st.sampled_from([1, 2])),
            draw(st.sampled_from(["AsExpected", "RestartRequested", "RestartInProgress", "RestartFailed",
                                  "InfrastructureReady", "ReconciliationFailed", "ConfigurationFailed", "Initialized"])),
            draw(st.text(max_size=5)),
            draw(st.none() | times),
        )
        for kind in draw(st.lists(st.sampled_from([1, 2, 3, 4, 5, 6]), max_size=6, unique=True))
    )
    return ComputeInstanceStatusView(
        state=draw(st.sampled_from([0, 1, 2, 3, 4, 5, 6, 7, 8, 42])),
        conditions=conditions + (UNKNOWN_CONDITION,),
        internal_ip_address=draw(st.sampled_from(["", ADDRESS])),
        last_restarted_at=draw(st.none() | times),
        external_ip_address=draw(st.sampled_from(["", "198.51.100.9"])),
        state_transition_time=draw(st.none() | times),
        compute_network_attachment_statuses=draw(st.sampled_from([(), (ComputeNetworkAttachmentStatusView("subnet-a", ADDRESS, True),)])),
    )


@SETTINGS
@given(virtual_machines(), virtual_machine_instances(), data_volume_lists, previous_statuses(), times, contexts())
def test_deterministic_fixpoint_and_never_unspecified(
    machine: Any, instance: Any, volumes: Any, previous: ComputeInstanceStatusView, now: Any, ctx: ComputeContext
) -> None:
    first = derive_compute_instance_status(machine, instance, volumes, previous, now, ctx)
    again = derive_compute_instance_status(machine, instance, volumes, previous, now, ctx)
    assert first == again
    assert first.status.state != 0
    assert UNKNOWN_CONDITION in first.status.conditions
    assert first.requeue_after is None or first.requeue_after > timedelta(0)

    settled = derive_compute_instance_status(machine, instance, volumes, first.status, now, ctx)
    assert settled.status == first.status
    assert settled.events == ()


@SETTINGS
@given(json_values, json_values, st.lists(json_values, max_size=3) | json_values, previous_statuses(), times, contexts())
def test_arbitrary_input_never_raises(
    machine: Any, instance: Any, volumes: Any, previous: ComputeInstanceStatusView, now: Any, ctx: ComputeContext
) -> None:
    result = derive_compute_instance_status(machine, instance, volumes, previous, now, ctx)
    assert result.status.state != 0


CORRUPTIONS = [
    ("vm", ["status", "printableStatus"], 3),
    ("vm", ["status", "ready"], "yes"),
    ("vm", ["status", "conditions"], {"type": "Ready"}),
    ("vm", ["status", "conditions"], [{"status": "True"}]),
    ("vm", ["metadata", "deletionTimestamp"], "yesterday"),
    ("vm", ["spec"], ["Always"]),
    ("vm", [], "a VirtualMachine"),
    ("vmi", ["metadata", "creationTimestamp"], 1712),
    ("vmi", ["status", "interfaces"], [{"name": "nic-0", "ipAddress": 10}]),
    ("vmi", ["status", "interfaces"], ["nic-0"]),
    ("vmi", ["status", "phase"], 1),
    ("dvs", [0], "Succeeded"),
    ("dvs", [0, "status", "phase"], ["Succeeded"]),
]


def corrupt(value: Any, path: list[Any], bad: Any) -> Any:
    if not path:
        return bad
    head, *rest = path
    copy = dict(value) if isinstance(value, dict) else list(value)
    copy[head] = corrupt(copy[head], rest, bad) if rest else bad
    return copy


@SETTINGS
@given(st.sampled_from(CORRUPTIONS), previous_statuses(), times, contexts())
def test_malformed_input_counts_as_unreadable(
    corruption: tuple[str, list[Any], Any], previous: ComputeInstanceStatusView, now: Any, ctx: ComputeContext
) -> None:
    parts: dict[str, Any] = {
        "vm": {"metadata": {"name": "ci-1"}, "spec": {"runStrategy": "Always"},
               "status": {"printableStatus": "Running", "ready": True, "conditions": []}},
        "vmi": {"metadata": {"uid": "a", "creationTimestamp": ts(timedelta(0))},
                "status": {"phase": "Running", "interfaces": [{"name": "nic-0", "ipAddress": ADDRESS}]}},
        "dvs": [{"status": {"phase": "Succeeded"}}],
    }
    target, path, bad = corruption
    parts[target] = corrupt(parts[target], path, bad)
    ctx = replace(ctx, readable=True)
    result = derive_compute_instance_status(parts["vm"], parts["vmi"], parts["dvs"], previous, now, ctx)
    unreadable = derive_compute_instance_status(None, None, [], previous, now, replace(ctx, readable=False))
    assert result == unreadable
