"""The network manager registry (networking.md §2): configuration in, managers out."""

from __future__ import annotations

from typing import Any

import pytest

from osac.clock import FakeClock
from osac.providers.interfaces import UnsupportedOperation
from osac.providers.registry import (
    ManagerConfigurationError,
    ManagerNotRegistered,
    load_managers,
    wants_simulator,
)
from osac.providers.simulator.fabric.k8s import SimulatedK8sManager
from osac.providers.simulator.fabric.provider import SimulatedFabric
from osac.server.settings import DEFAULT_CONFIG
from osac.store.engine import Engines
from tests.providers.conftest import START, attachment
from tests.providers.external_managers import MinimalFabric

SIM_FABRIC = {"name": "sim-fabric", "kind": "fabric", "implementation": "simulator", "contract_version": "v1"}


def load(engines: Engines, managers: list[Any], **extra: Any) -> Any:
    config = {"network_managers": managers, "simulator": {"speed": "instant"}, **extra}
    return load_managers(config, engine=engines.writer, reader=engines.reader, clock=FakeClock(START))


async def test_the_default_configuration(engines: Engines) -> None:
    registry = load_managers(DEFAULT_CONFIG, engine=engines.writer, clock=FakeClock(START))
    assert registry.names("fabric") == ["sim-fabric"]
    assert registry.names("k8s") == ["sim-k8s"]
    assert isinstance(registry.fabric("sim-fabric"), SimulatedFabric)
    assert isinstance(registry.k8s("sim-k8s"), SimulatedK8sManager)
    assert registry.simulator is not None and str(registry.simulator.speed) == "60"
    described = await registry.describe_all()
    assert all(d.is_ready for d in described.values())
    fabric = described["sim-fabric"].description
    assert fabric is not None and fabric.contract_version == "v1"
    assert fabric.supports("network_attachment.create", "baremetal_instance")
    assert fabric.supports("subnet.create")
    assert not fabric.supports("network_attachment.create", "hub")


async def test_unknown_managers_are_named(engines: Engines) -> None:
    registry = load(engines, [SIM_FABRIC])
    with pytest.raises(ManagerNotRegistered) as caught:
        registry.fabric("netris")
    assert str(caught.value) == "fabric manager 'netris' is not registered"
    with pytest.raises(ManagerNotRegistered, match="k8s manager 'sim-fabric' is not registered"):
        registry.k8s("sim-fabric")


async def test_an_import_path_manager_is_constructed_with_name_and_settings(engines: Engines) -> None:
    registry = load(engines, [
        SIM_FABRIC,
        {"name": "minimal", "kind": "fabric", "implementation": "tests.providers.external_managers:MinimalFabric",
         "settings": {"region": "lab"}},
    ])
    manager = registry.fabric("minimal")
    assert isinstance(manager, MinimalFabric)
    assert (manager.name, manager.settings) == ("minimal", {"region": "lab"})
    assert await manager.create_virtual_network("vn", ["10.0.0.0/16"]) == "minimal/vn"
    described = await registry.describe_all()
    assert described["minimal"].is_ready
    assert described["minimal"].description.capabilities.ipv6 is False  # type: ignore[union-attr]


async def test_describe_failures_are_reported_not_raised(engines: Engines) -> None:
    path = "tests.providers.external_managers:MinimalFabric"
    registry = load(engines, [
        {"name": "down", "kind": "fabric", "implementation": path, "settings": {"broken": True}},
        {"name": "future", "kind": "fabric", "implementation": path, "settings": {"version": "v2"}},
    ])
    described = await registry.describe_all()
    assert described["down"].error == "describe() failed: controller unreachable"
    assert described["future"].error == (
        "fabric manager 'future' describes contract version 'v2'; this service speaks 'v1'"
    )
    assert not described["down"].is_ready and not described["future"].is_ready


