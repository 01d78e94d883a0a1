"""API request metrics (Prometheus), shared by the gRPC and REST front ends, and the serving
process's objects set aside from the garbage collector (``osac.cli.serve.settle_collector``)."""

from __future__ import annotations

import gc
import time
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache

from prometheus_client import Counter, Gauge, Histogram

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

FROZEN_OBJECTS = Gauge(
    "osac_gc_frozen_objects",
    "Objects the garbage collector no longer scans: what the process built to start, set aside once it "
    "serves (docs/deploy.md, Garbage collection).",
)
FROZEN_OBJECTS.set_function(gc.get_freeze_count)


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
        _latency(transport, api, service, method).observe(time.perf_counter() - started)
        _requests(transport, api, service, method, outcome.code).inc()


# A child per set of label values, looked up once: ``labels()`` checks and locks at every call.
# The values come from the API's own services, methods and codes, so there are a few hundred.
@cache
def _latency(transport: str, api: str, service: str, method: str) -> Histogram:
    return LATENCY.labels(transport, api, service.rsplit(".", 1)[-1], method)


@cache
def _requests(transport: str, api: str, service: str, method: str, code: str) -> Counter:
    return REQUESTS.labels(transport, api, service.rsplit(".", 1)[-1], method, code)
