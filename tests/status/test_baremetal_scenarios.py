"""The derivation side of compute.md §6 scenarios 8, 10, 11, 14, 15 and 16: the gate record
moves the way the reconciler moves it, the host the way the simulator does (simulator.md §3.3)."""

from __future__ import annotations

from datetime import timedelta

from osac.status.baremetal.derivation import BareMetalRestart, TenantReadiness, needs_power_cycle
from osac.status.baremetal.gates import (
    ADDRESS_MISMATCH,
    INVENTORY_ASSIGNED,
    IP_DISCOVERY_COMPLETE,
    IP_DISCOVERY_TIMEOUT,
    NETWORKING_CONFIGURATION_FAILED,
    NETWORKING_CONFIGURED,
    PROVISIONING_COMPLETE,
    ProvisioningSteps,
)
from osac.status.baremetal.views import (
    DELETE_FAILED,
    DELETING,
    FAILED,
    PROVISIONED,
    PROVISIONING,
    READY,
    RESTART_FAILED,
    RESTART_IN_PROGRESS,
    RUN_STRATEGY_ALWAYS,
    RUN_STRATEGY_HALTED,
    RUNNING,
    STARTING,
    STOPPED,
    STOPPING,
)
from osac.status.conditions.views import TRUE
from tests.support.baremetal_status import (
    ADDRESS,
    INTERFACE,
    T0,
    Instance,
    completed,
    cond,
    context,
    host,
    leased,
)

S = timedelta(seconds=1)
M = timedelta(minutes=1)


def provision(bmi: Instance) -> ProvisioningSteps:
    """Gates 1 to 4 without faults, each observed twice (the second time as a resync)."""
    steps = ProvisioningSteps()
    timeline = [
        (None, steps, {}, 0 * S),
        (None, steps := steps.start(INVENTORY_ASSIGNED, T0 + S), {}, 1 * S),
        (host("available", powered_on=False),
         steps := steps.complete(INVENTORY_ASSIGNED, T0 + S).start(NETWORKING_CONFIGURED, T0 + S), {}, 1 * S),
        (host("available", powered_on=False),
         steps := steps.complete(NETWORKING_CONFIGURED, T0 + 11 * S).start(PROVISIONING_COMPLETE, T0 + 11 * S), {},
         11 * S),
        (host("provisioning"), steps, {}, 60 * S),
        (host("provisioned"),
         steps := steps.complete(PROVISIONING_COMPLETE, T0 + 161 * S).start(IP_DISCOVERY_COMPLETE, T0 + 161 * S),
         leased(None), 161 * S),
        (host("provisioned"), steps := steps.complete(IP_DISCOVERY_COMPLETE, T0 + 176 * S), leased(), 176 * S),
    ]
    for machine, record, leases, at in timeline:
        bmi.observe(machine, record, leases, at=at)
        bmi.observe(machine, record, leases, at=at)
    return steps


def test_scenario_8_gates_in_order_and_states() -> None:
    bmi = Instance()
    steps = provision(bmi)
    assert bmi.reasons(PROVISIONED) == [
        "Initialized", "WaitingForHost", "ConfiguringNetwork", "ProvisioningHost", "DiscoveringIP", "InfrastructureReady"]
    assert bmi.events == ["HostAssigned", "NetworkingConfigured", "ProvisioningComplete", "IPAddressDiscovered", "Ready"]
    discovered = [e for r in bmi.history for e in r.events if e.reason == "IPAddressDiscovered"]
    assert [e.message for e in discovered] == [f"primary address {ADDRESS}"]
    assert bmi.status.state == RUNNING
    assert bmi.states() == [PROVISIONING, RUNNING]  # the host is already booted when gate 4 completes
    assert [(s.interface, s.ip_address, s.primary) for s in bmi.status.network_attachment_statuses] == [
        (INTERFACE, ADDRESS, True)]
    assert bmi.status.provisioning_steps == steps
    windows = [(s.started_at, s.finished_at) for s in steps]
    assert all(start is not None and end is not None and start <= end for start, end in windows)
    assert all(windows[i][1] <= windows[i + 1][0] for i in range(3))  # type: ignore[operator]
    assert bmi.status.host == "bm-std-007"


