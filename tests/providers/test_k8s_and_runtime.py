"""The simulated k8s network manager, the speed factor, and persistence of faults."""

from __future__ import annotations

import math

import pytest

from osac.providers.interfaces import TerminalProviderError, TransientProviderError, UnsupportedOperation
from osac.providers.simulator.fabric.k8s import SimulatedK8sManager
from osac.providers.simulator.runtime.context import InvalidSpeed, SimulatorRuntime, Speed, parse_speed
from osac.providers.simulator.runtime.faults import validate_fault
from tests.providers.conftest import START


async def test_overlays_are_idempotent(runtime: SimulatorRuntime) -> None:
    k8s = SimulatedK8sManager("sim-k8s", {}, runtime)
    description = await k8s.describe()
    assert (description.name, description.contract_version) == ("sim-k8s", "v1")
    assert description.supports("subnet_overlay.create")
    await k8s.create_subnet_overlay("s-1", "s-1")
    await k8s.create_subnet_overlay("s-1", "s-1")
    assert (await k8s.overlay("s-1")) == {
        "subnet_id": "s-1", "segment": "s-1", "manager": "sim-k8s", "created_at": "2026-12-01T09:00:00.000000Z"}
    with pytest.raises(TerminalProviderError) as caught:
        await k8s.create_subnet_overlay("s-1", "other")
    assert caught.value.reason == "ImmutableFieldChanged"
    await k8s.delete_subnet_overlay("s-1")
    await k8s.delete_subnet_overlay("s-1")
    await k8s.delete_subnet_overlay("never")
    assert await k8s.overlay("s-1") is None


async def test_an_undeclared_overlay_operation_is_unsupported(runtime: SimulatorRuntime) -> None:
    k8s = SimulatedK8sManager("no-delete", {"supported": {"subnet_overlay.delete": []}}, runtime)
    with pytest.raises(UnsupportedOperation):
        await k8s.delete_subnet_overlay("s-1")


async def test_faults_persist_across_runtimes(runtime: SimulatorRuntime) -> None:
    await runtime.faults.create(
        validate_fault("fabric_fail", params={"operation": "create_subnet_overlay", "times": 2}, now=START))
    k8s = SimulatedK8sManager("sim-k8s", {}, runtime)
    with pytest.raises(TransientProviderError):
        await k8s.create_subnet_overlay("s-1", "s-1")
    restarted = SimulatorRuntime(runtime.engine, runtime.clock, Speed.of("instant"), reader=runtime.reader)
    (record,) = await restarted.faults.all()
    assert record.remaining == 1
    again = SimulatedK8sManager("sim-k8s", {}, restarted)
    with pytest.raises(TransientProviderError):
        await again.create_subnet_overlay("s-1", "s-1")
    await again.create_subnet_overlay("s-1", "s-1")


@pytest.mark.parametrize(
    ("value", "factor"),
    [(60, 60.0), ("60", 60.0), (0.5, 0.5), ("instant", math.inf), ("INSTANT", math.inf), (1, 1.0)],
)
def test_speed_values(value: object, factor: float) -> None:
    assert parse_speed(value) == factor


@pytest.mark.parametrize("value", [0, -1, "fast", "", None, True, float("nan")])
def test_invalid_speeds(value: object) -> None:
    with pytest.raises(InvalidSpeed):
        parse_speed(value)


def test_durations_scale_with_the_speed() -> None:
    speed = Speed.of(60)
    assert speed.scale(2.0) == pytest.approx(2 / 60)
    assert str(speed) == "60"
    speed.set("instant")
    assert speed.scale(10.0) == 0.0 and str(speed) == "instant"
