"""Fault injection on the simulated fabric (simulator.md §5): fabric_fail, fabric_latency, dhcp_fail."""

from __future__ import annotations

import asyncio
import time
from datetime import timedelta
from typing import Any

import pytest

from osac.clock import FakeClock, SystemClock
from osac.providers.interfaces import TerminalProviderError, TransientProviderError
from osac.providers.simulator.fabric.k8s import SimulatedK8sManager
from osac.providers.simulator.fabric.provider import SimulatedFabric
from osac.providers.simulator.runtime.context import SimulatorRuntime, Speed
from osac.providers.simulator.runtime.faults import InvalidFault, validate_fault
from osac.store.engine import Engines
from tests.providers.conftest import START, attachment, network, subnet, tcp

VN = "vn-1"


async def fault(runtime: SimulatorRuntime, name: str, target_kind: str = "", target_id: str = "",
                expires_at: Any = None, **params: Any) -> str:
    record = await runtime.faults.create(
        validate_fault(name, target_kind, target_id, params, expires_at, now=runtime.clock.now())
    )
    return record.id


async def test_fabric_fail_times_3_fails_exactly_three_calls(fabric: SimulatedFabric, runtime: SimulatorRuntime) -> None:
    await network(fabric, VN)
    await fault(runtime, "fabric_fail", operation="create_subnet", times=3)
    for attempt in range(3):
        with pytest.raises(TransientProviderError) as caught:
            await fabric.create_subnet(subnet("s-1", VN))
        assert caught.value.reason == "SimulatedFailure", attempt
        assert "create_subnet" in caught.value.message
    await fabric.create_subnet(subnet("s-1", VN))
    await fabric.create_subnet(subnet("s-2", VN, "10.0.2.0/24"))
    assert await runtime.faults.all() == []  # the spent fault is gone


async def test_fabric_fail_with_a_rate_fails_that_share_of_calls(fabric: SimulatedFabric, runtime: SimulatorRuntime) -> None:
    await network(fabric, VN)
    await fault(runtime, "fabric_fail", operation="create_subnet", rate=0.25)
    outcomes = []
    for i in range(400):
        try:
            await fabric.create_subnet(subnet(f"s-{i}", VN, f"10.0.{i // 2}.{(i % 2) * 128}/25"))
            outcomes.append(True)
        except TransientProviderError as error:
            assert "create_subnet" in error.message
            outcomes.append(False)
    assert 60 <= outcomes.count(False) <= 140  # 25 % of 400 = 100
    assert True in outcomes[:8] and False in outcomes  # mixed, not a run of failures
    [kept] = await runtime.faults.all()  # a rate fault without times stays until cleared
    assert kept.params["rate"] == 0.25


@pytest.mark.parametrize("rate", [0, 1.5, -0.1, "2%", True])
def test_a_fabric_fail_rate_must_be_a_fraction(rate: Any) -> None:
    with pytest.raises(InvalidFault, match="params.rate: must be a number above 0 and at most 1"):
        validate_fault("fabric_fail", "fabric", "", {"operation": "create_subnet", "rate": rate}, None,
                       now=FakeClock(START).now())


async def test_remaining_counts_down(fabric: SimulatedFabric, runtime: SimulatorRuntime) -> None:
    fault_id = await fault(runtime, "fabric_fail", operation="create_virtual_network", times=2)
    assert (await runtime.faults.get(fault_id)).remaining == 2  # type: ignore[union-attr]
    with pytest.raises(TransientProviderError):
        await fabric.create_virtual_network(VN, ["10.0.0.0/16"])
    assert (await runtime.faults.get(fault_id)).remaining == 1  # type: ignore[union-attr]


async def test_concurrent_calls_never_share_one_application(fabric: SimulatedFabric, runtime: SimulatorRuntime) -> None:
    await fault(runtime, "fabric_fail", operation="create_virtual_network", times=3)
    results = await asyncio.gather(
        *(fabric.create_virtual_network(f"vn-{i}", ["10.0.0.0/16"]) for i in range(8)), return_exceptions=True
    )
    assert sum(isinstance(r, TransientProviderError) for r in results) == 3


