"""``SimulatedK8sManager``: the built-in ``K8sNetworkManager`` (simulator.md §2.5).

It bridges a subnet into the simulated platform hosting VMs and hosted control planes: the overlay
is a row of ``sim_k8s_overlays``. Calls behave like the fabric's (``fabric.py``): declared
operations only, 2 s divided by the speed, ``fabric_latency`` / ``fabric_fail`` faults naming
``create_subnet_overlay`` / ``delete_subnet_overlay``, idempotent (a changed segment is terminal).
Settings: ``supported`` and ``capabilities`` as for the fabric.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from osac.providers.interfaces import CONTRACT_VERSION, ManagerDescription, UnsupportedOperation
from osac.providers.simulator.fabric.provider import (
    ANY_TARGET,
    DEFAULT_CAPABILITIES,
    OPERATION_SECONDS,
    SETTINGS,
    capabilities_setting,
    supported_setting,
)
from osac.providers.simulator.runtime.context import SimulatorRuntime

OPERATION_OF_METHOD: Mapping[str, str] = {
    "create_subnet_overlay": "subnet_overlay.create",
    "delete_subnet_overlay": "subnet_overlay.delete",
}
DEFAULT_SUPPORTED: Mapping[str, frozenset[str]] = {
    operation: frozenset({ANY_TARGET}) for operation in OPERATION_OF_METHOD.values()
}


class SimulatedK8sManager:
    def __init__(self, name: str, settings: Mapping[str, Any], runtime: SimulatorRuntime) -> None:
        unknown = sorted(set(settings) - set(SETTINGS))
        if unknown:
            raise ValueError(f"unknown setting(s) {', '.join(unknown)}; expected {', '.join(SETTINGS)}")
        self.name = name
        self.runtime = runtime
        self._store = runtime.overlay_store
        self._description = ManagerDescription(
            name=name,
            contract_version=CONTRACT_VERSION,
            capabilities=capabilities_setting(settings.get("capabilities"), DEFAULT_CAPABILITIES),
            supported=supported_setting(settings.get("supported"), DEFAULT_SUPPORTED),
        )

    async def describe(self) -> ManagerDescription:
        return self._description

    async def create_subnet_overlay(self, subnet_id: str, segment: str) -> None:
        await self._begin("create_subnet_overlay", subnet_id)
        await self._store.create(self.name, subnet_id, segment)

    async def delete_subnet_overlay(self, subnet_id: str) -> None:
        await self._begin("delete_subnet_overlay", subnet_id)
        await self._store.delete(subnet_id)

    async def overlay(self, subnet_id: str) -> dict[str, Any] | None:
        """The stored overlay of a subnet (for tests and observations)."""
        return await self._store.get(subnet_id)

    async def _begin(self, method: str, subnet_id: str) -> None:
        operation = OPERATION_OF_METHOD[method]
        if not self._description.supports(operation):
            raise UnsupportedOperation(self.name, operation, ANY_TARGET)
        await self.runtime.fabric_call(self.name, method, (subnet_id,), OPERATION_SECONDS)
