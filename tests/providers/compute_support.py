"""Helpers of the VM and bare-metal simulator tests: spec and inventory builders, walking a
plan step by step on the fake clock, collecting change notices, and the JSON schemas of the
emitted dicts (``tests/providers/schemas``)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import datetime, timedelta
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

import jsonschema

from osac.clock import FakeClock
from osac.providers.compute import VirtualMachineInterface, VirtualMachineSpec
from osac.providers.interfaces import ChangeNotice
from osac.providers.simulator.runtime.context import SimulatorRuntime
from osac.providers.simulator.runtime.faults import validate_fault
from osac.providers.simulator.runtime.settings import ComputeSettings, InventoryEntry

SCHEMAS = Path(__file__).parent / "schemas"

#: The interfaces of the bootstrap ``bm-standard`` HostType, as the server passes them.
BM_STANDARD = [("eno1", "lifecycle"), ("ens1f0", "fabric"), ("ens1f1", "fabric"), ("ens2f0", "storage")]
HOST_TYPES = {"bm-standard": BM_STANDARD, "vm-standard": [("nic-0", "fabric")]}

Observation = TypeVar("Observation")
#: How long a test waits for a notice (real seconds).
NOTICE_WAIT = 5.0


def vm_spec(**changes: Any) -> VirtualMachineSpec:
    values: dict[str, Any] = {
        "cores": 2,
        "memory_gib": 4,
        "image": "quay.io/containerdisks/fedora:latest",
        "boot_disk_gib": 40,
        "additional_disks": (10, 20),
        "interfaces": (
            VirtualMachineInterface("nic-0", "subnet-a", "02:00:0a:00:01:05", "10.0.1.5"),
            VirtualMachineInterface("nic-1", "subnet-b", "02:00:0a:00:02:05", "10.0.2.5"),
        ),
        "labels": {"osac.openshift.io/tenant": "acme"},
    }
    values.update(changes)
    return VirtualMachineSpec(**values)


def inventory(*entries: tuple[str, str, int], jitter: float = 0.1) -> ComputeSettings:
    return ComputeSettings(jitter=jitter, inventory=tuple(InventoryEntry(*entry) for entry in entries))


async def add_fault(runtime: SimulatorRuntime, fault: str, target_kind: str, target_id: str = "",
                    **params: Any) -> str:
    new = validate_fault(fault, target_kind, target_id, params, now=runtime.clock.now())
    return (await runtime.faults.create(new)).id


async def walk(
    clock: FakeClock,
    observe: Callable[[], Awaitable[Observation]],
    next_change: Callable[[Observation], datetime | None],
    limit: int = 100,
) -> list[Observation]:
    """Every observation along the plan: observe, move the clock to ``next_change_at``, repeat
    until nothing is pending."""
    seen = [await observe()]
    for _ in range(limit):
        due = next_change(seen[-1])
        if due is None:
            return seen
        assert due > clock.now(), f"next change {due} is not in the future of {clock.now()}"
        clock.set(due)
        seen.append(await observe())
    raise AssertionError(f"the plan did not settle within {limit} steps")


def advance(clock: FakeClock, seconds: float) -> None:
    clock.advance(timedelta(seconds=seconds))


@cache
def schema(name: str) -> dict[str, Any]:
    return json.loads((SCHEMAS / f"{name}.json").read_text())  # type: ignore[no-any-return]


def check_shape(name: str, document: Any) -> None:
    """``document`` validates against ``schemas/<name>.json`` and is plain JSON."""
    jsonschema.validate(document, schema(name))
    assert json.loads(json.dumps(document)) == document


class Collector:
    """Reads a notice stream in the background."""

    def __init__(self, stream: AsyncIterator[ChangeNotice]) -> None:
        self.notices: list[ChangeNotice] = []
        self._task = asyncio.create_task(self._read(stream))

    async def _read(self, stream: AsyncIterator[ChangeNotice]) -> None:
        async for notice in stream:
            self.notices.append(notice)

    async def until(self, at: datetime, key: str) -> None:
        """Wait until a notice of ``key`` at ``at`` arrived."""
        async with asyncio.timeout(NOTICE_WAIT):
            while not any(n.changed_at == at and n.key == key for n in self.notices):
                await asyncio.sleep(0.01)

    async def close(self) -> None:
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task
