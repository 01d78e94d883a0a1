"""``osac_ip_allocation_failures_total`` (networking.md §13): every request refused for lack of
addresses, by address space and by the path that asked (a manual create, an automatic external
IP, default tenant networking)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from prometheus_client import Counter

ALLOCATION_FAILURES = Counter(
    "osac_ip_allocation_failures_total",
    "Address allocations refused for lack of capacity.",
    ["space", "path"],
)

WORKLOAD, VIP, EXTERNAL = "workload", "vip", "external"
MANUAL, AUTO, DEFAULT = "manual", "auto", "default"

# Every combination is exported from zero, so the first refusal is an increase Prometheus sees.
for _space in (WORKLOAD, VIP, EXTERNAL):
    for _path in (MANUAL, AUTO, DEFAULT):
        ALLOCATION_FAILURES.labels(_space, _path)

_PATH: ContextVar[str] = ContextVar("osac_allocation_path", default=MANUAL)


@contextmanager
def allocation_path(path: str) -> Iterator[None]:
    """Allocations inside the block are counted under ``path`` (``auto`` or ``default``)."""
    token = _PATH.set(path)
    try:
        yield
    finally:
        _PATH.reset(token)


def current_path() -> str:
    """The path allocations are counted under here (to count a reservation made later, at commit)."""
    return _PATH.get()


def count_failure(space: str) -> None:
    ALLOCATION_FAILURES.labels(space, _PATH.get()).inc()
