"""Prometheus metrics of the networking reconcilers (networking.md §13).

Counters and histograms are observed once the write recording what they measure has committed,
so a write that lost its version lock and was retried is counted once. Gauges describe what is
stored now and are recomputed from the database by the process holding the kind's controller
lease: the pool and subnet address gauges on every pass of the pool or subnet (each change of
their counters is an UPDATED event, which queues a pass, and a process taking the lease passes
over every object), the object population on a timer (``refresh_networking_objects``).

Labels never carry free text: ``type`` is a kind name (``subnet``), ``state`` a state's short
name (``FAILED``), ``manager`` a configured manager name, ``operation`` a manager method.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import time
from collections.abc import Awaitable, Callable, Iterable
from datetime import timedelta
from typing import Any, TypeVar

from prometheus_client import Counter, Gauge, Histogram

from osac.model import registry
from osac.model.kinds import Group
from osac.providers.interfaces import ProviderError, TerminalProviderError
from osac.store.objects import Store
from osac.tasks import raise_if_cancelled

log = logging.getLogger(__name__)

PROVIDER_OPERATION_SECONDS = Histogram(
    "osac_network_provider_operation_seconds",
    "Duration of fabric / k8s manager calls, by manager, operation and result (ok, transient, terminal, error).",
    ["manager", "operation", "result"],
    buckets=(0.005, 0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60),
)
READY_SECONDS = Histogram(
    "osac_networking_ready_seconds",
    "Time from an object's creation to its READY (ALLOCATED for ExternalIPs).",
    ["kind"],
    buckets=(0.1, 0.5, 1, 2, 5, 10, 30, 60, 120, 300),
)
CLEANUP_FAILURES = Counter(
    "osac_network_cleanup_failures_total",
    "Objects whose teardown failed past the retry limit or terminally (DELETE_FAILED).",
    ["type"],
)
POOL_ADDRESSES = Gauge(
    "osac_external_ip_pool_addresses",
    "External addresses per pool and state (total / allocated / available).",
    ["pool", "state"],
)
POOL_UTILIZATION = Gauge(
    "osac_external_ip_pool_utilization_ratio",
    "allocated / total per external pool (0 for a pool without addresses).",
    ["pool"],
)
SUBNET_ADDRESSES_AVAILABLE = Gauge(
    "osac_subnet_addresses_available",
    "Free addresses of a subnet's workload range (its status.available_addresses).",
    ["tenant", "subnet"],
)
#: The target is 30 s (p95) from the target address being known; the commit comes before the
#: VM boots or the cluster publishes its endpoints, so the buckets reach further.
AUTO_EXTERNAL_IP_SECONDS = Histogram(
    "osac_auto_external_ip_provisioning_seconds",
    "From the commit of an auto-provisioned ExternalIPAttachment to its first READY.",
    ["target"],
    buckets=(1, 2, 5, 10, 20, 30, 60, 90, 120, 180, 300, 600, 900, 1800, 3600),
)
DEFAULT_NETWORKING_SECONDS = Histogram(
    "osac_default_networking_provisioning_seconds",
    "From a Tenant's creation to DEFAULT_NETWORKING_READY TRUE with reason Ready.",
    buckets=(0.5, 1, 2, 5, 10, 15, 20, 30, 45, 60, 120, 300, 600),
)
DEFAULT_NETWORKING_FAILURES = Counter(
    "osac_default_networking_failures_total",
    "Tenants whose DEFAULT_NETWORKING_READY condition turned FALSE with a failure reason.",
    ["reason"],
)
NETWORKING_OBJECTS = Gauge(
    "osac_networking_objects",
    "Live networking objects per kind and state.",
    ["type", "state"],
)

#: The kinds ``osac_networking_objects`` counts (networking.md §3.2): the networking group's.
NETWORKING_KINDS = tuple(kind.name for kind in registry.KINDS if kind.group is Group.NETWORKING)


def remove_series(gauge: Gauge, *labels: str) -> None:
    """Drop one series of ``gauge``; a series never set is no error (older prometheus_client
    raises KeyError for it)."""
    with contextlib.suppress(KeyError):
        gauge.remove(*labels)


class SeriesByObject:
    """The label values of the gauge series each object is reported under, so that the series
    of a renamed or archived object are removed rather than left at their last value."""

    def __init__(self, remove: Callable[[tuple[str, ...]], None]) -> None:
        self._remove = remove
        self._labels: dict[str, tuple[str, ...]] = {}

    def report(self, object_id: str, labels: tuple[str, ...] | None) -> None:
        """``object_id`` is now reported under ``labels`` (None: no longer reported)."""
        previous = self._labels.pop(object_id, None)
        if previous is not None and previous != labels:
            self._remove(previous)
        if labels is not None:
            self._labels[object_id] = labels


# -- provider operations ---------------------------------------------------------------------------

_M = TypeVar("_M")


class _MeteredManager:
    """A network manager whose coroutine methods are timed into
    ``osac_network_provider_operation_seconds{manager, operation, result}``; everything else
    is the manager's own."""

    def __init__(self, manager: Any) -> None:
        self._manager = manager
        self._name = str(getattr(manager, "name", type(manager).__name__))

    def __getattr__(self, attribute: str) -> Any:
        value = getattr(self._manager, attribute)
        if not inspect.iscoroutinefunction(value):
            return value
        return self._timed(attribute, value)

    def _timed(self, operation: str, method: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
        async def call(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                value = await method(*args, **kwargs)
            except TerminalProviderError:
                self._observe(operation, "terminal", started)
                raise
            except ProviderError:
                self._observe(operation, "transient", started)
                raise
            except Exception:
                self._observe(operation, "error", started)
                raise
            self._observe(operation, "ok", started)
            return value

        return call

    def _observe(self, operation: str, result: str, started: float) -> None:
        PROVIDER_OPERATION_SECONDS.labels(self._name, operation, result).observe(time.perf_counter() - started)


def metered(manager: _M) -> _M:
    """``manager`` with every call timed (see ``_MeteredManager``); typed as the manager."""
    return _MeteredManager(manager)  # type: ignore[return-value]


# -- the object population -------------------------------------------------------------------------

#: How often the lease holder recomputes ``osac_networking_objects``.
GAUGE_INTERVAL = timedelta(seconds=15)



def state_label(kind_name: str, number: int) -> str:
    """``FAILED`` for a subnet's 3; the raw number for a state this build does not know."""
    full = registry.get(kind_name).state_name(number)
    return full.split("_STATE_", 1)[-1] if "_STATE_" in full else full


async def count_by_state(store: Store, kind_name: str) -> dict[str, int]:
    """Live objects of ``kind_name`` per state label, every state of the kind included (0 when
    none): one aggregate query, no object is read."""
    kind = registry.get(kind_name)
    counts = {state_label(kind_name, value.number): 0 for value in (kind.state_enum.values if kind.state_enum else ())
              if value.number != 0}
    async with store.read(snapshot=False) as tx:
        by_number = await tx.count_by_state(kind)
    for number, count in by_number.items():
        label = state_label(kind_name, number)
        counts[label] = counts.get(label, 0) + count
    return counts


async def refresh_networking_objects(store: Store, held: Iterable[str]) -> None:
    """Recompute ``osac_networking_objects`` for the networking kinds in ``held`` (whose lease
    this process holds); the series of the other kinds are removed, their holder reports them."""
    held = frozenset(held)
    for kind_name in NETWORKING_KINDS:
        counts = await count_by_state(store, kind_name) if kind_name in held else {}
        state_enum = registry.get(kind_name).state_enum
        assert state_enum is not None  # every networking kind has a lifecycle
        for value in state_enum.values:
            label = state_label(kind_name, value.number)
            if label in counts:
                NETWORKING_OBJECTS.labels(kind_name, label).set(counts.pop(label))
            else:
                remove_series(NETWORKING_OBJECTS, kind_name, label)
        for label, count in counts.items():  # a state number this build does not know
            NETWORKING_OBJECTS.labels(kind_name, label).set(count)


async def follow_networking_objects(store: Store, held: Callable[[], frozenset[str]],
                                    interval: timedelta = GAUGE_INTERVAL) -> None:
    """Refresh ``osac_networking_objects`` every ``interval`` for the kinds ``held()`` names,
    for the life of the process."""
    while True:
        try:
            await refresh_networking_objects(store, held())
        except Exception as error:  # the gauge waits for the next round; the controllers go on
            raise_if_cancelled(error)
            log.warning("networking object gauges could not be refreshed", exc_info=True)
        await asyncio.sleep(interval.total_seconds())
