"""Prometheus metrics of the networking reconcilers (networking.md §13)."""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

PROVIDER_OPERATION_SECONDS = Histogram(
    "osac_network_provider_operation_seconds",
    "Duration of fabric / k8s manager calls made by the reconcilers.",
    ["kind", "operation", "result"],
    buckets=(0.005, 0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60),
)
READY_SECONDS = Histogram(
    "osac_networking_ready_seconds",
    "Time from an object's creation to its first READY (ALLOCATED for ExternalIPs).",
    ["kind"],
    buckets=(0.1, 0.5, 1, 2, 5, 10, 30, 60, 120, 300),
)
CLEANUP_FAILURES = Counter(
    "osac_network_cleanup_failures_total",
    "Networking objects whose teardown failed past the retry limit (DELETE_FAILED).",
    ["type"],
)
POOL_ADDRESSES = Gauge(
    "osac_external_ip_pool_addresses",
    "External addresses per pool and state (total / allocated / available).",
    ["pool", "state"],
)
POOL_UTILIZATION = Gauge(
    "osac_external_ip_pool_utilization_ratio",
    "allocated / total per external pool.",
    ["pool"],
)