BAD = [
    ("unknown-implementation", {"name": "x", "kind": "fabric", "implementation": "netris"},
     "network_managers[0] (x): implementation 'netris' is neither 'simulator' nor an import path"),
    ("contract-v2", {**SIM_FABRIC, "contract_version": "v2"},
     "network_managers[0] (sim-fabric): contract_version 'v2' is not supported; this service speaks 'v1'"),
    ("unknown-kind", {**SIM_FABRIC, "kind": "storage"}, "kind 'storage' is not one of fabric, k8s"),
    ("missing-name", {"kind": "fabric", "implementation": "simulator"}, "network_managers[0]: name required"),
    ("unknown-key", {**SIM_FABRIC, "colour": "red"}, "unknown key(s) colour"),
    ("no-module", {"name": "x", "kind": "fabric", "implementation": "no_such_module:Fabric"},
     "cannot import module 'no_such_module'"),
    ("no-class", {"name": "x", "kind": "fabric", "implementation": "tests.providers.external_managers:Nope"},
     "has no attribute 'Nope'"),
    ("not-a-fabric", {"name": "x", "kind": "fabric", "implementation": "tests.providers.external_managers:HalfFabric"},
     "is not a fabric manager: it lacks create_virtual_network"),
    ("bad-settings", {**SIM_FABRIC, "settings": {"supported": {"teleport.create": ["*"]}}},
     "invalid settings: supported: unknown operation 'teleport.create'"),
    ("unknown-setting", {**SIM_FABRIC, "settings": {"colour": "red"}}, "invalid settings: unknown setting(s) colour"),
]


@pytest.mark.parametrize(("entry", "message"), [(e, m) for _, e, m in BAD], ids=[i for i, _, _ in BAD])
def test_bad_configuration_fails_at_start_up(engines: Engines, entry: dict[str, Any], message: str) -> None:
    with pytest.raises(ManagerConfigurationError) as caught:
        load(engines, [entry])
    assert message in str(caught.value)


def test_duplicate_names_and_bad_speed(engines: Engines) -> None:
    with pytest.raises(ManagerConfigurationError, match="the name 'sim-fabric' is used by an earlier entry"):
        load(engines, [SIM_FABRIC, SIM_FABRIC])
    with pytest.raises(ManagerConfigurationError, match="simulator.speed: 'fast' is not a positive number"):
        load_managers({"network_managers": [SIM_FABRIC], "simulator": {"speed": "fast"}},
                      engine=engines.writer, clock=FakeClock(START))


async def test_a_manager_without_bare_metal_refuses_it_with_the_exact_message(engines: Engines) -> None:
    registry = load(engines, [
        SIM_FABRIC,
        {"name": "vm-only", "kind": "fabric", "implementation": "simulator",
         "settings": {"supported": {"network_attachment.create": ["compute_instance", "cluster"]},
                      "capabilities": {"ipv6": False}}},
    ])
    manager = registry.fabric("vm-only")
    description = await manager.describe()
    assert description.supported["network_attachment.create"] == frozenset({"compute_instance", "cluster"})
    assert description.capabilities.ipv6 is False
    with pytest.raises(UnsupportedOperation) as caught:
        await manager.create_network_attachment(
            attachment("bm-001", "eth1", "subnet", "10.0.1.5", target_kind="baremetal_instance"))
    assert caught.value.reason == "UnsupportedOperation"
    assert caught.value.message == (
        "fabric manager 'vm-only' does not support operation 'network_attachment.create' "
        "for target 'baremetal_instance'"
    )


async def test_no_simulator_runtime_without_a_simulated_provider(engines: Engines) -> None:
    registry = load_managers(
        {"network_managers": [{"name": "m", "kind": "fabric",
                               "implementation": "tests.providers.external_managers:MinimalFabric"}],
         "providers": {"cluster": "hypershift"}},
        clock=FakeClock(START),
    )
    assert registry.simulator is None
    assert registry.names("fabric") == ["m"]


@pytest.mark.parametrize(
    ("config", "wanted"),
    [
        (DEFAULT_CONFIG, True),
        ({"network_managers": [SIM_FABRIC], "providers": {"cluster": "hypershift"}}, True),
        ({"network_managers": [], "providers": {"cluster": "hypershift", "compute": "simulator"}}, True),
        (
            {"network_managers": [{"name": "m", "kind": "fabric",
                                   "implementation": "tests.providers.external_managers:MinimalFabric"}],
             "providers": {"cluster": "hypershift"}},
            False,
        ),
    ],
)
def test_the_simulator_chain_runs_only_where_the_simulator_is_configured(config: dict[str, Any], wanted: bool) -> None:
    """``osac serve`` migrates the ``sim_*`` tables only for a configuration naming the simulator."""
    assert wants_simulator(config) is wanted