def test_scenario_8_a_halted_then_started_instance_passes_through_starting() -> None:
    bmi = Instance()
    provision(bmi)
    bmi.observe(host(powered_on=True), completed(4), {}, at=5 * M, run_strategy=RUN_STRATEGY_HALTED, spec_hash="h2")
    assert bmi.status.state == STOPPING
    bmi.observe(host(powered_on=False), completed(4), {}, at=5 * M + 10 * S, applied_spec_hash="h2")
    assert bmi.status.state == STOPPED
    bmi.observe(host(powered_on=False), completed(4), {}, at=6 * M, run_strategy=RUN_STRATEGY_ALWAYS, spec_hash="h3")
    assert bmi.status.state == STARTING
    bmi.observe(host(powered_on=True), completed(4), {}, at=7 * M, applied_spec_hash="h3")
    assert bmi.status.state == RUNNING
    assert bmi.states() == [PROVISIONING, RUNNING, STOPPING, STOPPED, STARTING, RUNNING]


def test_scenario_10_networking_failure_then_signal() -> None:
    bmi = Instance()
    bmi.observe(host("available", powered_on=False), completed(1))
    steps = completed(1).start(NETWORKING_CONFIGURED, T0)
    for attempt in range(3):
        steps = steps.attempt(NETWORKING_CONFIGURED, f"fabric timeout (attempt {attempt + 1})")
        bmi.observe(host("available", powered_on=False), steps, at=attempt * 30 * S)
    assert bmi.status.state == PROVISIONING
    failed = steps.fail(NETWORKING_CONFIGURED, T0 + 2 * M, NETWORKING_CONFIGURATION_FAILED,
                        "port bm-std-007/ens1f0 not active within 2m")
    result = bmi.observe(host("available", powered_on=False), failed, at=2 * M)
    bmi.observe(host("available", powered_on=False), failed, at=3 * M)
    assert bmi.status.state == FAILED
    provisioned = cond(bmi.status, PROVISIONED)
    assert (provisioned.reason, provisioned.message) == (
        "NetworkingConfigurationFailed", "port bm-std-007/ens1f0 not active within 2m")
    assert [(e.type, e.reason) for e in result.events] == [(2, "NetworkingConfigurationFailed")]

    rerun = failed.rerun_failed()  # Signal
    assert rerun.step(INVENTORY_ASSIGNED) == failed.step(INVENTORY_ASSIGNED)
    bmi.observe(host("available", powered_on=False), rerun.start(NETWORKING_CONFIGURED, T0 + 4 * M), at=4 * M)
    assert bmi.status.state == PROVISIONING
    done = rerun.start(NETWORKING_CONFIGURED, T0 + 4 * M).complete(NETWORKING_CONFIGURED, T0 + 4 * M + 10 * S)
    done = done.start(PROVISIONING_COMPLETE, T0 + 5 * M).complete(PROVISIONING_COMPLETE, T0 + 8 * M)
    done = done.start(IP_DISCOVERY_COMPLETE, T0 + 8 * M).complete(IP_DISCOVERY_COMPLETE, T0 + 8 * M + 15 * S)
    bmi.observe(host(), done, leased(), at=9 * M)
    assert bmi.status.state == RUNNING
    assert bmi.events.count("HostAssigned") == 1
    assert bmi.events.count("NetworkingConfigurationFailed") == 1
    assert bmi.events.count("NetworkingConfigured") == 1


def test_scenario_11_dhcp_timeout_then_signal() -> None:
    bmi = Instance()
    steps = completed(3).start(IP_DISCOVERY_COMPLETE, T0)
    bmi.observe(host(), steps, leased(None), at=1 * M)
    assert cond(bmi.status, PROVISIONED).reason == "DiscoveringIP"
    failed = steps.fail(IP_DISCOVERY_COMPLETE, T0 + 5 * M, IP_DISCOVERY_TIMEOUT, "no DHCP lease within 5m for ens1f0")
    result = bmi.observe(host(), failed, leased(None), at=5 * M)
    assert bmi.status.state == FAILED
    assert cond(bmi.status, PROVISIONED).reason == "IPDiscoveryTimeout"
    assert [(e.type, e.reason) for e in result.events] == [(2, "ProvisioningFailed")]
    assert result.events[0].message == "IPDiscoveryTimeout: no DHCP lease within 5m for ens1f0"

    rerun = failed.rerun_failed().start(IP_DISCOVERY_COMPLETE, T0 + 6 * M).complete(IP_DISCOVERY_COMPLETE, T0 + 6 * M)
    bmi.observe(host(), rerun, leased(), at=6 * M)
    assert bmi.status.state == RUNNING
    assert bmi.status.network_attachment_statuses[0].ip_address == ADDRESS


