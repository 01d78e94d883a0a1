"""API request metrics (Prometheus), shared by the gRPC and REST front ends."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

from prometheus_client import Counter, Histogram

REQUESTS = Counter(
    "osac_api_requests_total",
    "API requests by transport, API, service, method and result code.",
    ["transport", "api", "service", "method", "code"],
)
LATENCY = Histogram(
    "osac_api_request_duration_seconds",
    "API request handling time (streams: time to open).",
    ["transport", "api", "service", "method"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
)


class Outcome:
    """The result code of one request, set by the handler (``OK`` unless told otherwise)."""

    def __init__(self) -> None:
        self.code = "OK"


@contextmanager
def observe(transport: str, private: bool, service: str, method: str) -> Iterator[Outcome]:
    outcome = Outcome()
    api = "private" if private else "public"
    started = time.perf_counter()
    try:
        yield outcome
    except BaseException:
        if outcome.code == "OK":
            outcome.code = "INTERNAL"
        raise
    finally:
        short = service.rsplit(".", 1)[-1]
        LATENCY.labels(transport, api, short, method).observe(time.perf_counter() - started)
        REQUESTS.labels(transport, api, short, method, outcome.code).inc()
