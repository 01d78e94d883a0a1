"""The network manager registry (networking.md §2): configuration entries to manager objects.

Each entry of the ``network_managers`` configuration is ``{name, kind: fabric | k8s,
implementation, contract_version: v1, settings}``. ``implementation`` is ``simulator`` (the
built-in ``SimulatedFabric`` / ``SimulatedK8sManager``) or a Python import path
``package.module:Class``, constructed as ``Class(name, settings)``. A new manager is an
implementation plus a configuration entry; nothing else changes.

``load_managers`` checks the whole list at start-up and raises ``ManagerConfigurationError``
naming the entry and the fix; ``describe_all`` then asks every manager for its description (the
service derives NetworkClass readiness from it). Asking for a manager that is not registered
raises ``ManagerNotRegistered`` with the message the API returns
(``fabric manager 'netris' is not registered``).
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any, cast

from sqlalchemy.ext.asyncio import AsyncEngine

from osac.clock import Clock
from osac.providers.baremetal import BareMetalProvider
from osac.providers.clusters import ClusterProvider
from osac.providers.compute import ComputeProvider
from osac.providers.interfaces import (
    CONTRACT_VERSION,
    FabricManager,
    K8sNetworkManager,
    ManagerConfig,
    ManagerDescription,
)
from osac.providers.simulator.baremetal.provider import SimulatedBareMetal
from osac.providers.simulator.compute.provider import SimulatedKubeVirt
from osac.providers.simulator.fabric.k8s import SimulatedK8sManager
from osac.providers.simulator.fabric.provider import SimulatedFabric
from osac.providers.simulator.runtime.context import InvalidSpeed, SimulatorRuntime, Speed
from osac.providers.simulator.runtime.settings import parse_compute_settings

KINDS = ("fabric", "k8s")
SIMULATOR = "simulator"


class ManagerConfigurationError(ValueError):
    """The ``network_managers`` configuration cannot be loaded (raised at start-up)."""


class ManagerNotRegistered(LookupError):
    """No manager of that kind has that name."""

    def __init__(self, kind: str, name: str) -> None:
        self.kind = kind
        self.name = name
        self.message = f"{'fabric' if kind == 'fabric' else 'k8s'} manager '{name}' is not registered"
        super().__init__(self.message)

    def __str__(self) -> str:
        return self.message


@dataclass(frozen=True)
class Described:
    """The outcome of one manager's ``describe()`` at start-up.

    ``error`` is set when the call failed or the manager speaks another contract version; the
    service then reports the classes using it FAILED with that text."""

    name: str
    kind: str
    description: ManagerDescription | None
    error: str | None = None

    @property
    def is_ready(self) -> bool:
        return self.description is not None and self.error is None


class ManagerRegistry:
    """The managers of one process, by kind and name."""

    def __init__(
        self,
        configs: Sequence[ManagerConfig],
        managers: Mapping[str, Any],
        simulator: SimulatorRuntime | None = None,
    ) -> None:
        self._configs = {config.name: config for config in configs}
        self._managers = dict(managers)
        #: The shared simulator state, when a simulated provider is configured (admin API).
        self.simulator = simulator
        #: The cluster provider (``providers.cluster``); None when none is configured.
        self.cluster_provider: ClusterProvider | None = None
        #: The compute and bare-metal providers (``providers.compute`` / ``.baremetal``); None
        #: when not configured.
        self.compute_provider: ComputeProvider | None = None
        self.baremetal_provider: BareMetalProvider | None = None

    def fabric(self, name: str) -> FabricManager:
        """:raises ManagerNotRegistered: no fabric manager is called ``name``."""
        return cast(FabricManager, self._get("fabric", name))

    def k8s(self, name: str) -> K8sNetworkManager:
        """:raises ManagerNotRegistered: no k8s manager is called ``name``."""
        return cast(K8sNetworkManager, self._get("k8s", name))

    def has(self, kind: str, name: str) -> bool:
        config = self._configs.get(name)
        return config is not None and config.kind == kind

    def names(self, kind: str) -> list[str]:
        """Names of the managers of ``kind`` (``fabric`` or ``k8s``), in configuration order."""
        return [name for name, config in self._configs.items() if config.kind == kind]

    def config(self, name: str) -> ManagerConfig:
        return self._configs[name]

    async def describe_all(self) -> dict[str, Described]:
        """Every manager's description by name; failures are reported, not raised."""
        results: dict[str, Described] = {}
        for name, config in self._configs.items():
            try:
                description = await self._managers[name].describe()
            except Exception as error:  # a manager's failure must not stop the others
                results[name] = Described(name, config.kind, None, f"describe() failed: {error}")
                continue
            error_text = None
            if description.contract_version != CONTRACT_VERSION:
                error_text = (
                    f"{config.kind} manager '{name}' describes contract version "
                    f"'{description.contract_version}'; this service speaks '{CONTRACT_VERSION}'"
                )
            results[name] = Described(name, config.kind, description, error_text)
        return results

    def _get(self, kind: str, name: str) -> Any:
        if not self.has(kind, name):
            raise ManagerNotRegistered(kind, name)
        return self._managers[name]


