"""What blocks a delete (networking.md §4): every kind of live dependent, with its count and
the first few names, in one FailedPrecondition message.

One kind reads as before: ``cannot delete Subnet 'app': 1 Cluster(s) still reference it: c6``.
Several kinds are all named, in the order found:
``cannot delete Subnet 'app': 1 Cluster(s) still reference it: c6; and 1 ComputeInstance(s): web1``.
A kind that references the object through several fields is counted once per field (its names
are listed once).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from osac.services.core.errors import FailedPrecondition

#: Names shown per kind of dependent.
NAMES_SHOWN = 5


@dataclass
class Dependents:
    """Dependents found so far, per kind (its API message name)."""

    counts: dict[str, int] = field(default_factory=dict)
    names: dict[str, list[str]] = field(default_factory=dict)

    def add(self, kind_message: str, count: int, names: Sequence[str]) -> None:
        if not count:
            return
        self.counts[kind_message] = self.counts.get(kind_message, 0) + count
        shown = self.names.setdefault(kind_message, [])
        shown.extend(name for name in names if name not in shown)
        del shown[NAMES_SHOWN:]

    def check(self, label: str) -> None:
        """:raises FailedPrecondition: naming every kind found, when any was."""
        if not self.counts:
            return
        parts = [f"{count} {kind}(s)" for kind, count in self.counts.items()]
        lists = [", ".join(self.names[kind]) for kind in self.counts]
        first = f"{parts[0]} still reference it: {lists[0]}"
        rest = "".join(f"; and {part}: {names}" for part, names in zip(parts[1:], lists[1:], strict=True))
        raise FailedPrecondition(f"cannot delete {label}: {first}{rest}")
