"""Prometheus metrics of the controller runtime.

``osac_reconcile_total{kind, outcome}``
    One increment per finished reconcile; ``outcome`` is an `Outcome` value.
``osac_reconcile_duration_seconds{kind}``
    How long reconcile() ran (by the injected clock's monotonic time).
``osac_workqueue_depth{kind}``
    Keys waiting for a worker (not counting keys being reconciled or waiting on a timer).

Production uses the process-wide default registry through `default_metrics()`; tests pass their
own `CollectorRegistry` so that every test starts from zero and no name is registered twice.
"""

from __future__ import annotations

from enum import StrEnum

from prometheus_client import REGISTRY, CollectorRegistry, Counter, Gauge, Histogram

#: Reconciles call providers, so the buckets reach further than prometheus_client's default 10 s.
DURATION_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0)


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