async def test_terminal_fault_without_times_fails_until_cleared(fabric: SimulatedFabric, runtime: SimulatorRuntime) -> None:
    await network(fabric, VN)
    fault_id = await fault(runtime, "fabric_fail", operation="create_subnet", terminal=True, reason="SwitchDown")
    for _ in range(5):
        with pytest.raises(TerminalProviderError) as caught:
            await fabric.create_subnet(subnet("s-1", VN))
        assert caught.value.reason == "SwitchDown"
    assert await runtime.faults.delete(fault_id)
    await fabric.create_subnet(subnet("s-1", VN))


async def test_a_fault_on_one_object_spares_the_others(fabric: SimulatedFabric, runtime: SimulatorRuntime) -> None:
    await network(fabric, VN)
    await fault(runtime, "fabric_fail", target_id="s-bad", operation="create_subnet", terminal=True)
    await fabric.create_subnet(subnet("s-good", VN))
    with pytest.raises(TerminalProviderError):
        await fabric.create_subnet(subnet("s-bad", VN, "10.0.2.0/24"))


async def test_a_fault_on_another_operation_or_manager_does_not_apply(
    fabric: SimulatedFabric, runtime: SimulatorRuntime
) -> None:
    await fault(runtime, "fabric_fail", operation="delete_subnet", terminal=True)
    await fault(runtime, "fabric_fail", operation="*", manager="other-fabric", terminal=True)
    await network(fabric, VN)
    await fabric.create_subnet(subnet("s-1", VN))
    with pytest.raises(TerminalProviderError):
        await fabric.delete_subnet("s-1")


async def test_an_expired_fault_has_no_effect(fabric: SimulatedFabric, runtime: SimulatorRuntime, clock: FakeClock) -> None:
    await fault(runtime, "fabric_fail", operation="create_virtual_network", expires_at=START + timedelta(minutes=1))
    with pytest.raises(TransientProviderError):
        await fabric.create_virtual_network(VN, ["10.0.0.0/16"])
    clock.advance(timedelta(minutes=1))
    await fabric.create_virtual_network(VN, ["10.0.0.0/16"])


async def test_unsupported_operations_consume_no_fault(runtime: SimulatorRuntime) -> None:
    fabric = SimulatedFabric("no-bm", {"supported": {"network_attachment.create": ["compute_instance"]}}, runtime)
    await fault(runtime, "fabric_fail", operation="create_network_attachment", times=1)
    with pytest.raises(TerminalProviderError, match="does not support"):
        await fabric.create_network_attachment(attachment("bm-1", "eth1", "s", "10.0.1.5", target_kind="baremetal_instance"))
    assert (await runtime.faults.all())[0].remaining == 1


async def test_latency_holds_a_call_until_the_fake_clock_passes_it(
    fabric: SimulatedFabric, runtime: SimulatorRuntime, clock: FakeClock
) -> None:
    await fault(runtime, "fabric_latency", operation="create_virtual_network", seconds=5)
    call = asyncio.ensure_future(fabric.create_virtual_network(VN, ["10.0.0.0/16"]))
    await asyncio.sleep(0.1)
    assert not call.done()
    clock.advance(timedelta(seconds=4))
    await asyncio.sleep(0.1)
    assert not call.done()
    clock.advance(timedelta(seconds=1))
    assert await asyncio.wait_for(call, 5) == "sim-fabric/vn/vn-1"


async def test_latency_and_durations_take_real_time_on_the_system_clock(engines: Engines) -> None:
    runtime = SimulatorRuntime(engines.writer, SystemClock(), Speed.of(20), reader=engines.reader)
    fabric = SimulatedFabric("sim-fabric", {}, runtime)
    started = time.monotonic()
    await fabric.create_virtual_network(VN, ["10.0.0.0/16"])  # 2 s at speed 20 = 0.1 s
    assert time.monotonic() - started >= 0.09
    await fault(runtime, "fabric_latency", operation="delete_virtual_network", seconds=0.3)
    runtime.speed.set("instant")
    started = time.monotonic()
    await fabric.delete_virtual_network(VN)  # latency is not scaled by the speed
    assert time.monotonic() - started >= 0.29