def test_address_mismatch_fails_gate_4() -> None:
    bmi = Instance()
    bmi.observe(host(), completed(3).start(IP_DISCOVERY_COMPLETE, T0), leased(None))
    failed = completed(3).fail(IP_DISCOVERY_COMPLETE, T0, ADDRESS_MISMATCH,
                               "interface ens1f0 leased 10.0.2.99, reserved 10.0.2.17")
    bmi.observe(host(), failed, leased("10.0.2.99"), at=1 * M)
    assert bmi.status.state == FAILED
    assert cond(bmi.status, PROVISIONED).reason == "AddressMismatch"
    assert bmi.status.network_attachment_statuses[0].ip_address == ""
    assert bmi.history[-1].events[0].reason == "ProvisioningFailed"
    assert bmi.events == ["HostAssigned", "NetworkingConfigured", "ProvisioningComplete", "ProvisioningFailed"]


def test_scenario_12_no_free_host_waits_without_failing() -> None:
    bmi = Instance()
    steps = ProvisioningSteps().start(INVENTORY_ASSIGNED, T0, "no free host of type 'bm-standard'")
    for hour in range(6):
        bmi.observe(None, steps.attempt(INVENTORY_ASSIGNED, "no free host of type 'bm-standard'"), at=hour * 60 * M)
    assert bmi.states() == [PROVISIONING]
    assert cond(bmi.status, PROVISIONED).reason == "WaitingForHost"
    assert bmi.events == []


def test_tenant_not_ready_waits_before_gate_1() -> None:
    bmi = Instance(ctx=context(tenant=TenantReadiness("acme", False, "PENDING")))
    bmi.observe(None, ProvisioningSteps())
    bmi.observe(None, ProvisioningSteps(), at=M)
    assert cond(bmi.status, PROVISIONED).message == "Tenant 'acme' is not ready (phase: PENDING)"
    assert bmi.status.state == PROVISIONING


def running() -> Instance:
    bmi = Instance()
    bmi.observe(host(), completed(4), leased())
    assert bmi.status.state == RUNNING
    return bmi


def test_scenario_14_restart_trigger_power_cycles_and_copies_the_value() -> None:
    bmi = running()
    assert needs_power_cycle(1, bmi.status) and not needs_power_cycle(0, bmi.status)
    first = bmi.observe(host(), completed(4), {}, at=M, restart_trigger=1, restart=BareMetalRestart(started_at=T0 + M))
    assert cond(bmi.status, RESTART_IN_PROGRESS).reason == "RestartRequested"
    assert first.requeue_after == timedelta(minutes=15)
    assert not needs_power_cycle(1, bmi.status)
    bmi.observe(host(), completed(4), {}, at=M + S, restart=BareMetalRestart())
    assert cond(bmi.status, RESTART_IN_PROGRESS).reason == "RestartRequested"
    bmi.observe(host(powered_on=False), completed(4), {}, at=M + 10 * S)
    assert cond(bmi.status, RESTART_IN_PROGRESS).reason == "RestartInProgress"
    assert bmi.status.state == STARTING and bmi.status.restart_trigger == 0
    done = bmi.observe(host(), completed(4), {}, at=M + 70 * S)
    assert bmi.status.state == RUNNING
    assert cond(bmi.status, RESTART_IN_PROGRESS).reason == "RestartCompleted"
    assert bmi.status.restart_trigger == 1
    assert done.requeue_after is None
    assert not needs_power_cycle(1, bmi.status)
    assert bmi.reasons(RESTART_IN_PROGRESS) == ["AsExpected", "RestartRequested", "RestartInProgress", "RestartCompleted"]


