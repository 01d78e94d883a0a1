"""Shared pieces of the controller runtime tests: a fake clock, a recording reconciler, helpers.

Nothing here sleeps: time moves by advancing the FakeClock and calling wake(); waits are for
asyncio to run what is ready, bounded by a fraction of a second of real time.
"""

from __future__ import annotations

import asyncio
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from prometheus_client import CollectorRegistry
from sqlalchemy import text
from sqlalchemy.exc import OperationalError
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from osac.clock import FakeClock
from osac.controllers.runtime.manager import (
    Controller,
    ControllerManager,
    ControllerMetrics,
    LeaseStore,
    ObjectKey,
    Result,
)
from osac.controllers.runtime.testing import InMemoryLeaseStore
from osac.store.leases import DatabaseLeaseStore
from osac.store.schema import leases

START = datetime(2025, 1, 1, tzinfo=UTC)

#: What a test reconciler does on one call: given the key and how often it ran before, return or raise.
Script = Callable[[ObjectKey, int], Result]


def succeed(_key: ObjectKey, _runs: int) -> Result:
    return Result()


class RecordingReconciler:
    """Records every call, detects concurrent runs of one key, and follows a script.

    With ``hold()``, calls block until ``release()`` (to model work in flight).
    """

    def __init__(self, kind: str = "widget", script: Script = succeed) -> None:
        self.kind = kind
        self.script = script
        self.calls: list[str] = []
        self.finished: list[str] = []
        self.active: Counter[str] = Counter()
        self.overlaps = 0
        self.parallel = 0
        self.max_parallel = 0
        self.entered = asyncio.Event()
        self._gate: asyncio.Event | None = None
        self.yields = 0

    def hold(self) -> None:
        self._gate = asyncio.Event()
        self.entered.clear()

    def release(self) -> None:
        if self._gate is not None:
            self._gate.set()
        self._gate = None

    def runs(self, object_id: str) -> int:
        return self.calls.count(object_id)

    async def reconcile(self, key: ObjectKey) -> Result:
        assert key.kind == self.kind
        runs_before = self.calls.count(key.id)
        self.calls.append(key.id)
        self.active[key.id] += 1
        if self.active[key.id] > 1:
            self.overlaps += 1
        self.parallel += 1
        self.max_parallel = max(self.max_parallel, self.parallel)
        try:
            gate = self._gate
            if gate is not None:
                self.entered.set()
                await gate.wait()
            for _ in range(self.yields):
                await asyncio.sleep(0)
            return self.script(key, runs_before)
        finally:
            self.active[key.id] -= 1
            self.parallel -= 1
            self.finished.append(key.id)


class Objects:
    """The ids that exist per kind, as list_keys reports them to resyncs."""

    def __init__(self) -> None:
        self.by_kind: dict[str, set[str]] = {}
        self.listings = 0

    def add(self, kind: str, *ids: str) -> None:
        self.by_kind.setdefault(kind, set()).update(ids)

    async def list_keys(self, kind: str) -> list[str]:
        self.listings += 1
        return sorted(self.by_kind.get(kind, ()))


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(START)


@pytest.fixture
def registry() -> CollectorRegistry:
    return CollectorRegistry()


@pytest.fixture
def metrics(registry: CollectorRegistry) -> ControllerMetrics:
    return ControllerMetrics(registry)


@pytest.fixture
def sample(registry: CollectorRegistry) -> Callable[..., float]:
    """``sample("osac_reconcile_total", kind="widget", outcome="error")`` (0 if absent)."""

    def read(name: str, **labels: str) -> float:
        value = registry.get_sample_value(name, labels)
        return 0.0 if value is None else value

    return read


class ReconcilerFactory:
    """``make_reconciler(kind="widget", script=succeed)``; remembers them to release them at the end."""

    def __init__(self) -> None:
        self.created: list[RecordingReconciler] = []

    def __call__(self, kind: str = "widget", script: Script = succeed) -> RecordingReconciler:
        reconciler = RecordingReconciler(kind, script)
        self.created.append(reconciler)
        return reconciler

    def release_all(self) -> None:
        for reconciler in self.created:
            reconciler.release()


@pytest.fixture
def make_reconciler() -> ReconcilerFactory:
    return ReconcilerFactory()


@pytest.fixture
def objects() -> Objects:
    """The objects resyncs list; tests add ids with ``objects.add(kind, *ids)``."""
    return Objects()