def wants_simulator(config: Mapping[str, Any]) -> bool:
    """Whether a network manager or one of ``providers`` is the simulator (it then needs its
    tables: ``osac.providers.simulator.runtime.schema_upgrade``).

    :raises ManagerConfigurationError: a malformed ``network_managers`` entry.
    """
    entries = parse_manager_configs(config.get("network_managers") or [])
    providers = config.get("providers") or {}
    return any(e.implementation == SIMULATOR for e in entries) or SIMULATOR in (
        providers.values() if isinstance(providers, Mapping) else ()
    )


def load_managers(
    config: Mapping[str, Any],
    *,
    clock: Clock,
    engine: AsyncEngine | None = None,
    reader: AsyncEngine | None = None,
    runtime: SimulatorRuntime | None = None,
) -> ManagerRegistry:
    """Build the registry from the process configuration (``network_managers``, ``simulator``,
    ``providers``).

    The simulated managers need ``engine`` (the writer engine; ``reader`` optional), unless a
    ready ``runtime`` is given. A simulator runtime is created whenever a network manager or one
    of ``providers`` is ``simulator``; it is ``registry.simulator`` (admin API).

    :raises ManagerConfigurationError: a malformed entry, a duplicate name, an unknown kind or
        implementation, an import path that does not load or lacks contract methods, a contract
        version other than ``v1``, bad settings, or an invalid ``simulator.speed``.
    """
    entries = parse_manager_configs(config.get("network_managers") or [])
    providers = config.get("providers") or {}
    if runtime is None and wants_simulator(config):
        if engine is None:
            raise ManagerConfigurationError("the simulated providers need the database engine; pass engine=")
        runtime = _runtime(config.get("simulator") or {}, engine, reader, clock)
    managers: dict[str, Any] = {}
    for index, entry in enumerate(entries):
        where = f"network_managers[{index}] ({entry.name})"
        try:
            managers[entry.name] = _instantiate(entry, runtime)
        except ManagerConfigurationError as error:
            raise ManagerConfigurationError(f"{where}: {error}") from None
        except ValueError as error:
            raise ManagerConfigurationError(f"{where}: invalid settings: {error}") from error
    registry = ManagerRegistry(entries, managers, runtime)
    registry.cluster_provider = _cluster_provider(providers, runtime)
    registry.compute_provider, registry.baremetal_provider = _workload_providers(providers, runtime)
    return registry


def _cluster_provider(providers: Any, runtime: SimulatorRuntime | None) -> ClusterProvider | None:
    """The simulated HyperShift when ``providers.cluster`` is ``simulator``; other providers are
    wired by their own code (none is built in yet)."""
    name = providers.get("cluster") if isinstance(providers, Mapping) else None
    if name != SIMULATOR or runtime is None:
        return None
    return runtime.clusters


def _workload_providers(
    providers: Any, runtime: SimulatorRuntime | None
) -> tuple[ComputeProvider | None, BareMetalProvider | None]:
    """``providers.compute`` and ``providers.baremetal``: ``simulator`` (the only implementation
    so far) or absent. The simulated ones read ``simulator.jitter`` and ``simulator.inventory``."""
    chosen = {key: providers.get(key) if isinstance(providers, Mapping) else None for key in ("compute", "baremetal")}
    for key, name in chosen.items():
        if name is not None and (name != SIMULATOR or runtime is None):
            raise ManagerConfigurationError(f"providers.{key}: '{name}' is not supported; use '{SIMULATOR}'")
    if runtime is None:
        return None, None
    try:
        settings = parse_compute_settings(runtime.settings)
    except ValueError as error:
        raise ManagerConfigurationError(str(error)) from None
    compute = SimulatedKubeVirt(runtime, settings) if chosen["compute"] else None
    baremetal = SimulatedBareMetal(runtime, settings) if chosen["baremetal"] else None
    return compute, baremetal


