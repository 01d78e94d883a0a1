"""Prometheus metrics of the controller runtime.

``osac_reconcile_total{kind, outcome}``
    One increment per finished reconcile; ``outcome`` is an `Outcome` value.
``osac_reconcile_duration_seconds{kind}``
    How long reconcile() ran (by the injected clock's monotonic time).
``osac_workqueue_depth{kind}``
    Keys waiting for a worker (not counting keys being reconciled or waiting on a timer).
``osac_workqueue_oldest_seconds{kind}``
    How long the key that has waited longest for a worker has waited (0: none waits). A
    controller that keeps up holds it near zero; one over capacity shows it growing.
``osac_reconcile_cpu_seconds{kind}``
    The process's CPU time while a pass ran (with several workers busy it also holds their
    interleaved work, so its sum over-counts; ``rate(_sum) / rate(_count)`` is an upper bound of
    the CPU per pass).
``osac_reconcile_statements{kind}``
    Database statements one pass sent (``store/cost.py``).

Passes per second are ``rate(osac_reconcile_total[1m])``.

Production uses the process-wide default registry through `default_metrics()`; tests pass their
own `CollectorRegistry` so that every test starts from zero and no name is registered twice.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum

from prometheus_client import REGISTRY, CollectorRegistry, Counter, Gauge, Histogram

from osac.store.cost import PassCost

#: Reconciles call providers, so the buckets reach further than prometheus_client's default 10 s.
DURATION_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0)
CPU_BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 1.0)
STATEMENT_BUCKETS = (0, 1, 2, 4, 6, 8, 12, 16, 24, 32, 64, 128)


class Outcome(StrEnum):
    """How one reconcile ended (the ``outcome`` label)."""

    SUCCESS = "success"
    REQUEUE = "requeue"
    TRANSIENT_ERROR = "transient_error"
    TERMINAL_ERROR = "terminal_error"
    ERROR = "error"


class ControllerMetrics:
    def __init__(self, registry: CollectorRegistry = REGISTRY) -> None:
        self.reconcile_total = Counter(
            "osac_reconcile_total",
            "Finished reconciles by kind and outcome.",
            ["kind", "outcome"],
            registry=registry,
        )
        self.reconcile_duration = Histogram(
            "osac_reconcile_duration_seconds",
            "Duration of reconcile calls.",
            ["kind"],
            buckets=DURATION_BUCKETS,
            registry=registry,
        )
        self.workqueue_depth = Gauge(
            "osac_workqueue_depth",
            "Keys queued for a worker.",
            ["kind"],
            registry=registry,
        )

        self.workqueue_oldest = Gauge(
            "osac_workqueue_oldest_seconds",
            "Seconds the longest-waiting queued key has waited for a worker.",
            ["kind"],
            registry=registry,
        )
        self.reconcile_cpu = Histogram(
            "osac_reconcile_cpu_seconds",
            "Process CPU time while a reconcile ran.",
            ["kind"],
            buckets=CPU_BUCKETS,
            registry=registry,
        )
        self.reconcile_statements = Histogram(
            "osac_reconcile_statements",
            "Database statements sent by one reconcile.",
            ["kind"],
            buckets=STATEMENT_BUCKETS,
            registry=registry,
        )

    def follow_queue(self, kind: str, oldest_wait: Callable[[], float]) -> None:
        """Report ``oldest_wait()`` as the kind's oldest waiting key's age at every scrape."""
        self.workqueue_oldest.labels(kind=kind).set_function(oldest_wait)

    def record_cost(self, kind: str, cost: PassCost) -> None:
        self.reconcile_cpu.labels(kind=kind).observe(max(cost.cpu_seconds, 0.0))
        self.reconcile_statements.labels(kind=kind).observe(cost.statements)

    def record(self, kind: str, outcome: Outcome, seconds: float) -> None:
        self.reconcile_total.labels(kind=kind, outcome=outcome.value).inc()
        self.reconcile_duration.labels(kind=kind).observe(max(seconds, 0.0))

    def set_depth(self, kind: str, depth: int) -> None:
        self.workqueue_depth.labels(kind=kind).set(depth)


_default: ControllerMetrics | None = None


def default_metrics() -> ControllerMetrics:
    """The metrics on the default registry, created on first use (registering twice would fail)."""
    global _default
    if _default is None:
        _default = ControllerMetrics()
    return _default