def test_scenario_14_power_faults_fail_the_restart() -> None:
    bmi = running()
    bmi.observe(host(), completed(4), {}, at=M, restart_trigger=1, restart=BareMetalRestart(started_at=T0 + M))
    bmi.observe(host(powered_on=False), completed(4), {}, at=M + 10 * S, restart=BareMetalRestart())
    result = bmi.observe(host(powered_on=False), completed(4), {}, at=M + 30 * S,
                         restart=BareMetalRestart(error="power on failed 3 times: BMC timeout"))
    assert bmi.status.state == FAILED
    failed = cond(bmi.status, RESTART_FAILED)
    assert (failed.status, failed.reason, failed.message) == (TRUE, "RestartFailed", "power on failed 3 times: BMC timeout")
    assert [(e.type, e.reason) for e in result.events] == [(2, "RestartFailed")]
    assert bmi.status.restart_trigger == 1  # consumed: no reboot loop
    bmi.observe(host(powered_on=False), completed(4), {}, at=2 * M, restart=BareMetalRestart())
    assert bmi.events.count("RestartFailed") == 1

    bmi.observe(host(), completed(4), {}, at=3 * M)  # fault cleared, host up again
    assert bmi.status.state == RUNNING and cond(bmi.status, RESTART_FAILED).is_true
    bmi.observe(host(), completed(4), {}, at=4 * M, restart_trigger=2, restart=BareMetalRestart(started_at=T0 + 4 * M))
    bmi.observe(host(powered_on=False), completed(4), {}, at=4 * M + 10 * S, restart=BareMetalRestart())
    bmi.observe(host(), completed(4), {}, at=5 * M)
    assert not cond(bmi.status, RESTART_FAILED).is_true and bmi.status.restart_trigger == 2


def test_a_host_not_ready_within_the_timeout_fails_the_restart() -> None:
    bmi = running()
    bmi.observe(host(), completed(4), {}, at=M, restart_trigger=1, restart=BareMetalRestart(started_at=T0 + M))
    stuck = bmi.observe(host(powered_on=False), completed(4), {}, at=6 * M, restart=BareMetalRestart())
    assert stuck.requeue_after == timedelta(minutes=10)
    bmi.observe(host(powered_on=False), completed(4), {}, at=16 * M)
    assert bmi.status.state == FAILED
    assert "not ready within 15m" in cond(bmi.status, RESTART_FAILED).message


def test_scenario_15_deletion() -> None:
    bmi = running()
    bmi.observe(host(), completed(4), {}, at=M, deletion_requested=True)
    assert bmi.status.state == DELETING
    bmi.observe(host(powered_on=False), completed(4), {}, at=2 * M)
    assert cond(bmi.status, READY).reason == "PoweredOff"
    leftover = "port bm-std-007/ens1f0 still on subnet 0192"
    result = bmi.observe(host("available", powered_on=False), completed(4), {}, at=3 * M,
                         cleanup_gave_up=True, cleanup_leftovers=(leftover,))
    assert bmi.status.state == DELETE_FAILED
    assert [(e.type, e.reason) for e in result.events] == [(2, "DeleteFailed")]
    assert leftover in result.events[0].message
    bmi.observe(host("available", powered_on=False), completed(4), {}, at=4 * M, cleanup_gave_up=False)
    assert bmi.states() == [RUNNING, DELETING, DELETE_FAILED, DELETING]


def test_scenario_16_a_restarted_service_repeats_no_event() -> None:
    """The reconciler of a restarted service reads the stored status and resumes at gate 3: the
    same record yields no event, the next completion exactly one."""
    bmi = Instance()
    at_gate_3 = completed(2).start(PROVISIONING_COMPLETE, T0 + 2 * M)
    bmi.observe(host("provisioning"), at_gate_3, at=2 * M)
    assert bmi.events == ["HostAssigned", "NetworkingConfigured"]
    resumed = bmi.observe(host("provisioning"), bmi.status.provisioning_steps, at=3 * M)
    assert resumed.events == ()
    bmi.observe(host("provisioned"), at_gate_3.complete(PROVISIONING_COMPLETE, T0 + 4 * M), at=4 * M)
    assert bmi.events == ["HostAssigned", "NetworkingConfigured", "ProvisioningComplete"]