def parse_manager_configs(entries: Any) -> list[ManagerConfig]:
    """The ``network_managers`` list as ``ManagerConfig`` values, checked."""
    if not isinstance(entries, Sequence) or isinstance(entries, str):
        raise ManagerConfigurationError("network_managers: must be a list of manager entries")
    allowed = [f.name for f in fields(ManagerConfig)]
    configs: list[ManagerConfig] = []
    seen: set[str] = set()
    for index, entry in enumerate(entries):
        where = f"network_managers[{index}]"
        if isinstance(entry, ManagerConfig):
            config = entry
        else:
            if not isinstance(entry, Mapping):
                raise ManagerConfigurationError(f"{where}: must be a mapping with {', '.join(allowed)}")
            unknown = sorted(set(entry) - set(allowed))
            if unknown:
                raise ManagerConfigurationError(
                    f"{where}: unknown key(s) {', '.join(unknown)}; expected {', '.join(allowed)}")
            missing = [key for key in ("name", "kind", "implementation") if not entry.get(key)]
            if missing:
                raise ManagerConfigurationError(f"{where}: {', '.join(missing)} required")
            settings = entry.get("settings") or {}
            if not isinstance(settings, Mapping):
                raise ManagerConfigurationError(f"{where}.settings: must be a mapping")
            config = ManagerConfig(
                name=str(entry["name"]),
                kind=str(entry["kind"]),
                implementation=str(entry["implementation"]),
                contract_version=str(entry.get("contract_version") or CONTRACT_VERSION),
                settings=dict(settings),
            )
        where = f"{where} ({config.name})"
        if config.kind not in KINDS:
            raise ManagerConfigurationError(f"{where}: kind '{config.kind}' is not one of {', '.join(KINDS)}")
        if config.contract_version != CONTRACT_VERSION:
            raise ManagerConfigurationError(
                f"{where}: contract_version '{config.contract_version}' is not supported; "
                f"this service speaks '{CONTRACT_VERSION}'")
        if config.name in seen:
            raise ManagerConfigurationError(f"{where}: the name '{config.name}' is used by an earlier entry")
        seen.add(config.name)
        configs.append(config)
    return configs


def _runtime(settings: Mapping[str, Any], engine: AsyncEngine, reader: AsyncEngine | None, clock: Clock) -> SimulatorRuntime:
    try:
        speed = Speed.of(settings.get("speed", 60))
    except InvalidSpeed as error:
        raise ManagerConfigurationError(f"simulator.speed: {error}") from None
    seed = settings.get("seed", 42)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ManagerConfigurationError(f"simulator.seed: '{seed}' is not an integer")
    try:
        return SimulatorRuntime(engine=engine, clock=clock, speed=speed, reader=reader, seed=seed,
                                settings=dict(settings))
    except ValueError as error:
        raise ManagerConfigurationError(str(error)) from None


def _instantiate(entry: ManagerConfig, runtime: SimulatorRuntime | None) -> Any:
    if entry.implementation == SIMULATOR:
        assert runtime is not None
        if entry.kind == "fabric":
            return SimulatedFabric(entry.name, entry.settings, runtime)
        return SimulatedK8sManager(entry.name, entry.settings, runtime)
    cls = _import(entry.implementation)
    try:
        manager = cls(entry.name, entry.settings)
    except ValueError:
        raise
    except Exception as error:
        raise ManagerConfigurationError(f"constructing {entry.implementation} failed: {error}") from error
    protocol = FabricManager if entry.kind == "fabric" else K8sNetworkManager
    missing = [name for name in contract_methods(protocol) if not callable(getattr(manager, name, None))]
    if missing:
        raise ManagerConfigurationError(
            f"{entry.implementation} is not a {entry.kind} manager: it lacks {', '.join(missing)}")
    return manager


def _import(path: str) -> Any:
    module_name, sep, attribute = path.partition(":")
    if not sep or not module_name or not attribute:
        raise ManagerConfigurationError(
            f"implementation '{path}' is neither '{SIMULATOR}' nor an import path 'package.module:Class'")
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise ManagerConfigurationError(f"cannot import module '{module_name}' of '{path}': {error}") from None
    target = module
    for part in attribute.split("."):
        if not hasattr(target, part):
            raise ManagerConfigurationError(f"module '{module_name}' has no attribute '{attribute}' ('{path}')")
        target = getattr(target, part)
    if not callable(target):
        raise ManagerConfigurationError(f"'{path}' is not a class or factory")
    return target


def contract_methods(protocol: type) -> list[str]:
    """The methods a manager of ``protocol`` must have (``describe`` and the operations)."""
    return [
        name for name, member in vars(protocol).items()
        if not name.startswith("_") and inspect.isfunction(member)
    ]