async def test_dhcp_fail_on_a_subnet_and_on_a_port(fabric: SimulatedFabric, runtime: SimulatorRuntime) -> None:
    await network(fabric, VN)
    await fabric.create_subnet(subnet("s-1", VN))
    await fabric.apply_security_group("sg", VN, [tcp(22)], [])
    await fabric.create_network_attachment(attachment("bm-1", "eth1", "s-1", "10.0.1.5", ("sg",), mac="aa:00:00:00:00:01"))
    await fabric.create_network_attachment(attachment("bm-2", "eth1", "s-1", "10.0.1.6", ("sg",), mac="aa:00:00:00:00:02"))

    on_subnet = await fault(runtime, "dhcp_fail", "subnet", "s-1")
    assert await fabric.query_dhcp_lease("s-1", "aa:00:00:00:00:01") is None
    assert await fabric.query_dhcp_lease("s-1", "aa:00:00:00:00:02") is None
    await runtime.faults.delete(on_subnet)

    await fault(runtime, "dhcp_fail", "host_interface", "bm-1/eth1")
    assert await fabric.query_dhcp_lease("s-1", "aa:00:00:00:00:01") is None
    assert await fabric.query_dhcp_lease("s-1", "aa:00:00:00:00:02") is not None


async def test_k8s_overlay_operations_take_fabric_faults(runtime: SimulatorRuntime) -> None:
    k8s = SimulatedK8sManager("sim-k8s", {}, runtime)
    await fault(runtime, "fabric_fail", operation="create_subnet_overlay", times=1)
    with pytest.raises(TransientProviderError):
        await k8s.create_subnet_overlay("s-1", "s-1")
    await k8s.create_subnet_overlay("s-1", "s-1")
    assert (await k8s.overlay("s-1"))["segment"] == "s-1"  # type: ignore[index]


# -- the catalogue --------------------------------------------------------------------------------

INVALID = [
    ("fault", "nope", "", {}, "fault: 'nope' is not a simulator fault"),
    ("fault", "", "", {}, "fault: required"),
    ("target_kind", "stall", "host", {"stage": "X"}, "fault 'stall' targets cluster, not 'host'"),
    ("target_kind", "unreadable", "", {}, "target_kind: required for fault 'unreadable'"),
    ("params", "fabric_fail", "", {}, "params.operation: required for fault 'fabric_fail'"),
    ("params", "fabric_fail", "", {"operation": "create_thing"}, "'create_thing' is not one of *, create_virtual_network"),
    ("params", "fabric_fail", "", {"operation": "create_subnet", "times": 0}, "params.times: must be at least 1"),
    ("params", "fabric_fail", "", {"operation": "create_subnet", "times": 1.5}, "params.times: must be a whole number"),
    ("params", "fabric_fail", "", {"operation": "create_subnet", "terminal": "yes"}, "params.terminal: must be true or false"),
    ("params", "fabric_latency", "", {"operation": "create_subnet", "seconds": -1}, "positive number of seconds"),
    ("params", "stall", "", {"stage": "WorkersJoining", "colour": "red"}, "params.colour: unknown parameter of fault 'stall'"),
    ("params", "stall", "", {"stage": "Bogus"}, "params.stage: 'Bogus' is not one of PreparingInfrastructure, "
     "ControlPlaneStarting, WorkersJoining, Scaling, DestroyingCloudResources, DestroyingControlPlane"),
    ("params", "signal_override", "", {"condition": "Available", "status": "maybe"}, "'maybe' is not one of True"),
]


@pytest.mark.parametrize(("field", "name", "target_kind", "params", "message"), INVALID,
                         ids=[f"{row[1] or 'empty'}-{i}" for i, row in enumerate(INVALID)])
def test_invalid_faults_name_the_field(field: str, name: str, target_kind: str, params: dict[str, Any],
                                       message: str) -> None:
    with pytest.raises(InvalidFault) as caught:
        validate_fault(name, target_kind, "", params, now=START)
    assert caught.value.field.startswith(field)
    assert message in str(caught.value)


def test_defaults_are_filled() -> None:
    new = validate_fault("fabric_fail", params={"operation": "create_subnet", "times": 3.0}, now=START)
    assert (new.target_kind, new.target_id, new.remaining, new.params["times"]) == ("fabric", "*", 3, 3)
    with pytest.raises(InvalidFault, match="expires_at: must be in the future"):
        validate_fault("dhcp_fail", "subnet", "s", expires_at=START, now=START)