@pytest.fixture
def eventually() -> Callable[[Callable[[], bool]], Awaitable[None]]:
    """Let the event loop run until a condition holds (at most half a second of real time)."""

    async def wait(condition: Callable[[], bool], timeout: float = 0.5) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not condition():
            if loop.time() > deadline:
                raise AssertionError("condition not reached within the time limit")
            await asyncio.sleep(0.001)

    return wait


@pytest.fixture
async def make_controller(
    clock: FakeClock, metrics: ControllerMetrics, objects: Objects, make_reconciler: ReconcilerFactory
) -> AsyncIterator[Callable[..., Awaitable[Controller]]]:
    """Build and start a Controller on the fake clock; every one is stopped at the end of the test."""
    started: list[Controller] = []

    async def make(reconciler: RecordingReconciler, **options: Any) -> Controller:
        options.setdefault("max_real_wait", 0.05)
        controller = Controller(
            reconciler, clock=clock, list_keys=objects.list_keys, metrics=metrics, **options
        )
        started.append(controller)
        await controller.start()
        return controller

    yield make
    make_reconciler.release_all()
    for controller in started:
        await controller.stop(timeout=1)


# -- managers -------------------------------------------------------------------------------------


@pytest.fixture
async def make_manager(
    clock: FakeClock, metrics: ControllerMetrics, objects: Objects, make_reconciler: ReconcilerFactory
) -> AsyncIterator[Callable[..., Awaitable[ControllerManager]]]:
    """Build and start a ControllerManager on the fake clock; all are stopped at the end of the test.

    ``make_manager(reconcilers, feed=log.feed(), leases=store, holder="a", **options)``.
    """
    started: list[ControllerManager] = []

    async def make(reconcilers: list[RecordingReconciler], **options: Any) -> ControllerManager:
        options.setdefault("max_real_wait", 0.05)
        options.setdefault("feed_poll_seconds", 0.05)
        manager = ControllerManager(
            reconcilers, clock=clock, list_keys=objects.list_keys, metrics=metrics, **options
        )
        started.append(manager)
        await manager.start()
        return manager

    yield make
    make_reconciler.release_all()
    for manager in started:
        await manager.stop(timeout=1)


# -- databases for leases -------------------------------------------------------------------------

POSTGRES_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


@asynccontextmanager
async def open_lease_database(dialect: str, tmp_path: Path) -> AsyncIterator[Callable[[], AsyncEngine]]:
    """A database with a ``leases`` table; the yielded function opens one more engine on it.

    Each manager gets its own engine, as separate processes would. PostgreSQL is shared with
    other people, so each test gets its own schema, dropped at the end.
    """
    engines: list[AsyncEngine] = []
    schema = f"osac_ctl_{uuid.uuid4().hex[:12]}"
    if dialect == "sqlite":
        url = f"sqlite+aiosqlite:///{tmp_path / 'leases.sqlite'}"
        options: dict[str, Any] = {}
    else:
        url = POSTGRES_URL
        options = {"schema_translate_map": {None: schema}}
        admin = create_async_engine(url)
        try:
            async with admin.begin() as conn:
                await conn.execute(text(f'CREATE SCHEMA "{schema}"'))
        except OperationalError as error:  # only where no server runs
            await admin.dispose()
            pytest.skip(f"PostgreSQL is not reachable: {error}")

    def open_engine() -> AsyncEngine:
        engine = create_async_engine(url).execution_options(**options)
        engines.append(engine)
        return engine

    try:
        async with open_engine().begin() as conn:
            await conn.run_sync(leases.create)
        yield open_engine
    finally:
        for engine in engines:
            await engine.dispose()
        if dialect == "postgresql":
            async with admin.begin() as conn:
                await conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
            await admin.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
async def lease_database(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[Callable[[], AsyncEngine]]:
    """Opens engines on one database with a ``leases`` table (SQLite file, PostgreSQL schema)."""
    async with open_lease_database(request.param, tmp_path) as open_engine:
        yield open_engine


@pytest.fixture(params=["sqlite", "postgresql", "memory"])
async def lease_store(
    request: pytest.FixtureRequest, tmp_path: Path, clock: FakeClock
) -> AsyncIterator[Callable[[], LeaseStore]]:
    """Makes lease stores sharing one backend: the database one (SQLite, PostgreSQL) or in memory."""
    if request.param == "memory":
        shared = InMemoryLeaseStore(clock)
        yield lambda: shared
        return
    async with open_lease_database(request.param, tmp_path) as open_engine:
        yield lambda: DatabaseLeaseStore(open_engine(), clock)
