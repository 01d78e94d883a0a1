"""Durations of the simulated HyperShift: the table at speed 1, divided by the speed, seeded
jitter within its bounds, per-step overrides from the configuration."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

import pytest

from osac.clock import FakeClock
from osac.providers.clusters import ClusterObservation
from osac.providers.registry import ManagerConfigurationError, load_managers
from osac.providers.simulator.clusters.timing import parse_cluster_settings, parse_duration
from osac.providers.simulator.fabric.provider import SimulatedFabric
from osac.store.engine import Engines
from tests.providers.cluster_support import (
    cluster_fabric,
    cluster_spec,
    condition,
    follow,
    make_runtime,
    pool,
    pool_spec,
    status_of,
)
from tests.providers.conftest import START

Probe = Callable[[ClusterObservation], bool]


def _pool_message(observation: ClusterObservation, condition_type: str) -> str | None:
    found = condition(pool(observation, "workers"), condition_type)
    return None if found is None else f"{found['status']}/{found['reason']}/{found['message']}"


def _infrastructure_ready(ordinal: int) -> Probe:
    def probe(o: ClusterObservation) -> bool:
        message = _pool_message(o, "AllMachinesReady") or ""
        started = len(o.nodes) > ordinal
        return started and f"-{ordinal}: WaitingForInfrastructure" not in message
    return probe


def _joined(ordinal: int) -> Probe:
    def probe(o: ClusterObservation) -> bool:
        message = _pool_message(o, "AllNodesHealthy") or ""
        return len(o.nodes) > ordinal and f"-{ordinal}: WaitingForNodeRef" not in message
    return probe


PROBES: dict[str, Probe] = {
    "created": lambda o: o.hosted_cluster is not None,
    "infrastructure": lambda o: status_of(o.hosted_cluster, "InfrastructureReady") == "True",
    "api": lambda o: status_of(o.hosted_cluster, "KubeAPIServerAvailable") == "True",
    "available": lambda o: status_of(o.hosted_cluster, "Available") == "True",
    "machine0": lambda o: len(o.nodes) >= 1,
    "machine1": lambda o: len(o.nodes) >= 2,
    "infrastructure0": _infrastructure_ready(0),
    "infrastructure1": _infrastructure_ready(1),
    "joined0": _joined(0),
    "joined1": _joined(1),
    "ready": lambda o: status_of(pool(o, "workers"), "Ready") == "True",
    "version": lambda o: status_of(o.hosted_cluster, "ClusterVersionSucceeding") == "True",
}

#: (milestone, the milestone it follows, table seconds at speed 1)
CHAIN = [
    ("created", None, 5),
    ("infrastructure", "created", 180),
    ("api", "infrastructure", 360),
    ("available", "api", 60),
    ("machine0", "available", 0),
    ("machine1", "machine0", 20),
    ("infrastructure0", "machine0", 120),
    ("infrastructure1", "machine1", 120),
    ("joined0", "infrastructure0", 120),   # its port is attached as soon as the node is reported
    ("joined1", "infrastructure1", 120),
    ("version", "ready", 180),
]


async def _timeline(engines: Engines, clock: FakeClock, fabric: SimulatedFabric, speed: object,
                    **settings: object) -> dict[str, datetime]:
    provider = make_runtime(engines, clock, speed=speed, **settings).clusters
    await cluster_fabric(fabric)
    await provider.apply_hosted_cluster("c1", cluster_spec())
    await provider.apply_node_pool("c1", "workers", pool_spec(2))
    history = await follow(provider, clock, "c1", START + timedelta(hours=1), fabric)
    times = {}
    for name, probe in PROBES.items():
        times[name] = next(o.observed_at for o in history if probe(o))
    return times


def _elapsed(times: dict[str, datetime], name: str, after: str | None) -> float:
    return (times[name] - (START if after is None else times[after])).total_seconds()


@pytest.mark.parametrize("speed", [1, 60])
async def test_durations_follow_the_table_within_the_jitter(
    engines: Engines, clock: FakeClock, fabric: SimulatedFabric, speed: int
) -> None:
    times = await _timeline(engines, clock, fabric, speed)
    for name, after, table in CHAIN:
        elapsed = _elapsed(times, name, after)
        assert table * 0.9 / speed - 1e-6 <= elapsed <= table * 1.1 / speed + 1e-6, (name, elapsed)
    assert times["ready"] == max(times["joined0"], times["joined1"])
    # the jitter is real: not every step takes exactly its table time
    assert any(_elapsed(times, name, after) != table / speed for name, after, table in CHAIN if table)


async def test_without_jitter_the_timeline_is_the_table_with_overrides(
    engines: Engines, clock: FakeClock, fabric: SimulatedFabric
) -> None:
    times = await _timeline(engines, clock, fabric, 1, jitter=0, durations={"cluster.3": "4m", "vm.1": "1s"})
    assert {name: _elapsed(times, name, None) for name in PROBES} == {
        "created": 5, "infrastructure": 185, "api": 425, "available": 485, "machine0": 485, "machine1": 505,
        "infrastructure0": 605, "infrastructure1": 625, "joined0": 725, "joined1": 745, "ready": 745,
        "version": 925,
    }


async def test_the_jitter_depends_on_the_seed(engines: Engines, clock: FakeClock) -> None:
    due = []
    for seed, cluster_id in ((42, "a"), (42, "b"), (7, "c")):
        provider = make_runtime(engines, clock, speed=1, seed=seed).clusters
        await provider.apply_hosted_cluster(cluster_id, cluster_spec("same-name"))
        due.append((await provider.observe_cluster(cluster_id)).next_change_at)
    assert due[0] == due[1] != due[2]


@pytest.mark.parametrize(
    ("text", "seconds"),
    [(90, 90.0), ("90", 90.0), ("30s", 30.0), ("4m", 240.0), ("1h", 3600.0), ("1m30s", 90.0), ("0", 0.0),
     ("2.5m", 150.0)],
)
def test_durations_parse(text: object, seconds: float) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["", "-1", "4 minutes", "m", True, None, "1d"])
def test_bad_durations(text: object) -> None:
    with pytest.raises(ValueError):
        parse_duration(text)


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"durations": {"cluster.12": "1m"}}, "simulator.durations.cluster.12: unknown step"),
        ({"durations": {"cluster.3": "soon"}}, "simulator.durations.cluster.3: 'soon' is not a duration"),
        ({"durations": ["cluster.3"]}, "simulator.durations: must be a mapping"),
        ({"durations": {"cluster.teardown.2": "10m"}}, "must not decrease"),
        ({"jitter": 1.5}, "simulator.jitter"),
        ({"label_faults": "yes"}, "simulator.label_faults"),
    ],
)
def test_bad_settings_name_the_key(settings: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError) as caught:
        parse_cluster_settings(settings)
    assert message in str(caught.value)


def test_settings_of_other_simulators_are_left_to_them() -> None:
    parsed = parse_cluster_settings({"durations": {"vm.2": "1m", "cluster.9": "1m"}, "label_faults": True})
    assert parsed.seconds["cluster.9"] == 60 and parsed.label_faults and parsed.jitter == 0.1


async def test_the_registry_exposes_the_cluster_provider(engines: Engines, clock: FakeClock) -> None:
    config = {"providers": {"cluster": "simulator"}, "simulator": {"speed": "instant", "label_faults": True}}
    registry = load_managers(config, engine=engines.writer, reader=engines.reader, clock=clock)
    assert registry.simulator is not None
    assert registry.cluster_provider is registry.simulator.clusters
    assert registry.simulator.clusters.label_faults
    assert load_managers({}, engine=engines.writer, clock=clock).cluster_provider is None
    with pytest.raises(ManagerConfigurationError) as bad:
        load_managers({"providers": {"cluster": "simulator"}, "simulator": {"durations": {"cluster.3": "x"}}},
                      engine=engines.writer, clock=clock)
    assert "simulator.durations.cluster.3" in str(bad.value)
    other = load_managers({"providers": {"cluster": "hypershift"}}, engine=engines.writer, clock=clock)
    assert other.cluster_provider is None and other.simulator is None
